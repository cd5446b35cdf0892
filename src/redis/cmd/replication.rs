//! WAIT numreplicas timeout (Redis 7.0.15's replication.c): how many replicas have
//! acknowledged the connection's last write, at once when enough have (or inside MULTI),
//! else once enough do or the timeout passes. A simulated master has at most one replica,
//! which acknowledges each command as it applies it; `serve redis` has none.

use super::table::{CommandSpec, NOSCRIPT, spec};
use super::{Ctx, arg};
use crate::redis::clients::{Blocked, Then};
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::role::Role;

/// WAIT.
pub(super) static COMMANDS: &[CommandSpec] = &[spec("wait", 3, NOSCRIPT, wait)];

/// `waitCommand`.
fn wait(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    if ctx.role == Role::Replica {
        return replies::error(
            b"WAIT cannot be used with replica instances. Please also note that since Redis 4.0 \
              if a replica is configured to be writable (which is not the default) writes to \
              replicas are just local and are not propagated.",
        );
    }
    let Some(replicas) = parse_i64(arg(args, 1)) else {
        return replies::not_an_integer();
    };
    let deadline_ms = match parse_i64(arg(args, 2)) {
        None => return replies::error(b"timeout is not an integer or out of range"),
        Some(ms) if ms < 0 => return replies::error(b"timeout is negative"),
        Some(0) => None,
        Some(ms) => Some(ctx.wall().saturating_add(ms)),
    };
    let acked = ctx.acked_replicas;
    if acked >= replicas || ctx.conn.deny_blocking {
        return Frame::Integer(acked);
    }
    let blocked = Blocked {
        db: ctx.conn.db,
        keys: Vec::new(),
        then: Then::Acks {
            replicas,
            offset: ctx.conn.woff,
        },
        deadline_ms,
    };
    ctx.clients.block(ctx.conn.id, blocked);
    Frame::Integer(acked)
}
