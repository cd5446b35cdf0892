//! The world of one run: the turmoil simulation with its hosts, and the driver loop that
//! steps it, applies the plan's faults when they are due, ends timed faults, heals, and stops.

use crate::history::{Event, HarnessOp, Kind, Op};
use crate::recorder::Recorder;
use crate::sim::clock::{Clock, EPOCH_MS};
use crate::sim::fault::{Fault, SKIPPED, Target, TimedFault, Trigger};
use crate::sim::node::Node;
use crate::sim::pause::PauseGate;
use crate::sim::roles::RoleBook;
use crate::sim::seed::Seeds;
use crate::sim::software::{Hosts, ServerSoftware};
use crate::world::run::{HostPolls, RunSpec, Stepping};
use rand::Rng;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

/// A targeted fault armed at its `at_ms`, waiting for its trigger.
#[derive(Debug, Clone)]
struct Aimed {
    fault: Fault,
    target: Target,
    on: Trigger,
    for_ms: u64,
}

/// The target of a timed fault the driver must end later: a delay, a loss burst or a pause.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    EndDelay(String, String),
    EndLoss(String, String),
    Resume(String),
}

pub(crate) struct World {
    sim: turmoil::Sim<'static>,
    nodes: BTreeMap<String, Node>,
    servers: BTreeMap<String, Rc<RefCell<Box<dyn ServerSoftware>>>>,
    clients: Vec<String>,
    pub(crate) recorder: Recorder,
    harness: Node,
    /// Each pending timed fault's target and when it ends.
    timers: BTreeMap<Timer, u64>,
    crashed: BTreeSet<String>,
    /// Clients with a `pause_before` armed that has yet to strike.
    armed: BTreeSet<String>,
    /// Who holds which role, kept only when the plan has targeted faults.
    roles: Option<RoleBook>,
    /// How many of the history's events `roles` has seen.
    seen: usize,
    /// Targeted faults armed and waiting for their trigger, in plan order.
    waiting: Vec<Aimed>,
    latency: (Duration, Duration),
    /// Each client-server link's fixed extra latency (`link_spread_ms`), by sorted pair.
    link_extra: BTreeMap<(String, String), Duration>,
    pub(crate) end_ms: u64,
    pub(crate) completed: bool,
    /// Hosts that run on every step.
    eager_hosts: u32,
}

impl World {
    /// The world of `spec`, with the hosts and run limit the run resolved them to, its
    /// nodes writing into `recorder`.
    pub(crate) fn build(
        spec: &RunSpec,
        hosts: Hosts,
        limit: u64,
        stepping: Stepping,
        recorder: Recorder,
    ) -> World {
        let lazy = stepping == Stepping::Lazy;
        let mut eager_hosts = 0;
        let p = &spec.params;
        let seeds = Seeds::new(spec.seed);
        let latency = (
            Duration::from_millis(p.network.latency_min_ms),
            Duration::from_millis(p.network.latency_max_ms),
        );
        let mut sim = turmoil::Builder::new()
            .tick_duration(Duration::from_millis(1))
            .min_message_latency(latency.0)
            .max_message_latency(latency.1)
            .simulation_duration(Duration::from_millis(limit + 1_000))
            .epoch(UNIX_EPOCH + Duration::from_millis(EPOCH_MS as u64))
            .rng_seed(seeds.derive("net"))
            .build();
        let params = Rc::new(p.node_values());
        let skew_max = p.faults.clock_skew_max_ms as i64;
        let steps: Rc<[String]> = hosts.pause_steps.clone().into();
        let node = |name: &str| Node {
            name: name.to_string(),
            clock: Rc::new(RefCell::new(Clock::skewed(
                seeds
                    .stream(&format!("{name}/skew"))
                    .random_range(-skew_max..=skew_max),
            ))),
            gate: match hosts.clients.iter().any(|c| c == name) {
                true => PauseGate::declaring(steps.clone()),
                false => PauseGate::default(),
            },
            recorder: recorder.clone(),
            seeds,
            params: params.clone(),
            kept: Default::default(),
        };
        let nodes: BTreeMap<String, Node> =
            hosts.names().map(|h| (h.to_string(), node(h))).collect();

        let mut servers = BTreeMap::new();
        for server in &hosts.servers {
            let node = nodes[&server.name].clone();
            let software = Rc::new(RefCell::new(server.family.install(node.clone())));
            let started = software.clone();
            sim.host(server.name.as_str(), move || {
                node.gate.gate(started.borrow().start())
            });
            let server_lazy = lazy && software.borrow().lazy();
            sim.set_lazy(server.name.as_str(), server_lazy);
            eager_hosts += u32::from(!server_lazy);
            servers.insert(server.name.clone(), software);
        }
        for name in &hosts.clients {
            let node = nodes[name].clone();
            let program = (hosts.program)(node.clone());
            sim.client(
                name.as_str(),
                node.gate.gate(async move {
                    program.await;
                    Ok(())
                }),
            );
            sim.set_lazy(name.as_str(), lazy && hosts.lazy_clients);
            eager_hosts += u32::from(!(lazy && hosts.lazy_clients));
        }
        let mut link_extra = BTreeMap::new();
        if p.network.link_spread_ms > 0 {
            let mut rng = seeds.stream("links");
            for client in &hosts.clients {
                for server in &hosts.servers {
                    let extra = rng.random_range(0..=p.network.link_spread_ms);
                    link_extra.insert(link(client, &server.name), Duration::from_millis(extra));
                }
            }
        }
        let mut world = World {
            sim,
            harness: node("harness"),
            nodes,
            servers,
            clients: hosts.clients,
            recorder,
            timers: BTreeMap::new(),
            crashed: BTreeSet::new(),
            armed: BTreeSet::new(),
            roles: spec
                .plan
                .0
                .iter()
                .any(|t| t.fault.is_targeted())
                .then(RoleBook::default),
            seen: 0,
            waiting: Vec::new(),
            latency,
            link_extra,
            end_ms: 0,
            completed: false,
            eager_hosts,
        };
        let spread: Vec<_> = world.link_extra.keys().cloned().collect();
        for (a, b) in spread {
            world.restore_latency(&a, &b);
        }
        world
    }

    /// How often the run's hosts ran so far, and were skipped.
    pub(crate) fn polls(&self) -> HostPolls {
        let polls = self.sim.polls();
        HostPolls {
            made: polls.run + polls.fired,
            skipped: polls.skipped,
            eager_hosts: self.eager_hosts,
        }
    }

    fn now_ms(&self) -> u64 {
        self.sim.elapsed().as_millis() as u64
    }

    fn record(&self, op: Op) {
        self.record_at(self.now_ms(), op);
    }

    fn record_at(&self, time_ms: u64, op: Op) {
        self.recorder.record(Event {
            time_ms,
            clock_ms: EPOCH_MS + time_ms as i64,
            node: self.harness.name.clone(),
            kind: Kind::Info,
            op,
        });
    }

    /// Runs until every client finished or the run limit; Err is host software's failure.
    pub(crate) fn drive(&mut self, spec: &RunSpec, limit: u64) -> Result<(), String> {
        let plan = spec.plan.clone().sorted().0;
        let mut next = 0;
        let mut healed = false;
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
            if !healed && now >= spec.params.faults.fault_phase_ms {
                self.heal();
                healed = true;
            }
            if now >= limit {
                break;
            }
            let stepped = self.sim.step();
            if !self.armed.is_empty() {
                self.schedule_struck();
            }
            if self.roles.is_some() {
                self.follow_roles();
            }
            match stepped {
                Ok(true) => {
                    self.completed = true;
                    break;
                }
                Ok(false) => {}
                Err(e) => return Err(e.to_string()),
            }
            // The steps before the driver next acts in which no host would run pass at once.
            let due = [
                self.timers.values().min().copied(),
                plan.get(next).map(|f| f.at_ms),
                (!healed).then_some(spec.params.faults.fault_phase_ms),
            ]
            .into_iter()
            .flatten()
            .fold(limit, u64::min);
            let quiet = due.saturating_sub(self.now_ms());
            self.sim.skip_idle(u32::try_from(quiet).unwrap_or(u32::MAX));
        }
        self.end_ms = self.now_ms();
        for client in self.clients.clone() {
            if self.sim.is_host_running(client.as_str()) {
                self.record(Op::Harness(HarnessOp::Unfinished { client }));
            }
        }
        self.record(Op::Harness(HarnessOp::End));
        Ok(())
    }

    fn apply(&mut self, timed: &TimedFault, now: u64) {
        if let Fault::PauseRole { target, on, for_ms } = &timed.fault {
            match on {
                None => self.fire(&timed.fault, *target, None, *for_ms),
                Some(on) => {
                    self.waiting.push(Aimed {
                        fault: timed.fault.clone(),
                        target: *target,
                        on: on.clone(),
                        for_ms: *for_ms,
                    });
                    self.set_trips();
                }
            }
            return;
        }
        self.record(Op::Harness(HarnessOp::Fault {
            fault: timed.fault.to_string(),
        }));
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
                let (min, max) = self.base_latency(a, b);
                self.set_latency(a, b, (min + extra, max + extra));
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
            Fault::PauseBefore { node, step, for_ms } => {
                self.nodes[node].gate.arm(step, *for_ms);
                self.armed.insert(node.clone());
            }
            Fault::ClockJump { node, by_ms } => self.nodes[node].clock.borrow_mut().jump(*by_ms),
            Fault::ClockDrift { node, ppm } => {
                self.nodes[node].clock.borrow_mut().set_drift(now, *ppm)
            }
            Fault::LoseReply { node, .. }
            | Fault::Failover { node }
            | Fault::StallApply { node, .. } => {
                let server = &self.servers[node];
                Node::as_driver_at(now, || server.borrow_mut().apply(&timed.fault))
            }
            Fault::PauseRole { .. } => unreachable!("targeted faults are armed above"),
        }
    }

    /// Resolves a targeted fault's target now (preferring the trigger's `subject`) and
    /// pauses it, recording whom it struck, or that nobody had the role and it was skipped.
    fn fire(&mut self, fault: &Fault, target: Target, subject: Option<&str>, for_ms: u64) {
        let now = self.now_ms();
        let resolved = self
            .roles
            .as_ref()
            .and_then(|roles| roles.resolve(target, subject));
        let outcome = match &resolved {
            Some(client) => format!("{fault}: {client}"),
            None => format!("{fault}: {SKIPPED}"),
        };
        self.record(Op::Harness(HarnessOp::Fault { fault: outcome }));
        if let Some(client) = resolved {
            self.nodes[&client].gate.pause();
            self.until(Timer::Resume(client), now + for_ms);
        }
    }

    /// Reads the events recorded since the last step into the role book, firing the
    /// waiting faults each one triggers, then the ones a client's step triggered. A client
    /// stopped at a step goes on unless a fault paused it.
    fn follow_roles(&mut self) {
        let mut fresh = Vec::new();
        self.recorder
            .each_from(self.seen, |e| fresh.push(e.clone()));
        self.seen += fresh.len();
        for event in &fresh {
            if let Some(roles) = self.roles.as_mut() {
                roles.observe(event);
            }
            let happened = match event.role_event() {
                Some(crate::history::RoleEvent::Queued { .. }) => Trigger::Enqueued,
                Some(crate::history::RoleEvent::Holds { .. }) => Trigger::Acquired,
                Some(crate::history::RoleEvent::Woken) => Trigger::Woken,
                _ => continue,
            };
            self.triggered(&happened, &event.node);
        }
        for client in self.clients.clone() {
            for (step, _) in self.nodes[&client].gate.take_tripped() {
                self.triggered(&Trigger::Step { step }, &client);
                if !self.timers.contains_key(&Timer::Resume(client.clone())) {
                    self.nodes[&client].gate.resume();
                }
            }
        }
    }

    /// Fires every waiting fault that `happened` to `subject` triggers.
    fn triggered(&mut self, happened: &Trigger, subject: &str) {
        let (due, rest): (Vec<Aimed>, Vec<Aimed>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|a| a.on == *happened);
        self.waiting = rest;
        for aimed in &due {
            // Only a step's subject can be known to wait behind another (`Role::Blocked`).
            let subject = (aimed.target != Target::Blocked
                || matches!(happened, Trigger::Step { .. }))
            .then_some(subject);
            self.fire(&aimed.fault, aimed.target, subject, aimed.for_ms);
        }
        if !due.is_empty() {
            self.set_trips();
        }
    }

    /// Makes every client stop at the steps a waiting fault is triggered by.
    fn set_trips(&self) {
        let steps: BTreeSet<String> = self
            .waiting
            .iter()
            .filter_map(|a| match &a.on {
                Trigger::Step { step } => Some(step.clone()),
                _ => None,
            })
            .collect();
        for client in &self.clients {
            self.nodes[client]
                .gate
                .set_trips(steps.iter().cloned().collect());
        }
    }

    /// Records the armed pauses that struck during the last step, when they struck, and
    /// schedules their ends.
    fn schedule_struck(&mut self) {
        for name in self.armed.clone() {
            let gate = &self.nodes[&name].gate;
            if !gate.is_armed() {
                self.armed.remove(&name);
            }
            for struck in gate.take_struck() {
                self.record_at(
                    struck.at_ms,
                    Op::Harness(HarnessOp::Paused {
                        node: name.clone(),
                        step: struck.step,
                        for_ms: struck.for_ms,
                    }),
                );
                self.until(Timer::Resume(name.clone()), struck.at_ms + struck.for_ms);
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

    /// The latency of the link between `a` and `b` without faults.
    fn base_latency(&self, a: &str, b: &str) -> (Duration, Duration) {
        let extra = self
            .link_extra
            .get(&link(a, b))
            .copied()
            .unwrap_or_default();
        (self.latency.0 + extra, self.latency.1 + extra)
    }

    fn restore_latency(&mut self, a: &str, b: &str) {
        self.set_latency(a, b, self.base_latency(a, b));
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
        self.record(Op::Harness(HarnessOp::Heal));
        self.repair_all();
        self.timers.clear();
        for software in self.servers.values() {
            software.borrow_mut().heal();
        }
        for node in self.nodes.values() {
            node.gate.disarm();
            node.gate.resume();
        }
        self.armed.clear();
        self.waiting.clear();
        self.set_trips();
        for node in std::mem::take(&mut self.crashed) {
            self.sim.bounce(node.as_str());
        }
    }
}

/// A link's key, the same whichever end is named first.
fn link(a: &str, b: &str) -> (String, String) {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    (a.to_string(), b.to_string())
}
