//! Property-based fuzzing of lock safety: proptest draws fault plans from the same knobs as
//! the swarm generator, runs them, and on a failure shrinks the plan to a minimal one and
//! prints the command that replays it. The runner is seeded, so CI sees the same cases.

use super::runner;
use locksim::check::Property;
use locksim::params::{Params, PersistenceMode};
use locksim::scenario::{self, Scenario};
use locksim::sim::fault::{Fault, FaultPlan};
use locksim::trace::{Trace, replay};
use locksim::world::run::{RunSpec, generate_plan, run, swarm_config};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};
use std::cell::Cell;
use std::path::PathBuf;

/// A seed and a plan. Only the plan shrinks: another seed draws other timings and retry
/// delays throughout the run, so it is no simpler, and it would lose the failure the plan
/// is being shrunk against.
fn strategy(scenario: &Scenario, params: &Params) -> impl Strategy<Value = (u64, FaultPlan)> {
    (
        (0..1_000_000u64).no_shrink(),
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
    let spec = RunSpec::generated(scenario, params.clone(), seed).with_plan(plan);
    let report = run(&spec).map_err(|e| TestCaseError::fail(e.to_string()))?;
    if report.violations().is_empty() {
        return Ok(());
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-traces");
    let path = Trace::of(&spec, &report)
        .save(&dir)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    Err(TestCaseError::fail(format!(
        "{} (replay with: locksim replay {})",
        report.violations()[0],
        path.display()
    )))
}

/// Fuzzes `name` under `profile` (None: its default) for `cases` cases: every case must be
/// clean.
fn holds_under_fuzzing(name: &str, profile: Option<&str>, cases: u32) {
    let scenario = scenario::find(name).unwrap();
    let params = scenario.params::<&str>(profile, &[]).unwrap();
    let result = runner(cases).run(&strategy(scenario, &params), |(seed, plan)| {
        case(scenario, &params, seed, plan)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn zk_lock_is_safe_and_live_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-lock", None, 200);
}

#[test]
fn zk_rwlock_is_safe_and_live_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-rwlock", None, 150);
}

#[test]
fn zk_election_keeps_one_leader_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-election", None, 150);
}

#[test]
fn zk_queue_loses_and_duplicates_nothing_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-queue", None, 300);
}

#[test]
fn zk_barrier_holds_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-barrier", None, 60);
}

#[test]
fn zk_double_barrier_holds_under_fuzzed_fault_plans() {
    holds_under_fuzzing("zk-double-barrier", None, 60);
}

#[test]
fn fuzzing_finds_the_noguid_flaw_and_shrinks_it_to_the_lost_reply() {
    let scenario = scenario::find("zk-lock-noguid").unwrap();
    let params = Params::default()
        .overridden(&["faults=lose_reply"])
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
                plan.faults()
                    .iter()
                    .any(|t| matches!(t.fault, Fault::LoseReply { .. })),
                "minimal plan keeps the lost reply: {plan:?}"
            );
            assert!(
                plan.faults().len() <= 2,
                "shrunk to a minimal plan: {plan:?}"
            );
        }
        other => panic!("proptest should have found the flaw: {other:?}"),
    }
}

/// Every `Fault` the swarm draws for `params` over `seeds` seeds of the scenario.
fn drawn(scenario: &'static Scenario, params: &Params, seeds: u64) -> Vec<Fault> {
    (0..seeds)
        .flat_map(|seed| generate_plan(scenario, params, seed).into_faults())
        .map(|t| t.fault)
        .collect()
}

fn is_client(node: &str) -> bool {
    node.starts_with('c')
}

#[test]
fn the_full_redis_profile_draws_every_fault_the_issue_lists_and_own_assumptions_none_it_excludes() {
    let redlock = scenario::find("redlock").unwrap();
    let full = redlock.params::<&str>(Some("full"), &[]).unwrap();
    let ttl = full.redis.ttl_ms;
    let faults = drawn(redlock, &full, 300);
    let seen = |what: &str, pred: &dyn Fn(&Fault) -> bool| {
        assert!(
            faults.iter().any(pred),
            "the full profile never drew {what}"
        )
    };
    seen(
        "a pause shorter than the TTL",
        &|f| matches!(f, Fault::Pause { for_ms, .. } if *for_ms < ttl),
    );
    seen(
        "a pause longer than the TTL",
        &|f| matches!(f, Fault::Pause { for_ms, .. } if *for_ms > ttl),
    );
    for step in ["write", "release"] {
        seen(
            &format!("a pause aimed at a client's {step}"),
            &|f| matches!(f, Fault::PauseBefore { step: s, .. } if s == step),
        );
    }
    for (what, client, forward) in [
        ("a client's clock jumping forward", true, true),
        ("a client's clock jumping back", true, false),
        ("a master's clock jumping forward", false, true),
        ("a master's clock jumping back", false, false),
    ] {
        seen(what, &|f| {
            matches!(f, Fault::ClockJump { node, by_ms }
                if is_client(node) == client && (*by_ms > 0) == forward)
        });
    }
    for (what, client) in [
        ("a client's clock drift", true),
        ("a master's clock drift", false),
    ] {
        seen(
            what,
            &|f| matches!(f, Fault::ClockDrift { node, .. } if is_client(node) == client),
        );
    }
    seen("a crash", &|f| matches!(f, Fault::Crash { .. }));
    seen("a restart", &|f| matches!(f, Fault::Restart { .. }));
    seen("a partition", &|f| matches!(f, Fault::Partition { .. }));
    seen("a delay", &|f| matches!(f, Fault::Delay { .. }));
    seen("a loss", &|f| matches!(f, Fault::Loss { .. }));
    seen(
        "a lost reply to whatever request is on the wire",
        &|f| matches!(f, Fault::LoseReply { op, .. } if op == "any"),
    );
    assert!(
        !faults.iter().any(|f| matches!(f, Fault::Failover { .. })),
        "a failover without a replica"
    );
    let replicated = redlock.params(Some("full"), &["replica=true"]).unwrap();
    assert!(
        drawn(redlock, &replicated, 100)
            .iter()
            .any(|f| matches!(f, Fault::Failover { .. })),
        "no failover with replica=true"
    );

    let own = redlock
        .params::<&str>(Some("own-assumptions"), &[])
        .unwrap();
    assert_eq!(own.redis.persistence, PersistenceMode::AofAlways);
    let faults = drawn(redlock, &own, 300);
    assert!(faults.iter().any(|f| matches!(f, Fault::Crash { .. })));
    for f in &faults {
        match f {
            Fault::ClockJump { .. } | Fault::Failover { .. } => panic!("own-assumptions drew {f}"),
            // Half the TTL: a holder's validity left after its critical section outlasts it.
            Fault::Pause { for_ms, .. } | Fault::PauseBefore { for_ms, .. } => {
                assert!(2 * for_ms <= ttl, "{f}")
            }
            // Two clocks drifting apart by at most the 1% Redlock's drift allowance covers.
            Fault::ClockDrift { ppm, .. } => assert!(ppm.abs() <= 5_000, "{f}"),
            _ => {}
        }
    }
}

#[test]
fn redis_lock_is_safe_and_live_under_fuzzed_plans_within_its_own_assumptions() {
    holds_under_fuzzing("redis-lock", Some("own-assumptions"), 100);
}

#[test]
fn redlock_is_safe_and_live_under_fuzzed_plans_within_its_own_assumptions() {
    holds_under_fuzzing("redlock", Some("own-assumptions"), 50);
}

#[test]
fn fuzzing_redlock_under_the_full_profile_finds_the_flaw_and_its_shrunk_plan_replays() {
    let scenario = scenario::find("redlock").unwrap();
    let params = scenario.params::<&str>(Some("full"), &[]).unwrap();
    let first_failure = Cell::new(None);
    // It must find the flaw, so it runs at least its 200 cases whatever PROPTEST_CASES says;
    // the shrinking gets the steps that try dropping each fault of the plan once.
    let result = runner(200).with_at_least(200).with_shrink_iters(40).run(
        &strategy(scenario, &params),
        |(seed, plan)| {
            let faults = plan.faults().len();
            let verdict = case(scenario, &params, seed, plan);
            if verdict.is_err() && first_failure.get().is_none() {
                first_failure.set(Some(faults));
            }
            verdict
        },
    );
    let Err(TestError::Fail(reason, (_, plan))) = result else {
        panic!("proptest should have found the flaw: {result:?}");
    };
    let message = reason.message();
    assert!(message.contains("mutex"), "{message}");
    let found = first_failure.get().unwrap();
    assert!(
        plan.faults().len() < found,
        "not shrunk from {found} faults: {plan:?}"
    );
    let path = message
        .split_once("locksim replay ")
        .map(|(_, rest)| PathBuf::from(rest.trim_end_matches(')')))
        .unwrap_or_else(|| panic!("no replay command: {message}"));
    let trace = Trace::load(&path).unwrap();
    assert_eq!(trace.faults, plan, "the trace holds the shrunk plan");
    let replay = replay(&trace, &path).unwrap();
    assert!(replay.verdict_matches, "{:?}", replay.violated);
    assert!(replay.violated.contains(&Property::MUTEX));
    assert_eq!(replay.digest_matches, Some(true));
}
