//! The string commands beyond SET and GET (t_string.c): the counters INCR, INCRBY, DECR,
//! DECRBY; GETDEL, GETEX, GETSET; MGET, MSET, MSETNX; APPEND and STRLEN.

use super::set::{self, OptionsOf, Unit};
use super::table::{ALL, CommandSpec, FAST, Keys, ONE, OOM, R, W, keyed};
use super::{Ctx, arg};
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// The string commands beyond SET and GET.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("incr", 2, W.and(OOM).and(FAST), ONE, |ctx, args| {
        incr(ctx, args, Step::Fixed(1))
    }),
    keyed("incrby", 3, W.and(OOM).and(FAST), ONE, |ctx, args| {
        incr(ctx, args, Step::By)
    }),
    keyed("decr", 2, W.and(OOM).and(FAST), ONE, |ctx, args| {
        incr(ctx, args, Step::Fixed(-1))
    }),
    keyed("decrby", 3, W.and(OOM).and(FAST), ONE, |ctx, args| {
        incr(ctx, args, Step::DecrBy)
    }),
    keyed("getdel", 2, W.and(FAST), ONE, getdel),
    keyed("getex", -2, W.and(FAST), ONE, getex),
    keyed("getset", 3, W.and(OOM).and(FAST), ONE, getset),
    keyed("mget", -2, R.and(FAST), ALL, mget),
    keyed("mset", -3, W.and(OOM), Keys::Pairs, |ctx, args| {
        mset(ctx, args, false)
    }),
    keyed("msetnx", -3, W.and(OOM), Keys::Pairs, |ctx, args| {
        mset(ctx, args, true)
    }),
    keyed("append", 3, W.and(OOM).and(FAST), ONE, |ctx, args| {
        append(ctx, args, ctx.max_string)
    }),
    keyed("strlen", 2, R.and(FAST), ONE, strlen),
];

/// INCR, DECR, INCRBY and DECRBY: `by` is the step (DECRBY's argument negated), or the
/// argument to read it from.
#[derive(Clone, Copy)]
enum Step {
    /// INCR (+1) and DECR (-1).
    Fixed(i64),
    /// INCRBY key increment.
    By,
    /// DECRBY key decrement.
    DecrBy,
}

/// `incrDecrCommand`: the new value; a missing key counts from 0 and the deadline stays.
fn incr(ctx: &mut Ctx<'_>, args: &[Vec<u8>], step: Step) -> Frame {
    let by = match step {
        Step::Fixed(n) => n,
        Step::By | Step::DecrBy => match parse_i64(arg(args, 2)) {
            None => return replies::not_an_integer(),
            Some(i64::MIN) if matches!(step, Step::DecrBy) => {
                return replies::error(b"decrement would overflow");
            }
            Some(n) if matches!(step, Step::DecrBy) => -n,
            Some(n) => n,
        },
    };
    let key = arg(args, 1);
    let current = match ctx.lookup_as_mut::<Vec<u8>>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(current) => current,
    };
    let old = match current.as_deref() {
        None => 0,
        Some(value) => match parse_i64(value) {
            Some(n) => n,
            None => return replies::not_an_integer(),
        },
    };
    let Some(new) = old.checked_add(by) else {
        return replies::error(b"increment or decrement would overflow");
    };
    let digits = new.to_string().into_bytes();
    // Changed in place, so the deadline stays.
    match current {
        Some(value) => *value = digits,
        None => ctx.ks.set(key, &digits, false),
    }
    ctx.modified(key);
    Frame::Integer(new)
}

/// GETDEL key: the value, and the key deleted (propagated as DEL).
fn getdel(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    let value = match ctx.lookup_string(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Null,
        Ok(Some(value)) => value.to_vec(),
    };
    ctx.ks.remove(key);
    ctx.dirty += 1;
    ctx.rewrite = Some(vec![b"DEL".to_vec(), key.to_vec()]);
    Frame::Bulk(value)
}

/// GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]: the value, with the deadline
/// changed; propagated as PEXPIREAT, PERSIST, or DEL for a deadline already past.
fn getex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(o) = set::options(args, OptionsOf::GetEx) else {
        return replies::syntax_error();
    };
    let key = arg(args, 1);
    let value = match ctx.lookup_string(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Null,
        Ok(Some(value)) => value.to_vec(),
    };
    let when = match &o.expire {
        Some(expire) => match set::deadline(ctx, expire, "getex") {
            Ok(ms) => Some((ms, expire.unit)),
            Err(reply) => return reply,
        },
        None => None,
    };
    match when {
        Some((ms, Unit::ExAt | Unit::PxAt)) if ms <= ctx.wall() => {
            // `checkAlreadyExpired`: an absolute deadline already past deletes the key.
            ctx.ks.remove(key);
            ctx.dirty += 1;
            ctx.rewrite = Some(vec![b"DEL".to_vec(), key.to_vec()]);
        }
        Some((ms, _)) => {
            ctx.ks.set_expire(key, ctx.clock.from_wall(ms, ctx.now));
            ctx.dirty += 1;
            ctx.rewrite = Some(vec![
                b"PEXPIREAT".to_vec(),
                key.to_vec(),
                ms.to_string().into_bytes(),
            ]);
        }
        None if o.persist && ctx.ks.persist(key) => {
            ctx.dirty += 1;
            ctx.rewrite = Some(vec![b"PERSIST".to_vec(), key.to_vec()]);
        }
        None => {}
    }
    Frame::Bulk(value)
}

/// GETSET key value: the old value (null if none); the new one is set without a deadline
/// and propagated as SET.
fn getset(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let (key, value) = (arg(args, 1), arg(args, 2));
    let old = match ctx.lookup_string(key) {
        Err(wrong_type) => return wrong_type,
        Ok(old) => old.map_or(Frame::Null, |v| Frame::Bulk(v.to_vec())),
    };
    ctx.ks.set(key, value, false);
    ctx.dirty += 1;
    ctx.rewrite = Some(vec![b"SET".to_vec(), key.to_vec(), value.to_vec()]);
    old
}

/// MGET key...: each value, null for a missing key and for one of another type.
fn mget(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let values = args.iter().skip(1).map(|key| match ctx.lookup_string(key) {
        Ok(Some(value)) => Frame::Bulk(value.to_vec()),
        _ => Frame::Null,
    });
    Frame::Array(values.collect())
}

/// MSET key value... (`OK`) and MSETNX (1, or 0 and nothing set if any key exists). Each
/// key's deadline goes.
fn mset(ctx: &mut Ctx<'_>, args: &[Vec<u8>], nx: bool) -> Frame {
    if args.len().is_multiple_of(2) {
        return replies::wrong_arity(if nx { "msetnx" } else { "mset" });
    }
    let pairs = || args.get(1..).unwrap_or_default().chunks_exact(2);
    if nx {
        let keys: Vec<&[u8]> = pairs().map(|pair| arg(pair, 0)).collect();
        if keys.into_iter().any(|key| ctx.lookup(key).is_some()) {
            return Frame::Integer(0);
        }
    }
    for pair in pairs() {
        ctx.ks.set(arg(pair, 0), arg(pair, 1), false);
        ctx.dirty += 1;
    }
    if nx { Frame::Integer(1) } else { replies::ok() }
}

/// APPEND key value: the new length; a missing key is created. The result may not pass
/// `max_string` (proto-max-bulk-len).
fn append(ctx: &mut Ctx<'_>, args: &[Vec<u8>], max_string: usize) -> Frame {
    let (key, tail) = (arg(args, 1), arg(args, 2));
    let value = match ctx.entry_as::<Vec<u8>>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(value) => value,
    };
    if value.len().saturating_add(tail.len()) > max_string {
        return replies::error(b"string exceeds maximum allowed size (proto-max-bulk-len)");
    }
    value.extend_from_slice(tail);
    let len = value.len();
    ctx.modified(key);
    Frame::Integer(i64::try_from(len).unwrap_or(i64::MAX))
}

/// STRLEN key: the value's length, 0 for a missing key.
fn strlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_string(arg(args, 1)) {
        Err(wrong_type) => wrong_type,
        Ok(value) => {
            Frame::Integer(value.map_or(0, |v| i64::try_from(v.len()).unwrap_or(i64::MAX)))
        }
    }
}
