//! The sorted-set commands (t_zset.c): ZADD and ZINCRBY, ZREM, the ZREMRANGEBY family,
//! ZPOPMIN / ZPOPMAX, and the point reads (ZSCORE, ZMSCORE, ZCARD, ZCOUNT, ZLEXCOUNT, ZRANK,
//! ZREVRANK). The ZRANGE family is in `range`.
//!
//! Each is propagated as it was sent when it changed something, as Redis does (ZADD INCR
//! too); a command that changed nothing neither propagates nor touches the key's watchers.

mod range;

use range::{By, zrange};

use super::table::{CommandSpec, FAST, ONE, OOM, R, W, keyed};
use super::{Ctx, arg};
use crate::redis::cstr::is;
use crate::redis::num::{format_double, parse_i64, string2d};
use crate::redis::replies;
use crate::redis::resp::{Frame, Protocol};
use crate::redis::value::ZSet;
use crate::redis::value::zset::{AddFlags, Added, Bounds, LexRange, ScoreRange};

/// The sorted-set commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("zadd", -4, W.and(OOM).and(FAST), ONE, |ctx, args| {
        zadd(ctx, args, false)
    }),
    keyed("zincrby", 4, W.and(OOM).and(FAST), ONE, |ctx, args| {
        zadd(ctx, args, true)
    }),
    keyed("zrem", -3, W.and(FAST), ONE, zrem),
    keyed("zscore", 3, R.and(FAST), ONE, zscore),
    keyed("zmscore", -3, R.and(FAST), ONE, zmscore),
    keyed("zcard", 2, R.and(FAST), ONE, zcard),
    keyed("zcount", 4, R.and(FAST), ONE, |ctx, args| {
        zcount(ctx, args, false)
    }),
    keyed("zlexcount", 4, R.and(FAST), ONE, |ctx, args| {
        zcount(ctx, args, true)
    }),
    keyed("zrank", 3, R.and(FAST), ONE, |ctx, args| {
        zrank(ctx, args, false)
    }),
    keyed("zrevrank", 3, R.and(FAST), ONE, |ctx, args| {
        zrank(ctx, args, true)
    }),
    keyed("zrange", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Any, None)
    }),
    keyed("zrevrange", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Rank, Some(true))
    }),
    keyed("zrangebyscore", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Score, Some(false))
    }),
    keyed("zrevrangebyscore", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Score, Some(true))
    }),
    keyed("zrangebylex", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Lex, Some(false))
    }),
    keyed("zrevrangebylex", -4, R, ONE, |ctx, args| {
        zrange(ctx, args, By::Lex, Some(true))
    }),
    keyed("zremrangebyscore", 4, W, ONE, |ctx, args| {
        zremrange(ctx, args, RemoveBy::Score)
    }),
    keyed("zremrangebyrank", 4, W, ONE, |ctx, args| {
        zremrange(ctx, args, RemoveBy::Rank)
    }),
    keyed("zremrangebylex", 4, W, ONE, |ctx, args| {
        zremrange(ctx, args, RemoveBy::Lex)
    }),
    keyed("zpopmin", -2, W.and(FAST), ONE, |ctx, args| {
        zpop(ctx, args, false)
    }),
    keyed("zpopmax", -2, W.and(FAST), ONE, |ctx, args| {
        zpop(ctx, args, true)
    }),
];

/// `addReplyDouble`: a RESP3 double, which a RESP2 connection receives as a bulk string.
fn double(score: f64) -> Frame {
    Frame::Double(format_double(score).into_bytes())
}

/// A member and its score as ZRANGE WITHSCORES and ZPOPMIN give them: a pair of its own
/// when `nested` (RESP3), else two elements of a flat array.
fn scored(out: &mut Vec<Frame>, member: &[u8], score: f64, nested: bool) {
    let pair = [Frame::Bulk(member.to_vec()), double(score)];
    if nested {
        out.push(Frame::Array(pair.into()));
    } else {
        out.extend(pair);
    }
}

fn resp3(ctx: &Ctx<'_>) -> bool {
    ctx.conn.proto == Protocol::Resp3
}

/// A command took `n` (more than 0) elements in or out of `key` (Redis's `dirty += n` and
/// `signalModifiedKey`); an emptied key is deleted.
fn changed(ctx: &mut Ctx<'_>, key: &[u8], n: usize) {
    ctx.modified(key);
    ctx.dirty += n.saturating_sub(1) as u64;
}

/// `min or max is not a float`
fn not_a_float_range() -> Frame {
    replies::error(b"min or max is not a float")
}

/// `min or max not valid string range item`
fn not_a_lex_range() -> Frame {
    replies::error(b"min or max not valid string range item")
}

/// ZADD's options from argument 2 on: the flags, CH, and where the score-member pairs start.
fn add_options(args: &[Vec<u8>], incr: bool) -> (AddFlags, bool, usize) {
    let mut flags = AddFlags {
        incr,
        ..AddFlags::default()
    };
    let mut ch = false;
    let mut at = 2;
    while let Some(opt) = args.get(at) {
        if is(opt, "nx") {
            flags.nx = true;
        } else if is(opt, "xx") {
            flags.xx = true;
        } else if is(opt, "ch") {
            ch = true;
        } else if is(opt, "incr") {
            flags.incr = true;
        } else if is(opt, "gt") {
            flags.gt = true;
        } else if is(opt, "lt") {
            flags.lt = true;
        } else {
            break;
        }
        at += 1;
    }
    (flags, ch, at)
}

/// `zaddGenericCommand`: ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ..., and ZINCRBY
/// key increment member (which reads options too: `ZINCRBY k nx m` is a syntax error).
/// Every score is checked before anything changes. ZADD answers how many members it added
/// (with CH, added or updated); INCR and ZINCRBY the new score, or null when NX / XX /
/// GT / LT held it back.
fn zadd(ctx: &mut Ctx<'_>, args: &[Vec<u8>], incr_command: bool) -> Frame {
    let (flags, ch, first) = add_options(args, incr_command);
    let pairs = args.get(first..).unwrap_or_default();
    if pairs.is_empty() || pairs.len() % 2 != 0 {
        return replies::syntax_error();
    }
    if flags.nx && flags.xx {
        return replies::error(b"XX and NX options at the same time are not compatible");
    }
    if (flags.gt || flags.lt) && (flags.nx || (flags.gt && flags.lt)) {
        return replies::error(b"GT, LT, and/or NX options at the same time are not compatible");
    }
    if flags.incr && pairs.len() > 2 {
        return replies::error(b"INCR option supports a single increment-element pair");
    }
    let mut scores = Vec::with_capacity(pairs.len() / 2);
    for pair in pairs.chunks(2) {
        match pair.first().and_then(|s| string2d(s)) {
            Some(score) => scores.push(score),
            None => return replies::error(b"value is not a valid float"),
        }
    }
    let key = arg(args, 1);
    let nothing = || {
        if flags.incr {
            Frame::Null
        } else {
            Frame::Integer(0)
        }
    };
    match ctx.lookup_as::<ZSet>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) if flags.xx => return nothing(),
        Ok(_) => {}
    }
    let z = match ctx.entry_as::<ZSet>(key) {
        Ok(z) => z,
        Err(wrong_type) => return wrong_type,
    };
    let (mut added, mut updated, mut last) = (0, 0, None);
    for (pair, score) in pairs.chunks(2).zip(scores) {
        let member = pair.get(1).map_or(&[][..], Vec::as_slice);
        match z.add(member, score, flags) {
            Err(_) => return replies::error(b"resulting score is not a number (NaN)"),
            Ok(Added::New(s)) => (added, last) = (added + 1, Some(s)),
            Ok(Added::Updated(s)) => (updated, last) = (updated + 1, Some(s)),
            Ok(Added::Same(s)) => last = Some(s),
            Ok(Added::Skipped) => {}
        }
    }
    if added + updated > 0 {
        changed(ctx, key, added + updated);
    }
    if flags.incr {
        last.map_or(Frame::Null, double)
    } else {
        Frame::Integer(if ch { added + updated } else { added } as i64)
    }
}

/// ZREM key member ...: how many were there (a member named twice counts once); the key
/// goes with its last member.
fn zrem(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    let deleted = match ctx.lookup_as_mut::<ZSet>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Integer(0),
        Ok(Some(z)) => {
            let mut deleted = 0;
            for member in args.iter().skip(2) {
                deleted += usize::from(z.remove(member));
                if z.is_empty() {
                    break;
                }
            }
            deleted
        }
    };
    if deleted > 0 {
        changed(ctx, key, deleted);
    }
    Frame::Integer(deleted as i64)
}

/// Which members a ZREMRANGEBY command takes out.
enum RemoveBy {
    Rank,
    Score,
    Lex,
}

/// `zremrangeGenericCommand`: ZREMRANGEBYRANK / BYSCORE / BYLEX key min max, the range
/// checked before the key: how many members went.
fn zremrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>], by: RemoveBy) -> Frame {
    let (min, max) = (arg(args, 2), arg(args, 3));
    let what = match by {
        RemoveBy::Rank => match (parse_i64(min), parse_i64(max)) {
            (Some(start), Some(end)) => Removal::Ranks(start, end),
            _ => return replies::not_an_integer(),
        },
        RemoveBy::Score => match ScoreRange::parse(min, max) {
            Some(range) => Removal::Scores(range),
            None => return not_a_float_range(),
        },
        RemoveBy::Lex => match LexRange::parse(min, max) {
            Some(range) => Removal::Lex(range),
            None => return not_a_lex_range(),
        },
    };
    let key = arg(args, 1);
    let deleted = match ctx.lookup_as_mut::<ZSet>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Integer(0),
        Ok(Some(z)) => match what {
            Removal::Ranks(start, end) => remove_ranks(z, start, end),
            Removal::Scores(range) => z.remove_range(&range),
            Removal::Lex(range) => z.remove_range(&range),
        },
    };
    if deleted > 0 {
        changed(ctx, key, deleted);
    }
    Frame::Integer(deleted as i64)
}

enum Removal {
    Ranks(i64, i64),
    Scores(ScoreRange),
    Lex(LexRange),
}

/// Redis's sanitized rank range (negative ranks count from the end): the first and last
/// ranks, or None when it holds no member.
fn ranks(len: usize, start: i64, end: i64) -> Option<(usize, usize)> {
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let start = if start < 0 { len + start } else { start }.max(0);
    let end = if end < 0 { len + end } else { end };
    if start > end || start >= len {
        return None;
    }
    let end = end.min(len - 1);
    Some((usize::try_from(start).ok()?, usize::try_from(end).ok()?))
}

fn remove_ranks(z: &mut ZSet, start: i64, end: i64) -> usize {
    let Some((start, end)) = ranks(z.len(), start, end) else {
        return 0;
    };
    let gone: Vec<Vec<u8>> = z
        .iter()
        .skip(start)
        .take(end - start + 1)
        .map(|(m, _)| m.to_vec())
        .collect();
    for member in &gone {
        z.remove(member);
    }
    gone.len()
}

/// `zpopMinMaxCommand`: ZPOPMIN / ZPOPMAX key [count]. Without a count, one member and its
/// score in a flat array; with one, up to that many, as pairs in RESP3. An empty array for
/// a missing key or a count of 0.
fn zpop(ctx: &mut Ctx<'_>, args: &[Vec<u8>], max: bool) -> Frame {
    if args.len() > 3 {
        return replies::syntax_error();
    }
    let count = match args.get(2) {
        None => None,
        Some(count) => match parse_i64(count).and_then(|n| usize::try_from(n).ok()) {
            Some(n) => Some(n),
            None => return replies::error(b"value is out of range, must be positive"),
        },
    };
    let nested = resp3(ctx) && count.is_some();
    let key = arg(args, 1);
    let popped = match ctx.lookup_as_mut::<ZSet>(key) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Array(Vec::new()),
        Ok(Some(_)) if count == Some(0) => return Frame::Array(Vec::new()),
        Ok(Some(z)) => {
            let n = count.unwrap_or(1).min(z.len());
            (0..n).filter_map(|_| z.pop(max)).collect::<Vec<_>>()
        }
    };
    changed(ctx, key, popped.len());
    let mut out = Vec::with_capacity(popped.len() * 2);
    for (member, score) in &popped {
        scored(&mut out, member, *score, nested);
    }
    Frame::Array(out)
}

/// ZSCORE key member: the score, or null.
fn zscore(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<ZSet>(arg(args, 1)) {
        Err(wrong_type) => wrong_type,
        Ok(z) => z
            .and_then(|z| z.score(arg(args, 2)))
            .map_or(Frame::Null, double),
    }
}

/// ZMSCORE key member ...: each member's score, or null (a missing key as an empty set).
fn zmscore(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<ZSet>(arg(args, 1)) {
        Err(wrong_type) => wrong_type,
        Ok(z) => Frame::Array(
            args.iter()
                .skip(2)
                .map(|m| z.and_then(|z| z.score(m)).map_or(Frame::Null, double))
                .collect(),
        ),
    }
}

/// ZCARD key: how many members, 0 for a missing key.
fn zcard(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<ZSet>(arg(args, 1)) {
        Err(wrong_type) => wrong_type,
        Ok(z) => Frame::Integer(z.map_or(0, ZSet::len) as i64),
    }
}

/// ZCOUNT / ZLEXCOUNT key min max: how many members the range holds (the range checked
/// before the key).
fn zcount(ctx: &mut Ctx<'_>, args: &[Vec<u8>], lex: bool) -> Frame {
    let (min, max) = (arg(args, 2), arg(args, 3));
    if lex {
        match LexRange::parse(min, max) {
            Some(range) => count_in(ctx, arg(args, 1), &range),
            None => not_a_lex_range(),
        }
    } else {
        match ScoreRange::parse(min, max) {
            Some(range) => count_in(ctx, arg(args, 1), &range),
            None => not_a_float_range(),
        }
    }
}

fn count_in(ctx: &mut Ctx<'_>, key: &[u8], range: &impl Bounds) -> Frame {
    match ctx.lookup_as::<ZSet>(key) {
        Err(wrong_type) => wrong_type,
        Ok(z) => Frame::Integer(z.map_or(0, |z| z.range(range, false, 0, -1).len()) as i64),
    }
}

/// ZRANK / ZREVRANK key member: the member's rank, or null.
fn zrank(ctx: &mut Ctx<'_>, args: &[Vec<u8>], reverse: bool) -> Frame {
    match ctx.lookup_as::<ZSet>(arg(args, 1)) {
        Err(wrong_type) => wrong_type,
        Ok(z) => z
            .and_then(|z| z.rank(arg(args, 2), reverse))
            .map_or(Frame::Null, |rank| Frame::Integer(rank as i64)),
    }
}
