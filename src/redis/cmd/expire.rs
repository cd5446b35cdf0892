//! EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX / XX / GT / LT, and TTL, PTTL (expire.c).

use super::table::{CommandSpec, FAST, ONE, R, W, keyed};
use super::{Ctx, Expiry, arg};
use crate::redis::cstr::{cstr, is};
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// The expiry commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("expire", -3, W.and(FAST), ONE, |ctx, args| {
        expire(ctx, args, Kind::EXPIRE)
    }),
    keyed("pexpire", -3, W.and(FAST), ONE, |ctx, args| {
        expire(ctx, args, Kind::PEXPIRE)
    }),
    keyed("expireat", -3, W.and(FAST), ONE, |ctx, args| {
        expire(ctx, args, Kind::EXPIREAT)
    }),
    keyed("pexpireat", -3, W.and(FAST), ONE, |ctx, args| {
        expire(ctx, args, Kind::PEXPIREAT)
    }),
    keyed("ttl", 2, R.and(FAST), ONE, |ctx, args| {
        ttl(ctx, args, false)
    }),
    keyed("pttl", 2, R.and(FAST), ONE, |ctx, args| {
        ttl(ctx, args, true)
    }),
];

/// Which of the four: its name, whether it counts in seconds, whether it is relative.
struct Kind {
    name: &'static str,
    seconds: bool,
    relative: bool,
}

impl Kind {
    const EXPIRE: Kind = Kind {
        name: "expire",
        seconds: true,
        relative: true,
    };
    const PEXPIRE: Kind = Kind {
        name: "pexpire",
        seconds: false,
        relative: true,
    };
    const EXPIREAT: Kind = Kind {
        name: "expireat",
        seconds: true,
        relative: false,
    };
    const PEXPIREAT: Kind = Kind {
        name: "pexpireat",
        seconds: false,
        relative: false,
    };
}

#[derive(Default)]
struct Conditions {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

/// `parseExtendedExpireArgumentsOrReply`.
fn conditions(args: &[Vec<u8>]) -> Result<Conditions, Frame> {
    let mut c = Conditions::default();
    for opt in args.iter().skip(3) {
        if is(opt, "nx") {
            c.nx = true;
        } else if is(opt, "xx") {
            c.xx = true;
        } else if is(opt, "gt") {
            c.gt = true;
        } else if is(opt, "lt") {
            c.lt = true;
        } else {
            let msg = [&b"Unsupported option "[..], cstr(opt)].concat();
            return Err(replies::error_format(&msg));
        }
    }
    if c.nx && (c.xx || c.gt || c.lt) {
        return Err(replies::error(
            b"NX and XX, GT or LT options at the same time are not compatible",
        ));
    }
    if c.gt && c.lt {
        return Err(replies::error(
            b"GT and LT options at the same time are not compatible",
        ));
    }
    Ok(c)
}

/// `expireGenericCommand`: 1 if the deadline was set (or the key deleted for a deadline
/// already past), 0 for a missing key or an unmet condition. Propagated as PEXPIREAT with
/// the absolute deadline, or as DEL.
fn expire(ctx: &mut Ctx<'_>, args: &[Vec<u8>], kind: Kind) -> Frame {
    let c = match conditions(args) {
        Ok(c) => c,
        Err(reply) => return reply,
    };
    let Some(mut when) = parse_i64(arg(args, 2)) else {
        return replies::not_an_integer();
    };
    if kind.seconds {
        if !(i64::MIN / 1000..=i64::MAX / 1000).contains(&when) {
            return replies::invalid_expire_time(kind.name);
        }
        when *= 1000;
    }
    let base = if kind.relative { ctx.wall() } else { 0 };
    if i128::from(when) > i128::from(i64::MAX) - i128::from(base) {
        return replies::invalid_expire_time(kind.name);
    }
    when = when.saturating_add(base);

    let key = arg(args, 1);
    if ctx.lookup(key).is_none() {
        return Frame::Integer(0);
    }
    let current = ctx.ks.expire_of(key).map(|t| ctx.clock.to_wall(t, ctx.now));
    let unmet = (c.nx && current.is_some())
        || (c.xx && current.is_none())
        || (c.gt && current.is_none_or(|cur| when <= cur))
        || (c.lt && current.is_some_and(|cur| when >= cur));
    if unmet {
        return Frame::Integer(0);
    }

    ctx.dirty += 1;
    // `checkAlreadyExpired`: only a master acting on its own deletes; a replica applying its
    // master's stream (or a server loading) keeps the key with a past deadline until a DEL.
    if when <= ctx.wall() && ctx.expiry == Expiry::Delete {
        ctx.ks.remove(key);
        ctx.rewrite = Some(vec![b"DEL".to_vec(), key.to_vec()]);
        return Frame::Integer(1);
    }
    ctx.ks.set_expire(key, ctx.clock.from_wall(when, ctx.now));
    let mut propagated = args.to_vec();
    if kind.name != "pexpireat" {
        if let Some(name) = propagated.get_mut(0) {
            *name = b"PEXPIREAT".to_vec();
        }
        if let Some(time) = propagated.get_mut(2) {
            *time = when.to_string().into_bytes();
        }
        ctx.rewrite = Some(propagated);
    }
    Frame::Integer(1)
}

/// `ttlGenericCommand`: -2 for a missing key, -1 without a deadline, else what is left
/// (never below 0), in ms or in seconds rounded to the nearest.
fn ttl(ctx: &mut Ctx<'_>, args: &[Vec<u8>], ms: bool) -> Frame {
    let key = arg(args, 1);
    if ctx.lookup(key).is_none() {
        return Frame::Integer(-2);
    }
    let Some(when) = ctx.ks.expire_of(key) else {
        return Frame::Integer(-1);
    };
    let left = when.saturating_sub(ctx.clock.now(ctx.now)).max(0);
    Frame::Integer(if ms {
        left
    } else {
        left.saturating_add(500) / 1000
    })
}
