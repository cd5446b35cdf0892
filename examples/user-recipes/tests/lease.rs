//! A lease checked just before its commit: a pause aimed at the step between the check and
//! the commit breaks it, which the swarm finds once the step is declared; pauses at a time
//! never land there. The finding's trace is committed in `traces/` and replays bit for bit.

use locksim::history::{HarnessOp, Op};
use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
use locksim::{Experiment, Scenario};
use std::path::Path;
use user_recipes::lease::{self, WITHIN_LEASE, WithinLease};

fn leases(marked: bool) -> Experiment {
    Scenario::redis(1)
        .client_program(move |node| lease::client(node, marked))
        .check(WithinLease)
        .set("faults=pause")
}

/// The clients that mark the step `commit`, declared.
fn at_commit() -> Experiment {
    leases(true).steps(["commit"]).named("lease-at-commit")
}

#[test]
fn a_pause_before_the_commit_outlasts_the_lease() {
    let pause = Fault::PauseBefore {
        node: "c1".into(),
        step: "commit".into(),
        for_ms: 90,
    };
    let report = at_commit().run_plan(
        0,
        FaultPlan::new(vec![TimedFault {
            at_ms: 0,
            fault: pause,
        }]),
    );
    assert!(report.history().events.iter().any(|e| matches!(&e.op,
        Op::Harness(HarnessOp::Paused { node, step, .. }) if node == "c1" && step == "commit")));
    assert!(
        report
            .violations()
            .iter()
            .any(|v| v.property == WITHIN_LEASE)
    );
}

#[test]
fn the_swarm_pauses_at_the_declared_step() {
    at_commit().explore_guided(20).assert_violates(WITHIN_LEASE);
}

#[test]
fn pauses_at_a_time_miss_the_commit() {
    leases(false).explore(0..20).assert_clean();
}

#[test]
fn the_committed_finding_replays_bit_for_bit() {
    let file = "lease-at-commit-9.json";
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(file);
    at_commit().replay(&trace).assert_reproduced();
}
