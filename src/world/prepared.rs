//! A scenario prepared once for many runs (an exploration's seeds, a campaign's plans): its
//! parameters validated, and what every run reads resolved once (the swarm's knobs, the
//! hosts a plan may name, the run limit, the liveness bound, the checkers), instead of again
//! for each seed. A run then only checks its plan, builds its world and judges its history.

use crate::check::{self, CheckConfig, Checker, NoChecker, Property};
use crate::params::{ParamError, Params};
use crate::recorder::{Recorder, ServerLog};
use crate::scenario::Scenario;
use crate::sim::fault::FaultPlan;
use crate::sim::seed::Seeds;
use crate::sim::swarm::{self, SwarmConfig};
use crate::world::driver::World;
use crate::world::run::{self, RunError, RunReport, RunSpec, Stepping};
use std::collections::BTreeSet;

/// A scenario with its parameters and properties, ready to run any seed and plan.
pub struct Prepared<'a> {
    scenario: &'a Scenario,
    params: &'a Params,
    properties: &'a [Property],
    swarm: SwarmConfig,
    /// What runs read, or why the parameters do not suit the scenario: each run reports it,
    /// as a run prepared alone would.
    resolved: Result<Resolved<'a>, ParamError>,
}

/// What every run of valid parameters reads.
struct Resolved<'a> {
    /// Every host name, which a plan's faults may name.
    names: BTreeSet<String>,
    /// The checkers of the properties, or the first property none judges (reported after
    /// the plan's own errors, as a run prepared alone would).
    checkers: Result<Vec<&'a dyn Checker>, NoChecker>,
    run_limit_ms: u64,
    check: CheckConfig,
}

impl<'a> Prepared<'a> {
    /// Prepares `scenario` with `params`, its runs judged by `properties`.
    pub fn new(scenario: &'a Scenario, params: &'a Params, properties: &'a [Property]) -> Self {
        let hosts = scenario.hosts(params);
        let swarm = run::swarm_config_of(&hosts, params);
        let resolved = scenario.validate(params).map(|()| Resolved {
            names: hosts.names().map(str::to_string).collect(),
            checkers: scenario.checkers.judging(properties),
            run_limit_ms: scenario.run_limit(params),
            check: CheckConfig {
                liveness_bound_ms: scenario.liveness_bound(params),
                params: params.own.clone(),
            },
        });
        Prepared {
            scenario,
            params,
            properties,
            swarm,
            resolved,
        }
    }

    /// The swarm's knobs for its runs.
    pub fn swarm(&self) -> &SwarmConfig {
        &self.swarm
    }

    /// The run of `seed` under `plan`.
    pub fn spec(&self, seed: u64, plan: FaultPlan) -> RunSpec {
        RunSpec {
            scenario: self.scenario.clone(),
            params: self.params.clone(),
            seed,
            plan,
            properties: self.properties.to_vec(),
        }
    }

    /// The run of `seed` under the plan the swarm draws from its "faults" stream.
    pub fn generated(&self, seed: u64) -> RunSpec {
        let plan = swarm::swarm(&self.swarm, &mut Seeds::new(seed).stream("faults"));
        self.spec(seed, plan)
    }

    /// Runs `spec`, one of its own (`spec`, `generated`), to its end and judges it, its
    /// hosts stepped as `LOCKSIM_STEPPING` says (as `run::run`).
    pub fn run(&self, spec: &RunSpec) -> Result<RunReport, RunError> {
        let stepping = Stepping::from_env().unwrap_or_else(|e| panic!("{e}"));
        self.run_stepping(spec, stepping)
    }

    /// `run`, with its hosts stepped as `stepping` says.
    pub fn run_stepping(&self, spec: &RunSpec, stepping: Stepping) -> Result<RunReport, RunError> {
        self.run_with(spec, stepping, Recorder::default())
            .map(|(report, _)| report)
    }

    /// `run`, keeping beside its report the requests its servers answered (for the guided
    /// search to aim lost replies at); the report is the same as `run`'s.
    pub(crate) fn run_keeping_server_log(
        &self,
        spec: &RunSpec,
    ) -> Result<(RunReport, ServerLog), RunError> {
        let stepping = Stepping::from_env().unwrap_or_else(|e| panic!("{e}"));
        self.run_with(spec, stepping, Recorder::keeping_server_log())
    }

    fn run_with(
        &self,
        spec: &RunSpec,
        stepping: Stepping,
        recorder: Recorder,
    ) -> Result<(RunReport, ServerLog), RunError> {
        debug_assert!(
            spec.scenario.name == self.scenario.name
                && spec.params == *self.params
                && spec.properties == self.properties,
            "a run of another preparation"
        );
        let resolved = self
            .resolved
            .as_ref()
            .map_err(|e| RunError::Params(e.clone()))?;
        let hosts = spec.hosts();
        spec.plan
            .validate(&resolved.names)
            .map_err(RunError::Plan)?;
        run::validate_targets(spec, &hosts).map_err(RunError::Plan)?;
        let checkers = resolved
            .checkers
            .as_ref()
            .map_err(|e| RunError::NoChecker(*e))?;
        let world = run::capture_panics(|| {
            let mut world = World::build(spec, hosts, resolved.run_limit_ms, stepping, recorder);
            world.drive(spec, resolved.run_limit_ms).map(|()| world)
        });
        let world = world
            .map_err(|panic| format!("panicked: {panic}"))
            .and_then(|driven| driven)
            .map_err(RunError::Software)?;
        let history = world.recorder.take();
        let violations =
            check::check_with(&history, checkers, &resolved.check).map_err(RunError::Malformed)?;
        let witnesses = check::witnesses(&history, checkers);
        let report = RunReport {
            digest: history.digest(),
            witnesses,
            history,
            violations,
            end_ms: world.end_ms,
            completed: world.completed,
            plan: spec.plan.clone(),
            polls: world.polls(),
        };
        Ok((report, world.recorder.take_server_log()))
    }
}
