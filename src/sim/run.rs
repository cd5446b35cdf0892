//! The driver loop of one run: build the turmoil world for a scenario, step it, apply the
//! plan's faults when they are due, heal, stop, and judge the history.

use crate::check::{self, CheckConfig, Malformed, Property, Violation};
use crate::history::{Event, History, Kind, Op, Recorder};
use crate::params::Params;
use crate::scenario::{self, Recipe, Scenario};
use crate::sim::clock::{Clock, EPOCH_MS};
use crate::sim::fault::{Fault, FaultPlan, PlanError, TimedFault};
use crate::sim::node::Node;
use crate::sim::pause::PauseGate;
use crate::sim::seed::Seeds;
use crate::sim::swarm::{self, SwarmConfig};
use crate::sim::zk_host::{self, SharedZkHost, ZkHost};
use crate::store;
use crate::zk::server::{Server, ServerConfig};
use rand::Rng;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

/// Everything a run depends on. Same spec, same history, bit for bit.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub scenario: &'static Scenario,
    pub params: Params,
    pub seed: u64,
    pub plan: FaultPlan,
    pub properties: Vec<Property>,
}

#[derive(Debug, Clone)]
pub struct RunReport {
    pub history: History,
    pub violations: Vec<Violation>,
    pub digest: String,
    /// True simulated time at which the run stopped.
    pub end_ms: u64,
    /// Whether every client finished its workload before the run limit.
    pub completed: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    Plan(PlanError),
    /// The recorded history broke the recorder's own rules: a harness bug.
    Malformed(Malformed),
    /// Host software failed (turmoil reported an error).
    Software(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Plan(e) => write!(f, "bad fault plan: {e}"),
            RunError::Malformed(m) => write!(f, "harness bug, malformed history: {m:?}"),
            RunError::Software(e) => write!(f, "host software failed: {e}"),
        }
    }
}

impl RunSpec {
    /// A spec whose plan the swarm generator draws from the seed's "faults" stream.
    pub fn generated(scenario: &'static Scenario, params: Params, seed: u64) -> RunSpec {
        let plan = generate_plan(scenario, &params, seed);
        RunSpec {
            scenario,
            params,
            seed,
            plan,
            properties: scenario.properties.to_vec(),
        }
    }

    /// Every host of the run.
    pub fn hosts(&self) -> BTreeSet<String> {
        let mut hosts: BTreeSet<String> = scenario::servers(self.scenario.recipe)
            .into_iter()
            .collect();
        hosts.insert("store".into());
        hosts.extend(self.params.client_names());
        hosts
    }
}

pub fn swarm_config(scenario: &Scenario, params: &Params) -> SwarmConfig {
    SwarmConfig {
        kinds: params.fault_kinds().unwrap_or_default(),
        fault_phase_ms: params.fault_phase_ms,
        clients: params.client_names(),
        servers: scenario::servers(scenario.recipe),
        partition_max_ms: params.partition_max_ms,
        pause_max_ms: params.pause_max_ms,
        crash_down_max_ms: params.crash_down_max_ms,
        delay_max_ms: params.delay_max_ms,
        clock_jump_max_ms: params.clock_jump_max_ms,
        clock_drift_max_ppm: params.clock_drift_max_ppm,
        per_kind_max: params.faults_per_kind_max,
    }
}

pub fn generate_plan(scenario: &Scenario, params: &Params, seed: u64) -> FaultPlan {
    let cfg = swarm_config(scenario, params);
    swarm::swarm(&cfg, &mut Seeds::new(seed).stream("faults"))
}

/// Runs one simulation to its end and judges it.
pub fn run(spec: &RunSpec) -> Result<RunReport, RunError> {
    spec.plan.validate(&spec.hosts()).map_err(RunError::Plan)?;
    validate_targets(spec).map_err(RunError::Plan)?;

    let mut world = World::build(spec);
    world.drive(spec)?;
    let history = world.recorder.snapshot();
    let cfg = CheckConfig {
        liveness_bound_ms: spec.params.liveness_bound(),
    };
    let violations = check::check(&history, &spec.properties, &cfg).map_err(RunError::Malformed)?;
    Ok(RunReport {
        digest: history.digest(),
        history,
        violations,
        end_ms: world.end_ms,
        completed: world.completed,
    })
}

/// Checks what the generic validation cannot: faults aimed at the wrong kind of host, and
/// faults scheduled after the fault phase (the heal phase admits none).
fn validate_targets(spec: &RunSpec) -> Result<(), PlanError> {
    let zk_servers = scenario::servers(spec.scenario.recipe);
    let clients = spec.params.client_names();
    let phase_ms = spec.params.fault_phase_ms;
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
            Fault::LoseReply { node, .. } if !zk_servers.contains(node) => {
                return wrong(node, "a ZooKeeper server");
            }
            Fault::LoseReply { client, .. } if !clients.contains(client) => {
                return wrong(client, "a client");
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

/// The target of a timed fault the driver must end later: a delay, a loss burst or a pause.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    EndDelay(String, String),
    EndLoss(String, String),
    Resume(String),
}

struct World {
    sim: turmoil::Sim<'static>,
    nodes: BTreeMap<String, Node>,
    zk: SharedZkHost,
    recorder: Recorder,
    harness: Node,
    /// Each pending timed fault's target and when it ends.
    timers: BTreeMap<Timer, u64>,
    crashed: BTreeSet<String>,
    latency: (Duration, Duration),
    end_ms: u64,
    completed: bool,
}

impl World {
    fn build(spec: &RunSpec) -> World {
        let p = &spec.params;
        let seeds = Seeds::new(spec.seed);
        let latency = (
            Duration::from_millis(p.latency_min_ms),
            Duration::from_millis(p.latency_max_ms),
        );
        let mut sim = turmoil::Builder::new()
            .tick_duration(Duration::from_millis(1))
            .min_message_latency(latency.0)
            .max_message_latency(latency.1)
            .simulation_duration(Duration::from_millis(p.run_limit() + 1_000))
            .epoch(UNIX_EPOCH + Duration::from_millis(EPOCH_MS as u64))
            .rng_seed(seeds.derive("net"))
            .build();
        let recorder = Recorder::default();
        let skew_max = p.clock_skew_max_ms as i64;
        let node = |name: &str| Node {
            name: name.to_string(),
            clock: Rc::new(RefCell::new(Clock::skewed(
                seeds
                    .stream(&format!("{name}/skew"))
                    .random_range(-skew_max..=skew_max),
            ))),
            gate: PauseGate::default(),
            recorder: recorder.clone(),
        };
        let nodes: BTreeMap<String, Node> =
            spec.hosts().iter().map(|h| (h.clone(), node(h))).collect();

        let zk_node = nodes["zk1"].clone();
        let config = ServerConfig {
            min_session_timeout_ms: 2 * p.zk_tick_ms,
            max_session_timeout_ms: 20 * p.zk_tick_ms,
            ..ServerConfig::with_tick(p.zk_tick_ms, seeds.derive("zk1"))
        };
        let zk = ZkHost::new(zk_node.clone(), Server::new(config), p.zk_tick_ms);
        let zk_for_host = zk.clone();
        sim.host("zk1", move || {
            zk_node.gate.gate(zk_host::serve(zk_for_host.clone()))
        });

        let store_node = nodes["store"].clone();
        let register = Rc::new(RefCell::new(store::Register::new(p.fencing)));
        sim.host("store", move || {
            store_node
                .gate
                .gate(store::serve(store_node.clone(), register.clone()))
        });

        for name in p.client_names() {
            let node = nodes[&name].clone();
            let software = match spec.scenario.recipe {
                Recipe::ZkLock(flavor) => {
                    crate::recipes::zk::lock::host::client(node.clone(), p.clone(), flavor, seeds)
                }
            };
            sim.client(
                name.as_str(),
                node.gate.gate(async move {
                    software.await;
                    Ok(())
                }),
            );
        }
        World {
            sim,
            harness: node("harness"),
            nodes,
            zk,
            recorder,
            timers: BTreeMap::new(),
            crashed: BTreeSet::new(),
            latency,
            end_ms: 0,
            completed: false,
        }
    }

    fn now_ms(&self) -> u64 {
        self.sim.elapsed().as_millis() as u64
    }

    fn record(&self, op: Op) {
        let time_ms = self.now_ms();
        self.recorder.record(Event {
            time_ms,
            clock_ms: EPOCH_MS + time_ms as i64,
            node: self.harness.name.clone(),
            kind: Kind::Info,
            op,
        });
    }

    fn drive(&mut self, spec: &RunSpec) -> Result<(), RunError> {
        let plan = spec.plan.clone().sorted().0;
        let mut next = 0;
        let mut healed = false;
        let limit = spec.params.run_limit();
        loop {
            let now = self.now_ms();
            let due: Vec<Timer> = self
                .timers
                .iter()
                .filter(|(_, end)| **end <= now)
                .map(|(timer, _)| timer.clone())
                .collect();
            for timer in due {
                self.timers.remove(&timer);
                self.finish(timer);
            }
            while let Some(timed) = plan.get(next).filter(|f| f.at_ms <= now) {
                self.apply(timed, now);
                next += 1;
            }
            if !healed && now >= spec.params.fault_phase_ms {
                self.heal();
                healed = true;
            }
            if now >= limit {
                break;
            }
            match self.sim.step() {
                Ok(true) => {
                    self.completed = true;
                    break;
                }
                Ok(false) => {}
                Err(e) => return Err(RunError::Software(e.to_string())),
            }
        }
        self.end_ms = self.now_ms();
        self.record(Op::End);
        Ok(())
    }

    fn apply(&mut self, timed: &TimedFault, now: u64) {
        self.record(Op::Fault {
            fault: timed.fault.to_string(),
        });
        match &timed.fault {
            Fault::Partition { a, b } => self.sim.partition(a.as_str(), b.as_str()),
            Fault::PartitionOneway { from, to } => {
                self.sim.partition_oneway(from.as_str(), to.as_str())
            }
            Fault::Repair { a, b } => self.sim.repair(a.as_str(), b.as_str()),
            Fault::RepairAll => self.repair_all(),
            Fault::Loss { a, b, rate, for_ms } => {
                self.sim.set_link_fail_rate(a.as_str(), b.as_str(), *rate);
                self.until(Timer::EndLoss(a.clone(), b.clone()), now + for_ms);
            }
            Fault::Delay { a, b, ms, for_ms } => {
                let extra = Duration::from_millis(*ms);
                self.set_latency(a, b, (self.latency.0 + extra, self.latency.1 + extra));
                self.until(Timer::EndDelay(a.clone(), b.clone()), now + for_ms);
            }
            Fault::Crash { node } => {
                if self.crashed.insert(node.clone()) {
                    self.sim.crash(node.as_str());
                }
            }
            Fault::Restart { node } => {
                if self.crashed.remove(node) {
                    self.sim.bounce(node.as_str());
                }
            }
            Fault::Pause { node, for_ms } => {
                self.nodes[node].gate.pause();
                self.until(Timer::Resume(node.clone()), now + for_ms);
            }
            Fault::ClockJump { node, by_ms } => self.nodes[node].clock.borrow_mut().jump(*by_ms),
            Fault::ClockDrift { node, ppm } => {
                self.nodes[node].clock.borrow_mut().set_drift(now, *ppm)
            }
            Fault::LoseReply { client, op, .. } => {
                self.zk.borrow_mut().lose_next_reply(client, *op)
            }
        }
    }

    /// Schedules the end of a timed fault. Overlapping faults on one target merge: the
    /// target recovers when the last of them ends, not when the first does.
    fn until(&mut self, timer: Timer, end: u64) {
        let at = self.timers.entry(timer).or_insert(end);
        *at = (*at).max(end);
    }

    fn finish(&mut self, timer: Timer) {
        match timer {
            Timer::EndDelay(a, b) => self.restore_latency(&a, &b),
            Timer::EndLoss(a, b) => self.sim.set_link_fail_rate(a.as_str(), b.as_str(), 0.0),
            Timer::Resume(node) => self.nodes[&node].gate.resume(),
        }
    }

    fn set_latency(&mut self, a: &str, b: &str, (min, max): (Duration, Duration)) {
        self.sim.set_link_latency(a, b, min);
        self.sim.set_link_max_message_latency(a, b, max);
    }

    fn restore_latency(&mut self, a: &str, b: &str) {
        self.set_latency(a, b, self.latency);
    }

    fn repair_all(&mut self) {
        let names: Vec<String> = self.nodes.keys().cloned().collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                self.sim.repair(a.as_str(), b.as_str());
                self.sim.set_link_fail_rate(a.as_str(), b.as_str(), 0.0);
                self.restore_latency(a, b);
            }
        }
    }

    /// The heal phase: every link repaired and back to normal, every paused host resumed,
    /// every crashed host restarted, nothing pending.
    fn heal(&mut self) {
        self.record(Op::Heal);
        self.repair_all();
        self.timers.clear();
        self.zk.borrow_mut().disarm_lost_replies();
        for node in self.nodes.values() {
            node.gate.resume();
        }
        for node in std::mem::take(&mut self.crashed) {
            self.sim.bounce(node.as_str());
        }
    }
}
