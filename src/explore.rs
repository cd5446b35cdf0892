//! Exploration: run many seeds of a scenario in parallel (one simulation per thread), stop
//! at the lowest failing seed, shrink its fault plan, and hand back a replayable finding;
//! or, `every_property`, go on after it to the first seed of each property the range shows.
//! `shard` splits one exploration over machines; `guided` steers plans toward states no run
//! reached, by the mutations of `mutate`; `compare` measures it against random exploration.

#[cfg(feature = "cli")]
pub(crate) mod compare;
mod every_property;
pub(crate) mod guided;
mod mutate;
pub(crate) mod shard;
mod shrink;

pub use every_property::explore_every_property;
pub use shard::{BadShard, Shard};
use shrink::{shrink, shrink_keeping};

use crate::check::{Property, Witness};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::Prepared;
use crate::world::run::{self, RunError, RunReport, RunSpec};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// What to explore: a scenario with its parameters, over a range of seeds.
#[derive(Debug, Clone)]
pub struct ExploreSpec {
    /// The scenario each seed runs.
    pub scenario: Scenario,
    /// Its parameters, overrides applied.
    pub params: Params,
    /// The properties each run is judged by.
    pub properties: Vec<Property>,
    /// The seeds to run, each with the fault plan the swarm draws from it.
    pub seeds: Range<u64>,
    /// Parallel simulations, one thread each (clamped to 1..=`MAX_JOBS`).
    pub jobs: usize,
    /// Run every seed twice and compare history digests.
    pub check_determinism: bool,
}

/// A failing run, its plan shrunk: what a trace file records and replays.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The run with its shrunk plan, and its report.
    pub spec: RunSpec,
    /// What that run showed: its history and violations.
    pub report: RunReport,
    /// How many faults the generated plan had before shrinking.
    pub original_faults: usize,
}

/// How an exploration ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// Every seed ran clean.
    Clean,
    /// A run broke a property: the lowest such seed, its plan shrunk.
    Violation(Box<Finding>),
    /// The harness itself failed on a seed (a bug in locksim, not in the recipe).
    HarnessError {
        /// The seed it failed on.
        seed: u64,
        /// What failed.
        error: RunError,
    },
    /// The same seed produced two different histories: a determinism bug in locksim.
    Nondeterminism {
        /// The seed that diverged.
        seed: u64,
        /// Where the two runs differ (`divergence`).
        detail: String,
    },
}

/// What one seed showed.
pub(crate) enum SeedResult {
    /// It broke nothing; what the checkers saw put to the test.
    Clean(Vec<Witness>),
    /// It broke a property (a report with violations), or the harness failed.
    Failed(Result<RunReport, RunError>),
    /// Its two runs differed (`check_determinism`), as `divergence` tells it.
    Diverged(String),
}

/// What an exploration found, and how many seeds it took.
#[derive(Debug)]
pub struct Exploration {
    /// Seeds that ran to completion (all seeds below a failing one always do).
    pub seeds_run: u64,
    /// Clean, or the lowest seed's failure.
    pub outcome: Outcome,
    /// For a clean exploration, per property with a witness (`Checker::witness`), in how
    /// many of its seeds it was seen; empty otherwise (the seeds that ran then depend on
    /// the threads).
    pub witnessed: Vec<Witnessed>,
    /// Of an exploration that went on after its first finding
    /// ([`explore_every_property`]), each violated property's first finding, its plan
    /// shrunk keeping that property broken, by seed (then property); empty otherwise.
    pub by_property: Vec<(Property, Finding)>,
}

/// How often a property's witness was seen over the seeds, and at the lowest seed, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witnessed {
    /// The property whose witness it is.
    pub property: Property,
    /// In how many seeds it was seen.
    pub seeds: u64,
    /// The lowest seed it was seen in.
    pub first_seed: u64,
    /// What it saw at `first_seed` (`Witness::detail`).
    pub detail: String,
}

impl ExploreSpec {
    /// The run of `seed`: its plan drawn by the swarm, judged by these properties.
    pub(crate) fn spec_for(&self, seed: u64) -> RunSpec {
        RunSpec {
            properties: self.properties.clone(),
            ..RunSpec::generated(&self.scenario, self.params.clone(), seed)
        }
    }
}

/// Most parallel simulations `explore` runs (one thread each).
pub const MAX_JOBS: usize = 256;

/// Hears how an exploration goes while it runs, e.g. to draw a progress bar. It only
/// listens: nothing it does changes which seeds run or what the exploration finds.
///
/// Its methods are called from the exploring threads (one simulation per thread), so seeds
/// arrive out of order and at the same time; an observer counts with atomics or a lock.
/// `()` is the observer that ignores everything.
pub trait Observer: Sync {
    /// A seed ran to completion. `failed`: it broke a property, the harness failed on it,
    /// or its two runs differed (`check_determinism`). Seeds above a failing one that were
    /// already running still report; then no new seed starts above the lowest failure.
    fn seed_done(&self, seed: u64, failed: bool);

    /// Every seed is done and `seed`, the lowest failing one, broke a property: its fault
    /// plan of `faults` faults is about to be shrunk (more runs, on the calling thread).
    fn shrinking(&self, seed: u64, faults: usize);

    /// In an exploration that goes on after a finding ([`explore_every_property`]), `seed`
    /// broke `properties` (in their usual order). Ignored by default.
    fn violated(&self, seed: u64, properties: &[Property]) {
        let _ = (seed, properties);
    }

    /// A guided campaign took in a generation: after `runs` runs its corpus holds `corpus`
    /// runs and they reached `transitions` distinct transitions. Ignored by default.
    fn generation(&self, runs: u64, corpus: usize, transitions: usize) {
        let _ = (runs, corpus, transitions);
    }
}

impl Observer for () {
    fn seed_done(&self, _seed: u64, _failed: bool) {}

    fn shrinking(&self, _seed: u64, _faults: usize) {}
}

/// Runs the seeds; the result is the same whatever `jobs` is: the lowest failing seed wins,
/// because every seed below it is always run. No more threads run than there are seeds.
pub fn explore(spec: &ExploreSpec) -> Exploration {
    explore_observed(spec, &())
}

/// [`explore`], telling `observer` of each seed as it is done and of the shrinking.
pub fn explore_observed(spec: &ExploreSpec, observer: &dyn Observer) -> Exploration {
    let failures: Mutex<Vec<(u64, SeedResult)>> = Mutex::new(Vec::new());
    let swept = sweep(spec, observer, |seed, result| {
        failures
            .lock()
            .expect("no thread panics holding it")
            .push((seed, result));
        Some(seed + 1)
    });
    let mut failures = failures.into_inner().expect("no thread panicked");
    failures.sort_by_key(|(seed, _)| *seed);
    let Some((seed, result)) = failures.into_iter().next() else {
        return Exploration {
            seeds_run: swept.ran,
            outcome: Outcome::Clean,
            witnessed: swept.witnessed,
            by_property: Vec::new(),
        };
    };
    Exploration {
        seeds_run: seed - spec.seeds.start + 1,
        outcome: failure(spec.spec_for(seed), result, observer),
        witnessed: Vec::new(),
        by_property: Vec::new(),
    }
}

/// What a sweep ran: how many seeds, and what the clean ones' checkers saw put to the test.
pub(crate) struct Swept {
    pub ran: u64,
    pub witnessed: Vec<Witnessed>,
}

/// Runs the seeds of `spec` from the lowest up on its threads, telling `observer` of each,
/// and hands each seed that did not run clean to `take`, which returns a bound no new seed
/// starts at or above (None: every seed is still needed). No more threads run than there
/// are seeds.
pub(crate) fn sweep(
    spec: &ExploreSpec,
    observer: &dyn Observer,
    take: impl Fn(u64, SeedResult) -> Option<u64> + Sync,
) -> Swept {
    let next = AtomicU64::new(spec.seeds.start);
    let stop = AtomicU64::new(spec.seeds.end);
    let witnessed: Mutex<BTreeMap<Property, Witnessed>> = Mutex::new(BTreeMap::new());
    let ran = AtomicU64::new(0);
    let seeds = spec.seeds.end.saturating_sub(spec.seeds.start);
    let prepared = Prepared::new(&spec.scenario, &spec.params, &spec.properties);
    let threads = spec
        .jobs
        .clamp(1, MAX_JOBS)
        .min(usize::try_from(seeds).unwrap_or(MAX_JOBS));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                // Takes the next seed only while it is below the stop, so the counter never
                // passes the range's end (and never wraps at u64::MAX).
                while let Ok(seed) = next.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    (n < stop.load(Ordering::SeqCst)).then(|| n + 1)
                }) {
                    let result = run_seed(&prepared, seed, spec.check_determinism);
                    ran.fetch_add(1, Ordering::SeqCst);
                    observer.seed_done(seed, !matches!(result, SeedResult::Clean(_)));
                    if let SeedResult::Clean(witnesses) = result {
                        let mut witnessed = witnessed.lock().expect("no thread panics holding it");
                        for w in witnesses {
                            tally(&mut witnessed, seed, w);
                        }
                    } else if let Some(bound) = take(seed, result) {
                        stop.fetch_min(bound, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    Swept {
        ran: ran.into_inner(),
        witnessed: witnessed
            .into_inner()
            .expect("no thread panicked")
            .into_values()
            .collect(),
    }
}

/// The outcome of a run of `spec` that did not run clean: a violation (its plan shrunk, which
/// `observer` hears of first), a harness error or a divergence.
pub(crate) fn failure(spec: RunSpec, result: SeedResult, observer: &dyn Observer) -> Outcome {
    let seed = spec.seed;
    match result {
        SeedResult::Clean(_) => Outcome::Clean,
        SeedResult::Diverged(detail) => Outcome::Nondeterminism { seed, detail },
        SeedResult::Failed(Err(error)) => Outcome::HarnessError { seed, error },
        SeedResult::Failed(Ok(report)) => {
            observer.shrinking(seed, spec.plan.0.len());
            Outcome::Violation(Box::new(shrink(spec, report)))
        }
    }
}

/// Counts `witness`, seen at `seed`, keeping the lowest seed's detail.
fn tally(witnessed: &mut BTreeMap<Property, Witnessed>, seed: u64, witness: Witness) {
    let entry = witnessed
        .entry(witness.property)
        .or_insert_with(|| Witnessed {
            property: witness.property,
            seeds: 0,
            first_seed: seed,
            detail: witness.detail.clone(),
        });
    entry.seeds += 1;
    if seed < entry.first_seed {
        entry.first_seed = seed;
        entry.detail = witness.detail;
    }
}

/// Runs `seed` of the exploration `prepared` for, as `run_checked` does.
fn run_seed(prepared: &Prepared, seed: u64, check_determinism: bool) -> SeedResult {
    let spec = prepared.generated(seed);
    checked(|| prepared.run(&spec), check_determinism)
}

/// Runs `run_spec`, twice when `check_determinism` asks (a difference is `Diverged`).
pub(crate) fn run_checked(run_spec: &RunSpec, check_determinism: bool) -> SeedResult {
    checked(|| run::run(run_spec), check_determinism)
}

/// What `run` showed, run twice when `check_determinism` asks.
fn checked(run: impl Fn() -> Result<RunReport, RunError>, check_determinism: bool) -> SeedResult {
    let first = run();
    if check_determinism {
        let detail = match (&first, &run()) {
            (Ok(a), Ok(b)) => divergence(a, b),
            (Err(a), Err(b)) if a == b => None,
            (a, b) => Some(format!(
                "one run gave {}, the other {}",
                outcome(a),
                outcome(b)
            )),
        };
        if let Some(detail) = detail {
            return SeedResult::Diverged(detail);
        }
    }
    match first {
        Ok(report) if report.violations.is_empty() => SeedResult::Clean(report.witnesses),
        other => SeedResult::Failed(other),
    }
}

fn outcome(result: &Result<RunReport, RunError>) -> String {
    match result {
        Ok(report) => format!("history {}", report.digest),
        Err(e) => format!("error: {e}"),
    }
}

/// Describes the first differing event of two runs of one spec, if they differ.
pub fn divergence(a: &RunReport, b: &RunReport) -> Option<String> {
    if a.digest == b.digest {
        return None;
    }
    let (index, x, y) = crate::history::first_difference(&a.history, &b.history)?;
    let show = |e: Option<&crate::history::Event>| {
        e.map_or("nothing".to_string(), |e| {
            serde_json::to_string(e).expect("event serialises")
        })
    };
    Some(format!(
        "digests {} and {} differ at event #{index}: {} vs {}",
        a.digest,
        b.digest,
        show(x),
        show(y)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn spec(name: &str, seeds: Range<u64>, jobs: usize) -> ExploreSpec {
        let scenario = scenario::find(name).unwrap();
        ExploreSpec {
            scenario: scenario.clone(),
            params: Params::default().overridden(&["faults=none"]).unwrap(),
            properties: scenario.properties.to_vec(),
            seeds,
            jobs,
            check_determinism: false,
        }
    }

    #[test]
    fn seeds_at_the_top_of_the_range_never_wrap_to_zero() {
        let top = u64::MAX - 1..u64::MAX;
        for jobs in [1, 2, 7] {
            let e = explore(&spec("zk-lock", top.clone(), jobs));
            assert!(matches!(e.outcome, Outcome::Clean), "{:?}", e.outcome);
            assert_eq!(e.seeds_run, 1, "jobs {jobs}");
            let e = explore(&spec("zk-lock-herd", u64::MAX - 3..u64::MAX, jobs));
            let Outcome::Violation(f) = e.outcome else {
                panic!("jobs {jobs}: {:?}", e.outcome)
            };
            assert_eq!(f.spec.seed, u64::MAX - 3, "jobs {jobs}");
        }
    }

    /// Remembers what it heard.
    #[derive(Default)]
    struct Heard {
        seeds: Mutex<Vec<(u64, bool)>>,
        shrinking: Mutex<Vec<u64>>,
    }

    impl Observer for Heard {
        fn seed_done(&self, seed: u64, failed: bool) {
            self.seeds.lock().unwrap().push((seed, failed));
        }

        fn shrinking(&self, seed: u64, _faults: usize) {
            self.shrinking.lock().unwrap().push(seed);
        }
    }

    #[test]
    fn an_observer_hears_each_seed_once_and_changes_nothing() {
        let clean = spec("zk-lock", 5..9, 3);
        let heard = Heard::default();
        let e = explore_observed(&clean, &heard);
        assert!(matches!(e.outcome, Outcome::Clean), "{:?}", e.outcome);
        let mut seeds = heard.seeds.into_inner().unwrap();
        seeds.sort();
        assert_eq!(seeds, [(5, false), (6, false), (7, false), (8, false)]);
        assert!(heard.shrinking.into_inner().unwrap().is_empty());
        assert_eq!(e.witnessed, explore(&clean).witnessed);

        let herd = spec("zk-lock-herd", 0..4, 2);
        let heard = Heard::default();
        let e = explore_observed(&herd, &heard);
        let Outcome::Violation(f) = e.outcome else {
            panic!("{:?}", e.outcome)
        };
        let seeds = heard.seeds.into_inner().unwrap();
        assert!(seeds.contains(&(0, true)), "{seeds:?}");
        assert_eq!(heard.shrinking.into_inner().unwrap(), [0]);
        let Outcome::Violation(unobserved) = explore(&herd).outcome else {
            panic!("herd is found without an observer too")
        };
        assert_eq!(f.report.digest, unobserved.report.digest);
        assert_eq!(f.spec.plan.0, unobserved.spec.plan.0);
    }

    #[test]
    fn more_jobs_than_seeds_run_each_seed_once() {
        let e = explore(&spec("zk-lock", 5..8, MAX_JOBS));
        assert_eq!(e.seeds_run, 3);
        assert!(matches!(e.outcome, Outcome::Clean), "{:?}", e.outcome);
    }
}
