//! The user's ZooKeeper lock on tokio-zookeeper: watching the lowest node wakes a herd;
//! waiting without a bound hangs every client after a partition, since tokio-zookeeper
//! never notices a silent connection; watching the predecessor with bounded waits holds,
//! and on three servers outlives the loss of the members its sessions use. The hang's trace
//! is committed in `traces/` and replays bit for bit.

use locksim::history::{Event, Kind, LockOp, Op};
use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
use locksim::{Experiment, Property, Scenario};
use std::collections::BTreeSet;
use std::path::Path;
use user_recipes::tk_lock::{Servers, TkLock, Waits, Watches};

/// The lock on its own tokio-zookeeper session: the session locksim opens is closed.
fn tk_on(servers: Servers, watches: Watches, waits: Waits) -> Experiment {
    Scenario::zookeeper().lock_workload(move |node, client| async move {
        client.close().await;
        TkLock::connect(node, watches, waits, servers).await
    })
}

/// The lock on `zk1`.
fn tk(watches: Watches, waits: Waits) -> Experiment {
    tk_on(Servers::Zk1, watches, waits)
}

/// Waiters that wait as long as it takes.
fn unbounded() -> Experiment {
    tk(Watches::Predecessor, Waits::Unbounded).named("tk-lock-unbounded")
}

/// On three servers: the leader, `zk3`, crashed at 100 ms and back at 300 ms, then `zk1`
/// cut off from the others from 400 ms to 550 ms. Every client's session is on one of them
/// or on a member that stops serving without a leader.
fn members_lost() -> FaultPlan {
    let at = |at_ms, fault| TimedFault { at_ms, fault };
    let zk = |n: u32| format!("zk{n}");
    let cut = |n| Fault::Partition { a: zk(1), b: zk(n) };
    let repair = |n| Fault::Repair { a: zk(1), b: zk(n) };
    FaultPlan::new(vec![
        at(100, Fault::Crash { node: zk(3) }),
        at(300, Fault::Restart { node: zk(3) }),
        at(400, cut(2)),
        at(400, cut(3)),
        at(550, repair(2)),
        at(550, repair(3)),
    ])
}

#[test]
fn watching_the_lowest_node_wakes_a_herd() {
    tk(Watches::Lowest, Waits::Bounded)
        .explore_guided(200)
        .assert_violates(Property::HERD);
}

#[test]
fn unbounded_waits_hang_every_client_after_a_partition() {
    unbounded()
        .explore_guided(200)
        .assert_violates(Property::LIVENESS);
}

#[test]
fn watching_the_predecessor_with_bounded_waits_holds() {
    tk(Watches::Predecessor, Waits::Bounded)
        .explore(0..500)
        .assert_clean();
}

#[test]
fn the_committed_hang_replays_bit_for_bit() {
    let file = "tk-lock-unbounded-5.json";
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(file);
    // If the recipe changed on purpose, run its test again and copy the trace it writes
    // under target/locksim-traces.
    unbounded().replay(&trace).assert_reproduced();
}

/// Its servers lost in turn (`members_lost`), the lock on the ensemble stays clean, liveness
/// included.
#[test]
fn on_the_ensemble_the_lock_outlives_its_servers_crashed_and_isolated() {
    let on = |servers| tk_on(servers, Watches::Predecessor, Waits::Bounded).set("zk_servers=3");
    let ensemble = on(Servers::Ensemble).run_plan(0, members_lost());
    assert!(
        ensemble.completed() && ensemble.violations().is_empty(),
        "{:?}",
        ensemble.violations()
    );
}

/// The default faults on three servers, crashes and isolations of members among them.
#[test]
fn on_the_ensemble_the_lock_holds_under_its_faults() {
    tk_on(Servers::Ensemble, Watches::Predecessor, Waits::Bounded)
        .set("zk_servers=3")
        .explore(0..100)
        .assert_clean();
}

/// The clients granted the lock while `zk1` is down, from 100 ms to 500 ms, on three servers.
fn granted_while_zk1_is_down(servers: Servers) -> BTreeSet<String> {
    let at = |at_ms, fault| TimedFault { at_ms, fault };
    let zk1 = || "zk1".to_string();
    let plan = FaultPlan::new(vec![
        at(100, Fault::Crash { node: zk1() }),
        at(500, Fault::Restart { node: zk1() }),
    ]);
    let lock = tk_on(servers, Watches::Predecessor, Waits::Bounded).set("zk_servers=3");
    let report = lock.run_plan(0, plan);
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    let granted =
        |e: &&Event| e.kind == Kind::Ok && matches!(e.op, Op::Lock(LockOp::Acquire { .. }));
    report
        .history()
        .events
        .iter()
        .filter(|e| (110..500).contains(&e.time_ms))
        .filter(granted)
        .map(|e| e.node.clone())
        .collect()
}

/// On three servers, its sessions move off `zk1` while it is down: every client takes the
/// lock meanwhile. On `zk1` alone, none does.
#[test]
fn while_zk1_is_down_only_the_lock_on_the_ensemble_is_taken() {
    let every: BTreeSet<String> = (1..=5).map(|c| format!("c{c}")).collect();
    assert_eq!(granted_while_zk1_is_down(Servers::Ensemble), every);
    assert_eq!(granted_while_zk1_is_down(Servers::Zk1), BTreeSet::new());
}
