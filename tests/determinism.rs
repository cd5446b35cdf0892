//! Same scenario, params, seed and plan: same history digest, every time.

use locksim::explore::{ExploreSpec, Outcome, explore};
use locksim::params::Params;
use locksim::scenario;
use locksim::world::run::{RunSpec, run};

#[test]
fn every_scenario_replays_bit_for_bit() {
    for scenario in scenario::builtins() {
        let mut digests = Vec::new();
        for seed in 0..40 {
            let spec = RunSpec::generated(scenario, Params::default(), seed);
            let a = run(&spec).expect("run");
            let b = run(&spec).expect("run");
            assert_eq!(
                a.digest,
                b.digest,
                "{} seed {seed} diverged: {:?}",
                scenario.name,
                locksim::explore::divergence(&a, &b)
            );
            digests.push(a.digest);
        }
        digests.sort();
        digests.dedup();
        assert!(
            digests.len() > 30,
            "{}: seeds should give different runs",
            scenario.name
        );
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
            assert_eq!(a.spec.seed, b.spec.seed);
            assert_eq!(a.report.digest, b.report.digest);
            assert_eq!(one.seeds_run, two.seeds_run);
        }
        other => panic!("expected the same violation twice, got {other:?}"),
    }
}
