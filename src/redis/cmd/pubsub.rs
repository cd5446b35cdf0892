//! SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB and the pub/sub form of
//! PING (Redis 7.0.15's pubsub.c). A (un)subscription's confirmations are pushes (arrays
//! in RESP2), one per channel: all but the last go to the outbox for the caller, which the
//! server writes ahead of the reply. Messages go to the outbox for their subscribers.

use super::{Ctx, arg};
use crate::redis::clients::subscriptions::Kind;
use crate::redis::cstr::is;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::{Frame, Protocol};

fn bulk(b: &[u8]) -> Frame {
    Frame::Bulk(b.to_vec())
}

/// The confirmation `addReplyPubsub(Un)Subscribed` writes: `[kind, name, count]`.
fn confirmation(what: &[u8], name: Option<&[u8]>, count: usize) -> Frame {
    Frame::Push(vec![
        bulk(what),
        name.map_or(Frame::Null, bulk),
        Frame::Integer(i64::try_from(count).unwrap_or(i64::MAX)),
    ])
}

/// Several replies for the caller: all but the last through the outbox, which the server
/// writes ahead of the command's own reply, the last as the reply.
fn replies_in_order(ctx: &mut Ctx<'_>, mut frames: Vec<Frame>) -> Frame {
    let last = frames.pop().unwrap_or(Frame::Null);
    for frame in frames {
        ctx.clients.send(ctx.conn.id, frame);
    }
    last
}

/// SUBSCRIBE channel... / PSUBSCRIBE pattern...
pub(super) fn subscribe(ctx: &mut Ctx<'_>, args: &[Vec<u8>], kind: Kind) -> Frame {
    let what: &[u8] = match kind {
        Kind::Channel => b"subscribe",
        Kind::Pattern => b"psubscribe",
    };
    let id = ctx.conn.id;
    let frames = args
        .iter()
        .skip(1)
        .map(|name| {
            ctx.clients.subs.subscribe(kind, id, name);
            confirmation(what, Some(name), ctx.clients.subs.count(id))
        })
        .collect();
    replies_in_order(ctx, frames)
}

/// UNSUBSCRIBE [channel...] / PUNSUBSCRIBE [pattern...]: without names, from everything
/// it listens to; listening to nothing, one confirmation with a null name.
pub(super) fn unsubscribe(ctx: &mut Ctx<'_>, args: &[Vec<u8>], kind: Kind) -> Frame {
    let what: &[u8] = match kind {
        Kind::Channel => b"unsubscribe",
        Kind::Pattern => b"punsubscribe",
    };
    let id = ctx.conn.id;
    let names = match args.get(1..) {
        Some(names) if !names.is_empty() => names.to_vec(),
        _ => ctx.clients.subs.of(kind, id),
    };
    if names.is_empty() {
        return confirmation(what, None, ctx.clients.subs.count(id));
    }
    let frames = names
        .iter()
        .map(|name| {
            ctx.clients.subs.unsubscribe(kind, id, name);
            confirmation(what, Some(name), ctx.clients.subs.count(id))
        })
        .collect();
    replies_in_order(ctx, frames)
}

/// PUBLISH channel message: how many clients received it (pattern matches counted).
/// Redis also sends it to replicas, whose own subscribers would receive it; a simulated
/// replica has no clients, so nothing is propagated.
pub(super) fn publish(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let messages = ctx.clients.subs.publish(arg(args, 1), arg(args, 2));
    let receivers = messages.len();
    for (client, frame) in messages {
        ctx.clients.send(client, frame);
    }
    Frame::Integer(i64::try_from(receivers).unwrap_or(i64::MAX))
}

/// PUBSUB CHANNELS [pattern].
pub(super) fn channels(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let pattern = args.get(2).map(Vec::as_slice);
    let names = ctx.clients.subs.channels(pattern);
    Frame::Array(names.into_iter().map(Frame::Bulk).collect())
}

/// PUBSUB NUMSUB [channel...]: each channel and its subscribers, flat.
pub(super) fn numsub(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut items = Vec::new();
    for channel in args.iter().skip(2) {
        let n = ctx.clients.subs.numsub(channel);
        items.push(bulk(channel));
        items.push(Frame::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
    }
    Frame::Array(items)
}

/// PUBSUB NUMPAT.
pub(super) fn numpat(ctx: &Ctx<'_>) -> Frame {
    Frame::Integer(i64::try_from(ctx.clients.subs.numpat()).unwrap_or(i64::MAX))
}

/// PING from a RESP2 client in pub/sub mode: `["pong", message or ""]`, as a push would be;
/// `None` for everyone else.
pub(super) fn subscribed_ping(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Option<Frame> {
    let subscribed = ctx.conn.proto == Protocol::Resp2 && ctx.clients.subscribed(ctx.conn.id);
    match args {
        [_] if subscribed => Some(Frame::Array(vec![bulk(b"pong"), bulk(b"")])),
        [_, message] if subscribed => Some(Frame::Array(vec![bulk(b"pong"), bulk(message)])),
        _ => None,
    }
}

/// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id...] (`clientListCommand`).
pub(super) fn client_list(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
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
pub(super) fn client_info(ctx: &Ctx<'_>) -> Frame {
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
