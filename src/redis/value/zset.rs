//! A sorted set: members with a score each, ordered by score and then by member bytes, as
//! Redis orders them (its skiplist, or a listpack when small, in the same order), and what
//! the sorted-set commands do to one: ZADD's update rules (`zsetAdd`), ranks, and the walks
//! over a score or lex range (`zzlFirstInRange` and its kin).
//!
//! Where Redis's two encodings differ, the small one's behaviour is kept for every size, as
//! for the other types: a score of -0 is stored as 0 (a listpack stores an integral score as
//! an integer), and a lex range over members of different scores is walked as a listpack
//! walks it (in order, from the first member past the minimum), not as the skiplist's
//! random levels happen to.

use crate::redis::cstr::cstr;
use crate::redis::num::strtod;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// A score: a double that is never NaN (Redis refuses NaN before storing one), so it has a
/// total order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score(f64);

impl Score {
    /// A score; None for NaN.
    pub fn new(score: f64) -> Option<Score> {
        (!score.is_nan()).then_some(Score(score))
    }

    /// The double.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    /// C's comparison of doubles: -0 and 0 are equal (the member then decides).
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.partial_cmp(&other.0).unwrap_or(Ordering::Equal)
    }
}

/// ZADD's options, as `zsetAdd` takes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AddFlags {
    /// INCR: add to the current score (0 for a new member).
    pub incr: bool,
    /// NX: only add new members.
    pub nx: bool,
    /// XX: only update existing members.
    pub xx: bool,
    /// GT: update an existing member only to a greater score.
    pub gt: bool,
    /// LT: update an existing member only to a lower score.
    pub lt: bool,
}

/// What `zsetAdd` did with one member.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Added {
    /// A new member, with this score (ADDED).
    New(f64),
    /// An existing member given this new score (UPDATED).
    Updated(f64),
    /// An existing member whose score this is already.
    Same(f64),
    /// Nothing done: NX, XX, GT or LT said no (NOP).
    Skipped,
}

/// The score the increment would give is NaN (`inf` plus `-inf`): nothing was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NanScore;

/// The members of a sorted-set key with their scores.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZSet {
    scores: BTreeMap<Vec<u8>, Score>,
    ordered: BTreeSet<(Score, Vec<u8>)>,
}

impl ZSet {
    /// How many members it holds.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether it holds none (Redis then deletes the key).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// A member's score.
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.scores.get(member).map(|s| s.get())
    }

    /// Sets a member's score: whether it was new. A -0 is stored as 0.
    pub fn insert(&mut self, member: Vec<u8>, score: Score) -> bool {
        let score = Score(score.get() + 0.0);
        let old = self.scores.insert(member.clone(), score);
        if let Some(old) = old {
            self.ordered.remove(&(old, member.clone()));
        }
        self.ordered.insert((score, member));
        old.is_none()
    }

    /// Removes a member: whether it was there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        match self.scores.remove(member) {
            Some(score) => {
                self.ordered.remove(&(score, member.to_vec()));
                true
            }
            None => false,
        }
    }

    /// Members and scores, lowest score first, ties by member bytes.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], f64)> + ExactSizeIterator {
        self.ordered.iter().map(|(s, m)| (m.as_slice(), s.get()))
    }

    /// `zsetAdd`: adds `member` with `score`, or updates it, as `flags` allow. `score` is not
    /// NaN (ZADD refuses one before it gets here).
    pub fn add(&mut self, member: &[u8], score: f64, flags: AddFlags) -> Result<Added, NanScore> {
        let Some(current) = self.score(member) else {
            if flags.xx {
                return Ok(Added::Skipped);
            }
            let stored = Score::new(score).ok_or(NanScore)?;
            self.insert(member.to_vec(), stored);
            return Ok(Added::New(score));
        };
        if flags.nx {
            return Ok(Added::Skipped);
        }
        let score = if flags.incr { score + current } else { score };
        let stored = Score::new(score).ok_or(NanScore)?;
        if (flags.lt && score >= current) || (flags.gt && score <= current) {
            return Ok(Added::Skipped);
        }
        if score == current {
            return Ok(Added::Same(score));
        }
        self.insert(member.to_vec(), stored);
        Ok(Added::Updated(score))
    }

    /// `zsetRank`: a member's 0-based position, lowest score first (or highest, `reverse`).
    pub fn rank(&self, member: &[u8], reverse: bool) -> Option<usize> {
        let score = *self.scores.get(member)?;
        let below = self.ordered.range(..(score, member.to_vec())).count();
        Some(if reverse {
            self.len() - 1 - below
        } else {
            below
        })
    }

    /// Takes out the member with the lowest score (or the highest, `max`).
    pub fn pop(&mut self, max: bool) -> Option<(Vec<u8>, f64)> {
        let (score, member) = if max {
            self.ordered.pop_last()?
        } else {
            self.ordered.pop_first()?
        };
        self.scores.remove(&member);
        Some((member, score.get()))
    }

    /// The members in `range`, walked as `genericZrangebyscoreCommand` and its lex twin walk
    /// a listpack: from the first member in range (the last, `reverse`), `offset` members
    /// skipped unchecked (a negative offset walks off the end), then up to `limit` (all
    /// when negative) while they stay in range.
    pub fn range(
        &self,
        range: &impl Bounds,
        reverse: bool,
        offset: i64,
        limit: i64,
    ) -> Vec<(&[u8], f64)> {
        let (Some((low, first)), Some((high, last))) = (self.ordered.first(), self.ordered.last())
        else {
            return Vec::new();
        };
        // `zzlIsInRange`: ranges that are empty, or miss the set's two ends.
        if range.is_empty()
            || !range.above_min(last, high.get())
            || !range.below_max(first, low.get())
        {
            return Vec::new();
        }
        let entered = |m: &[u8], s: f64| {
            if reverse {
                range.below_max(m, s)
            } else {
                range.above_min(m, s)
            }
        };
        let stays = |m: &[u8], s: f64| {
            if reverse {
                range.above_min(m, s)
            } else {
                range.below_max(m, s)
            }
        };
        let walk: Box<dyn Iterator<Item = (&[u8], f64)>> = if reverse {
            Box::new(self.iter().rev())
        } else {
            Box::new(self.iter())
        };
        let mut walk = walk.skip_while(|&(m, s)| !entered(m, s)).peekable();
        if !walk.peek().is_some_and(|&(m, s)| stays(m, s)) {
            return Vec::new();
        }
        let Ok(offset) = usize::try_from(offset) else {
            return Vec::new();
        };
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        walk.skip(offset)
            .take(limit)
            .take_while(|&(m, s)| stays(m, s))
            .collect()
    }

    /// Removes the members in `range` (ZREMRANGEBYSCORE, ZREMRANGEBYLEX): how many.
    pub fn remove_range(&mut self, range: &impl Bounds) -> usize {
        let gone: Vec<Vec<u8>> = self
            .range(range, false, 0, -1)
            .into_iter()
            .map(|(m, _)| m.to_vec())
            .collect();
        for member in &gone {
            self.remove(member);
        }
        gone.len()
    }
}

/// A range of a sorted set, by score or by member: what the range walks test members with.
pub trait Bounds {
    /// A range nothing can be in (its minimum above its maximum, or equal and open).
    fn is_empty(&self) -> bool;
    /// Whether a member is at or past the minimum (past it, when open).
    fn above_min(&self, member: &[u8], score: f64) -> bool;
    /// Whether a member is at or before the maximum (before it, when open).
    fn below_max(&self, member: &[u8], score: f64) -> bool;
}

/// A score range, `zrangespec`: each end a double, open when written with `(`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    min: f64,
    min_open: bool,
    max: f64,
    max_open: bool,
}

impl ScoreRange {
    /// `zslParseRange`: each end read by `strtod` as a C string (so leading spaces, hex, an
    /// empty string as 0, and anything after a NUL ignored), `(` first for an open end. None
    /// for an end with bytes left over, or NaN ("min or max is not a float").
    pub fn parse(min: &[u8], max: &[u8]) -> Option<ScoreRange> {
        let (min, min_open) = score_bound(min)?;
        let (max, max_open) = score_bound(max)?;
        Some(ScoreRange {
            min,
            min_open,
            max,
            max_open,
        })
    }
}

fn score_bound(arg: &[u8]) -> Option<(f64, bool)> {
    let text = cstr(arg);
    let (open, number) = match text.strip_prefix(b"(") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (x, len, _) = strtod(number);
    (len == number.len() && !x.is_nan()).then_some((x, open))
}

impl Bounds for ScoreRange {
    fn is_empty(&self) -> bool {
        self.min > self.max || (self.min == self.max && (self.min_open || self.max_open))
    }

    fn above_min(&self, _: &[u8], score: f64) -> bool {
        if self.min_open {
            score > self.min
        } else {
            score >= self.min
        }
    }

    fn below_max(&self, _: &[u8], score: f64) -> bool {
        if self.max_open {
            score < self.max
        } else {
            score <= self.max
        }
    }
}

/// One end of a lex range: `-` (below every member), a member, or `+` (above every one),
/// ordered as `sdscmplex` orders them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum LexBound {
    Min,
    Member(Vec<u8>),
    Max,
}

/// A lex range, `zlexrangespec`: `[m` closed, `(m` open, `-` and `+` the open extremes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexRange {
    min: LexBound,
    min_open: bool,
    max: LexBound,
    max_open: bool,
}

impl LexRange {
    /// `zslParseLexRange`: None for an end that is none of the four forms ("min or max not
    /// valid string range item").
    pub fn parse(min: &[u8], max: &[u8]) -> Option<LexRange> {
        let (min, min_open) = lex_bound(min)?;
        let (max, max_open) = lex_bound(max)?;
        Some(LexRange {
            min,
            min_open,
            max,
            max_open,
        })
    }
}

/// `zslParseLexRangeItem`: `+` and `-` read as C strings (`+\0x` is `+`), a member to its
/// last byte.
fn lex_bound(arg: &[u8]) -> Option<(LexBound, bool)> {
    let (first, rest) = arg.split_first()?;
    match first {
        b'+' if cstr(rest).is_empty() => Some((LexBound::Max, true)),
        b'-' if cstr(rest).is_empty() => Some((LexBound::Min, true)),
        b'(' => Some((LexBound::Member(rest.to_vec()), true)),
        b'[' => Some((LexBound::Member(rest.to_vec()), false)),
        _ => None,
    }
}

impl Bounds for LexRange {
    fn is_empty(&self) -> bool {
        match self.min.cmp(&self.max) {
            Ordering::Greater => true,
            Ordering::Equal => self.min_open || self.max_open,
            Ordering::Less => false,
        }
    }

    fn above_min(&self, member: &[u8], _: f64) -> bool {
        let order = LexBound::Member(member.to_vec()).cmp(&self.min);
        order == Ordering::Greater || (order == Ordering::Equal && !self.min_open)
    }

    fn below_max(&self, member: &[u8], _: f64) -> bool {
        let order = LexBound::Member(member.to_vec()).cmp(&self.max);
        order == Ordering::Less || (order == Ordering::Equal && !self.max_open)
    }
}

/// A score as the history shows it (the shortest text that reads back as the same double).
pub(super) fn format_score(score: f64) -> String {
    format!("{score}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zset(pairs: &[(&str, f64)]) -> ZSet {
        let mut z = ZSet::default();
        for (m, s) in pairs {
            z.insert(m.as_bytes().to_vec(), Score::new(*s).unwrap());
        }
        z
    }

    fn members(found: Vec<(&[u8], f64)>) -> Vec<String> {
        found
            .into_iter()
            .map(|(m, _)| String::from_utf8_lossy(m).into_owned())
            .collect()
    }

    fn scores(min: &str, max: &str) -> ScoreRange {
        ScoreRange::parse(min.as_bytes(), max.as_bytes()).unwrap()
    }

    #[test]
    fn add_follows_zset_add() {
        let mut z = ZSet::default();
        let plain = AddFlags::default();
        assert_eq!(z.add(b"a", 1.0, plain), Ok(Added::New(1.0)));
        assert_eq!(z.add(b"a", 1.0, plain), Ok(Added::Same(1.0)));
        assert_eq!(z.add(b"a", 2.0, plain), Ok(Added::Updated(2.0)));
        let nx = AddFlags { nx: true, ..plain };
        assert_eq!(z.add(b"a", 5.0, nx), Ok(Added::Skipped));
        let xx = AddFlags { xx: true, ..plain };
        assert_eq!(z.add(b"b", 5.0, xx), Ok(Added::Skipped));
        assert_eq!(z.score(b"b"), None);
        let gt = AddFlags { gt: true, ..plain };
        assert_eq!(z.add(b"a", 1.0, gt), Ok(Added::Skipped));
        assert_eq!(z.add(b"a", 3.0, gt), Ok(Added::Updated(3.0)));
        // GT and LT only hold existing members back.
        assert_eq!(z.add(b"c", -1.0, gt), Ok(Added::New(-1.0)));
        let incr = AddFlags {
            incr: true,
            ..plain
        };
        assert_eq!(z.add(b"a", 0.5, incr), Ok(Added::Updated(3.5)));
        assert_eq!(z.add(b"d", -0.0, incr), Ok(Added::New(-0.0)));
        assert!(z.score(b"d").unwrap().is_sign_positive(), "-0 stored as 0");
        z.add(b"e", f64::INFINITY, plain).unwrap();
        assert_eq!(z.add(b"e", f64::NEG_INFINITY, incr), Err(NanScore));
        assert_eq!(z.score(b"e"), Some(f64::INFINITY));
        let lt_incr = AddFlags {
            lt: true,
            incr: true,
            ..plain
        };
        assert_eq!(z.add(b"a", 1.0, lt_incr), Ok(Added::Skipped));
        assert_eq!(z.add(b"a", -1.0, lt_incr), Ok(Added::Updated(2.5)));
    }

    #[test]
    fn ranks_and_pops_in_score_then_member_order() {
        let mut z = zset(&[("b", 1.0), ("a", 1.0), ("c", 0.5)]);
        assert_eq!(z.rank(b"c", false), Some(0));
        assert_eq!(z.rank(b"a", false), Some(1));
        assert_eq!(z.rank(b"b", true), Some(0));
        assert_eq!(z.rank(b"x", false), None);
        assert_eq!(z.pop(true), Some((b"b".to_vec(), 1.0)));
        assert_eq!(z.pop(false), Some((b"c".to_vec(), 0.5)));
        assert_eq!(z.len(), 1);
        assert!(!z.remove(b"c") && z.remove(b"a") && z.is_empty());
        assert_eq!(z.pop(false), None);
    }

    #[test]
    fn score_ranges_parse_as_zsl_parse_range() {
        assert_eq!(scores("(1", "+inf"), scores("(1.0", "inf"));
        assert!(
            ScoreRange::parse(b"(", b" 1").is_some(),
            "empty is 0, spaces lead"
        );
        assert!(ScoreRange::parse(b"1\0junk", b"2").is_some());
        for bad in [&b"x"[..], b"(nan", b"nan", b"1 ", b"((1", b"1e"] {
            assert!(ScoreRange::parse(bad, b"1").is_none(), "{bad:?}");
        }
        assert!(scores("2", "1").is_empty());
        assert!(scores("(1", "1").is_empty());
        assert!(!scores("1", "1").is_empty());
    }

    #[test]
    fn walks_score_ranges_with_offset_and_limit() {
        let z = zset(&[("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0)]);
        let walk = |min, max, reverse, offset, limit| {
            members(z.range(&scores(min, max), reverse, offset, limit))
        };
        assert_eq!(walk("2", "3", false, 0, -1), ["b", "c"]);
        assert_eq!(walk("(1", "(4", false, 0, -1), ["b", "c"]);
        assert_eq!(walk("-inf", "+inf", true, 1, 2), ["c", "b"]);
        assert_eq!(walk("-inf", "+inf", false, -1, 2), Vec::<String>::new());
        assert_eq!(walk("-inf", "+inf", false, 3, -5), ["d"]);
        assert_eq!(walk("-inf", "+inf", false, 0, 0), Vec::<String>::new());
        assert_eq!(walk("2.5", "2.7", false, 0, -1), Vec::<String>::new());
        assert_eq!(walk("3", "2", false, 0, -1), Vec::<String>::new());
        let mut z = z;
        assert_eq!(z.remove_range(&scores("(1", "3")), 2);
        assert_eq!(members(z.iter().collect()), ["a", "d"]);
    }

    #[test]
    fn lex_ranges_walk_as_a_listpack() {
        let lex = |min: &str, max: &str| LexRange::parse(min.as_bytes(), max.as_bytes()).unwrap();
        for bad in [&b""[..], b"a", b"+x", b"-x", b"\0"] {
            assert!(LexRange::parse(bad, b"+").is_none(), "{bad:?}");
        }
        assert!(LexRange::parse(b"-\0x", b"+").is_some());
        let z = zset(&[("a", 0.0), ("b", 0.0), ("ba", 0.0), ("c", 0.0)]);
        let walk = |range: LexRange, reverse| members(z.range(&range, reverse, 0, -1));
        assert_eq!(walk(lex("-", "+"), false), ["a", "b", "ba", "c"]);
        assert_eq!(walk(lex("[b", "(c"), false), ["b", "ba"]);
        assert_eq!(walk(lex("(b", "[c"), true), ["c", "ba"]);
        assert!(walk(lex("+", "-"), false).is_empty());
        assert!(walk(lex("[b", "(b"), false).is_empty());
        assert!(lex("-", "-").is_empty() && lex("+", "+").is_empty());
        // Mixed scores: the listpack's walk from the first member past the minimum.
        let mixed = zset(&[("z", 1.0), ("a", 2.0)]);
        assert!(mixed.range(&lex("[a", "[b"), false, 0, -1).is_empty());
        assert_eq!(
            members(mixed.range(&lex("-", "[z"), false, 0, -1)),
            ["z", "a"]
        );
    }
}
