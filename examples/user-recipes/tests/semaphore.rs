//! A property of the user's own, `at-most-k`, judged by the user's checker against a
//! parameter of the user's own, `permits`: the flawed semaphore breaks it, the correct one
//! keeps it.

use locksim::trace::Trace;
use locksim::{Property, Scenario};
use user_recipes::semaphore::{AT_MOST_K, AtMostK, PERMITS, Semaphore, Take};

fn semaphore(take: Take) -> locksim::Experiment {
    Scenario::redis(1)
        .lock_workload(move |node| Semaphore::connect(node, take))
        .param(PERMITS)
        .clients(4)
        .properties([Property::LIVENESS])
        .check(AtMostK)
}

#[test]
fn check_then_set_admits_more_than_k() {
    let found = semaphore(Take::CheckThenSet)
        .set("permits=3")
        .clients(5)
        .explore_guided(200);
    found.assert_violates(AT_MOST_K);
    let trace = Trace::load(found.trace().unwrap()).unwrap();
    assert_eq!(
        trace.params["permits"], 3,
        "its trace replays with permits=3"
    );
}

#[test]
fn set_if_free_admits_at_most_k() {
    semaphore(Take::SetIfFree)
        .profile("own-assumptions")
        .set("permits=3")
        .explore(0..300)
        .assert_clean();
}
