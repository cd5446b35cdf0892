//! Random and guided exploration side by side, as the guided search is judged: for a
//! scenario, the runs each takes to its first finding over several disjoint seed ranges and
//! as many campaigns, and the distinct transitions each reached against the runs it made.
//! Neither side shrinks what it finds: only the count of runs is wanted.

use super::Observer;
use super::guided::{self, GuidedSpec, Tally, Until, run_all, run_once};
use crate::check::Property;
use crate::coverage::{self, CoverageMap};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::Prepared;
use crate::world::run::RunSpec;
use std::ops::Range;

/// What to compare: a scenario, how many seed ranges and campaigns, and the runs of each.
#[derive(Debug, Clone)]
pub struct CompareSpec {
    /// The scenario both sides run.
    pub scenario: Scenario,
    /// Its parameters, overrides applied.
    pub params: Params,
    /// The properties each run is judged by.
    pub properties: Vec<Property>,
    /// Seed ranges on the random side (`k * runs .. (k + 1) * runs`), campaigns on the
    /// guided side (campaign seeds `0..samples`).
    pub samples: u64,
    /// The runs of each range and each campaign.
    pub runs: u64,
    /// Parallel simulations.
    pub jobs: usize,
    /// Go on after each finding to the end of the budget, counting the runs that find
    /// something: how often a side finds (`Side::rate_per_1000`) says in one comparison what
    /// the medians of runs to the first finding say only over many, as each sample then
    /// counts every finding, not one.
    pub rate: bool,
}

/// One side's samples: for each, the runs to its first finding (None: none within the
/// budget) and its coverage after each generation (runs made, distinct transitions).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Side {
    /// Runs to the first finding, per sample.
    pub found_at: Vec<Option<u64>>,
    /// Coverage against runs, per sample.
    pub curves: Vec<Vec<(u64, usize)>>,
    /// With `CompareSpec::rate`, the runs that found something, per sample.
    pub failed: Vec<u64>,
    /// On the guided side, what each source of runs made, reached and found over every
    /// campaign: `fresh` (swarm plans) first, then each mutation by name.
    pub sources: Vec<(&'static str, Tally)>,
}

impl Side {
    /// The median of the runs to the first finding, a sample without one counted as one run
    /// past the budget.
    pub fn median_runs(&self, budget: u64) -> f64 {
        let mut runs: Vec<u64> = self
            .found_at
            .iter()
            .map(|r| r.unwrap_or(budget + 1))
            .collect();
        runs.sort_unstable();
        match runs.len() {
            0 => 0.0,
            n if n % 2 == 1 => runs[n / 2] as f64,
            n => (runs[n / 2 - 1] + runs[n / 2]) as f64 / 2.0,
        }
    }

    /// How many samples found something.
    pub fn found(&self) -> usize {
        self.found_at.iter().filter(|r| r.is_some()).count()
    }

    /// With `CompareSpec::rate`, the runs that found something per 1,000 runs made, over
    /// every sample of `budget` runs.
    pub fn rate_per_1000(&self, budget: u64) -> f64 {
        let made = self.failed.len() as u64 * budget;
        self.failed.iter().sum::<u64>() as f64 * 1000.0 / made.max(1) as f64
    }

    /// The median over samples of the transitions reached within `runs` runs (a sample that
    /// stopped sooner, at a finding, counts what it had then).
    pub fn median_transitions_at(&self, runs: u64) -> usize {
        let mut at: Vec<usize> = self
            .curves
            .iter()
            .map(|curve| {
                curve
                    .iter()
                    .take_while(|(made, _)| *made <= runs)
                    .last()
                    .map_or(0, |(_, t)| *t)
            })
            .collect();
        at.sort_unstable();
        at.get(at.len() / 2).copied().unwrap_or(0)
    }
}

/// Both sides of a comparison.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Comparison {
    /// Random exploration: a swarm plan per seed, seeds in order.
    pub random: Side,
    /// The guided search.
    pub guided: Side,
}

/// Seeds `seeds` in order, in generations of the guided search's size, to the first that
/// fails (or, with `rate`, to the end): the first that failed, how many did, and the
/// coverage after each generation.
fn random_range(
    spec: &CompareSpec,
    seeds: Range<u64>,
    observer: &dyn Observer,
) -> (Option<u64>, u64, Vec<(u64, usize)>) {
    let mut map = CoverageMap::default();
    let mut curve = Vec::new();
    let (mut first, mut failed) = (None, 0);
    let mut start = seeds.start;
    let prepared = Prepared::new(&spec.scenario, &spec.params, &spec.properties);
    while start < seeds.end {
        let end = (start + guided::GENERATION).min(seeds.end);
        let specs: Vec<RunSpec> = (start..end).map(|seed| prepared.generated(seed)).collect();
        let ran = run_all(&specs, spec.jobs, observer, |s| {
            (run_once(&prepared, s, false), ())
        });
        for (seed, (ran, ())) in (start..end).zip(ran) {
            let made = seed - seeds.start + 1;
            match ran {
                Ok(Ok(report)) if report.violations.is_empty() => {
                    map.merge(&coverage::of(&report.history));
                }
                _ if spec.rate => {
                    first = first.or(Some(made));
                    failed += 1;
                }
                _ => {
                    curve.push((made, map.len()));
                    return (Some(made), 1, curve);
                }
            }
        }
        start = end;
        curve.push((start - seeds.start, map.len()));
    }
    (first, failed, curve)
}

/// Runs both sides: `samples` seed ranges of `runs` seeds, and campaigns `0..samples` of
/// `runs` runs, each to its first finding (with `rate`, to the end of its budget). A harness error counts as a finding: the
/// comparison is of how soon each side stops, and a broken run stops both the same way.
pub fn compare(spec: &CompareSpec, observer: &dyn Observer) -> Comparison {
    let mut random = Side::default();
    let mut guided = Side::default();
    for k in 0..spec.samples {
        let (found, failed, curve) =
            random_range(spec, k * spec.runs..(k + 1) * spec.runs, observer);
        random.found_at.push(found);
        random.failed.push(failed);
        random.curves.push(curve);
        let until = if spec.rate {
            Until::Budget
        } else {
            Until::Found
        };
        let campaign = guided::campaign(
            &GuidedSpec {
                scenario: spec.scenario.clone(),
                params: spec.params.clone(),
                properties: spec.properties.clone(),
                campaign: k,
                runs: spec.runs,
                jobs: spec.jobs,
                check_determinism: false,
            },
            observer,
            until,
        );
        let first = match campaign.failed.first() {
            Some(&run) => Some(run),
            None => (!matches!(campaign.outcome, super::Outcome::Clean)).then_some(campaign.runs),
        };
        guided.found_at.push(first);
        guided
            .failed
            .push(campaign.failed.len().max(usize::from(first.is_some())) as u64);
        guided.curves.push(campaign.curve);
        let sources = std::iter::once(("fresh", campaign.fresh)).chain(campaign.mutations);
        for (name, tally) in sources {
            match guided.sources.iter_mut().find(|(n, _)| *n == name) {
                Some((_, sum)) => sum.add(tally),
                None => guided.sources.push((name, tally)),
            }
        }
    }
    Comparison { random, guided }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    /// The random side stops where `explore` does, the guided one where `guided` does, and
    /// both count what they covered on the way.
    #[test]
    fn both_sides_stop_where_their_own_search_does() {
        let scenario = scenario::find("zk-lock-vanished").unwrap();
        let spec = CompareSpec {
            scenario: scenario.clone(),
            params: scenario.params::<&str>(None, &[]).unwrap(),
            properties: scenario.properties.to_vec(),
            samples: 2,
            runs: 120,
            jobs: 2,
            rate: false,
        };
        let c = compare(&spec, &());
        for k in 0..2 {
            let explored = crate::explore::explore(&crate::explore::ExploreSpec {
                scenario: spec.scenario.clone(),
                params: spec.params.clone(),
                properties: spec.properties.clone(),
                seeds: k * 120..(k + 1) * 120,
                jobs: 1,
                check_determinism: false,
            });
            let stopped = !matches!(explored.outcome, super::super::Outcome::Clean);
            assert_eq!(
                c.random.found_at[k as usize],
                stopped.then_some(explored.seeds_run)
            );
            let campaign = guided::guided(
                &GuidedSpec {
                    scenario: spec.scenario.clone(),
                    params: spec.params.clone(),
                    properties: spec.properties.clone(),
                    campaign: k,
                    runs: 120,
                    jobs: 1,
                    check_determinism: false,
                },
                &(),
            );
            let stopped = !matches!(campaign.outcome, super::super::Outcome::Clean);
            assert_eq!(
                c.guided.found_at[k as usize],
                stopped.then_some(campaign.runs)
            );
        }
        assert!(c.random.found() + c.guided.found() > 0, "{c:?}");
        assert!(c.random.median_transitions_at(120) > 0, "{c:?}");
        assert!(c.guided.median_transitions_at(120) > 0, "{c:?}");
    }

    #[test]
    fn a_median_counts_a_sample_without_a_finding_past_the_budget() {
        let side = Side {
            sources: Vec::new(),
            failed: vec![1, 0, 1, 0],
            found_at: vec![Some(3), None, Some(1), None],
            curves: vec![
                vec![(16, 10), (32, 12)],
                vec![(16, 5)],
                vec![],
                vec![(16, 7)],
            ],
        };
        assert_eq!(side.median_runs(100), (3.0 + 101.0) / 2.0);
        assert_eq!(side.found(), 2);
        assert_eq!(side.median_transitions_at(20), 7);
        assert_eq!(
            side.median_transitions_at(40),
            7,
            "of 0, 5, 7 and 12, the upper median"
        );
        assert_eq!(side.median_transitions_at(10), 0);
        assert_eq!(side.rate_per_1000(100), 5.0, "2 findings in 400 runs");
    }

    /// Going on after findings changes nothing up to the first: each side's first finding
    /// is where it stops without `rate`, and it counts the findings after it too.
    #[test]
    fn a_rate_counts_every_finding_from_the_same_first_one() {
        let scenario = scenario::find("redis-lock").unwrap();
        let spec = CompareSpec {
            scenario: scenario.clone(),
            params: scenario.params::<&str>(None, &[]).unwrap(),
            properties: scenario.properties.to_vec(),
            samples: 2,
            runs: 48,
            jobs: 2,
            rate: false,
        };
        let stopping = compare(&spec, &());
        let counting = compare(&CompareSpec { rate: true, ..spec }, &());
        for (stops, counts) in [
            (&stopping.random, &counting.random),
            (&stopping.guided, &counting.guided),
        ] {
            assert_eq!(stops.found_at, counts.found_at);
            assert!(counts.failed.iter().sum::<u64>() > 2, "{counts:?}");
            assert!(counts.failed.iter().all(|&f| f <= 48));
            assert!(counts.rate_per_1000(48) > 0.0);
        }
        // The guided side's sources sum every campaign: fresh plans first, and every finding
        // counted against a fresh plan or a mutation.
        let sources = &counting.guided.sources;
        assert_eq!(sources[0].0, "fresh");
        assert_eq!(
            sources.len(),
            1 + crate::explore::mutate::Mutation::ALL.len()
        );
        let found: u64 = sources.iter().map(|(_, t)| t.found).sum();
        let failed: u64 = counting.guided.failed.iter().sum();
        assert!(
            sources[0].1.found <= failed && failed <= found,
            "{sources:?}"
        );
        assert!(
            sources[0].1.made >= 2 * guided::GENERATION,
            "each campaign's first generation is fresh plans: {sources:?}"
        );
        assert!(counting.random.sources.is_empty());
    }
}
