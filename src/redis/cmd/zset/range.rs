//! The ZRANGE family (`zrangeGenericCommand`): ZRANGE key min max [BYSCORE | BYLEX] [REV]
//! [WITHSCORES] [LIMIT offset count], and the older forms that fix its range type or its
//! direction (ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX).

use super::{Ctx, arg, ranks, resp3, scored};
use crate::redis::cstr::is;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::value::ZSet;
use crate::redis::value::zset::{LexRange, ScoreRange};

/// How a ZRANGE form reads its min and max: ranks, scores or members; ZRANGE itself leaves
/// it to its BYSCORE / BYLEX option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::redis::cmd) enum By {
    Any,
    Rank,
    Score,
    Lex,
}

/// The options after min and max.
struct Options {
    by: By,
    reverse: Option<bool>,
    withscores: bool,
    offset: i64,
    limit: i64,
}

/// The options from argument 4 on, in Redis's order of checks: a bad LIMIT number is
/// answered as soon as it is met; an option the form does not take is a syntax error.
fn options(args: &[Vec<u8>], by: By, reverse: Option<bool>) -> Result<Options, Frame> {
    let mut o = Options {
        by,
        reverse,
        withscores: false,
        offset: 0,
        limit: -1,
    };
    let mut j = 4;
    while let Some(opt) = args.get(j) {
        let left = args.len() - j - 1;
        if is(opt, "withscores") {
            o.withscores = true;
        } else if is(opt, "limit") && left >= 2 {
            match (parse_i64(arg(args, j + 1)), parse_i64(arg(args, j + 2))) {
                (Some(offset), Some(limit)) => (o.offset, o.limit) = (offset, limit),
                _ => return Err(replies::not_an_integer()),
            }
            j += 2;
        } else if o.reverse.is_none() && is(opt, "rev") {
            o.reverse = Some(true);
        } else if o.by == By::Any && is(opt, "bylex") {
            o.by = By::Lex;
        } else if o.by == By::Any && is(opt, "byscore") {
            o.by = By::Score;
        } else {
            return Err(replies::syntax_error());
        }
        j += 1;
    }
    if o.by == By::Any {
        o.by = By::Rank;
    }
    if o.limit != -1 && o.by == By::Rank {
        return Err(replies::error(
            b"syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
        ));
    }
    if o.withscores && o.by == By::Lex {
        return Err(replies::error(
            b"syntax error, WITHSCORES not supported in combination with BYLEX",
        ));
    }
    Ok(o)
}

/// The range, read from min and max (max and min for a reversed score or lex range).
enum Range {
    Ranks(i64, i64),
    Scores(ScoreRange),
    Lex(LexRange),
}

fn range(args: &[Vec<u8>], o: &Options) -> Result<Range, Frame> {
    let (mut min, mut max) = (arg(args, 2), arg(args, 3));
    if o.reverse == Some(true) && o.by != By::Rank {
        (min, max) = (max, min);
    }
    match o.by {
        By::Score => ScoreRange::parse(min, max)
            .map(Range::Scores)
            .ok_or_else(super::not_a_float_range),
        By::Lex => LexRange::parse(min, max)
            .map(Range::Lex)
            .ok_or_else(super::not_a_lex_range),
        By::Rank | By::Any => match (parse_i64(min), parse_i64(max)) {
            (Some(start), Some(end)) => Ok(Range::Ranks(start, end)),
            _ => Err(replies::not_an_integer()),
        },
    }
}

/// The members `range` selects, in the order the reply gives them.
fn select<'a>(z: &'a ZSet, range: &Range, o: &Options) -> Vec<(&'a [u8], f64)> {
    let reverse = o.reverse == Some(true);
    match range {
        Range::Ranks(start, end) => {
            let Some((start, end)) = ranks(z.len(), *start, *end) else {
                return Vec::new();
            };
            let take = end - start + 1;
            if reverse {
                z.iter().rev().skip(start).take(take).collect()
            } else {
                z.iter().skip(start).take(take).collect()
            }
        }
        Range::Scores(scores) => z.range(scores, reverse, o.offset, o.limit),
        Range::Lex(lex) => z.range(lex, reverse, o.offset, o.limit),
    }
}

/// `zrangeGenericCommand` for a client: the members, with their scores after WITHSCORES
/// (as pairs in RESP3); an empty array for a missing key.
pub(in crate::redis::cmd) fn zrange(
    ctx: &mut Ctx<'_>,
    args: &[Vec<u8>],
    by: By,
    reverse: Option<bool>,
) -> Frame {
    let parsed = options(args, by, reverse).and_then(|o| Ok((range(args, &o)?, o)));
    let (range, o) = match parsed {
        Ok(parsed) => parsed,
        Err(reply) => return reply,
    };
    let nested = resp3(ctx);
    let z = match ctx.lookup_as::<ZSet>(arg(args, 1)) {
        Err(wrong_type) => return wrong_type,
        Ok(None) => return Frame::Array(Vec::new()),
        Ok(Some(z)) => z,
    };
    let found = select(z, &range, &o);
    let mut out = Vec::with_capacity(found.len() * if o.withscores { 2 } else { 1 });
    for (member, score) in found {
        if o.withscores {
            scored(&mut out, member, score, nested);
        } else {
            out.push(Frame::Bulk(member.to_vec()));
        }
    }
    Frame::Array(out)
}
