//! CLIENT and the subcommands clients send on connecting (ID, SETNAME, GETNAME) or to see
//! who is connected (INFO, LIST, as the registry of clients shows them).

use super::table::{CommandSpec, NOSCRIPT, STALE, container, spec};
use super::{Ctx, arg};
use crate::redis::cstr::is;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// CLIENT: a container, all its subcommands refused to scripts.
pub(super) static COMMANDS: &[CommandSpec] = &[container(
    "client",
    -2,
    &[
        spec("client|id", 2, NOSCRIPT.and(STALE), |ctx, _| client_id(ctx)),
        spec("client|setname", 3, NOSCRIPT.and(STALE), client_setname),
        spec("client|getname", 2, NOSCRIPT.and(STALE), |ctx, _| {
            client_getname(ctx)
        }),
        spec("client|info", 2, NOSCRIPT.and(STALE), |ctx, _| {
            client_info(ctx)
        }),
        spec("client|list", -2, NOSCRIPT.and(STALE), |ctx, args| {
            client_list(ctx, args)
        }),
    ],
)];

/// CLIENT ID.
fn client_id(ctx: &Ctx<'_>) -> Frame {
    Frame::Integer(i64::try_from(ctx.conn.id).unwrap_or(i64::MAX))
}

/// CLIENT SETNAME name.
fn client_setname(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match set_name(ctx, arg(args, 2)) {
        Ok(()) => replies::ok(),
        Err(reply) => reply,
    }
}

/// `clientSetName`, for CLIENT SETNAME and HELLO's SETNAME: printable ASCII without
/// spaces; an empty name removes the name.
pub(super) fn set_name(ctx: &mut Ctx<'_>, name: &[u8]) -> Result<(), Frame> {
    if !name.iter().all(|b| (b'!'..=b'~').contains(b)) {
        return Err(replies::error(
            b"Client names cannot contain spaces, newlines or special characters.",
        ));
    }
    ctx.conn.name = (!name.is_empty()).then(|| name.to_vec());
    Ok(())
}

/// CLIENT GETNAME: the name, or the null bulk.
fn client_getname(ctx: &Ctx<'_>) -> Frame {
    match &ctx.conn.name {
        Some(name) => Frame::Bulk(name.clone()),
        None => Frame::Null,
    }
}

/// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id...] (`clientListCommand`).
fn client_list(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let ids: Vec<u64> = if args.len() == 4 && is(arg(args, 2), "type") {
        let kind = arg(args, 3);
        let pubsub = if is(kind, "pubsub") {
            true
        } else if is(kind, "normal") {
            false
        } else if is(kind, "master") || is(kind, "replica") || is(kind, "slave") {
            return listing(ctx, Vec::new());
        } else {
            let mut msg = b"Unknown client type '".to_vec();
            msg.extend_from_slice(kind);
            msg.push(b'\'');
            return replies::error_format(&msg);
        };
        let subs = |id: &u64| ctx.clients.subscribed(*id);
        ctx.clients.ids().filter(|id| subs(id) == pubsub).collect()
    } else if args.len() >= 4 && is(arg(args, 2), "id") {
        let mut ids = Vec::new();
        for id in args.iter().skip(3) {
            // Any integer will do; those no client has list nothing.
            match parse_i64(id) {
                Some(id) => ids.extend(u64::try_from(id).ok()),
                None => return replies::error(b"Invalid client ID"),
            }
        }
        ids
    } else if args.len() != 2 {
        return replies::syntax_error();
    } else {
        ctx.clients.ids().collect()
    };
    listing(ctx, ids)
}

/// CLIENT INFO: the caller's own line.
fn client_info(ctx: &Ctx<'_>) -> Frame {
    listing(ctx, vec![ctx.conn.id])
}

fn listing(ctx: &Ctx<'_>, ids: Vec<u64>) -> Frame {
    let text: String = ids
        .into_iter()
        .filter_map(|id| ctx.clients.line(id, ctx.now))
        .collect();
    Frame::Verbatim {
        format: *b"txt",
        text: text.into_bytes(),
    }
}
