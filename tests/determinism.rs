//! Same scenario, params, seed and plan: same history digest, every time.

use locksim::explore::{ExploreSpec, Outcome, explore};
use locksim::params::Params;
use locksim::scenario;
use locksim::world::run::{RunReport, RunSpec, Stepping, run_stepping};

/// `spec` run lazily and eagerly, which must agree bit for bit (`what` names the run).
fn both_ways(spec: &RunSpec, what: &str) -> (RunReport, RunReport) {
    let lazy = run_stepping(spec, Stepping::Lazy).expect("run");
    let eager = run_stepping(spec, Stepping::Eager).expect("run");
    assert_eq!(
        lazy.digest(),
        eager.digest(),
        "{what}: lazy and eager diverged: {:?}",
        locksim::explore::divergence(&lazy, &eager)
    );
    (lazy, eager)
}

/// Each seed runs twice: with lazy stepping (hosts with nothing to do are skipped) and eager
/// (every host on every step). The two must agree bit for bit, which checks both that a run
/// replays and that skipping idle hosts changes nothing.
#[test]
fn every_scenario_replays_bit_for_bit_lazy_and_eager() {
    for scenario in scenario::builtins() {
        let mut digests = Vec::new();
        let (mut lazy_polls, mut eager_polls) = (0, 0);
        for seed in 0..50 {
            let spec = RunSpec::generated(scenario, Params::default(), seed);
            let (a, b) = both_ways(&spec, &format!("{} seed {seed}", scenario.name));
            assert_eq!(b.polls().skipped, 0);
            assert_eq!(a.polls().made + a.polls().skipped, b.polls().made);
            lazy_polls += a.polls().made;
            eager_polls += b.polls().made;
            digests.push(a.digest().to_string());
        }
        assert!(
            lazy_polls * 2 < eager_polls,
            "{}: lazy stepping ran hosts {lazy_polls} times, eager {eager_polls}",
            scenario.name
        );
        digests.sort();
        digests.dedup();
        assert!(
            digests.len() > 30,
            "{}: seeds should give different runs",
            scenario.name
        );
    }
}

/// Every named profile of every scenario (targeted pauses, long pauses, other fault mixes),
/// a few seeds each, lazy and eager: a profile's faults reach orders of wake-ups that the
/// defaults may not (a sleep due as a step ends against another host's wake-up on the next).
#[test]
fn every_profile_runs_the_same_lazy_and_eager() {
    for scenario in scenario::builtins() {
        for profile in scenario.program.profiles() {
            let params = scenario.params(Some(profile.name), &[] as &[&str]).unwrap();
            for seed in 0..12 {
                let spec = RunSpec::generated(scenario, params.clone(), seed);
                let what = format!("{} --profile {} seed {seed}", scenario.name, profile.name);
                let _ = both_ways(&spec, &what); // it asserts the two agree
            }
        }
    }
}

#[test]
fn exploration_result_does_not_depend_on_the_number_of_threads() {
    let spec = |jobs| ExploreSpec {
        scenario: scenario::find("zk-lock-noguid").unwrap().clone(),
        params: Params::default(),
        properties: scenario::find("zk-lock-noguid")
            .unwrap()
            .properties
            .to_vec(),
        seeds: 0..200,
        jobs,
        check_determinism: true,
    };
    let (one, two) = (explore(&spec(1)), explore(&spec(2)));
    match (&one.outcome, &two.outcome) {
        (Outcome::Violation(a), Outcome::Violation(b)) => {
            assert_eq!(a.spec.seed(), b.spec.seed());
            assert_eq!(a.report.digest(), b.report.digest());
            assert_eq!(one.seeds_run, two.seeds_run);
        }
        other => panic!("expected the same violation twice, got {other:?}"),
    }
}

/// A three-server ensemble replays bit for bit too, lazy and eager: its peer links, the
/// followers' lagged applies and the clients' moves between servers are all the seed's.
#[test]
fn an_ensemble_replays_bit_for_bit_lazy_and_eager() {
    let params = Params::default()
        .overridden(&["zk_servers=3"])
        .expect("valid");
    for name in ["zk-lock", "zk-queue"] {
        let scenario = scenario::find(name).expect("known");
        let mut digests = Vec::new();
        for seed in 0..20 {
            let spec = RunSpec::generated(scenario, params.clone(), seed);
            let (run, _) = both_ways(&spec, &format!("{name} zk_servers=3 seed {seed}"));
            digests.push(run.digest().to_string());
        }
        digests.sort();
        digests.dedup();
        assert!(
            digests.len() > 15,
            "{name}: seeds should give different runs"
        );
    }
}
