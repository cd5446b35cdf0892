//! The redlock model's outcomes on the configuration (3 instances, 2 clients, TTL
//! 300 ms, time bound 800 ms), one fault kind at a time, with the unique-state counts pinned
//! so a change to the model shows.

use locksim::recipes::redis::decide::Flavor;
use locksim_models::redlock::{Action, PauseAt, RedlockModel};
use stateright::{Checker, HasDiscoveries, Model};
use std::collections::BTreeSet;

fn no_faults() -> RedlockModel {
    RedlockModel {
        pauses: 0,
        ..RedlockModel::default()
    }
}

/// A full search: it does not stop once every property has a discovery.
fn check(model: RedlockModel) -> impl Checker<RedlockModel> {
    model
        .checker()
        .finish_when(HasDiscoveries::AnyOf(BTreeSet::new()))
        .spawn_bfs()
        .join()
}

/// c0 gets r0 and r1, c1 gets r2: c0 acquires with 2 of 3 votes, c1 fails for now.
fn split_votes() -> Vec<Action> {
    use Action::*;
    vec![
        Set(0, 0),
        Set(0, 1),
        Set(1, 0),
        Set(1, 2),
        Set(0, 2),
        Decide(0),
    ]
}

/// c0 acquires on every instance.
fn acquire_all(c: u8) -> Vec<Action> {
    use Action::*;
    vec![Set(c, 0), Set(c, 1), Set(c, 2), Decide(c)]
}

#[test]
fn without_faults_mutex_holds() {
    let checker = check(no_faults());
    checker.assert_properties();
    assert_eq!(checker.unique_state_count(), 12861);
}

#[test]
fn a_holder_paused_past_its_validity_breaks_mutex_and_the_resource() {
    let checker = check(RedlockModel::default());
    use Action::*;
    let paused_holder = [
        acquire_all(0),
        vec![Pause(0), Tick, Tick, Tick],
        acquire_all(1),
    ]
    .concat();
    assert_eq!(paused_holder.len(), 12, "within the TLA+ model's 15 steps");
    checker.assert_discovery("mutex", paused_holder);
    // Kleppmann's case: the write was checked and sent before the pause, and lands after c1
    // acquired; Redlock has no token the resource could reject it by.
    let stale_write = [
        acquire_all(0),
        vec![BeginWrite(0), Pause(0), Tick, Tick, Tick, Resume(0)],
        acquire_all(1),
        vec![Write(0)],
    ]
    .concat();
    checker.assert_discovery("fenced-resource", stale_write);
    checker.assert_any_discovery("acquires");
    assert_eq!(checker.unique_state_count(), 375366);
}

#[test]
fn the_shortest_pause_counterexample_has_twelve_steps() {
    let entry = locksim_models::model("redlock").unwrap();
    let report = (entry.check)(&Default::default(), false).unwrap();
    let mutex = &report.properties[0];
    assert_eq!(mutex.name, "mutex");
    let steps = mutex.discovery.as_ref().expect("a counterexample");
    assert_eq!(steps.len(), 12);
    assert!(steps[6].what.contains("c0 pauses"), "{steps:?}");
    assert!(steps[11].beliefs.contains("c0, c1 believe(s)"), "{steps:?}");
}

#[test]
fn a_wall_clock_jump_expires_a_vote_early_and_breaks_mutex() {
    let checker = check(RedlockModel {
        jumps: 1,
        ..no_faults()
    });
    use Action::*;
    let jump = [split_votes(), vec![Jump(1), Set(1, 1), Decide(1)]].concat();
    checker.assert_discovery("mutex", jump);
    assert_eq!(checker.unique_state_count(), 198000);
}

#[test]
fn a_restart_without_persistence_breaks_mutex() {
    let checker = check(RedlockModel {
        crashes: 1,
        ..no_faults()
    });
    use Action::*;
    let crash = [
        split_votes(),
        vec![Crash(1), Restart(1), Set(1, 1), Decide(1)],
    ]
    .concat();
    checker.assert_discovery("mutex", crash);
    assert_eq!(checker.unique_state_count(), 257193);
}

#[test]
fn a_restart_delayed_by_the_ttl_keeps_mutex() {
    let model = RedlockModel {
        crashes: 1,
        restart_delay_ticks: 3,
        ..no_faults()
    };
    let checker = check(model);
    checker.assert_properties();
    assert_eq!(checker.unique_state_count(), 174795);
}

#[test]
fn without_the_validity_check_a_pause_with_votes_in_flight_breaks_mutex() {
    let paused_votes = |flavor| RedlockModel {
        flavor,
        pause_at: PauseAt::Acquiring,
        ..RedlockModel::default()
    };
    let recipe = check(paused_votes(Flavor::Recipe));
    recipe.assert_properties();
    assert_eq!(recipe.unique_state_count(), 349758);

    let no_validity = check(paused_votes(Flavor::NoValidity));
    use Action::*;
    let late_votes = [
        vec![Set(0, 0), Set(0, 1), Set(0, 2), Pause(0), Tick, Tick, Tick],
        vec![Resume(0), Decide(0)],
        acquire_all(1),
    ]
    .concat();
    no_validity.assert_discovery("mutex", late_votes);
    assert_eq!(no_validity.unique_state_count(), 390212);
}
