//! The redis-lock model's outcomes, asserted on its default bounds (2 clients, TTL 300 ms,
//! time 600 ms, one pause), with the unique-state counts pinned so a change to the model shows.

use locksim::recipes::redis::decide::Flavor;
use locksim_models::redis_lock::{Action, Key, RedisLockModel};
use stateright::{Checker, HasDiscoveries, Model, Path};
use std::collections::BTreeSet;

fn model(flavor: Flavor) -> RedisLockModel {
    RedisLockModel {
        flavor,
        ..RedisLockModel::default()
    }
}

/// A full search: it does not stop once every property has a discovery.
fn check(flavor: Flavor) -> impl Checker<RedisLockModel> {
    model(flavor)
        .checker()
        .finish_when(HasDiscoveries::AnyOf(BTreeSet::new()))
        .spawn_bfs()
        .join()
}

/// c0 acquires and starts to release, pauses past its key's expiry, c1 acquires, and c0's
/// release reaches the node while c1 holds the lock.
fn paused_release() -> Vec<Action> {
    use Action::*;
    vec![
        Acquire(0),
        Reply(0),
        BeginRelease(0),
        Pause(0),
        Tick,
        Tick,
        Tick,
        Tick,
        Acquire(1),
        Reply(1),
        Resume(0),
        Release(0),
    ]
}

#[test]
fn compare_and_delete_releases_only_its_own_key() {
    let checker = check(Flavor::Recipe);
    checker.assert_properties();
    assert_eq!(checker.unique_state_count(), 5768);
}

#[test]
fn the_paused_release_is_reachable_and_harmless_with_compare_and_delete() {
    let m = model(Flavor::Recipe);
    let init = m.init_states().remove(0);
    let path = Path::from_actions(&m, init, &paused_release()).expect("the path is enabled");
    let last = path.last_state();
    assert_eq!(
        last.key,
        Some(Key {
            owner: 1,
            expires_ms: 700
        }),
        "c1's key survives c0's late release"
    );
    assert_eq!(last.foreign_delete, None);
}

#[test]
fn plain_del_deletes_another_clients_key() {
    let checker = check(Flavor::PlainDel);
    // The shortest: a failed attempt cleans up with DEL while c0 holds the key.
    use Action::*;
    checker.assert_discovery(
        "release-only-own",
        vec![Acquire(0), Acquire(1), Reply(1), Release(1)],
    );
    // Antirez's case: a holder paused past its lease releases the next holder's key.
    checker.assert_discovery("release-only-own", paused_release());
    checker.assert_any_discovery("release-own");
    assert_eq!(checker.unique_state_count(), 18252);
}

#[test]
fn the_report_tells_the_counterexample() {
    let entry = locksim_models::model("redis-lock").unwrap();
    let settings = locksim_models::settings::Settings::parse(&["flavor=del"]).unwrap();
    let report = (entry.check)(&settings, false).unwrap();
    let prop = &report.properties[0];
    assert_eq!(prop.name, "release-only-own");
    assert_eq!(prop.verdict(), "counterexample");
    let steps = prop.discovery.as_ref().unwrap();
    assert_eq!(steps.len(), 4, "the shortest path");
    assert!(
        steps[3].what.contains("c1 DEL: deletes c0's key"),
        "{steps:?}"
    );
    assert_eq!(report.unique_states, 18252);
}
