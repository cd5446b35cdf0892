//! The user's ZooKeeper lock on tokio-zookeeper: watching the lowest node wakes a herd;
//! waiting without a bound hangs every client after a partition, since tokio-zookeeper
//! never notices a silent connection; watching the predecessor with bounded waits holds.
//! The hang's trace is committed in `traces/` and replays bit for bit.

use locksim::{Experiment, Property, Scenario};
use std::path::Path;
use user_recipes::tk_lock::{TkLock, Waits, Watches};

/// The lock on its own tokio-zookeeper session: the session locksim opens is closed.
fn tk(watches: Watches, waits: Waits) -> Experiment {
    Scenario::zookeeper().lock_workload(move |node, client| async move {
        client.close().await;
        TkLock::connect(node, watches, waits).await
    })
}

/// Waiters that wait as long as it takes.
fn unbounded() -> Experiment {
    tk(Watches::Predecessor, Waits::Unbounded).named("tk-lock-unbounded")
}

#[test]
fn watching_the_lowest_node_wakes_a_herd() {
    tk(Watches::Lowest, Waits::Bounded)
        .explore(0..200)
        .assert_violates(Property::HERD);
}

#[test]
fn unbounded_waits_hang_every_client_after_a_partition() {
    unbounded()
        .explore(0..200)
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
    let replay = unbounded().replay(&trace);
    assert!(replay.verdict_matches, "{file}: {:?}", replay.violated);
    assert_eq!(
        replay.digest_matches,
        Some(true),
        "{file} replays differently; if the recipe changed on purpose, run its test \
         again and copy the trace it writes under target/locksim-traces"
    );
}
