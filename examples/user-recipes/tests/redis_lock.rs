//! The user's Redis lock explored by locksim: the flawed release is caught, the correct one
//! holds under the faults its design allows.

use locksim::{Property, Scenario};
use user_recipes::{MyLock, Release};

#[test]
fn get_then_del_breaks_mutual_exclusion() {
    let found = Scenario::redis(1)
        .lock_workload(|node| MyLock::connect(node, Release::GetThenDel))
        .clients(3)
        .profile("full")
        .explore_guided(500);
    found.assert_violates(Property::MUTEX);
}

#[test]
fn compare_and_delete_holds_under_its_own_assumptions() {
    Scenario::redis(1)
        .lock_workload(|node| MyLock::connect(node, Release::CompareAndDelete))
        .clients(3)
        .profile("own-assumptions")
        .explore(0..2_000)
        .assert_clean();
}

#[test]
fn get_then_del_removes_the_next_holders_key_when_its_del_is_delayed() {
    let delays = |release| {
        Scenario::redis(1)
            .lock_workload(move |node| MyLock::connect(node, release))
            .clients(3)
            .profile("own-assumptions")
            .set("faults=delay")
            .set("delay_max_ms=400")
    };
    let found = delays(Release::GetThenDel).explore_guided(500);
    found.assert_violates(Property::MUTEX);
    // The report's timeline names the culprit: whose DEL removed whose key.
    let report = found.to_string();
    assert!(report.contains(" DEL my-lock removed c"), "{report}");
    delays(Release::CompareAndDelete)
        .explore(0..500)
        .assert_clean();
}
