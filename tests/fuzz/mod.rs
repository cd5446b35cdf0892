//! Property-based fuzzing in `cargo test`. Every runner is seeded, so CI sees the same cases,
//! and honours PROPTEST_CASES (a test's own number of cases otherwise).
//!
//! - `lock_safety`: fault plans drawn like the swarm's, run against the lock recipes
//! - `trace_mutation`: the committed traces mutated structurally and replayed in-process

mod lock_safety;
mod redis_input;
mod trace_mutation;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A deterministic runner of `default_cases` cases, or of PROPTEST_CASES when that is set.
fn runner(default_cases: u32) -> Runner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default_cases);
    Runner {
        cases,
        shrink_iters: None,
    }
}

struct Runner {
    cases: u32,
    /// None: proptest's own limit (four per case).
    shrink_iters: Option<u32>,
}

impl Runner {
    fn with_at_least(self, cases: u32) -> Runner {
        Runner {
            cases: self.cases.max(cases),
            ..self
        }
    }

    /// Stops shrinking after `iters` steps. Each step is a whole simulation, and the first
    /// ones, which try dropping each fault in turn, are the ones that make a plan shorter.
    fn with_shrink_iters(self, iters: u32) -> Runner {
        Runner {
            shrink_iters: Some(iters),
            ..self
        }
    }

    fn run<S: proptest::strategy::Strategy>(
        &self,
        strategy: &S,
        test: impl Fn(S::Value) -> Result<(), proptest::test_runner::TestCaseError>,
    ) -> Result<(), proptest::test_runner::TestError<S::Value>> {
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            max_shrink_iters: self
                .shrink_iters
                .unwrap_or(Config::default().max_shrink_iters),
            ..Config::default()
        };
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
            .run(strategy, test)
    }
}
