//! Exploring on after a finding (`explore --every-property`, `Experiment::every_property`):
//! the first seed of each property a range shows, each shrunk keeping that property broken.
//!
//! The answer is that of a walk over the seeds in order that notes each property's first
//! violation and stops at the first harness error or divergence, or once every judged
//! property has been seen. `FirstSeeds` is its pure core: it takes the failing seeds in
//! whatever order the threads finish them and gives the walk's answer, and the bound below
//! which every seed must run (it only ever falls to a bound at or above the walk's end, so
//! the answer is the same with any number of jobs).

use super::{Exploration, Finding, Observer, Outcome, SeedResult, shrink_keeping, sweep};
use super::{ExploreSpec, failure};
use crate::check::Property;
use crate::world::run::RunReport;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Each property's lowest violating seed so far (with what it showed, `T`), and the lowest
/// seed the harness failed or diverged on.
#[derive(Debug)]
pub(crate) struct FirstSeeds<T> {
    judged: Vec<Property>,
    first: BTreeMap<Property, (u64, T)>,
    broken: Option<u64>,
}

/// What the walk over the seeds in order found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Walked<T> {
    /// Each property's first seed (with what it showed), by seed then property.
    pub firsts: Vec<(Property, u64, T)>,
    /// The seed the harness failed or diverged on, if the walk reached one.
    pub broken: Option<u64>,
    /// The last seed the walk looked at: the broken one, or the one that showed the last
    /// judged property; None when it went to the end of the range.
    pub last: Option<u64>,
}

impl<T: Clone> FirstSeeds<T> {
    /// Nothing seen yet, judging `judged`.
    pub(crate) fn new(judged: &[Property]) -> FirstSeeds<T> {
        FirstSeeds {
            judged: judged.to_vec(),
            first: BTreeMap::new(),
            broken: None,
        }
    }

    /// `seed` broke `properties`, showing `shown`.
    pub(crate) fn violated(&mut self, seed: u64, properties: &[Property], shown: &T) {
        for &property in properties {
            match self.first.get(&property) {
                Some((first, _)) if *first <= seed => {}
                _ => {
                    self.first.insert(property, (seed, shown.clone()));
                }
            }
        }
    }

    /// The harness failed or diverged on `seed`.
    pub(crate) fn broke(&mut self, seed: u64) {
        self.broken = Some(self.broken.map_or(seed, |b| b.min(seed)));
    }

    /// The seed no new seed need start at or above: past the lowest broken one, or past the
    /// last of the judged properties' first seeds once each has one; None while every seed
    /// is still needed. Never below the walk's end, whatever the order seeds came in.
    pub(crate) fn bound(&self) -> Option<u64> {
        let broken = self.broken.map(|b| b.saturating_add(1));
        let all_seen = self
            .judged
            .iter()
            .map(|p| self.first.get(p).map(|(seed, _)| *seed))
            .collect::<Option<Vec<u64>>>()
            .and_then(|seeds| seeds.into_iter().max())
            .map(|last| last.saturating_add(1));
        broken.into_iter().chain(all_seen).min()
    }

    /// The walk's answer, given that every seed below `bound` (at the time of asking) ran.
    pub(crate) fn walk(&self) -> Walked<T> {
        let below = |seed: u64| self.broken.is_none_or(|b| seed < b);
        let mut firsts: Vec<(Property, u64, T)> = self
            .first
            .iter()
            .filter(|(_, (seed, _))| below(*seed))
            .map(|(p, (seed, shown))| (*p, *seed, shown.clone()))
            .collect();
        firsts.sort_by_key(|(p, seed, _)| (*seed, *p));
        let seen = |p: &Property| firsts.iter().any(|(q, _, _)| q == p);
        let all_seen = !self.judged.is_empty() && self.judged.iter().all(seen);
        let (broken, last) = match (all_seen, self.broken) {
            (true, _) => (None, firsts.iter().map(|(_, seed, _)| *seed).max()),
            (false, Some(b)) => (Some(b), Some(b)),
            (false, None) => (None, None),
        };
        Walked {
            firsts,
            broken,
            last,
        }
    }
}

impl Exploration {
    /// Each property's first seed as messages name them (`by_property`): "herd at seed 46,
    /// leader at seed 583"; empty for an exploration that stopped at its first finding.
    pub fn first_seeds(&self) -> String {
        let firsts: Vec<String> = self
            .by_property
            .iter()
            .map(|(p, finding)| format!("{p} at seed {}", finding.spec.seed))
            .collect();
        firsts.join(", ")
    }
}

/// Explores `spec`'s seeds on after a finding: each violated property's first seed, its
/// plan shrunk keeping that property broken (`Exploration::by_property`, by seed). The
/// outcome is the lowest of them (or the harness error or divergence the walk stopped at);
/// as with `explore`, the result is the same whatever `jobs` is. It stops early once every
/// judged property has been seen.
pub fn explore_every_property(spec: &ExploreSpec, observer: &dyn Observer) -> Exploration {
    let seen: Mutex<FirstSeeds<Arc<RunReport>>> = Mutex::new(FirstSeeds::new(&spec.properties));
    let broken: Mutex<Vec<(u64, SeedResult)>> = Mutex::new(Vec::new());
    let swept = sweep(spec, observer, |seed, result| {
        let mut seen = seen.lock().expect("no thread panics holding it");
        match result {
            SeedResult::Failed(Ok(report)) => {
                let properties = crate::trace::violated(&report);
                observer.violated(seed, &properties);
                seen.violated(seed, &properties, &Arc::new(report));
            }
            other => {
                seen.broke(seed);
                broken
                    .lock()
                    .expect("no thread panics holding it")
                    .push((seed, other));
            }
        }
        seen.bound()
    });
    let walked = seen.into_inner().expect("no thread panicked").walk();
    let by_property: Vec<(Property, Finding)> = walked
        .firsts
        .into_iter()
        .map(|(property, seed, report)| {
            let run_spec = spec.spec_for(seed);
            observer.shrinking(seed, run_spec.plan.0.len());
            let report = Arc::unwrap_or_clone(report);
            (property, shrink_keeping(run_spec, report, &[property]))
        })
        .collect();
    let outcome = match walked.broken {
        Some(b) => {
            let mut broken = broken.into_inner().expect("no thread panicked");
            let at = broken
                .iter()
                .position(|(seed, _)| *seed == b)
                .expect("the broken seed was kept");
            failure(spec.spec_for(b), broken.swap_remove(at).1, observer)
        }
        None => match by_property.first() {
            Some((_, finding)) => Outcome::Violation(Box::new(finding.clone())),
            None => Outcome::Clean,
        },
    };
    let seeds_run = match walked.last {
        Some(last) => last - spec.seeds.start + 1,
        None => swept.ran,
    };
    let witnessed = match outcome {
        Outcome::Clean => swept.witnessed,
        _ => Vec::new(),
    };
    Exploration {
        seeds_run,
        outcome,
        witnessed,
        by_property,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERD: Property = Property::HERD;
    const LEADER: Property = Property::LEADER;
    const LIVENESS: Property = Property::LIVENESS;

    /// What seeds an exploration of 0..100 judging herd, leader and liveness sees fail:
    /// herd at 3, 7 and 60; leader at 40 and 55 (with herd at 40); liveness never.
    fn failing() -> Vec<(u64, Vec<Property>)> {
        vec![
            (3, vec![HERD]),
            (7, vec![HERD]),
            (40, vec![HERD, LEADER]),
            (55, vec![LEADER]),
            (60, vec![HERD]),
        ]
    }

    /// Every order of `seeds` (all of them, for a handful; rotations beyond).
    fn orders<T: Clone>(seeds: &[T]) -> Vec<Vec<T>> {
        if seeds.len() <= 1 {
            return vec![seeds.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..seeds.len() {
            let mut rest = seeds.to_vec();
            let head = rest.remove(i);
            for mut tail in orders(&rest) {
                tail.insert(0, head.clone());
                all.push(tail);
            }
        }
        all
    }

    fn walked(order: &[(u64, Vec<Property>)], judged: &[Property]) -> Walked<u64> {
        let mut seen = FirstSeeds::new(judged);
        for (seed, properties) in order {
            seen.violated(*seed, properties, seed);
        }
        seen.walk()
    }

    #[test]
    fn each_property_keeps_its_lowest_seed_in_any_order() {
        let judged = [HERD, LEADER, LIVENESS];
        for order in orders(&failing()) {
            let w = walked(&order, &judged);
            assert_eq!(
                w.firsts,
                [(HERD, 3, 3), (LEADER, 40, 40)],
                "order {order:?}"
            );
            assert_eq!((w.broken, w.last), (None, None), "liveness never seen");
        }
    }

    #[test]
    fn once_every_judged_property_is_seen_the_walk_ends_at_the_last_first_seed() {
        for order in orders(&failing()) {
            let mut seen = FirstSeeds::new(&[HERD, LEADER]);
            let mut bounds = Vec::new();
            for (seed, properties) in &order {
                seen.violated(*seed, properties, &());
                bounds.extend(seen.bound());
            }
            assert!(
                bounds.iter().all(|b| *b >= 41),
                "no bound below the walk's end (seed 40): {bounds:?} for {order:?}"
            );
            assert_eq!(seen.bound(), Some(41));
            let w = seen.walk();
            assert_eq!(w.last, Some(40));
            assert_eq!(w.firsts, [(HERD, 3, ()), (LEADER, 40, ())]);
        }
    }

    #[test]
    fn a_broken_seed_ends_the_walk_and_hides_the_findings_above_it() {
        let mut seeds: Vec<(u64, Option<Vec<Property>>)> =
            failing().into_iter().map(|(s, p)| (s, Some(p))).collect();
        seeds.push((20, None));
        seeds.push((50, None));
        for order in orders(&seeds) {
            let mut seen = FirstSeeds::new(&[HERD, LEADER, LIVENESS]);
            for (seed, properties) in &order {
                match properties {
                    Some(p) => seen.violated(*seed, p, &()),
                    None => seen.broke(*seed),
                }
                assert!(seen.bound().is_none_or(|b| b >= 21), "{order:?}");
            }
            let w = seen.walk();
            assert_eq!(w.firsts, [(HERD, 3, ())], "leader's 40 is above 20");
            assert_eq!((w.broken, w.last), (Some(20), Some(20)));
        }
        // A broken seed above the last first seed is never reached when all are seen.
        let mut seen = FirstSeeds::new(&[HERD]);
        seen.broke(9);
        seen.violated(3, &[HERD], &());
        let w = seen.walk();
        assert_eq!((w.broken, w.last), (None, Some(3)));
        assert_eq!(seen.bound(), Some(4));
    }
}
