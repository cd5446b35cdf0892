//! A generation's runs, made on threads and taken back in their fixed order, so a campaign
//! is the same on any number of jobs; each run twice where determinism is checked.

use super::super::{MAX_JOBS, Observer};
use crate::recorder::ServerLog;
use crate::world::Prepared;
use crate::world::run::{RunError, RunReport, RunSpec};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one run of a campaign showed: its report, or the harness's error, or that its two
/// runs differed.
pub(in crate::explore) type Ran = Result<Result<RunReport, RunError>, String>;

/// Runs `spec`, twice when `check_determinism` asks: a difference is the `Err`.
#[cfg(feature = "cli")]
pub(in crate::explore) fn run_once(
    prepared: &Prepared,
    spec: &RunSpec,
    check_determinism: bool,
) -> Ran {
    let first = prepared.run(spec);
    compared(prepared, spec, check_determinism, first)
}

/// `run_once`, keeping what the run's servers told (nothing when it failed).
pub(super) fn run_logged(
    prepared: &Prepared,
    spec: &RunSpec,
    check_determinism: bool,
) -> (Ran, ServerLog) {
    let (first, log) = match prepared.run_keeping_server_log(spec) {
        Ok((report, log)) => (Ok(report), log),
        Err(e) => (Err(e), ServerLog::default()),
    };
    (compared(prepared, spec, check_determinism, first), log)
}

/// `first`, or the difference from a second run of `spec` when `check_determinism` asks.
fn compared(
    prepared: &Prepared,
    spec: &RunSpec,
    check_determinism: bool,
    first: Result<RunReport, RunError>,
) -> Ran {
    if check_determinism
        && let (Ok(a), Ok(b)) = (&first, &prepared.run(spec))
        && let Some(detail) = super::super::divergence(a, b)
    {
        return Err(detail);
    }
    Ok(first)
}

/// Runs `specs` by `run` on `jobs` threads; the results in their order.
pub(in crate::explore) fn run_all<T: Send>(
    specs: &[RunSpec],
    jobs: usize,
    observer: &dyn Observer,
    run: impl Fn(&RunSpec) -> (Ran, T) + Sync,
) -> Vec<(Ran, T)> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<(Ran, T)>>> = Mutex::new(specs.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, MAX_JOBS).min(specs.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(spec) = specs.get(index) else { break };
                    let result = run(spec);
                    let failed = !matches!(&result.0, Ok(Ok(r)) if r.violations.is_empty());
                    observer.seed_done(spec.seed, failed);
                    results.lock().expect("no thread panics holding it")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no thread panicked")
        .into_iter()
        .map(|r| r.expect("every run is made"))
        .collect()
}
