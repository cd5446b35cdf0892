//! Property-based fuzzing of lock safety: proptest draws fault plans from the same knobs as
//! the swarm generator, runs them, and on a failure shrinks the plan to a minimal one and
//! prints the command that replays it. The runner is seeded, so CI sees the same cases.

use crate::runner;
use locksim::params::Params;
use locksim::scenario::{self, Scenario};
use locksim::sim::fault::{Fault, FaultPlan};
use locksim::trace::Trace;
use locksim::world::run::{RunSpec, run, swarm_config};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};
use std::path::PathBuf;

fn strategy(scenario: &Scenario, params: &Params) -> impl Strategy<Value = (u64, FaultPlan)> {
    (
        0..1_000_000u64,
        locksim::sim::swarm::plan_strategy(swarm_config(scenario, params)),
    )
}

/// Runs one case; a violation saves its trace and fails with the replay command.
fn case(
    scenario: &'static Scenario,
    params: &Params,
    seed: u64,
    plan: FaultPlan,
) -> Result<(), TestCaseError> {
    let spec = RunSpec {
        plan,
        ..RunSpec::generated(scenario, params.clone(), seed)
    };
    let report = run(&spec).map_err(|e| TestCaseError::fail(e.to_string()))?;
    if report.violations.is_empty() {
        return Ok(());
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-traces");
    let path = Trace::of(&spec, &report)
        .save(&dir)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    Err(TestCaseError::fail(format!(
        "{} (replay with: locksim replay {})",
        report.violations[0],
        path.display()
    )))
}

#[test]
fn zk_lock_is_safe_and_live_under_fuzzed_fault_plans() {
    let scenario = scenario::find("zk-lock").unwrap();
    let params = Params::default();
    let result = runner(200).run(&strategy(scenario, &params), |(seed, plan)| {
        case(scenario, &params, seed, plan)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn fuzzing_finds_the_noguid_flaw_and_shrinks_it_to_the_lost_reply() {
    let scenario = scenario::find("zk-lock-noguid").unwrap();
    let params = Params::default()
        .overridden(&["faults=lose_reply,pause,partition"])
        .unwrap();
    // It must find the flaw, so it runs at least its 200 cases whatever PROPTEST_CASES says.
    let result = runner(200)
        .with_at_least(200)
        .run(&strategy(scenario, &params), |(seed, plan)| {
            case(scenario, &params, seed, plan)
        });
    match result {
        Err(TestError::Fail(reason, (_, plan))) => {
            assert!(
                reason.message().contains("liveness"),
                "{}",
                reason.message()
            );
            assert!(
                reason.message().contains("locksim replay"),
                "{}",
                reason.message()
            );
            assert!(
                plan.0
                    .iter()
                    .any(|t| matches!(t.fault, Fault::LoseReply { .. })),
                "minimal plan keeps the lost reply: {plan:?}"
            );
            assert!(plan.0.len() <= 2, "shrunk to a minimal plan: {plan:?}");
        }
        other => panic!("proptest should have found the flaw: {other:?}"),
    }
}
