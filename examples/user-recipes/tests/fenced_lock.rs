//! The fenced lock with woken waiters: a blocking pop or a pub/sub notice wakes a waiter
//! under faults without breaking the lock, its fencing tokens keep the store whole when a
//! stalled holder outlives its lock (as long as the counter outlives Redis's crashes), and a
//! notice awaited without a bound hangs a waiter.
//! The findings' traces are committed in `traces/` and replay bit for bit.

use locksim::history::{LockOp, Op};
use locksim::{Experiment, Property, Scenario};
use std::path::Path;
use user_recipes::fenced_lock::{FencedLock, Wait, WaiterEvent};

fn fenced(wait: Wait) -> Experiment {
    Scenario::redis(1).lock_workload(move |node| FencedLock::connect(node, wait))
}

/// Waiters on the notice alone: a notice lost in a partition leaves one waiting for good.
fn unbounded() -> Experiment {
    fenced(Wait::NoticeUnbounded).named("fenced-lock-notice-unbounded")
}

/// Holders that stall past their TTL under every fault, judged on the store alone. The
/// fencing counter lives in Redis: it survives a crash only as `persistence` keeps it.
fn stalls(fencing: bool, persistence: &str) -> Experiment {
    let name = match (fencing, persistence) {
        (false, _) => "fenced-lock-stalls-unfenced".to_string(),
        (true, kept) => format!("fenced-lock-stalls-{kept}"),
    };
    fenced(Wait::Pop)
        .named(&name)
        .profile("full")
        .set(&format!("fencing={fencing}"))
        .set(&format!("persistence={persistence}"))
        .properties([Property::RESOURCE])
}

#[test]
fn a_popped_wake_up_keeps_the_lock_under_its_own_assumptions() {
    fenced(Wait::Pop)
        .profile("own-assumptions")
        .explore(0..300)
        .assert_clean();
}

#[test]
fn a_bounded_notice_wait_keeps_the_lock_under_its_own_assumptions() {
    fenced(Wait::Notice)
        .profile("own-assumptions")
        .explore(0..300)
        .assert_clean();
}

#[test]
fn releases_wake_waiters_before_their_bound() {
    for (wait, by) in [(Wait::Pop, "pop"), (Wait::Notice, "notice")] {
        let run = fenced(wait).set("faults=none").run(0);
        let woken = run
            .history()
            .events
            .iter()
            .filter_map(|event| match &event.op {
                Op::User(user) => user.read::<WaiterEvent>(),
                _ => None,
            })
            .filter(|event| *event == WaiterEvent::Woken { by: by.into() })
            .count();
        assert!(woken > 0, "no waiter woke by {by}");
        assert!(run.violations().is_empty(), "{:?}", run.violations());
    }
}

/// The timeline tells a wake-up a waiter popped off the shared list by the release that left
/// it there, not by whoever wrote the whole list last. (A blocked `BLPOP` that a push serves
/// is recorded as the `LPOP` Redis propagates.)
#[test]
fn the_timeline_tells_whose_wake_up_a_waiter_popped() {
    let run = fenced(Wait::Pop).set("faults=none").run(0);
    let lines = locksim::timeline::timeline(run.history(), run.violations(), run.plan());
    let popped = |l: &&String| l.contains("LPOP fenced-lock:wake took \"c");
    let told = lines.iter().find(popped).expect("a popped wake-up told");
    assert!(told.contains("(pushed by c"), "{told}");
}

#[test]
fn a_fence_kept_through_crashes_keeps_the_store_whole_when_a_stalled_holder_outlives_its_lock() {
    stalls(false, "aof-always")
        .explore_guided(300)
        .assert_violates(Property::RESOURCE);
    stalls(true, "aof-always").explore(0..300).assert_clean();
}

#[test]
fn a_fence_that_a_restart_forgets_hands_a_token_out_twice() {
    let found = stalls(true, "none").explore_guided(1_000);
    let finding = found.assert_violates(Property::RESOURCE);
    let mut tokens: Vec<i64> = finding
        .report
        .history()
        .events
        .iter()
        .filter_map(|event| match &event.op {
            Op::Lock(LockOp::Acquire { token, .. }) => *token,
            _ => None,
        })
        .collect();
    let granted = tokens.len();
    tokens.sort();
    tokens.dedup();
    assert!(tokens.len() < granted, "no token was granted twice");
}

#[test]
fn a_notice_awaited_without_a_bound_hangs_a_waiter() {
    unbounded()
        .explore_guided(300)
        .assert_violates(Property::LIVENESS);
}

#[test]
fn the_committed_traces_replay_bit_for_bit() {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    for (experiment, file) in [
        (unbounded(), "fenced-lock-notice-unbounded-0.json"),
        (
            stalls(false, "aof-always"),
            "fenced-lock-stalls-unfenced-10.json",
        ),
        (stalls(true, "none"), "fenced-lock-stalls-none-455.json"),
    ] {
        // If the recipe changed on purpose, run its test again and copy the trace it
        // writes under target/locksim-traces.
        experiment.replay(&traces.join(file)).assert_reproduced();
    }
}
