//! One run as an API: what it depends on (RunSpec), what it showed (RunReport), the checks
//! on its plan, and `run`, which drives the world (`world::driver`) and judges the history.

use crate::check::{Malformed, NoChecker, Property, Violation, Witness};
use crate::history::History;
use crate::params::{ParamError, Params};
use crate::scenario::Scenario;
use crate::sim::fault::{Fault, FaultPlan, PlanError};
use crate::sim::seed::Seeds;
use crate::sim::software::Hosts;
use crate::sim::swarm::{self, SwarmConfig, SwarmServer};
use crate::world::prepared::Prepared;
use std::cell::RefCell;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Once;

/// How the world steps its hosts. Both give the same history, bit for bit; `Lazy` is
/// faster, `Eager` is there to show that they do (A/B).
///
/// ```
/// use locksim::world::run::Stepping;
/// assert_eq!(Stepping::parse("eager"), Ok(Stepping::Eager));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stepping {
    /// A host runs on a step only if it has work: a task woken, a message delivered, a
    /// timer due. Hosts whose waits the stepper cannot see run on every step
    /// (`Hosts::lazy_clients`, `ServerSoftware::lazy`).
    #[default]
    Lazy,
    /// Every host runs on every step (1 ms of simulated time), as turmoil does.
    Eager,
}

impl Stepping {
    /// The environment variable that chooses the stepping of every run: `lazy` (the
    /// default) or `eager`.
    pub const VAR: &str = "LOCKSIM_STEPPING";

    /// `lazy` or `eager`.
    pub fn parse(value: &str) -> Result<Stepping, String> {
        match value {
            "lazy" => Ok(Stepping::Lazy),
            "eager" => Ok(Stepping::Eager),
            other => Err(format!(
                "{}={other}: the stepping is lazy or eager",
                Stepping::VAR
            )),
        }
    }

    /// What `LOCKSIM_STEPPING` asks for; `Lazy` when it is unset.
    pub fn from_env() -> Result<Stepping, String> {
        match std::env::var(Stepping::VAR) {
            Ok(value) => Stepping::parse(&value),
            Err(std::env::VarError::NotPresent) => Ok(Stepping::Lazy),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{} is not valid unicode", Stepping::VAR))
            }
        }
    }
}

/// How often the world ran its hosts in one run: made, skipped (lazy hosts with nothing to
/// do), and how many hosts ran on every step because their waits cannot be seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct HostPolls {
    /// Host steps in which the host ran (or only had a timer fire as the step ended).
    pub made: u64,
    /// Host steps in which a lazy host had nothing to do and was skipped.
    pub skipped: u64,
    /// Hosts that ran on every step: not lazy, or the stepping eager.
    pub eager_hosts: u32,
}

/// Everything a run depends on. Same spec, same history, bit for bit.
///
/// ```
/// use locksim::params::Params;
/// use locksim::sim::fault::FaultPlan;
/// use locksim::world::run::RunSpec;
/// let scenario = locksim::scenario::find("zk-lock").unwrap();
/// let drawn = RunSpec::generated(scenario, Params::default(), 7);
/// let calm = drawn.clone().with_plan(FaultPlan::default());
/// assert_eq!((calm.seed(), calm.plan().faults().len()), (7, 0));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunSpec {
    /// What runs: its hosts, their software and its checkers.
    pub(crate) scenario: Scenario,
    /// The scenario's parameters, overrides applied.
    pub(crate) params: Params,
    /// The root of every random stream of the run (`Seeds`).
    pub(crate) seed: u64,
    /// The faults applied, and when.
    pub(crate) plan: FaultPlan,
    /// The properties the history is judged by.
    pub(crate) properties: Vec<Property>,
}

/// What one run showed: its history and the checkers' verdict on it.
#[derive(Debug, Clone)]
#[non_exhaustive]
#[must_use = "a run's report holds its verdict: look at its violations"]
pub struct RunReport {
    /// Every event recorded, in true-time order.
    pub(crate) history: History,
    /// The properties it broke, with where; empty for a clean run.
    pub(crate) violations: Vec<Violation>,
    /// What the checkers saw the run put to the test (readers sharing a lock).
    pub(crate) witnesses: Vec<Witness>,
    /// The history's fingerprint (`History::digest`), which a replay must reproduce.
    pub(crate) digest: String,
    /// True simulated time at which the run stopped.
    pub(crate) end_ms: u64,
    /// Whether every client finished its workload before the run limit.
    pub(crate) completed: bool,
    /// The fault plan it applied.
    pub(crate) plan: FaultPlan,
    /// How often its hosts ran, and were skipped.
    pub(crate) polls: HostPolls,
}

impl RunReport {
    /// Every event recorded, in true-time order.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The properties it broke, with where; empty for a clean run.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// What the checkers saw the run put to the test (readers sharing a lock).
    pub fn witnesses(&self) -> &[Witness] {
        &self.witnesses
    }

    /// The history's fingerprint (`History::digest`), which a replay must reproduce.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// True simulated time at which the run stopped, ms.
    pub fn end_ms(&self) -> u64 {
        self.end_ms
    }

    /// Whether every client finished its workload before the run limit.
    pub fn completed(&self) -> bool {
        self.completed
    }

    /// The fault plan it applied.
    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// How often its hosts ran, and were skipped.
    pub fn polls(&self) -> HostPolls {
        self.polls
    }
}

/// Why a run could not be judged: bad input, or a failure of locksim itself.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RunError {
    /// The parameters do not suit the scenario.
    Params(ParamError),
    /// The fault plan does not suit the scenario's hosts.
    Plan(PlanError),
    /// The recorded history broke the recorder's own rules: a harness bug.
    Malformed(Malformed),
    /// A property the run is to be judged by has no checker.
    NoChecker(NoChecker),
    /// Host software failed (turmoil reported an error, or something in the simulation
    /// panicked).
    Software(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Params(e) => write!(f, "{e}"),
            RunError::Plan(e) => write!(f, "bad fault plan: {e}"),
            RunError::Malformed(m) => write!(f, "harness bug, malformed history: {m:?}"),
            RunError::NoChecker(e) => write!(f, "{e}"),
            RunError::Software(e) => write!(f, "host software failed: {e}"),
        }
    }
}

impl RunSpec {
    /// A run of `scenario` with `params`, `seed` and `plan`, judged by the scenario's
    /// properties.
    pub fn new(scenario: &Scenario, params: Params, seed: u64, plan: FaultPlan) -> RunSpec {
        RunSpec {
            scenario: scenario.clone(),
            params,
            seed,
            plan,
            properties: scenario.properties.clone(),
        }
    }

    /// A spec whose plan the swarm generator draws from the seed's "faults" stream.
    pub fn generated(scenario: &Scenario, params: Params, seed: u64) -> RunSpec {
        let plan = generate_plan(scenario, &params, seed);
        RunSpec::new(scenario, params, seed, plan)
    }

    /// The same run with `plan` instead of its own.
    pub fn with_plan(self, plan: FaultPlan) -> RunSpec {
        RunSpec { plan, ..self }
    }

    /// What runs: its hosts, their software and its checkers.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario's parameters, overrides applied.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The root of every random stream of the run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The faults applied, and when.
    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// The properties the history is judged by.
    pub fn properties(&self) -> &[Property] {
        &self.properties
    }

    /// Every host of the run, with its software.
    pub fn hosts(&self) -> Hosts {
        self.scenario.hosts(&self.params)
    }
}

/// The swarm's knobs for a scenario: its parameters, and the servers it may fault with what
/// their families admit. A kind no server admits is left out, so it draws nothing.
pub fn swarm_config(scenario: &Scenario, params: &Params) -> SwarmConfig {
    swarm_config_of(&scenario.hosts(params), params)
}

/// `ops` for an error message: all of them, or the first two dozen and how many more (a
/// Redis server can lose the reply to any of a hundred commands).
fn listed(ops: &[&str]) -> String {
    const SHOWN: usize = 24;
    match ops.len() {
        n if n <= SHOWN => ops.join(", "),
        n => format!("{}, and {} more", ops[..SHOWN].join(", "), n - SHOWN),
    }
}

/// `swarm_config`, of the hosts a scenario has with `params`.
pub(super) fn swarm_config_of(hosts: &Hosts, params: &Params) -> SwarmConfig {
    let servers: Vec<SwarmServer> = hosts
        .servers
        .iter()
        .filter(|s| s.swarmed)
        .map(|s| SwarmServer {
            name: s.name.clone(),
            reply_ops: s.family.swarm_reply_ops().to_vec(),
            lose_ops: s.family.reply_ops().to_vec(),
            fails_over: s.family.fails_over(),
            stalls_apply: s.family.stalls_apply(),
            ensemble_member: s.family.ensemble_member(),
        })
        .collect();
    let mut kinds = params.fault_kinds();
    kinds.retain(|&kind| swarm::admitted(kind, &servers));
    SwarmConfig {
        kinds,
        fault_phase_ms: params.faults.fault_phase_ms,
        clients: hosts.clients.clone(),
        pause_steps: hosts.pause_steps.clone(),
        wait_steps: hosts.wait_steps.clone(),
        servers,
        partition_max_ms: params.faults.partition_max_ms,
        pause_max_ms: params.faults.pause_max_ms,
        crash_down_max_ms: params.faults.crash_down_max_ms,
        delay_max_ms: params.faults.delay_max_ms,
        clock_jump_max_ms: params.faults.clock_jump_max_ms,
        clock_drift_max_ppm: params.faults.clock_drift_max_ppm,
        per_kind_max: params.faults.faults_per_kind_max,
        targeted_max: params.faults.targeted_max,
        targeted_pause_max_ms: params.faults.targeted_pause_max_ms,
        timescales: timescales(params),
    }
}

/// The durations a run's recipes turn on, shortest first: the ZooKeeper session timeout and
/// the third of it after which a client pings, the Redis locks' TTL.
fn timescales(params: &Params) -> Vec<u64> {
    let session = params.zookeeper.session_timeout_ms;
    let mut scales = vec![session, session / 3, params.redis.ttl_ms];
    scales.sort_unstable();
    scales.dedup();
    scales
}

/// The fault plan the swarm generator draws for `seed` (from its "faults" stream).
pub fn generate_plan(scenario: &Scenario, params: &Params, seed: u64) -> FaultPlan {
    let cfg = swarm_config(scenario, params);
    swarm::swarm(&cfg, &mut Seeds::new(seed).stream("faults"))
}

/// Runs one simulation to its end and judges it.
///
/// Its hosts are stepped as `LOCKSIM_STEPPING` says (`Stepping::from_env`); a bad value
/// panics, naming the variable.
pub fn run(spec: &RunSpec) -> Result<RunReport, RunError> {
    let stepping = Stepping::from_env().unwrap_or_else(|e| panic!("{e}"));
    run_stepping(spec, stepping)
}

/// `run`, with its hosts stepped as `stepping` says.
pub fn run_stepping(spec: &RunSpec, stepping: Stepping) -> Result<RunReport, RunError> {
    Prepared::new(&spec.scenario, &spec.params, &spec.properties).run_stepping(spec, stepping)
}

thread_local! {
    /// Set while `capture_panics` runs on this thread: the first panic's message, once one
    /// happened. Tokio re-raises a task's panic with a generic message of its own, so the
    /// hook keeps the first one, which says what went wrong.
    static CAPTURED: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic (turmoil panics when, say, a host runs out of ports) into its
/// message: a bug or limit of the simulation is a harness error, not a crash of locksim.
/// A panic in a task a host spawned counts too, though `f` returned: a build with
/// `--cfg tokio_unstable` shuts the host's runtime down on it and the run panics, one
/// without it lets the task end quietly and the run go on, and both must judge alike.
/// Panics are kept quiet only on a thread inside this function; others reach the hook that
/// was there before.
pub(super) fn capture_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let captured = CAPTURED.with(|c| {
                let mut c = c.borrow_mut();
                let Some(first) = c.as_mut() else {
                    return false;
                };
                first.get_or_insert_with(|| describe(info));
                true
            });
            if !captured {
                previous(info);
            }
        }));
    });
    let outer = CAPTURED.with(|c| c.replace(Some(None)));
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    let first = CAPTURED.with(|c| c.replace(outer)).flatten();
    match (result, first) {
        (Ok(value), None) => Ok(value),
        (_, Some(first)) => Err(first),
        (Err(_), None) => Err("a panic without a message".to_string()),
    }
}

fn describe(info: &std::panic::PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    match info.location() {
        Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
        None => message,
    }
}

/// Checks what the generic validation cannot: faults aimed at the wrong kind of host (a
/// server's family says which of its faults it can carry out), and faults scheduled after
/// the fault phase (the heal phase admits none).
pub(super) fn validate_targets(spec: &RunSpec, hosts: &Hosts) -> Result<(), PlanError> {
    let clients = &hosts.clients;
    let phase_ms = spec.params.faults.fault_phase_ms;
    for (index, timed) in spec.plan.0.iter().enumerate() {
        if timed.at_ms >= phase_ms {
            return Err(PlanError::AfterFaultPhase {
                index,
                at_ms: timed.at_ms,
                phase_ms,
            });
        }
        let wrong = |node: &str, wants: &'static str| {
            Err(PlanError::WrongTarget {
                index,
                node: node.to_string(),
                wants,
            })
        };
        match &timed.fault {
            Fault::Crash { node } | Fault::Restart { node } if clients.contains(node) => {
                return wrong(node, "a server (clients do not crash)");
            }
            Fault::LoseReply { client, .. } if !clients.contains(client) => {
                return wrong(client, "a client");
            }
            Fault::PauseBefore { node, .. } if !clients.contains(node) => {
                return wrong(node, "a client (only a client program has steps)");
            }
            Fault::PauseBefore { step, .. }
            | Fault::PauseRole {
                on: Some(crate::sim::fault::Trigger::Step { step }),
                ..
            } if !hosts.has_step(step) => {
                return Err(PlanError::UnknownStep {
                    index,
                    step: step.clone(),
                    known: match hosts.pause_steps.join(", ") {
                        none if none.is_empty() => "none".to_string(),
                        known => known,
                    },
                });
            }
            Fault::LoseReply { node, op, .. } => {
                let ops = hosts.server(node).map_or(&[][..], |s| s.family.reply_ops());
                if !ops.contains(&op.as_str()) {
                    return Err(PlanError::CannotLoseReply {
                        index,
                        node: node.clone(),
                        op: op.clone(),
                        can: listed(ops),
                    });
                }
            }
            Fault::Failover { node }
                if !hosts.server(node).is_some_and(|s| s.family.fails_over()) =>
            {
                return wrong(node, "a server with a replica to fail over to");
            }
            Fault::StallApply { node, .. }
                if !hosts.server(node).is_some_and(|s| s.family.stalls_apply()) =>
            {
                return wrong(node, "a follower of a ZooKeeper ensemble");
            }
            Fault::Partition { a, b }
            | Fault::Repair { a, b }
            | Fault::Loss { a, b, .. }
            | Fault::Delay { a, b, .. }
                if a == b =>
            {
                return Err(PlanError::SameNode { index });
            }
            Fault::PartitionOneway { from, to } if from == to => {
                return Err(PlanError::SameNode { index });
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    #[test]
    fn a_panic_in_the_simulation_is_a_harness_error_and_the_next_run_works() {
        let panicked = capture_panics(|| {
            let mut sim = turmoil::Builder::new().build();
            sim.client("c1", async { panic!("Host: 'c1' ports exhausted") });
            sim.run()
        });
        let message = panicked.unwrap_err();
        assert!(
            message.starts_with("Host: 'c1' ports exhausted (at src/world/run.rs:"),
            "{message}"
        );
        let scenario = scenario::find("zk-lock").unwrap();
        let params = Params::default().overridden(&["faults=none"]).unwrap();
        let report = run(&RunSpec::generated(scenario, params, 1)).unwrap();
        assert!(report.completed && report.violations.is_empty());
    }

    #[test]
    fn a_panic_in_a_spawned_task_is_a_harness_error_whatever_the_build() {
        let panicked = capture_panics(|| {
            let mut sim = turmoil::Builder::new().build();
            sim.client("c1", async {
                tokio::spawn(async { panic!("a spawned task's bug") });
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                Ok(())
            });
            sim.run()
        });
        let message = panicked.unwrap_err();
        assert!(message.starts_with("a spawned task's bug"), "{message}");
    }

    #[test]
    fn a_pause_before_a_step_needs_a_client_and_a_step_its_program_has() {
        let scenario = scenario::find("redlock").unwrap();
        let params = Params::default().overridden(&["faults=none"]).unwrap();
        let spec = |node: &str, step: &str| RunSpec {
            plan: FaultPlan(vec![crate::sim::fault::TimedFault {
                at_ms: 10,
                fault: Fault::PauseBefore {
                    node: node.into(),
                    step: step.into(),
                    for_ms: 300,
                },
            }]),
            ..RunSpec::generated(scenario, params.clone(), 1)
        };
        let err = run(&spec("redis1", "write")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad fault plan: fault #0: 'redis1' is not a client (only a client program has steps)"
        );
        let err = run(&spec("c1", "read")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad fault plan: fault #0: no client program declares a step 'read' (declared: write, release)"
        );
        let report = run(&spec("c1", "write")).unwrap();
        let struck = report.history.events.iter().find_map(|e| match &e.op {
            crate::history::Op::Harness(crate::history::HarnessOp::Paused {
                node, for_ms, ..
            }) => Some((node.clone(), *for_ms, e.time_ms)),
            _ => None,
        });
        let (node, for_ms, at_ms) = struck.expect("the armed pause struck");
        assert_eq!((node.as_str(), for_ms), ("c1", 300));
        let writes_after = |from: u64| {
            report.history.events.iter().any(|e| {
                e.node == "c1"
                    && e.time_ms >= from
                    && matches!(
                        e.op,
                        crate::history::Op::Store(crate::history::StoreOp::Write { .. })
                    )
            })
        };
        assert!(at_ms >= 10 && writes_after(at_ms + 300));
        let frozen = report
            .history
            .events
            .iter()
            .any(|e| e.node == "c1" && e.time_ms > at_ms && e.time_ms < at_ms + 300);
        assert!(!frozen, "c1 acted while frozen");
    }

    fn targeted(at_ms: u64, fault: Fault) -> RunSpec {
        let scenario = scenario::find("zk-lock").unwrap();
        let params = Params::default().overridden(&["faults=none"]).unwrap();
        RunSpec {
            plan: FaultPlan(vec![crate::sim::fault::TimedFault { at_ms, fault }]),
            ..RunSpec::generated(scenario, params, 1)
        }
    }

    /// The harness's fault events of a run.
    fn fault_events(report: &RunReport) -> Vec<(u64, String)> {
        use crate::history::{HarnessOp, Op};
        report
            .history
            .events
            .iter()
            .filter_map(|e| match &e.op {
                Op::Harness(HarnessOp::Fault { fault }) => Some((e.time_ms, fault.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_targeted_pause_strikes_whom_its_role_names_when_its_trigger_fires() {
        use crate::sim::fault::{Role, Target, Trigger};
        let pause = |target, on| Fault::PauseRole {
            target,
            on,
            for_ms: 50,
        };
        let spec = targeted(
            0,
            pause(
                Target::PredecessorOf { of: Role::Waiter },
                Some(Trigger::Step {
                    step: "exists".into(),
                }),
            ),
        );
        let report = run(&spec).unwrap();
        let fired = fault_events(&report);
        assert_eq!(fired.len(), 1, "{fired:?}");
        let (at, text) = &fired[0];
        assert!(
            text.starts_with(
                "pause the predecessor of a waiter for 50 ms when a client reaches exists: c"
            ),
            "{text}"
        );
        assert!(*at > 0, "fired when the step came, not when armed");
        let again = run(&spec).unwrap();
        assert_eq!(
            report.digest, again.digest,
            "same seed and plan, same history"
        );

        // Nobody holds the lock at 0 ms: the fault is skipped, and the history says so.
        let report = run(&targeted(0, pause(Target::Holder, None))).unwrap();
        assert_eq!(
            fault_events(&report),
            vec![(
                0,
                "pause the holder for 50 ms: nobody has the role, skipped".to_string()
            )]
        );
        let err = run(&targeted(
            0,
            pause(
                Target::Waiter,
                Some(Trigger::Step {
                    step: "lunch".into(),
                }),
            ),
        ))
        .unwrap_err();
        assert!(err.to_string().contains("declares a step 'lunch'"), "{err}");
    }

    #[test]
    fn a_trigger_on_an_event_fires_right_after_it() {
        use crate::history::{LockOp, Op};
        use crate::sim::fault::{Target, Trigger};
        let report = run(&targeted(
            0,
            Fault::PauseRole {
                target: Target::Holder,
                on: Some(Trigger::Acquired),
                for_ms: 30,
            },
        ))
        .unwrap();
        let first_acquire = report
            .history
            .events
            .iter()
            .find(|e| {
                e.kind == crate::history::Kind::Ok
                    && matches!(e.op, Op::Lock(LockOp::Acquire { .. }))
            })
            .unwrap();
        let fired = fault_events(&report);
        // The driver acts after the simulation step that recorded the event: within a tick.
        assert!(fired[0].0 - first_acquire.time_ms <= 1, "{fired:?}");
        assert!(
            fired[0].1.ends_with(&format!(": {}", first_acquire.node)),
            "{fired:?}"
        );
        assert!(report.violations.is_empty());
    }

    #[test]
    fn parameters_built_in_code_are_validated_too() {
        let scenario = scenario::find("zk-lock").unwrap();
        let mut params = Params::default();
        params.network.latency_max_ms = 5_000;
        assert!(
            params.validate().is_ok(),
            "only the scenario knows it is wrong"
        );
        let err = run(&RunSpec::generated(scenario, params, 1)).unwrap_err();
        assert!(matches!(err, RunError::Params(_)), "{err}");
    }
}
