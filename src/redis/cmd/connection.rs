//! PING, ECHO, SELECT, AUTH, QUIT and the CLIENT subcommands clients send on connecting
//! (HELLO has a file of its own).

use super::{Ctx, arg};
use crate::redis::keyspace::DATABASES;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// PING [message]: `+PONG`, or the message as a bulk. More than one argument is an arity
/// error, which `pingCommand` checks itself (its table arity is -1).
pub(super) fn ping(args: &[Vec<u8>]) -> Frame {
    match args {
        [_] => Frame::Simple(b"PONG".to_vec()),
        [_, message] => Frame::Bulk(message.clone()),
        _ => replies::wrong_arity("ping"),
    }
}

/// ECHO message.
pub(super) fn echo(args: &[Vec<u8>]) -> Frame {
    Frame::Bulk(arg(args, 1).to_vec())
}

/// SELECT index: the connection's database from now on, one of [`DATABASES`].
pub(super) fn select(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(index) = parse_i64(arg(args, 1)) else {
        return replies::not_an_integer();
    };
    if i32::try_from(index).is_err() {
        return replies::error(
            b"value is out of range, value must between -2147483648 and 2147483647",
        );
    }
    match usize::try_from(index) {
        Ok(db) if db < DATABASES => {
            ctx.conn.db = db;
            replies::ok()
        }
        _ => replies::error(b"DB index is out of range"),
    }
}

/// QUIT: `+OK`, then the connection closes.
pub(super) fn quit(ctx: &mut Ctx<'_>) -> Frame {
    ctx.close = true;
    replies::ok()
}

/// CLIENT ID.
pub(super) fn client_id(ctx: &Ctx<'_>) -> Frame {
    Frame::Integer(i64::try_from(ctx.conn.id).unwrap_or(i64::MAX))
}

/// CLIENT SETNAME name.
pub(super) fn client_setname(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
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
pub(super) fn client_getname(ctx: &Ctx<'_>) -> Frame {
    match &ctx.conn.name {
        Some(name) => Frame::Bulk(name.clone()),
        None => Frame::Null,
    }
}

/// AUTH [username] password, as Redis 7.0 answers it with only the default user and no
/// password: the one-argument form is refused, `default` with any password is fine, any
/// other user is refused.
pub(super) fn auth(args: &[Vec<u8>]) -> Frame {
    match args {
        [_, _] => replies::error(
            b"AUTH <password> called without any password configured for the default user. \
              Are you sure your configuration is correct?",
        ),
        [_, user, _] if user.as_slice() == b"default" => replies::ok(),
        [_, _, _] => replies::wrong_pass(),
        _ => replies::syntax_error(),
    }
}
