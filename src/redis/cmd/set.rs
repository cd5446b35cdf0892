//! SET key value [NX | XX] [GET] [EX s | PX ms | EXAT s | PXAT ms | KEEPTTL], as t_string.c
//! parses, checks, runs and propagates it; its shorthands SETNX, SETEX and PSETEX; and the
//! options GETEX shares with it.

use super::table::{CommandSpec, FAST, ONE, OOM, W, keyed};
use super::{Ctx, arg};
use crate::redis::cstr::is;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// SET and its older forms.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("set", -3, W.and(OOM), ONE, set),
    keyed("setnx", 3, W.and(OOM).and(FAST), ONE, setnx),
    keyed("setex", 4, W.and(OOM), ONE, |ctx, args| {
        setex(ctx, args, "setex")
    }),
    keyed("psetex", 4, W.and(OOM), ONE, |ctx, args| {
        setex(ctx, args, "psetex")
    }),
];

/// The options given, as `parseExtendedStringArgumentsOrReply` accepts them.
#[derive(Default)]
pub(super) struct Options<'a> {
    nx: bool,
    xx: bool,
    get: bool,
    keep_ttl: bool,
    /// GETEX's PERSIST.
    pub(super) persist: bool,
    pub(super) expire: Option<Expire<'a>>,
}

/// An EX / PX / EXAT / PXAT option and its argument.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Ex,
    Px,
    ExAt,
    PxAt,
}

pub(super) struct Expire<'a> {
    pub(super) unit: Unit,
    arg: &'a [u8],
}

/// Which command's options `options` reads (`COMMAND_SET` or `COMMAND_GET`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OptionsOf {
    /// SET's, from argument 3 on.
    Set,
    /// GETEX's, from argument 2 on: the expiries and PERSIST.
    GetEx,
}

/// `parseExtendedStringArgumentsOrReply`. Each option may repeat (the last expiry wins) but
/// none may meet one it excludes: NX with XX, KEEPTTL or PERSIST with an expiry, two kinds
/// of expiry; anything else, or an expiry without its argument, is a syntax error.
pub(super) fn options(args: &[Vec<u8>], of: OptionsOf) -> Option<Options<'_>> {
    let mut o = Options::default();
    let set = of == OptionsOf::Set;
    let mut j = if set { 3 } else { 2 };
    while let Some(opt) = args.get(j) {
        let next = args.get(j + 1).map(Vec::as_slice);
        let unit = o.expire.as_ref().map(|e| e.unit);
        let expiry_allowed =
            |u: Unit| !o.keep_ttl && !o.persist && unit.is_none_or(|have| have == u);
        if set && is(opt, "nx") && !o.xx {
            o.nx = true;
        } else if set && is(opt, "xx") && !o.nx {
            o.xx = true;
        } else if set && is(opt, "get") {
            o.get = true;
        } else if set && is(opt, "keepttl") && unit.is_none() {
            o.keep_ttl = true;
        } else if !set && is(opt, "persist") && unit.is_none() {
            o.persist = true;
        } else if let (Some(u), Some(arg)) = (expiry_unit(opt), next) {
            if !expiry_allowed(u) {
                return None;
            }
            o.expire = Some(Expire { unit: u, arg });
            j += 1;
        } else {
            return None;
        }
        j += 1;
    }
    Some(o)
}

fn expiry_unit(opt: &[u8]) -> Option<Unit> {
    [
        ("ex", Unit::Ex),
        ("px", Unit::Px),
        ("exat", Unit::ExAt),
        ("pxat", Unit::PxAt),
    ]
    .into_iter()
    .find(|(name, _)| is(opt, name))
    .map(|(_, unit)| unit)
}

/// `getExpireMillisecondsOrReply`: the deadline in unix ms, or the error reply naming
/// `fullname`. Relative times are added to the wall clock (Redis's `mstime()`), whatever the
/// expiry clock.
pub(super) fn deadline(ctx: &Ctx<'_>, expire: &Expire<'_>, fullname: &str) -> Result<i64, Frame> {
    let mut ms = parse_i64(expire.arg).ok_or_else(replies::not_an_integer)?;
    let seconds = matches!(expire.unit, Unit::Ex | Unit::ExAt);
    if ms <= 0 || (seconds && ms > i64::MAX / 1000) {
        return Err(replies::invalid_expire_time(fullname));
    }
    if seconds {
        ms *= 1000;
    }
    if matches!(expire.unit, Unit::Ex | Unit::Px) {
        // C's signed overflow wraps in practice; Redis then sees a non-positive time.
        ms = ms.wrapping_add(ctx.wall());
    }
    if ms <= 0 {
        return Err(replies::invalid_expire_time(fullname));
    }
    Ok(ms)
}

/// `setCommand`: `+OK`, or the null bulk when NX / XX stops it, or with GET the old value
/// (null if none) either way.
fn set(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(o) = options(args, OptionsOf::Set) else {
        return replies::syntax_error();
    };
    let answers = Answers {
        ok: replies::ok(),
        stopped: Frame::Null,
    };
    let reply = set_generic(ctx, args, &o, "set", answers);
    if o.get && o.expire.is_none() && ctx.dirty > 0 {
        // Propagated without its GETs: a replica has no one to answer.
        let kept = args
            .iter()
            .enumerate()
            .filter(|(j, a)| *j < 3 || !is(a, "get"))
            .map(|(_, a)| a.clone());
        ctx.rewrite = Some(kept.collect());
    }
    reply
}

/// SETNX key value: 1 if it set the key, 0 if the key was there.
fn setnx(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let o = Options {
        nx: true,
        ..Options::default()
    };
    let answers = Answers {
        ok: Frame::Integer(1),
        stopped: Frame::Integer(0),
    };
    set_generic(ctx, args, &o, "setnx", answers)
}

/// SETEX key seconds value and PSETEX key milliseconds value (`fullname` says which).
fn setex(ctx: &mut Ctx<'_>, args: &[Vec<u8>], fullname: &str) -> Frame {
    let unit = if fullname == "psetex" {
        Unit::Px
    } else {
        Unit::Ex
    };
    let o = Options {
        expire: Some(Expire {
            unit,
            arg: arg(args, 2),
        }),
        ..Options::default()
    };
    let reordered = [arg(args, 0), arg(args, 1), arg(args, 3)].map(<[u8]>::to_vec);
    let answers = Answers {
        ok: replies::ok(),
        stopped: Frame::Null,
    };
    set_generic(ctx, &reordered, &o, fullname, answers)
}

/// What `setGenericCommand` answers when it sets the key and when NX / XX stops it.
struct Answers {
    ok: Frame,
    stopped: Frame,
}

/// `setGenericCommand` for `args` = name, key, value, options already read into `o`; a
/// deadline is propagated as SET ... PXAT.
fn set_generic(
    ctx: &mut Ctx<'_>,
    args: &[Vec<u8>],
    o: &Options<'_>,
    fullname: &str,
    answers: Answers,
) -> Frame {
    let (key, value) = (arg(args, 1), arg(args, 2));
    let when = match &o.expire {
        Some(expire) => match deadline(ctx, expire, fullname) {
            Ok(ms) => Some(ms),
            Err(reply) => return reply,
        },
        None => None,
    };
    let old = match o.get.then(|| ctx.lookup_string(key)) {
        None => None,
        Some(Ok(Some(v))) => Some(Frame::Bulk(v.to_vec())),
        Some(Ok(None)) => Some(Frame::Null),
        Some(Err(wrong_type)) => return wrong_type,
    };
    let found = ctx.lookup(key).is_some();
    if (o.nx && found) || (o.xx && !found) {
        return old.unwrap_or(answers.stopped);
    }
    ctx.ks.set(key, value, o.keep_ttl);
    ctx.dirty += 1;
    if let Some(when) = when {
        ctx.ks.set_expire(key, ctx.clock.from_wall(when, ctx.now));
        // Propagated with an absolute deadline, so replicas and the AOF agree on it.
        ctx.rewrite = Some(vec![
            b"SET".to_vec(),
            key.to_vec(),
            value.to_vec(),
            b"PXAT".to_vec(),
            when.to_string().into_bytes(),
        ]);
    }
    old.unwrap_or(answers.ok)
}
