//! A property of the user's own, `at-most-k`, judged by the user's checker: the flawed
//! semaphore breaks it, the correct one keeps it.

use locksim::{Property, Scenario};
use user_recipes::semaphore::{AT_MOST_K, AtMostK, PERMITS, Semaphore, Take};

fn semaphore(take: Take) -> locksim::Experiment {
    Scenario::redis(1)
        .lock_workload(move |node| Semaphore::connect(node, take))
        .clients(4)
        .properties([Property::LIVENESS])
        .check(AtMostK { k: PERMITS })
}

#[test]
fn check_then_set_admits_more_than_k() {
    semaphore(Take::CheckThenSet)
        .explore(0..200)
        .assert_violates(AT_MOST_K);
}

#[test]
fn set_if_free_admits_at_most_k() {
    semaphore(Take::SetIfFree)
        .profile("own-assumptions")
        .explore(0..300)
        .assert_clean();
}
