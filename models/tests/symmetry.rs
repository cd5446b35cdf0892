//! Symmetry reduction over clients: the renaming each model writes keeps every property and
//! every step (a renamed state has the same representative, the same verdicts and the renamed
//! successors), and a depth-first check with symmetry reaches the same verdicts as the plain
//! breadth-first one over fewer unique states (pinned), with counterexamples that are real
//! paths of the model and as short as the plain ones.

use locksim::recipes::redis::decide::Flavor as RedisFlavor;
use locksim::recipes::zk::lock::decide::Flavor as ZkFlavor;
use locksim_models::check::{Found, Transition, search_plain, search_symmetric};
use locksim_models::redis_lock::{self, RedisLockModel};
use locksim_models::redlock::{self, RedlockModel};
use locksim_models::symmetry::Renaming;
use locksim_models::zk_lock::{self, ZkLockModel};
use stateright::{Expectation, Model, Representative};
use std::collections::{HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// Every state `model` reaches (a test's own search, independent of stateright's).
fn reachable<M: Model>(model: &M) -> Vec<M::State>
where
    M::State: Clone + Hash + Eq,
{
    let mut seen: HashSet<M::State> = HashSet::new();
    let mut queue: VecDeque<M::State> = model.init_states().into();
    let mut out = Vec::new();
    while let Some(state) = queue.pop_front() {
        if !seen.insert(state.clone()) {
            continue;
        }
        let mut actions = Vec::new();
        model.actions(&state, &mut actions);
        for action in actions {
            if let Some(next) = model.next_state(&state, action) {
                queue.push_back(next);
            }
        }
        out.push(state);
    }
    out
}

fn successors<M: Model>(model: &M, state: &M::State) -> HashSet<M::State>
where
    M::State: Hash + Eq,
{
    let mut actions = Vec::new();
    model.actions(state, &mut actions);
    actions
        .into_iter()
        .filter_map(|a| model.next_state(state, a))
        .collect()
}

/// For every reachable state and every renaming of `clients` clients: the renamed state has
/// the same representative, every property says the same of it, and its successors are the
/// renamed successors (so the model's steps do not depend on which client is which).
/// Returns how many states were checked.
fn assert_symmetric<M: Model>(
    model: &M,
    clients: u8,
    rename: fn(&M::State, &Renaming) -> M::State,
) -> usize
where
    M::State: Clone + Hash + Eq + Debug + Representative,
{
    let states = reachable(model);
    let renamings = Renaming::all(usize::from(clients));
    for state in &states {
        let representative = state.representative();
        for renaming in &renamings {
            let renamed = rename(state, renaming);
            assert_eq!(
                renamed.representative(),
                representative,
                "{renaming:?} of {state:?}"
            );
            for p in model.properties() {
                assert_eq!(
                    (p.condition)(model, &renamed),
                    (p.condition)(model, state),
                    "{} under {renaming:?} of {state:?}",
                    p.name
                );
            }
            let expected: HashSet<M::State> = successors(model, state)
                .iter()
                .map(|s| rename(s, renaming))
                .collect();
            assert_eq!(
                successors(model, &renamed),
                expected,
                "{renaming:?} of {state:?}"
            );
        }
    }
    states.len()
}

/// A path starts at an initial state, each step is enabled and leads where it says, and it
/// ends in a discovery for the property.
fn assert_real_path<M: Model>(model: &M, name: &str, path: &[Transition<M>])
where
    M::State: Clone + PartialEq + Debug,
    M::Action: Clone + PartialEq + Debug,
{
    let property = model
        .properties()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap();
    let mut at = model.init_states().remove(0);
    for (before, action, after) in path {
        assert_eq!(before, &at, "{name}: the path jumps");
        let mut actions = Vec::new();
        model.actions(before, &mut actions);
        assert!(actions.contains(action), "{name}: {action:?} not enabled");
        assert_eq!(
            model.next_state(before, action.clone()).as_ref(),
            Some(after)
        );
        at = after.clone();
    }
    let holds = (property.condition)(model, &at);
    let discovery = match property.expectation {
        Expectation::Sometimes => holds,
        _ => !holds,
    };
    assert!(discovery, "{name}: the path ends in no discovery");
}

/// Plain and symmetric checks of `model` agree on every property (and, for a discovery, on
/// its length); every symmetric path is real. Returns the unique states (plain, symmetric).
fn compare<M>(model: &M) -> (usize, usize)
where
    M: Model + Clone + Send + Sync + 'static,
    M::State: Clone + Debug + Hash + Eq + Send + Sync + Representative,
    M::Action: Clone + Debug + PartialEq,
{
    let plain: Found<M> = search_plain("plain", model, false);
    let symmetric: Found<M> = search_symmetric("symmetric", model, false);
    for ((p, a), b) in model
        .properties()
        .iter()
        .zip(&plain.paths)
        .zip(&symmetric.paths)
    {
        assert_eq!(
            a.as_ref().map(Vec::len),
            b.as_ref().map(Vec::len),
            "{}: verdict or length differs",
            p.name
        );
        if let Some(path) = b {
            assert_real_path(model, p.name, path);
        }
    }
    assert!(symmetric.unique_states <= plain.unique_states);
    (plain.unique_states, symmetric.unique_states)
}

/// The zk-lock model without lost deletes and disconnects, as its counts were pinned before
/// they were modelled (`zk_newer`: with them).
fn zk(flavor: ZkFlavor, clients: u8, expiries: u8) -> ZkLockModel {
    ZkLockModel {
        flavor,
        clients,
        expiries,
        lost_deletes: 0,
        disconnects: 0,
        ..ZkLockModel::default()
    }
}

/// The zk-lock model with a lost delete, a disconnect and an expiry, no lost create reply,
/// and a counter that wraps at the second create: every step the newer flavors take.
fn zk_newer(flavor: ZkFlavor, clients: u8) -> ZkLockModel {
    ZkLockModel {
        flavor,
        clients,
        lost_replies: 0,
        seq_start: 2_147_483_646,
        ..ZkLockModel::default()
    }
}

#[test]
fn a_renamed_zk_state_has_the_same_representative() {
    use zk_lock::Action::*;
    let model = zk(ZkFlavor::Recipe, 3, 1);
    let mut state = model.init_states().remove(0);
    for action in [Create(2), Create(0), List(2), List(0), PauseExpire(2)] {
        state = model.next_state(&state, action).unwrap();
    }
    let renamed = state.renamed(&Renaming::new(vec![1, 2, 0]).unwrap());
    assert_ne!(renamed, state);
    // c0's node (seq 1) is now c1's, c2's expired client is now c0.
    assert_eq!(renamed.nodes[0].owner, 1);
    assert_eq!(renamed.clients[1], state.clients[0]);
    assert_eq!(renamed.clients[0], state.clients[2]);
    assert_eq!(renamed.representative(), state.representative());
    assert_eq!(
        state.representative().representative(),
        state.representative()
    );
}

#[test]
fn zk_lock_steps_and_properties_do_not_depend_on_which_client_is_which() {
    for flavor in [ZkFlavor::Recipe, ZkFlavor::Herd, ZkFlavor::NoGuid] {
        let model = zk(flavor, 3, 1);
        assert!(assert_symmetric(&model, 3, zk_lock::State::renamed) > 1000);
    }
    // Only the vanished predecessor needs a third client.
    for (flavor, clients) in [
        (ZkFlavor::Recipe, 3),
        (ZkFlavor::Vanished, 3),
        (ZkFlavor::IntSort, 2),
        (ZkFlavor::ReleaseForgets, 2),
        (ZkFlavor::SessionEvent, 2),
        (ZkFlavor::StaleSession, 2),
    ] {
        let model = zk_newer(flavor, clients);
        assert!(assert_symmetric(&model, clients, zk_lock::State::renamed) > 200);
    }
}

#[test]
fn redlock_steps_and_properties_do_not_depend_on_which_client_is_which() {
    let three = RedlockModel {
        clients: 3,
        instances: 1,
        time_ticks: 2,
        ..RedlockModel::default()
    };
    assert!(assert_symmetric(&three, 3, redlock::State::renamed) > 1000);
    let faults = RedlockModel {
        instances: 1,
        time_ticks: 2,
        jumps: 1,
        crashes: 1,
        ..RedlockModel::default()
    };
    assert!(assert_symmetric(&faults, 2, redlock::State::renamed) > 1000);
}

#[test]
fn redis_lock_steps_and_properties_do_not_depend_on_which_client_is_which() {
    for (flavor, time_ticks, pauses) in [(RedisFlavor::Recipe, 2, 1), (RedisFlavor::PlainDel, 1, 0)]
    {
        let model = RedisLockModel {
            flavor,
            clients: 3,
            time_ticks,
            pauses,
            ..RedisLockModel::default()
        };
        assert!(assert_symmetric(&model, 3, redis_lock::State::renamed) > 1000);
    }
}

#[test]
fn zk_lock_with_symmetry_has_the_same_verdicts_over_fewer_states() {
    assert_eq!(compare(&zk(ZkFlavor::Recipe, 3, 1)), (6114, 1057));
    assert_eq!(compare(&zk(ZkFlavor::Herd, 3, 0)), (917, 171));
    assert_eq!(compare(&zk(ZkFlavor::NoGuid, 3, 1)), (12722, 2152));
    assert_eq!(compare(&zk_newer(ZkFlavor::SessionEvent, 2)), (573, 290));
    assert_eq!(compare(&zk_newer(ZkFlavor::Vanished, 3)), (8639, 1503));
}

#[test]
fn redlock_with_symmetry_has_the_same_verdicts_over_fewer_states() {
    let model = RedlockModel {
        time_ticks: 6,
        ..RedlockModel::default()
    };
    assert_eq!(compare(&model), (247294, 123653));
}

#[test]
fn redis_lock_with_symmetry_has_the_same_verdicts_over_fewer_states() {
    let model = |flavor, clients| RedisLockModel {
        flavor,
        clients,
        ..RedisLockModel::default()
    };
    assert_eq!(compare(&model(RedisFlavor::Recipe, 3)), (37152, 7042));
    assert_eq!(compare(&model(RedisFlavor::PlainDel, 2)), (18252, 9138));
}
