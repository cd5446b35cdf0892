//! Faults are data: a FaultPlan is an explicit, timed list. Random generation (swarm.rs)
//! only ever produces plans, so every failure can be shrunk, saved and replayed.
//! Plans are written with serde; trace files are read by the strict decoder in
//! `trace::schema`, so there is one reading of the format and it rejects what it does not know.

use crate::sim::vocab::FaultTag;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// One fault a plan applies, written in trace files under its `fault` tag. Host names are
/// the scenario's (`c1`, `zk1`, `redis1`, `store`); times are true simulated ms.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// Cut both directions between two hosts.
    Partition {
        /// One end of the link.
        a: String,
        /// The other end.
        b: String,
    },
    /// Cut one direction only.
    PartitionOneway {
        /// The host whose messages are dropped.
        from: String,
        /// The host that no longer hears from `from`.
        to: String,
    },
    /// Heal the link between two hosts, both directions (undoes a partition).
    Repair {
        /// One end of the link.
        a: String,
        /// The other end.
        b: String,
    },
    /// Heal every link, as the heal phase does.
    RepairAll,
    /// For `for_ms`, each message sent between a and b cuts the link with probability
    /// `rate`, dropping what is in flight, until the next message repairs it (turmoil's
    /// fail rate). Its TCP does not retransmit, so a drop stalls the connection: the client
    /// notices by its read timeout and reconnects, as after a burst of real loss.
    Loss {
        /// One end of the link.
        a: String,
        /// The other end.
        b: String,
        /// Probability, within 0..=1, that a message cuts the link.
        rate: f64,
        /// How long the loss lasts, ms.
        for_ms: u64,
    },
    /// Messages between a and b take `ms` longer than usual for `for_ms`.
    Delay {
        /// One end of the link.
        a: String,
        /// The other end.
        b: String,
        /// Extra latency per message, ms.
        ms: u64,
        /// How long the delay lasts, ms.
        for_ms: u64,
    },
    /// Stop a server host (its state survives as a transaction log would, for ZooKeeper).
    Crash {
        /// The server host.
        node: String,
    },
    /// Start a crashed server host again: its software starts over on what survived.
    Restart {
        /// The server host.
        node: String,
    },
    /// Freeze every task of a host for `for_ms`.
    Pause {
        /// The host that freezes.
        node: String,
        /// How long it stays frozen, ms.
        for_ms: u64,
    },
    /// Freeze every task of client `node` for `for_ms` the next time its program reaches
    /// `step` (a point the program names, such as the store write after its lock check): the
    /// GC pause of Kleppmann's story, aimed where it hurts instead of at a random instant.
    PauseBefore {
        /// The client host that freezes.
        node: String,
        /// The step of its program that sets it off (`Hosts::pause_steps`).
        step: String,
        /// How long it stays frozen, ms.
        for_ms: u64,
    },
    /// Step a node's wall clock by `by_ms` (may be negative).
    ClockJump {
        /// The host whose clock jumps.
        node: String,
        /// The jump, ms; negative sets the clock back.
        by_ms: i64,
    },
    /// From now on the node's clocks run `ppm` parts per million fast (negative: slow).
    ClockDrift {
        /// The host whose clocks drift.
        node: String,
        /// The drift rate, parts per million.
        ppm: i64,
    },
    /// Server `node` applies the next `op` request from `client`, then drops the connection
    /// instead of replying. Which requests a server can do this to is its family's to say
    /// (`ServerFamily::reply_ops`: `create` for ZooKeeper, say).
    LoseReply {
        /// The server host.
        node: String,
        /// The request, as its family names it (`create`, `set`).
        op: String,
        /// The client host whose reply is lost.
        client: String,
    },
    /// Server `node`'s replica takes over as the master, without what it had not received.
    Failover {
        /// The server host whose replica takes over.
        node: String,
    },
    /// Server `node`, a follower of a ZooKeeper ensemble, applies nothing for `for_ms` (a
    /// long GC pause, a slow disk): it still logs and acknowledges proposals, so the
    /// ensemble commits without it, while its own clients' reads fall behind and their
    /// writes wait for its apply. The heal ends it early.
    StallApply {
        /// The follower.
        node: String,
        /// How long its apply stalls, ms.
        for_ms: u64,
    },
    /// A pause aimed at a role instead of a host: whoever holds `target` when the fault
    /// fires (at `at_ms`, or at the first `on` event after it) freezes for `for_ms`. Written
    /// as a `pause` with `target` (and `on`) in place of `node`.
    #[serde(rename = "pause")]
    PauseRole {
        /// Whom it strikes.
        target: Target,
        /// The event that fires it; None: it fires at `at_ms` itself.
        #[serde(skip_serializing_if = "Option::is_none")]
        on: Option<Trigger>,
        /// How long the struck client stays frozen, ms.
        for_ms: u64,
    },
}

/// A role a client can have in a line (a lock's queue, an election's candidates), as the
/// history tells it (`history::RoleEvent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Holds the lock.
    Holder,
    /// Leads the election: the holder of its line, by another name.
    Leader,
    /// Has a place in line and does not hold it.
    Waiter,
    /// The client whose program just reached a step (a step trigger's subject), if it waits
    /// behind another: its last look at the line told it to wait, and it sends nothing until
    /// it goes on, so pausing it even past its session makes it act on nothing stale. No one
    /// else: the history does not tell when the server deleted a node ahead of a waiter, so
    /// any other waiter may have a listing on its way that grants it the lock.
    Blocked,
    /// Has a place in line for the read (shared) mode, holding or waiting.
    Reader,
    /// Has a place in line for the write mode, holding or waiting.
    Writer,
}

impl Role {
    pub(crate) const ALL: [Role; 6] = [
        Role::Holder,
        Role::Leader,
        Role::Waiter,
        Role::Blocked,
        Role::Reader,
        Role::Writer,
    ];

    /// The role as trace files spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Holder => "holder",
            Role::Leader => "leader",
            Role::Waiter => "waiter",
            Role::Blocked => "blocked",
            Role::Reader => "reader",
            Role::Writer => "writer",
        }
    }
}

/// Whom a targeted fault strikes, resolved when it fires. A role picks the client the
/// trigger is about if it has the role, else the first in line that has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Target {
    /// The lock's holder (`Role::Holder`).
    Holder,
    /// The election's leader (`Role::Leader`).
    Leader,
    /// A client waiting in line (`Role::Waiter`).
    Waiter,
    /// A waiter at the step that fired the fault (`Role::Blocked`).
    Blocked,
    /// A client in line for the read mode (`Role::Reader`).
    Reader,
    /// A client in line for the write mode (`Role::Writer`).
    Writer,
    /// The client just ahead of `of` in its line: the node it watches.
    PredecessorOf {
        /// The role of the client whose predecessor is struck.
        of: Role,
    },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Holder => f.write_str("the holder"),
            Target::Leader => f.write_str("the leader"),
            Target::Waiter => f.write_str("a waiter"),
            Target::Blocked => f.write_str("the waiter at the step"),
            Target::Reader => f.write_str("a reader"),
            Target::Writer => f.write_str("a writer"),
            Target::PredecessorOf { of } => write!(f, "the predecessor of a {}", of.name()),
        }
    }
}

/// What fires an armed targeted fault: the first such event of any client after `at_ms`.
/// That client is the trigger's subject, whom roles prefer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Trigger {
    /// A client took its place in line.
    Enqueued,
    /// A client acquired (became the holder or leader).
    Acquired,
    /// A watch woke a waiting client.
    Woken,
    /// A client's program reached `step` (one it declares, as for `pause_before`).
    Step {
        /// The step, as the program names it.
        step: String,
    },
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::Enqueued => f.write_str("a client enqueues"),
            Trigger::Acquired => f.write_str("a client acquires"),
            Trigger::Woken => f.write_str("a waiter is woken"),
            Trigger::Step { step } => write!(f, "a client reaches {step}"),
        }
    }
}

impl Fault {
    /// Whether it names its target by role, resolved when it fires.
    pub fn is_targeted(&self) -> bool {
        matches!(self, Fault::PauseRole { .. })
    }

    /// Every host this fault names, for validation against a scenario's hosts.
    pub fn nodes(&self) -> Vec<&str> {
        match self {
            Fault::Partition { a, b }
            | Fault::Repair { a, b }
            | Fault::Loss { a, b, .. }
            | Fault::Delay { a, b, .. } => vec![a, b],
            Fault::PartitionOneway { from, to } => vec![from, to],
            Fault::RepairAll | Fault::PauseRole { .. } => vec![],
            Fault::Crash { node }
            | Fault::Restart { node }
            | Fault::Pause { node, .. }
            | Fault::PauseBefore { node, .. }
            | Fault::ClockJump { node, .. }
            | Fault::ClockDrift { node, .. }
            | Fault::Failover { node }
            | Fault::StallApply { node, .. } => vec![node],
            Fault::LoseReply { node, client, .. } => vec![node, client],
        }
    }

    /// The first field outside what a simulation can represent, with its limit.
    /// Magnitudes are unsigned: `i64::MIN.abs()` wraps to itself in release builds.
    fn out_of_range(&self) -> Option<(&'static str, &'static str)> {
        const DAY_MS: u64 = 86_400_000;
        const YEAR_MS: u64 = 365 * 86_400_000;
        match self {
            Fault::Delay { ms, for_ms, .. } if *ms > DAY_MS || *for_ms > DAY_MS => {
                Some(("ms and for_ms", "at most one day (86400000)"))
            }
            _ if self.for_ms().is_some_and(|ms| ms > DAY_MS) => {
                Some(("for_ms", "at most one day (86400000)"))
            }
            Fault::ClockJump { by_ms, .. } if by_ms.unsigned_abs() > YEAR_MS => {
                Some(("by_ms", "within one year either way"))
            }
            Fault::ClockDrift { ppm, .. } if ppm.unsigned_abs() > 500_000 => {
                Some(("ppm", "within -500000..=500000"))
            }
            _ => None,
        }
    }

    /// The fault's tag in trace files (`partition`, `clock_jump`; a `pause` aimed at a role
    /// is a `pause` too).
    pub fn name(&self) -> &'static str {
        self.tag().name()
    }

    /// Which fault it is, by tag: its row of the vocabulary (`sim::vocab`).
    pub fn tag(&self) -> FaultTag {
        match self {
            Fault::Partition { .. } => FaultTag::Partition,
            Fault::PartitionOneway { .. } => FaultTag::PartitionOneway,
            Fault::Repair { .. } => FaultTag::Repair,
            Fault::RepairAll => FaultTag::RepairAll,
            Fault::Loss { .. } => FaultTag::Loss,
            Fault::Delay { .. } => FaultTag::Delay,
            Fault::Crash { .. } => FaultTag::Crash,
            Fault::Restart { .. } => FaultTag::Restart,
            Fault::Pause { .. } | Fault::PauseRole { .. } => FaultTag::Pause,
            Fault::PauseBefore { .. } => FaultTag::PauseBefore,
            Fault::ClockJump { .. } => FaultTag::ClockJump,
            Fault::ClockDrift { .. } => FaultTag::ClockDrift,
            Fault::LoseReply { .. } => FaultTag::LoseReply,
            Fault::Failover { .. } => FaultTag::Failover,
            Fault::StallApply { .. } => FaultTag::StallApply,
        }
    }

    /// How long it acts by its own field, for the faults that have one.
    pub fn for_ms(&self) -> Option<u64> {
        match self {
            Fault::Loss { for_ms, .. }
            | Fault::Delay { for_ms, .. }
            | Fault::Pause { for_ms, .. }
            | Fault::PauseBefore { for_ms, .. }
            | Fault::PauseRole { for_ms, .. }
            | Fault::StallApply { for_ms, .. } => Some(*for_ms),
            _ => None,
        }
    }

    /// `for_ms`, to change.
    pub fn for_ms_mut(&mut self) -> Option<&mut u64> {
        match self {
            Fault::Loss { for_ms, .. }
            | Fault::Delay { for_ms, .. }
            | Fault::Pause { for_ms, .. }
            | Fault::PauseBefore { for_ms, .. }
            | Fault::PauseRole { for_ms, .. }
            | Fault::StallApply { for_ms, .. } => Some(for_ms),
            _ => None,
        }
    }

    /// Whether it ends `fault` (one that lasts `UntilUndone`): a repair of its link, or of
    /// every link, ends a partition; a restart of its node ends a crash.
    pub fn undoes(&self, fault: &Fault) -> bool {
        match (fault, self) {
            (
                Fault::Partition { a, b } | Fault::PartitionOneway { from: a, to: b },
                Fault::Repair { a: x, b: y },
            ) => (x == a && y == b) || (x == b && y == a),
            (Fault::Partition { .. } | Fault::PartitionOneway { .. }, Fault::RepairAll) => true,
            (Fault::Crash { node }, Fault::Restart { node: n }) => n == node,
            _ => false,
        }
    }
}

/// What the history says a targeted pause struck when nobody had the role (after its
/// fault's line and a colon, where whom it struck would be).
pub const SKIPPED: &str = "nobody has the role, skipped";

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Partition { a, b } => write!(f, "partition {a} <-> {b}"),
            Fault::PartitionOneway { from, to } => write!(f, "partition {from} -> {to}"),
            Fault::Repair { a, b } => write!(f, "repair {a} <-> {b}"),
            Fault::RepairAll => write!(f, "repair all links"),
            Fault::Loss { a, b, rate, for_ms } => {
                write!(f, "loss {a} <-> {b} rate {rate} for {for_ms} ms")
            }
            Fault::Delay { a, b, ms, for_ms } => {
                write!(f, "delay {a} <-> {b} by {ms} ms for {for_ms} ms")
            }
            Fault::Crash { node } => write!(f, "crash {node}"),
            Fault::Restart { node } => write!(f, "restart {node}"),
            Fault::Pause { node, for_ms } => write!(f, "pause {node} for {for_ms} ms"),
            Fault::PauseBefore { node, step, for_ms } => {
                write!(f, "pause {node} for {for_ms} ms before its next {step}")
            }
            Fault::ClockJump { node, by_ms } => write!(f, "clock of {node} jumps {by_ms:+} ms"),
            Fault::ClockDrift { node, ppm } => write!(f, "clock of {node} drifts {ppm:+} ppm"),
            Fault::LoseReply { node, op, client } if op == "any" => {
                write!(f, "{node} loses the reply to {client}'s next request")
            }
            Fault::LoseReply { node, op, client } => {
                write!(f, "{node} loses the reply to {client}'s next {op}")
            }
            Fault::Failover { node } => write!(f, "{node} fails over to its replica"),
            Fault::StallApply { node, for_ms } => {
                write!(f, "{node} stalls its apply for {for_ms} ms")
            }
            Fault::PauseRole { target, on, for_ms } => {
                write!(f, "pause {target} for {for_ms} ms")?;
                match on {
                    Some(on) => write!(f, " when {on}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// A fault and when the plan applies it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedFault {
    /// True simulated time at which it is applied (or, for a targeted fault, armed), ms.
    pub at_ms: u64,
    /// What is applied; its fields sit beside `at_ms` in the trace file.
    #[serde(flatten)]
    pub fault: Fault,
}

/// An explicit, timed list of faults, applied in `at_ms` order (ties in list order).
///
/// ```
/// use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
/// let plan = FaultPlan::new(vec![TimedFault {
///     at_ms: 100,
///     fault: Fault::Pause { node: "c1".into(), for_ms: 5_000 },
/// }]);
/// assert_eq!(plan.faults()[0].at_ms, 100);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct FaultPlan(pub(crate) Vec<TimedFault>);

impl From<Vec<TimedFault>> for FaultPlan {
    fn from(faults: Vec<TimedFault>) -> FaultPlan {
        FaultPlan(faults)
    }
}

/// Why a fault plan cannot run in a scenario, found before the run starts. `index` is the
/// fault's position in the plan (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// A fault names a host the scenario does not have.
    UnknownNode {
        /// The fault's position in the plan.
        index: usize,
        /// The name it gave.
        node: String,
    },
    /// A `loss` whose rate is not a probability.
    BadRate {
        /// The fault's position in the plan.
        index: usize,
    },
    /// A fault scheduled at or after the end of the fault phase.
    AfterFaultPhase {
        /// The fault's position in the plan.
        index: usize,
        /// When it was scheduled, ms.
        at_ms: u64,
        /// The fault phase's length (`fault_phase_ms`).
        phase_ms: u64,
    },
    /// A fault aimed at the wrong kind of host (a crash of a client, a `pause_before` of a
    /// server, a `failover` of a server without a replica).
    WrongTarget {
        /// The fault's position in the plan.
        index: usize,
        /// The host it named.
        node: String,
        /// What kind of host the fault needs, for the message ("a server").
        wants: &'static str,
    },
    /// A link fault naming the same host at both ends.
    SameNode {
        /// The fault's position in the plan.
        index: usize,
    },
    /// A `pause_before` naming a step the client program does not have (`known` lists them).
    UnknownStep {
        /// The fault's position in the plan.
        index: usize,
        /// The step it named.
        step: String,
        /// The steps the programs declare, comma-separated (`none` when they declare none).
        known: String,
    },
    /// A `lose_reply` whose `op` the server's family cannot lose (`can` lists what it can).
    CannotLoseReply {
        /// The fault's position in the plan.
        index: usize,
        /// The server it named.
        node: String,
        /// The request it named.
        op: String,
        /// The requests that server can lose the reply to, comma-separated; empty: none.
        can: String,
    },
    /// A duration, jump or drift beyond what a simulation can represent.
    OutOfRange {
        /// The fault's position in the plan.
        index: usize,
        /// The field (or fields) out of range.
        field: &'static str,
        /// The range it must be within, for the message.
        limit: &'static str,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::UnknownNode { index, node } => {
                write!(f, "fault #{index} names unknown node '{node}'")
            }
            PlanError::BadRate { index } => {
                write!(f, "fault #{index}: loss rate must be within 0..=1")
            }
            PlanError::AfterFaultPhase {
                index,
                at_ms,
                phase_ms,
            } => write!(
                f,
                "fault #{index} at {at_ms} ms is not within the fault phase (fault_phase_ms={phase_ms}); the heal phase admits no faults"
            ),
            PlanError::WrongTarget { index, node, wants } => {
                write!(f, "fault #{index}: '{node}' is not {wants}")
            }
            PlanError::SameNode { index } => write!(f, "fault #{index} names the same node twice"),
            PlanError::UnknownStep { index, step, known } => write!(
                f,
                "fault #{index}: no client program declares a step '{step}' (declared: {known})"
            ),
            PlanError::CannotLoseReply {
                index,
                node,
                op,
                can,
            } if can.is_empty() => write!(
                f,
                "fault #{index}: '{node}' cannot lose the reply to a '{op}' (it loses no replies)"
            ),
            PlanError::CannotLoseReply {
                index,
                node,
                op,
                can,
            } => write!(
                f,
                "fault #{index}: '{node}' cannot lose the reply to a '{op}' (it can: {can})"
            ),
            PlanError::OutOfRange {
                index,
                field,
                limit,
            } => {
                write!(f, "fault #{index}: {field} must be {limit}")
            }
        }
    }
}

impl FaultPlan {
    /// A plan of these faults, in this order (a run applies them in `at_ms` order, ties in
    /// this order).
    pub fn new(faults: Vec<TimedFault>) -> FaultPlan {
        FaultPlan(faults)
    }

    /// Its faults, in its order.
    pub fn faults(&self) -> &[TimedFault] {
        &self.0
    }

    /// Its faults, in its order, to change or reuse (a plan with one fault left out).
    pub fn into_faults(self) -> Vec<TimedFault> {
        self.0
    }

    /// Sorts by time, keeping list order among equal times.
    pub fn sorted(mut self) -> Self {
        self.0.sort_by_key(|f| f.at_ms);
        self
    }

    /// Checks that every named node is one of `hosts` and every rate is a probability.
    pub fn validate(&self, hosts: &BTreeSet<String>) -> Result<(), PlanError> {
        for (index, timed) in self.0.iter().enumerate() {
            if let Some(node) = timed
                .fault
                .nodes()
                .into_iter()
                .find(|n| !hosts.contains(*n))
            {
                return Err(PlanError::UnknownNode {
                    index,
                    node: node.to_string(),
                });
            }
            if let Fault::Loss { rate, .. } = timed.fault
                && !(0.0..=1.0).contains(&rate)
            {
                return Err(PlanError::BadRate { index });
            }
            if let Some((field, limit)) = timed.fault.out_of_range() {
                return Err(PlanError::OutOfRange {
                    index,
                    field,
                    limit,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(fault: Fault) -> FaultPlan {
        FaultPlan(vec![TimedFault { at_ms: 1, fault }])
    }

    #[test]
    fn validate_rejects_unknown_nodes_and_rates() {
        let hosts: BTreeSet<String> = ["c1", "zk1"].iter().map(|s| s.to_string()).collect();
        let crash = plan(Fault::Crash { node: "zk9".into() });
        assert_eq!(
            crash.validate(&hosts),
            Err(PlanError::UnknownNode {
                index: 0,
                node: "zk9".into()
            })
        );
        let loss = plan(Fault::Loss {
            a: "c1".into(),
            b: "zk1".into(),
            rate: 2.0,
            for_ms: 5,
        });
        assert_eq!(loss.validate(&hosts), Err(PlanError::BadRate { index: 0 }));
    }

    #[test]
    fn validate_rejects_durations_past_a_day() {
        let hosts: BTreeSet<String> = ["zk1".to_string(), "c1".to_string()].into();
        let field = |fault| match plan(fault).validate(&hosts) {
            Err(PlanError::OutOfRange { field, .. }) => Some(field),
            _ => None,
        };
        let day = 86_400_000;
        let pause = |for_ms| Fault::Pause {
            node: "c1".into(),
            for_ms,
        };
        let delay = |ms, for_ms| Fault::Delay {
            a: "c1".into(),
            b: "zk1".into(),
            ms,
            for_ms,
        };
        assert_eq!(field(pause(day + 1)), Some("for_ms"));
        assert_eq!(field(pause(day)), None);
        assert_eq!(field(delay(1, day + 1)), Some("ms and for_ms"));
        assert_eq!(field(delay(day + 1, 1)), Some("ms and for_ms"));
        assert_eq!(field(delay(day, day)), None);
    }

    #[test]
    fn validate_rejects_clock_faults_beyond_their_range_down_to_i64_min() {
        let hosts: BTreeSet<String> = ["zk1".to_string()].into();
        let node = || "zk1".to_string();
        for ppm in [i64::MIN, i64::MIN + 1, -500_001, 500_001, i64::MAX] {
            assert!(
                matches!(
                    plan(Fault::ClockDrift { node: node(), ppm }).validate(&hosts),
                    Err(PlanError::OutOfRange { field: "ppm", .. })
                ),
                "ppm {ppm}"
            );
        }
        for by_ms in [i64::MIN, i64::MIN + 1, -31_536_000_001, i64::MAX] {
            assert!(
                matches!(
                    plan(Fault::ClockJump {
                        node: node(),
                        by_ms
                    })
                    .validate(&hosts),
                    Err(PlanError::OutOfRange { field: "by_ms", .. })
                ),
                "by_ms {by_ms}"
            );
        }
        assert_eq!(
            plan(Fault::ClockDrift {
                node: node(),
                ppm: -500_000
            })
            .validate(&hosts),
            Ok(())
        );
        assert_eq!(
            plan(Fault::ClockJump {
                node: node(),
                by_ms: -31_536_000_000
            })
            .validate(&hosts),
            Ok(())
        );
    }
}
