//! The zk-lock model's flawed flavors beyond the herd and the missing GUID, each as the
//! simulation has it: its counterexample (the shortest path, pinned action by action, and the
//! step that tells the flaw) over a full search whose unique states are pinned, and the recipe
//! keeping that same property under the same settings.

use locksim_models::check::{self, CheckReport, shortest_path};
use locksim_models::settings::Settings;
use locksim_models::zk_lock::{Action, ZkLockModel};
use stateright::Model;

/// One flaw: the settings that reach it, the property it breaks, its shortest path, what its
/// last step says, and the unique states of the flaw's and the recipe's full searches.
struct Flaw {
    settings: &'static [&'static str],
    property: &'static str,
    path: Vec<Action>,
    last_step: &'static str,
    unique_states: (usize, usize),
}

fn model(settings: &[&str]) -> ZkLockModel {
    ZkLockModel::from_settings(&Settings::parse(settings).unwrap()).unwrap()
}

fn report(model: &ZkLockModel) -> CheckReport {
    check::check("zk-lock", model.describe(), model.clone(), false)
}

/// The flaw breaks its property along its pinned path (the report tells it, last step as
/// pinned); the recipe under the same settings keeps the property, and every other safety
/// property the flaw does not touch.
fn assert_flaw(flaw: Flaw) {
    let flawed = model(flaw.settings);
    let found = report(&flawed);
    let outcome = found
        .properties
        .iter()
        .find(|p| p.name == flaw.property)
        .unwrap();
    let steps = outcome.discovery.as_ref().unwrap_or_else(|| {
        panic!(
            "{:?}: no counterexample to {}",
            flaw.settings, flaw.property
        )
    });
    let property = flawed
        .properties()
        .into_iter()
        .find(|p| p.name == flaw.property)
        .unwrap();
    let path: Vec<Action> = shortest_path(&flawed, &property)
        .unwrap()
        .into_iter()
        .map(|(_, action, _)| action)
        .collect();
    assert_eq!(path, flaw.path, "{:?}", flaw.settings);
    assert_eq!(steps.len(), path.len());
    let last = &steps.last().unwrap().what;
    assert!(last.contains(flaw.last_step), "{:?}: {last}", flaw.settings);

    let recipe = ZkLockModel {
        flavor: ZkLockModel::default().flavor,
        ..flawed.clone()
    };
    let control = report(&recipe);
    for p in &control.properties {
        let broken_by_expiry = p.name == "mutex" && recipe.expiries > 0;
        assert!(
            p.holds() || broken_by_expiry,
            "{:?}: the recipe breaks {}",
            flaw.settings,
            p.name
        );
    }
    assert_eq!(
        (found.unique_states, control.unique_states),
        flaw.unique_states,
        "{:?}",
        flaw.settings
    );
}

#[test]
fn sorting_by_name_lets_a_newcomer_whose_guid_sorts_first_take_the_lock() {
    use Action::*;
    assert_flaw(Flaw {
        settings: &["flavor=name-sort", "expiries=0"],
        property: "live-session-mutex",
        path: vec![Create(1), List(1), Create(0), List(0)],
        last_step: "c0 lists [g1-lock-0000000000, g0-lock-0000000001]: decide says acquired",
        unique_states: (262, 209),
    });
}

#[test]
fn sorting_as_plain_integers_past_the_wrap_puts_the_newest_node_first() {
    use Action::*;
    assert_flaw(Flaw {
        settings: &["flavor=int-sort", "expiries=0", "seq_start=2147483647"],
        property: "live-session-mutex",
        path: vec![Create(0), List(0), Create(1), List(1)],
        last_step: "c1 lists [g0-lock-2147483647, g1-lock--2147483648]: decide says acquired",
        unique_states: (303, 209),
    });
}

#[test]
fn forgetting_a_node_whose_delete_was_lost_orphans_it() {
    use Action::*;
    assert_flaw(Flaw {
        settings: &["flavor=release-forgets", "expiries=0"],
        property: "no-orphan",
        path: vec![Create(0), List(0), Write(0), DeleteLost(0)],
        last_step: "the request is lost before the server applies it: it forgets its node",
        unique_states: (171, 209),
    });
}

#[test]
fn taking_a_disconnect_for_the_predecessors_deletion_takes_the_lock_from_its_holder() {
    use Action::*;
    assert_flaw(Flaw {
        settings: &["flavor=session-event", "expiries=0"],
        property: "live-session-mutex",
        path: vec![
            Create(0),
            List(0),
            Create(1),
            List(1),
            Exists(1),
            Disconnect(1),
            Event(1),
        ],
        last_step: "takes it for its predecessor's deletion: holds the lock",
        unique_states: (329, 209),
    });
}

#[test]
fn holding_on_a_predecessor_gone_at_exists_skips_the_holder_ahead_of_it() {
    use Action::*;
    // c2 is told to watch c1's node; c1 pauses past its session, its node vanishes, and c2
    // takes the gone predecessor for the lock being its own while c0 still holds it.
    assert_flaw(Flaw {
        settings: &[
            "flavor=vanished",
            "clients=3",
            "lost_replies=0",
            "lost_deletes=0",
            "disconnects=0",
        ],
        property: "live-session-mutex",
        path: vec![
            Create(0),
            List(0),
            Create(1),
            Create(2),
            List(2),
            PauseExpire(1),
            Exists(2),
        ],
        last_step: "c2 exists(#1): gone, takes the lock as its own",
        unique_states: (2765, 2345),
    });
}

#[test]
fn adopting_the_node_of_an_abandoned_session_holds_a_lock_the_server_takes_back() {
    use Action::*;
    // c0's create reply is lost; it starts a new session, finds its node by the GUID it
    // carried and holds the lock with it, until the server expires the abandoned session.
    assert_flaw(Flaw {
        settings: &["flavor=stale-session", "expiries=0"],
        property: "live-session-mutex",
        path: vec![
            CreateLost(0),
            List(0),
            List(0),
            AbandonedExpire(0),
            Create(1),
            List(1),
        ],
        last_step: "c1 lists [g1-lock-0000000001]: decide says acquired",
        unique_states: (848, 209),
    });
}

#[test]
fn the_recipe_keeps_live_session_mutex_under_every_fault_at_once() {
    let recipe = model(&["clients=3"]);
    let found = report(&recipe);
    for p in &found.properties {
        assert_eq!(p.holds(), p.name != "mutex", "{}", p.name);
    }
    assert_eq!(found.unique_states, 18483);
}

#[test]
fn name_sort_is_refused_a_search_by_symmetry() {
    assert!(model(&["flavor=name-sort"]).symmetric().is_err());
    for flavor in ["recipe", "int-sort", "vanished"] {
        assert!(model(&[&format!("flavor={flavor}")]).symmetric().is_ok());
    }
}

#[test]
fn a_lookup_on_a_lagging_follower_without_sync_orphans_the_first_node() {
    use Action::*;
    // Z15: c0's create reply is lost; its lookup, served by a follower that has not applied
    // the create, finds nothing: its node, owned by its live session, is an orphan it will
    // never look for again. The recipe syncs first, so no follower serves it stale.
    assert_flaw(Flaw {
        settings: &["flavor=no-sync", "stale_reads=1", "expiries=0"],
        property: "no-orphan",
        path: vec![CreateLost(0), StaleList(0)],
        last_step: "finds no node of its own",
        unique_states: (383, 209),
    });
}
