//! `locksim bench`: what locksim costs over turmoil itself. It times runs of a scenario,
//! then a bare turmoil simulation with the same hosts, tick, latency and simulated duration
//! whose hosts only sleep, and reports runs per second, simulated-to-wall time and the ratio.
//! Each kind is timed in several trials, alternating, and the best trial of each counts: a
//! machine shared with others slows some trials down, never speeds one up.
//! Wall-clock timing here measures the harness from outside; no simulated code reads it.

use crate::history::{Event, Kind, LockOp, Op};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::run::{self, HostPolls, RunReport, RunSpec};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What `locksim bench` measured, as it prints it (text, or this as JSON).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Bench {
    /// The scenario's name.
    pub scenario: String,
    /// Its client hosts.
    pub clients: u32,
    /// Runs (seeds 0..runs) of each kind in one trial.
    pub runs: u32,
    /// Trials of each kind; the wall times are the best trial's.
    pub trials: u32,
    /// Simulated time of all runs together, ms.
    pub simulated_ms: u64,
    /// Wall time of locksim's runs, ms.
    pub locksim_wall_ms: f64,
    /// Wall time of the bare turmoil runs, ms.
    pub bare_wall_ms: f64,
    /// locksim's runs per wall second.
    pub locksim_runs_per_s: f64,
    /// Bare turmoil's runs per wall second.
    pub bare_runs_per_s: f64,
    /// Simulated ms per wall ms.
    pub locksim_sim_to_wall: f64,
    /// The same, for bare turmoil.
    pub bare_sim_to_wall: f64,
    /// locksim wall time over bare turmoil wall time for the same simulated time.
    pub ratio: f64,
    /// How often locksim's runs ran their hosts, all runs together, and skipped them
    /// (`LOCKSIM_STEPPING`); `eager_hosts` is the most in one run.
    pub polls: HostPolls,
    /// Locks acquired in all runs together (a lock scenario's; 0 for the others).
    pub acquisitions: u64,
    /// locksim's wall time per lock acquired, µs: how the cost grows with the clients.
    pub per_acquisition_us: Option<f64>,
}

impl std::fmt::Display for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "bench {} ({} clients), {} runs, {} ms simulated in all, best of {} trials",
            self.scenario, self.clients, self.runs, self.simulated_ms, self.trials
        )?;
        writeln!(
            f,
            "  locksim:      {:>8.1} ms wall  {:>7.1} runs/s  {:>7.1}x simulated-to-wall",
            self.locksim_wall_ms, self.locksim_runs_per_s, self.locksim_sim_to_wall
        )?;
        writeln!(
            f,
            "  bare turmoil: {:>8.1} ms wall  {:>7.1} runs/s  {:>7.1}x simulated-to-wall",
            self.bare_wall_ms, self.bare_runs_per_s, self.bare_sim_to_wall
        )?;
        writeln!(f, "  ratio locksim / bare turmoil: {:.2}", self.ratio)?;
        let p = &self.polls;
        if let Some(us) = self.per_acquisition_us {
            writeln!(
                f,
                "  per lock acquired: {us:.1} µs wall ({} acquired)",
                self.acquisitions
            )?;
        }
        write!(
            f,
            "  host polls:   {} made, {} skipped ({:.1} % of host steps run), {} hosts on every step",
            p.made,
            p.skipped,
            100.0 * p.made as f64 / (p.made + p.skipped).max(1) as f64,
            p.eager_hosts
        )
    }
}

/// A turmoil simulation with the scenario's hosts whose software does nothing but wait
/// until `duration_ms` has passed.
fn bare_run(spec: &RunSpec, duration_ms: u64) {
    let p = &spec.params;
    let mut sim = turmoil::Builder::new()
        .tick_duration(Duration::from_millis(1))
        .min_message_latency(Duration::from_millis(p.network.latency_min_ms))
        .max_message_latency(Duration::from_millis(p.network.latency_max_ms))
        .simulation_duration(Duration::from_millis(duration_ms + 1_000))
        .rng_seed(spec.seed)
        .build();
    let hosts = spec.hosts();
    for server in &hosts.servers {
        sim.host(server.name.as_str(), || async {
            std::future::pending::<()>().await;
            Ok(())
        });
    }
    for client in hosts.clients {
        sim.client(client.as_str(), async move {
            tokio::time::sleep(Duration::from_millis(duration_ms)).await;
            Ok(())
        });
    }
    sim.run().expect("a bare simulation cannot fail");
}

/// How many times a client acquired a lock in `report`'s run.
fn acquired(report: &RunReport) -> u64 {
    let acquire =
        |e: &&Event| e.kind == Kind::Ok && matches!(e.op, Op::Lock(LockOp::Acquire { .. }));
    report.history.events.iter().filter(acquire).count() as u64
}

/// Wall ms that `f` took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64() * 1000.0)
}

/// Times `runs` runs of `scenario` and as many bare turmoil runs of the same simulated
/// lengths, `trials` times each, alternating; the best trial of each counts.
pub(crate) fn measure(
    scenario: &'static Scenario,
    params: &Params,
    runs: u32,
    trials: u32,
) -> Bench {
    let specs: Vec<RunSpec> = (0..u64::from(runs))
        .map(|seed| RunSpec::generated(scenario, params.clone(), seed))
        .collect();
    let (mut locksim, mut bare) = (f64::INFINITY, f64::INFINITY);
    let mut durations = Vec::new();
    let mut polls = HostPolls::default();
    let mut acquisitions = 0;
    for _ in 0..trials.max(1) {
        let (ran, wall) = timed(|| specs.iter().map(|s| run::run(s).ok()).collect::<Vec<_>>());
        polls = HostPolls::default();
        acquisitions = ran.iter().flatten().map(acquired).sum();
        for report in ran.iter().flatten() {
            polls.made += report.polls.made;
            polls.skipped += report.polls.skipped;
            polls.eager_hosts = polls.eager_hosts.max(report.polls.eager_hosts);
        }
        let ran: Vec<u64> = ran
            .iter()
            .map(|r| r.as_ref().map_or(0, |r| r.end_ms))
            .collect();
        locksim = locksim.min(wall);
        durations = ran;
        let ((), wall) = timed(|| {
            for (spec, &ms) in specs.iter().zip(&durations) {
                bare_run(spec, ms);
            }
        });
        bare = bare.min(wall);
    }
    let simulated_ms: u64 = durations.iter().sum();
    Bench {
        scenario: scenario.name.to_string(),
        clients: params.workload.clients,
        runs,
        trials: trials.max(1),
        simulated_ms,
        locksim_wall_ms: locksim,
        bare_wall_ms: bare,
        locksim_runs_per_s: f64::from(runs) / (locksim / 1000.0),
        bare_runs_per_s: f64::from(runs) / (bare / 1000.0),
        locksim_sim_to_wall: simulated_ms as f64 / locksim,
        bare_sim_to_wall: simulated_ms as f64 / bare,
        ratio: locksim / bare,
        polls,
        acquisitions,
        per_acquisition_us: (acquisitions > 0).then(|| locksim * 1000.0 / acquisitions as f64),
    }
}
