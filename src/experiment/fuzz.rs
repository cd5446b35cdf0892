//! The proptest entry point: proptest draws the cases (a seed and a fault plan from the
//! swarm's knobs) and counts them as `PROPTEST_CASES` says; locksim, not proptest, shrinks
//! the first failing plan, so one trace is written for the finding rather than one per
//! shrink step.

use crate::check::Property;
use crate::explore::{self, Exploration, Outcome, SeedResult};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::sim::swarm::plan_strategy;
use crate::world::run::{RunSpec, swarm_config};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::cell::{Cell, RefCell};

/// Runs the cases `Config::default()` asks for (`PROPTEST_CASES`); returns how many that
/// is and what they showed.
pub(super) fn fuzz(
    scenario: &Scenario,
    params: &Params,
    properties: &[Property],
    check_determinism: bool,
) -> (u32, Exploration) {
    let config = Config {
        // locksim shrinks; proptest's regression files would land in the user's sources.
        max_shrink_iters: 0,
        failure_persistence: None,
        ..Config::default()
    };
    let cases = config.cases;
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (
        (0..1_000_000u64).no_shrink(),
        plan_strategy(swarm_config(scenario, params)),
    );
    let ran = Cell::new(0u64);
    let failed: RefCell<Option<(RunSpec, SeedResult)>> = RefCell::new(None);
    let _ = runner.run(&strategy, |(seed, plan)| {
        ran.set(ran.get() + 1);
        let spec = RunSpec {
            plan,
            properties: properties.to_vec(),
            ..RunSpec::generated(scenario, params.clone(), seed)
        };
        match explore::run_checked(&spec, check_determinism) {
            SeedResult::Clean(_) => Ok(()),
            result => {
                failed.replace(Some((spec, result)));
                Err(TestCaseError::fail("the run did not hold"))
            }
        }
    });
    let outcome = match failed.into_inner() {
        Some((spec, result)) => explore::failure(spec, result, &()),
        None => Outcome::Clean,
    };
    let exploration = Exploration {
        seeds_run: ran.get(),
        outcome,
        witnessed: Vec::new(),
        by_property: Vec::new(),
    };
    (cases, exploration)
}
