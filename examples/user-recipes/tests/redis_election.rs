//! The user's leader election over Redis: a leader that waits on a renewal as long as its
//! connection does leads beside the next one; one that gives its lease up when a renewal is
//! not back in time leads alone. Leaders work longer than the key's TTL, so only renewals
//! keep them leading.

use locksim::{Experiment, Property, Scenario};
use user_recipes::redis_election::{MyElection, Renewal};

/// `own-assumptions`: under `full` a pause past the TTL or a clock jump of the master ends
/// any lease behind its leader's back.
fn election(renewal: Renewal) -> Experiment {
    Scenario::redis(1)
        .election_workload(move |node| MyElection::connect(node, renewal))
        .profile("own-assumptions")
        .set("hold_ms=250")
        .set("clients=3")
        .set("terms=2")
}

#[test]
fn waiting_on_a_renewal_past_the_lease_elects_two_leaders() {
    election(Renewal::AsLongAsItTakes)
        .explore_guided(100)
        .assert_violates(Property::LEADER);
}

#[test]
fn renewing_within_the_lease_elects_one_leader() {
    election(Renewal::WithinLease)
        .explore(0..300)
        .assert_clean();
}
