//! BLPOP, BRPOP and BLMOVE (Redis 7.0.15's t_list.c and blocked.c): served at once when a
//! key holds a list, and then propagated as the LPOP / RPOP they did; otherwise the client
//! blocks (the server answers nothing until a push or the timeout), except inside MULTI
//! or a script, where they answer the null reply at once.

use super::list::{End, end, move_one};
use super::table::{CommandSpec, Keys, NOSCRIPT, OOM, W, keyed};
use super::{Ctx, arg};
use crate::redis::clients::{Blocked, Then};
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::value::list::List;

/// The blocking pops. Their keys are listed for the history, which reads propagated commands:
/// the pops they did, or an immediate BLMOVE.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed(
        "blpop",
        -3,
        W.and(NOSCRIPT),
        Keys::AllButLast,
        |ctx, args| bpop(ctx, args, End::Left),
    ),
    keyed(
        "brpop",
        -3,
        W.and(NOSCRIPT),
        Keys::AllButLast,
        |ctx, args| bpop(ctx, args, End::Right),
    ),
    keyed("blmove", 6, W.and(OOM).and(NOSCRIPT), Keys::Two, blmove),
];

/// `getTimeoutFromObjectOrReply` in seconds: the deadline on the wall clock (None for 0,
/// which waits forever). Redis 7.0.15 casts the milliseconds to a C `long long`, so a
/// timeout too large for one comes out negative.
fn deadline(ctx: &Ctx<'_>, text: &[u8]) -> Result<Option<i64>, Frame> {
    let not_a_float = || replies::error(b"timeout is not a float or out of range");
    let seconds: f64 = std::str::from_utf8(text)
        .ok()
        .filter(|t| !t.starts_with(|c: char| c.is_ascii_whitespace()))
        .and_then(|t| t.parse().ok())
        .filter(|s: &f64| !s.is_nan())
        .ok_or_else(not_a_float)?;
    let ms = (seconds * 1000.0).ceil();
    // 2^63: the first value a long long cannot hold, which the cast turns negative.
    if !(0.0..9_223_372_036_854_775_808.0).contains(&ms) {
        return Err(replies::error(b"timeout is negative"));
    }
    let ms = ms as i64;
    Ok((ms > 0).then(|| ctx.wall().saturating_add(ms)))
}

/// BLPOP / BRPOP key... timeout: `[key, element]` from the first key that holds a list.
fn bpop(ctx: &mut Ctx<'_>, args: &[Vec<u8>], from: End) -> Frame {
    let deadline_ms = match deadline(ctx, arg(args, args.len() - 1)) {
        Ok(deadline) => deadline,
        Err(e) => return e,
    };
    let keys = &args[1..args.len() - 1];
    let pop: &'static [u8] = match from {
        End::Left => b"LPOP",
        End::Right => b"RPOP",
    };
    for key in keys {
        let list = match ctx.lookup_as_mut::<List>(key) {
            Ok(Some(list)) => list,
            Ok(None) => continue,
            Err(e) => return e,
        };
        let item = match from {
            End::Left => list.pop_front(),
            End::Right => list.pop_back(),
        };
        let Some(item) = item else { continue };
        ctx.modified(key);
        ctx.rewrite = Some(vec![pop.to_vec(), key.clone()]);
        return Frame::Array(vec![Frame::Bulk(key.clone()), Frame::Bulk(item)]);
    }
    if ctx.conn.deny_blocking {
        return Frame::NullArray;
    }
    let blocked = Blocked {
        db: ctx.conn.db,
        keys: keys.to_vec(),
        then: Then::Pop(pop),
        deadline_ms,
    };
    ctx.clients.block(ctx.conn.id, blocked);
    Frame::NullArray
}

/// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout: LMOVE's reply at once when the
/// source holds a list (propagated as the BLMOVE it is, as Redis does).
fn blmove(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let ends = end(arg(args, 3)).and_then(|from| Ok((from, end(arg(args, 4))?)));
    let (from, to) = match ends {
        Ok(ends) => ends,
        Err(e) => return e,
    };
    let deadline_ms = match deadline(ctx, arg(args, 5)) {
        Ok(deadline) => deadline,
        Err(e) => return e,
    };
    let source = arg(args, 1);
    match ctx.lookup_as::<List>(source) {
        Ok(Some(_)) => return move_one(ctx, source, arg(args, 2), from, to),
        Ok(None) => {}
        Err(e) => return e,
    }
    if ctx.conn.deny_blocking {
        return Frame::Null;
    }
    let side = |end: End| match end {
        End::Left => b"LEFT".to_vec(),
        End::Right => b"RIGHT".to_vec(),
    };
    let blocked = Blocked {
        db: ctx.conn.db,
        keys: vec![source.to_vec()],
        then: Then::Move(vec![arg(args, 2).to_vec(), side(from), side(to)]),
        deadline_ms,
    };
    ctx.clients.block(ctx.conn.id, blocked);
    Frame::Null
}
