//! One exploration split over machines (`explore --shard I/N`), so that merging the parts
//! gives exactly what one run over the whole range gives.
//!
//! Shard I of N explores the I-th of N contiguous blocks of the seed range, in order, and
//! stops at its lowest failing seed, as a whole run does. The first shard (in order) that
//! failed therefore holds the lowest failing seed of the whole range, every seed below it
//! ran clean in it or in an earlier shard, and its shrunk plan is the one a whole run would
//! shrink to (shrinking is a function of the seed's run alone). Shards after it may have
//! found other failures: a whole run never looks at their seeds, and neither does a merge.
//! Blocks (rather than every N-th seed) let a merge name the seeds a missing shard holds as
//! one range.
//!
//! A guided campaign cannot be cut into blocks: each generation depends on the corpus the
//! ones before it built. Shard I of N of campaign K with a budget of R runs is instead one
//! member of an ensemble that never synchronises: a sub-campaign of its own seed
//! (`Shard::campaign`) with its share of the R runs (`Shard::runs`, split as `seeds` splits
//! a range). Shard 1 runs campaign K itself, so `--shard 1/1` is the unsharded campaign and
//! shard 1 of any N makes the first runs campaign K makes; shard I > 1 runs a campaign drawn
//! from (K, I). The merged verdict is the finding of the lowest-indexed shard that found
//! something (shards are walked in order, so it does not depend on which finished first),
//! and the runs are those of all shards, which ran side by side. It is the verdict of that
//! ensemble, not of campaign K run whole: the two agree when campaign K finds something
//! within shard 1's share.

use crate::sim::seed::Seeds;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// Shard `index` of `count` (1-based, as `--shard 2/4` writes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// Why a `--shard` value is not a shard.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadShard {
    /// Not `I/N` with I and N whole numbers.
    Syntax(String),
    /// N is 0, or I is not within 1..=N.
    OutOfRange {
        /// The index given.
        index: u64,
        /// The number of shards given.
        count: u64,
    },
}

impl fmt::Display for BadShard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadShard::Syntax(s) => write!(f, "expected I/N (shard I of N, e.g. 2/4), got '{s}'"),
            BadShard::OutOfRange { count: 0, .. } => {
                write!(f, "the number of shards must be at least 1")
            }
            BadShard::OutOfRange { index, count } => {
                write!(
                    f,
                    "shard {index}/{count}: the index must be within 1..={count}"
                )
            }
        }
    }
}

impl std::error::Error for BadShard {}

impl Shard {
    /// Shard `index` of `count`, 1-based.
    pub fn new(index: u64, count: u64) -> Result<Shard, BadShard> {
        if count == 0 || !(1..=count).contains(&index) {
            return Err(BadShard::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Its index, 1..=`count`.
    pub fn index(self) -> u64 {
        self.index
    }

    /// How many shards the exploration is split into.
    pub fn count(self) -> u64 {
        self.count
    }

    /// Its block of `seeds`: the `index`-th of `count` contiguous blocks, in order, whose
    /// lengths differ by at most one. The blocks of 1/N..N/N cover `seeds` exactly.
    pub fn seeds(self, seeds: &Range<u64>) -> Range<u64> {
        let len = u128::from(seeds.end.saturating_sub(seeds.start));
        let at = |i: u64| {
            let offset = len * u128::from(i) / u128::from(self.count);
            seeds.start + u64::try_from(offset).expect("within the range")
        };
        at(self.index - 1)..at(self.index)
    }

    /// Its share of a guided campaign's budget of `runs`: the length of its block of
    /// `0..runs`, so the shares differ by at most one and add up to `runs`.
    pub fn runs(self, runs: u64) -> u64 {
        let block = self.seeds(&(0..runs));
        block.end - block.start
    }

    /// The seed of its sub-campaign of guided campaign `campaign`: shard 1 runs `campaign`
    /// itself (whatever the count, so shard 1/1 is the campaign unsharded), shard I > 1 a
    /// seed drawn from (`campaign`, I).
    pub fn campaign(self, campaign: u64) -> u64 {
        match self.index {
            1 => campaign,
            i => Seeds::new(campaign).derive(&format!("shard {i}")),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = BadShard;

    fn from_str(s: &str) -> Result<Shard, BadShard> {
        let syntax = || BadShard::Syntax(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(syntax)?;
        let number = |t: &str| t.trim().parse::<u64>().map_err(|_| syntax());
        Shard::new(number(i)?, number(n)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(seeds: Range<u64>, count: u64) -> Vec<Range<u64>> {
        (1..=count)
            .map(|i| Shard::new(i, count).unwrap().seeds(&seeds))
            .collect()
    }

    #[test]
    fn blocks_cover_the_range_in_order_and_differ_by_at_most_one() {
        assert_eq!(blocks(0..400, 4), [0..100, 100..200, 200..300, 300..400]);
        assert_eq!(blocks(10..20, 3), [10..13, 13..16, 16..20]);
        assert_eq!(blocks(5..6, 1), [Range { start: 5, end: 6 }]);
        for (seeds, count) in [(0..1000, 7), (3..10, 7), (u64::MAX - 9..u64::MAX, 4)] {
            let b = blocks(seeds.clone(), count);
            assert_eq!(b[0].start, seeds.start);
            assert_eq!(b[b.len() - 1].end, seeds.end);
            assert!(b.windows(2).all(|w| w[0].end == w[1].start), "{b:?}");
            let lens: Vec<u64> = b.iter().map(|r| r.end - r.start).collect();
            let (min, max) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
            assert!(max - min <= 1, "{lens:?}");
        }
    }

    #[test]
    fn a_budget_is_shared_out_as_a_range_is_and_adds_up() {
        let shares = |runs: u64, count: u64| -> Vec<u64> {
            (1..=count)
                .map(|i| Shard::new(i, count).unwrap().runs(runs))
                .collect()
        };
        assert_eq!(shares(32, 2), [16, 16]);
        assert_eq!(shares(10, 3), [3, 3, 4]);
        assert_eq!(shares(1000, 1), [1000]);
        assert_eq!(
            shares(2, 3),
            [0, 1, 1],
            "more shards than runs: some get none"
        );
        for (runs, count) in [(1000, 7), (7, 7), (10_000_000, 13)] {
            let s = shares(runs, count);
            assert_eq!(s.iter().sum::<u64>(), runs);
            assert!(
                s.iter().max().unwrap() - s.iter().min().unwrap() <= 1,
                "{s:?}"
            );
        }
    }

    #[test]
    fn shard_1_runs_the_campaign_itself_and_the_others_campaigns_of_their_own() {
        for count in [1, 2, 5] {
            assert_eq!(Shard::new(1, count).unwrap().campaign(7), 7, "1/{count}");
        }
        let of =
            |i: u64, count: u64, campaign: u64| Shard::new(i, count).unwrap().campaign(campaign);
        assert_eq!(of(2, 4, 7), of(2, 4, 7), "a function of its arguments");
        assert_eq!(
            of(2, 2, 7),
            of(2, 4, 7),
            "of the campaign and the index alone"
        );
        assert_eq!(
            of(2, 2, 3),
            18_183_032_845_534_145_743,
            "pinned: a change re-seeds every ensemble"
        );
        let mut seeds: Vec<u64> = (1..=8).map(|i| of(i, 8, 7)).collect();
        seeds.extend((2..=8).map(|i| of(i, 8, 8)));
        let distinct: std::collections::BTreeSet<u64> = seeds.iter().copied().collect();
        assert_eq!(distinct.len(), seeds.len(), "{seeds:?}");
    }

    #[test]
    fn a_shard_is_read_as_i_of_n_and_anything_else_is_refused_with_why() {
        assert_eq!("2/4".parse(), Ok(Shard::new(2, 4).unwrap()));
        assert_eq!(Shard::new(4, 4).unwrap().to_string(), "4/4");
        let refused = |s: &str| s.parse::<Shard>().unwrap_err().to_string();
        assert_eq!(refused("0/4"), "shard 0/4: the index must be within 1..=4");
        assert_eq!(refused("5/4"), "shard 5/4: the index must be within 1..=4");
        assert_eq!(refused("1/0"), "the number of shards must be at least 1");
        for bad in ["x", "2", "2/", "/4", "a/4", "2/4/1", "-1/4"] {
            assert!(refused(bad).starts_with("expected I/N"), "{bad}");
        }
    }
}
