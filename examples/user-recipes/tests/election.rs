//! The user's leader election: a candidate that leads on any event of its watch (a session
//! event included) leads beside the leader; one that lists again leads alone.

use locksim::{Property, Scenario};
use user_recipes::election::{MyElection, OnWatch};

#[test]
fn leading_on_any_watch_event_elects_two_leaders() {
    Scenario::zookeeper()
        .election_workload(|node, client| MyElection::new(node, client, OnWatch::Lead))
        .explore_guided(300)
        .assert_violates(Property::LEADER);
}

#[test]
fn listing_again_on_a_watch_event_elects_one_leader() {
    Scenario::zookeeper()
        .election_workload(|node, client| MyElection::new(node, client, OnWatch::ListAgain))
        .profile("short-pauses")
        .explore(0..500)
        .assert_clean();
}
