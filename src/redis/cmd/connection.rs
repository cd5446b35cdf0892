//! PING, ECHO, SELECT, AUTH and QUIT (HELLO and CLIENT have files of their own).

use super::pubsub::subscribed_ping;
use super::table::{CommandSpec, FAST, NOSCRIPT, STALE, spec};
use super::{Ctx, arg};
use crate::redis::keyspace::DATABASES;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// The connection commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    spec("ping", -1, FAST, |ctx, args| {
        subscribed_ping(ctx, args).unwrap_or_else(|| ping(args))
    }),
    spec("echo", 2, STALE.and(FAST), |_, args| echo(args)),
    spec("select", 2, STALE.and(FAST), select),
    spec("quit", -1, NOSCRIPT.and(STALE).and(FAST), |ctx, _| {
        quit(ctx)
    }),
    spec("auth", -2, NOSCRIPT.and(STALE).and(FAST), |_, args| {
        auth(args)
    }),
];

/// PING [message]: `+PONG`, or the message as a bulk. More than one argument is an arity
/// error, which `pingCommand` checks itself (its table arity is -1).
fn ping(args: &[Vec<u8>]) -> Frame {
    match args {
        [_] => Frame::Simple(b"PONG".to_vec()),
        [_, message] => Frame::Bulk(message.clone()),
        _ => replies::wrong_arity("ping"),
    }
}

/// ECHO message.
fn echo(args: &[Vec<u8>]) -> Frame {
    Frame::Bulk(arg(args, 1).to_vec())
}

/// SELECT index: the connection's database from now on, one of [`DATABASES`].
fn select(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
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
fn quit(ctx: &mut Ctx<'_>) -> Frame {
    ctx.close = true;
    replies::ok()
}

/// AUTH [username] password, as Redis 7.0 answers it with only the default user and no
/// password: the one-argument form is refused, `default` with any password is fine, any
/// other user is refused.
fn auth(args: &[Vec<u8>]) -> Frame {
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
