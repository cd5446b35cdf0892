//! HELLO [protover [AUTH username password] [SETNAME clientname]] (networking.c's
//! `helloCommand`): switches the connection's protocol and answers with a map about the
//! server, in the protocol it switched to.

use super::client::set_name;
use super::table::{CommandSpec, FAST, NOSCRIPT, STALE, spec};
use super::{Ctx, arg};
use crate::redis::cstr::{cstr, is};
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::{Frame, Protocol};
use crate::redis::role::Role;

/// HELLO.
pub(super) static COMMANDS: &[CommandSpec] =
    &[spec("hello", -1, NOSCRIPT.and(STALE).and(FAST), hello)];

/// The version HELLO reports, as INFO does.
const VERSION: &[u8] = b"7.0.15";

/// `helloCommand`. The version comes first (2 or 3, else NOPROTO); the options are taken in
/// order, each acting at once, so an option that fails after a SETNAME leaves the name set.
/// The simulated server has only Redis's default user, without a password: AUTH succeeds
/// for `default` with any password and fails for any other name.
fn hello(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut proto = None;
    if let Some(version) = args.get(1) {
        proto = match parse_i64(version) {
            None => return replies::error(b"Protocol version is not an integer or out of range"),
            Some(2) => Some(Protocol::Resp2),
            Some(3) => Some(Protocol::Resp3),
            Some(_) => return replies::error(b"-NOPROTO unsupported protocol version"),
        };
    }
    let mut j = 2;
    while let Some(opt) = args.get(j) {
        let more = args.len() - 1 - j;
        if is(opt, "auth") && more >= 2 {
            if arg(args, j + 1) != b"default" {
                return replies::wrong_pass();
            }
            j += 3;
        } else if is(opt, "setname") && more >= 1 {
            if let Err(reply) = set_name(ctx, arg(args, j + 1)) {
                return reply;
            }
            j += 2;
        } else {
            let msg = [&b"Syntax error in HELLO option '"[..], cstr(opt), b"'"].concat();
            return replies::error_format(&msg);
        }
    }
    if let Some(proto) = proto {
        ctx.conn.proto = proto;
    }
    let number = |n: u64| Frame::Integer(i64::try_from(n).unwrap_or(i64::MAX));
    let text = |s: &[u8]| Frame::Bulk(s.to_vec());
    let role: &[u8] = match ctx.role {
        Role::Master => b"master",
        Role::Replica => b"replica",
    };
    let proto = match ctx.conn.proto {
        Protocol::Resp2 => 2,
        Protocol::Resp3 => 3,
    };
    Frame::Map(vec![
        (text(b"server"), text(b"redis")),
        (text(b"version"), text(VERSION)),
        (text(b"proto"), number(proto)),
        (text(b"id"), number(ctx.conn.id)),
        (text(b"mode"), text(b"standalone")),
        (text(b"role"), text(role)),
        (text(b"modules"), Frame::Array(Vec::new())),
    ])
}
