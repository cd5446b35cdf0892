//! The user's barriers over Redis: counting arrivals with INCR lifts a barrier early once an
//! arrival is asked again; a set of who arrived holds, as a barrier and as a double barrier.

use locksim::{Property, Scenario};
use user_recipes::redis_barrier::{Count, MyBarrier};

/// `own-assumptions`: under `full` a master that restarts empty forgets who arrived.
#[test]
fn counting_arrivals_with_incr_lifts_the_barrier_early() {
    Scenario::redis(1)
        .barrier_workload(|node| MyBarrier::connect(node, Count::Incr))
        .profile("own-assumptions")
        .explore_guided(20)
        .assert_violates(Property::BARRIER);
}

#[test]
fn a_set_of_who_arrived_holds() {
    Scenario::redis(1)
        .barrier_workload(|node| MyBarrier::connect(node, Count::Members))
        .profile("own-assumptions")
        .explore(0..300)
        .assert_clean();
    Scenario::redis(1)
        .double_barrier_workload(|node| MyBarrier::connect(node, Count::Members))
        .profile("own-assumptions")
        .explore(0..200)
        .assert_clean();
}
