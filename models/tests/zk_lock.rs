//! The zk-lock model's outcomes, each asserted on a full search of a small configuration, with
//! the unique-state counts pinned so a change to the model shows.

use locksim::recipes::zk::lock::decide::Flavor;
use locksim_models::zk_lock::{Action, ZkLockModel};
use stateright::{Checker, HasDiscoveries, Model};
use std::collections::BTreeSet;

/// The model with the faults it had before lost deletes and disconnects (their flaws are
/// in `zk_lock_flavors.rs`), so these counts stay those of the model they were pinned on.
fn model(flavor: Flavor, clients: u8, expiries: u8) -> ZkLockModel {
    ZkLockModel {
        flavor,
        clients,
        expiries,
        lost_deletes: 0,
        disconnects: 0,
        ..ZkLockModel::default()
    }
}

/// A full search: it does not stop once every property has a discovery.
fn check(model: ZkLockModel) -> impl Checker<ZkLockModel> {
    model
        .checker()
        .finish_when(HasDiscoveries::AnyOf(BTreeSet::new()))
        .spawn_bfs()
        .join()
}

/// Holds with no discovery (`always`) or with one (`sometimes`).
const SAFETY: [&str; 4] = [
    "fenced-resource",
    "single-wakeup-per-release",
    "no-orphan",
    "fifo",
];

/// c0 acquires, pauses past its session timeout (its node vanishes), c1 acquires: both
/// believe they hold the lock until c0 reads its Expired event.
fn paused_holder() -> Vec<Action> {
    use Action::*;
    vec![Create(0), List(0), PauseExpire(0), Create(1), List(1)]
}

#[test]
fn the_recipe_keeps_every_property_without_expiry_even_with_a_lost_reply() {
    let checker = check(model(Flavor::Recipe, 2, 0));
    checker.assert_properties();
    assert_eq!(checker.unique_state_count(), 91);
}

#[test]
fn a_paused_holder_whose_session_expired_breaks_mutex_but_fencing_holds() {
    let checker = check(model(Flavor::Recipe, 2, 1));
    checker.assert_discovery("mutex", paused_holder());
    for name in SAFETY {
        checker.assert_no_discovery(name);
    }
    checker.assert_any_discovery("each-client-acquires");
    assert_eq!(checker.unique_state_count(), 369);
}

#[test]
fn without_fencing_the_paused_holder_writes_after_the_next_one() {
    let checker = check(ZkLockModel {
        fencing: false,
        ..model(Flavor::Recipe, 2, 1)
    });
    let mut path = paused_holder();
    path.extend([Action::Write(1), Action::Write(0)]);
    checker.assert_discovery("fenced-resource", path);
    checker.assert_no_discovery("single-wakeup-per-release");
    checker.assert_no_discovery("no-orphan");
    assert_eq!(checker.unique_state_count(), 385);
}

#[test]
fn three_clients_under_the_recipe_wake_one_waiter_per_release() {
    let checker = check(model(Flavor::Recipe, 3, 1));
    for name in SAFETY {
        checker.assert_no_discovery(name);
    }
    checker.assert_any_discovery("mutex");
    checker.assert_any_discovery("each-client-acquires");
    assert_eq!(checker.unique_state_count(), 6114);
}

#[test]
fn the_herd_wakes_every_waiter_when_the_holder_releases() {
    let checker = check(model(Flavor::Herd, 3, 0));
    use Action::*;
    checker.assert_discovery(
        "single-wakeup-per-release",
        vec![
            Create(0),
            Create(1),
            Create(2),
            List(0),
            List(1),
            List(2),
            Write(0),
            Release(0),
        ],
    );
    for name in ["mutex", "fenced-resource", "no-orphan", "fifo"] {
        checker.assert_no_discovery(name);
    }
    checker.assert_any_discovery("each-client-acquires");
    assert_eq!(checker.unique_state_count(), 917);
}

#[test]
fn without_a_guid_a_lost_create_reply_orphans_the_node_and_blocks_its_own_client() {
    let checker = check(model(Flavor::NoGuid, 2, 0));
    use Action::*;
    checker.assert_discovery("no-orphan", vec![CreateLost(0)]);
    for name in [
        "mutex",
        "fenced-resource",
        "single-wakeup-per-release",
        "fifo",
    ] {
        checker.assert_no_discovery(name);
    }
    assert_eq!(checker.unique_state_count(), 120);

    // c0 creates again and waits behind its own orphan, which its live session keeps.
    let m = model(Flavor::NoGuid, 2, 0);
    let init = m.init_states().remove(0);
    let path =
        stateright::Path::from_actions(&m, init, &[CreateLost(0), Create(0), List(0), Exists(0)])
            .expect("the path is enabled");
    let mut next = Vec::new();
    m.actions(path.last_state(), &mut next);
    assert!(
        !next.iter().any(|a| matches!(a, List(0) | Event(0))),
        "c0 waits on its orphan for good: {next:?}"
    );
}

#[test]
fn the_report_tells_the_herd_counterexample() {
    let entry = locksim_models::model("zk-lock").unwrap();
    let settings =
        locksim_models::settings::Settings::parse(&["flavor=herd", "clients=3"]).unwrap();
    let report = (entry.check)(&settings, false).unwrap();
    let prop = report
        .properties
        .iter()
        .find(|p| p.name == "single-wakeup-per-release")
        .unwrap();
    assert_eq!(prop.verdict(), "counterexample");
    let steps = prop.discovery.as_ref().unwrap();
    assert!(
        steps
            .last()
            .unwrap()
            .what
            .contains("watches fire for c1, c2"),
        "{steps:?}"
    );
    assert_eq!(report.unique_states, 21647);
}

#[test]
fn settings_pick_the_switches_and_refuse_the_rest() {
    use locksim_models::settings::{ParamError, Settings};
    let parse = |args: &[&str]| ZkLockModel::from_settings(&Settings::parse(args).unwrap());
    let m = parse(&[
        "flavor=noguid",
        "fencing=false",
        "clients=3",
        "lost_replies=2",
    ])
    .unwrap();
    assert_eq!(
        m,
        ZkLockModel {
            flavor: Flavor::NoGuid,
            clients: 3,
            fencing: false,
            lost_replies: 2,
            expiries: 1,
            lost_deletes: 1,
            disconnects: 1,
            seq_start: 0,
            stale_reads: 0,
        }
    );
    for bad in [
        "flavor=simple",
        "fencing=maybe",
        "clients=5",
        "expiries=3",
        "seq_start=2147483648",
        "stale_reads=3",
    ] {
        assert!(
            matches!(parse(&[bad]), Err(ParamError::Malformed { .. })),
            "{bad}"
        );
    }
    assert!(matches!(parse(&["ttl=3"]), Err(ParamError::Unknown { .. })));
    for old in ["fencing=on", "fencing=off", "lost-replies=1"] {
        assert!(
            matches!(parse(&[old]), Err(ParamError::Renamed { .. })),
            "{old}"
        );
    }
}
