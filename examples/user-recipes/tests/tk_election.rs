//! The user's leader election on tokio-zookeeper: a candidate that leads whatever fires its
//! watch (a dropped connection cancels it) leads beside the leader; one that lists again does not.

use locksim::{Experiment, Property, Scenario};
use user_recipes::tk_election::{OnWatch, TkElection};

/// The election on its own tokio-zookeeper session: the session locksim opens is closed.
fn tk(on_watch: OnWatch) -> Experiment {
    Scenario::zookeeper().election_workload(move |node, client| async move {
        client.close().await;
        TkElection::connect(node, on_watch).await
    })
}

#[test]
fn leading_whatever_fires_the_watch_elects_two_leaders() {
    tk(OnWatch::Lead)
        .explore_guided(10)
        .assert_violates(Property::LEADER);
}

/// `short-pauses`, its own assumptions: client pauses shorter than the session timeout. Under
/// `long-pauses` a leader paused past its session leads beside the next; only fencing helps.
#[test]
fn listing_again_on_a_watch_elects_one_leader() {
    tk(OnWatch::ListAgain)
        .profile("short-pauses")
        .explore(0..500)
        .assert_clean();
}
