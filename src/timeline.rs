//! A run told as a short story by true time: one line per event that matters (faults with
//! when they stopped acting, who acquired what with which token, releases, losses, what
//! the store refused or accepted on a stale read, servers' non-routine events), and the
//! violations where they begin. Enough to see why a property broke without reading the JSON.

use crate::check::Violation;
use crate::history::{
    BarrierOp, ElectionOp, Event, HarnessOp, History, Kind, LockMode, LockOp, Op, QueueOp, StoreOp,
};
use crate::sim::fault::{Fault, FaultPlan, SKIPPED, TimedFault};
use crate::sim::vocab::{FaultTag, Lasts};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The lines of the timeline of a run that applied `plan`. With violations, it covers their
/// clients from the last acquire each held (or barrier each began to enter) before the first
/// violation began, up to the last violation's end, with every fault and server event in
/// that window, and every earlier fault that struck one of those clients (a pause long
/// before can be the whole cause); without, the whole run. A fault's line says when it
/// stopped acting, where that is known.
pub fn timeline(history: &History, violations: &[Violation], plan: &FaultPlan) -> Vec<String> {
    let window = Window::of(history, violations);
    let spans = Spans::of(history, plan);
    let retold = Retold::of(history);
    let mut lines: Vec<(u64, String)> = history
        .events
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            window.shows(e)
                || spans
                    .0
                    .get(i)
                    .is_some_and(|span| window.involves(&span.hosts))
        })
        .filter_map(|(i, e)| {
            let until = match spans.0.get(&i).and_then(|span| span.until_ms) {
                Some(until) => format!(", until {until} ms"),
                None => String::new(),
            };
            retold
                .describe(i, e)
                .map(|what| (e.time_ms, line(e.time_ms, &e.node, &(what + &until))))
        })
        .collect();
    for v in violations {
        let at = v.times_ms.first().copied().unwrap_or(0);
        lines.push((at, line(at, "!!", &format!("VIOLATION {v}"))));
    }
    lines.sort_by_key(|(at, _)| *at);
    lines.into_iter().map(|(_, text)| text).collect()
}

fn line(time_ms: u64, node: &str, what: &str) -> String {
    format!("{time_ms:>7} ms  {node:<8} {what}")
}

/// Whether a client's story of a violation may begin at `e`: it acquired a lock or became
/// leader, or it began to enter a barrier (a barrier holds nothing: its round is the story).
fn began(e: &Event) -> bool {
    matches!(
        (&e.op, e.kind),
        (
            Op::Lock(LockOp::Acquire { .. }) | Op::Election(ElectionOp::Lead { .. }),
            Kind::Ok
        ) | (Op::Barrier(BarrierOp::Enter { .. }), Kind::Invoke)
    )
}

/// The stretch of a run a story of its violations tells (the HTML picture opens on it too).
pub(crate) struct Window {
    pub(crate) from_ms: u64,
    pub(crate) until_ms: u64,
    /// Whose own events are shown; None: everyone's.
    clients: Option<BTreeSet<String>>,
}

impl Window {
    pub(crate) fn of(history: &History, violations: &[Violation]) -> Window {
        if violations.is_empty() {
            return Window {
                from_ms: 0,
                until_ms: u64::MAX,
                clients: None,
            };
        }
        let times = violations.iter().flat_map(|v| v.times_ms.iter().copied());
        let (start, end) = times.fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        let clients: BTreeSet<String> = violations
            .iter()
            .flat_map(|v| v.clients.iter().cloned())
            .collect();
        let last_acquire = |client: &String| {
            history
                .events
                .iter()
                .filter(|e| &e.node == client && e.time_ms <= start && began(e))
                .map(|e| e.time_ms)
                .next_back()
        };
        let from_ms = clients
            .iter()
            .filter_map(last_acquire)
            .min()
            .unwrap_or(start)
            .min(start);
        Window {
            from_ms,
            until_ms: end,
            clients: Some(clients),
        }
    }

    /// Whether `hosts` include a client the window is about.
    pub(crate) fn involves(&self, hosts: &[String]) -> bool {
        self.clients
            .as_ref()
            .is_some_and(|clients| hosts.iter().any(|h| clients.contains(h)))
    }

    fn shows(&self, e: &Event) -> bool {
        if e.time_ms < self.from_ms || e.time_ms > self.until_ms {
            return false;
        }
        let Some(clients) = &self.clients else {
            return true;
        };
        match &e.op {
            Op::Harness(_) | Op::Server(_) => true,
            Op::Store(StoreOp::StoreWrite { client, .. }) => clients.contains(client),
            Op::Client(_)
            | Op::User(_)
            | Op::Lock(_)
            | Op::Election(_)
            | Op::Queue(_)
            | Op::Barrier(_)
            | Op::Store(_) => clients.contains(&e.node),
        }
    }
}

/// The faults of a run's history, by event index: whom each struck and when it stopped.
pub(crate) struct Spans(pub(crate) BTreeMap<usize, Span>);

/// One fault as it acted.
pub(crate) struct Span {
    /// Which fault it is (a `pause_before` that struck is a `PauseBefore`).
    pub(crate) tag: FaultTag,
    /// The hosts it struck (for a targeted pause, whom it struck; none when it was skipped).
    pub(crate) hosts: Vec<String>,
    /// When it stopped acting: None for one that acts at once (a clock jump, a lost reply,
    /// a failover) or whose end the plan does not say (a drift).
    pub(crate) until_ms: Option<u64>,
}

impl Spans {
    /// Pairs each fault event with the plan entry it applied: an untargeted one is the next
    /// entry at its time that it tells; a targeted pause is the first entry not yet fired
    /// whose line it extends with whom it struck (`...: c3`). A `pause_before` that struck
    /// names its node.
    pub(crate) fn of(history: &History, plan: &FaultPlan) -> Spans {
        let heal_ms = history
            .events
            .iter()
            .find(|e| matches!(e.op, Op::Harness(HarnessOp::Heal)))
            .map_or_else(|| history.end_ms(), |e| e.time_ms);
        let paused = |at_ms: u64, for_ms: u64| Some((at_ms + for_ms).min(heal_ms));
        let mut next = 0;
        let mut fired = BTreeSet::new();
        let mut spans = BTreeMap::new();
        for (i, e) in history.events.iter().enumerate() {
            let span = match &e.op {
                Op::Harness(HarnessOp::Fault { fault }) => {
                    let untargeted = plan.0[next..].iter().position(|t| {
                        !t.fault.is_targeted()
                            && t.at_ms == e.time_ms
                            && t.fault.to_string() == *fault
                    });
                    let targeted = || {
                        plan.0.iter().enumerate().find_map(|(index, t)| {
                            let Fault::PauseRole { for_ms, .. } = t.fault else {
                                return None;
                            };
                            let struck = fault.strip_prefix(&format!("{}: ", t.fault))?;
                            (!fired.contains(&index)).then_some((index, struck, for_ms))
                        })
                    };
                    if let Some(offset) = untargeted {
                        let index = next + offset;
                        next = index + 1;
                        let hosts = plan.0[index].fault.nodes();
                        Span {
                            tag: plan.0[index].fault.tag(),
                            hosts: hosts.into_iter().map(str::to_string).collect(),
                            until_ms: fault_end(plan, index, heal_ms),
                        }
                    } else if let Some((index, struck, for_ms)) = targeted() {
                        fired.insert(index);
                        if struck == SKIPPED {
                            continue;
                        }
                        Span {
                            tag: FaultTag::Pause,
                            hosts: vec![struck.to_string()],
                            until_ms: paused(e.time_ms, for_ms),
                        }
                    } else {
                        continue;
                    }
                }
                Op::Harness(HarnessOp::Paused { node, for_ms, .. }) => Span {
                    tag: FaultTag::PauseBefore,
                    hosts: vec![node.clone()],
                    until_ms: paused(e.time_ms, *for_ms),
                },
                // A lost reply strikes when the server drops the connection, which may be
                // long after its fault was armed.
                Op::Server(event) if event.op == "reply_lost" => Span {
                    tag: FaultTag::LoseReply,
                    hosts: event
                        .fields
                        .get("client")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .into_iter()
                        .collect(),
                    until_ms: None,
                },
                _ => continue,
            };
            spans.insert(i, span);
        }
        Spans(spans)
    }
}

/// When the fault at `index` of `plan` stopped acting, as its row of the vocabulary says
/// (`Lasts`): its own span's end (a pause, a loss, a delay), the repair or restart that ended
/// it, and at the latest the heal.
fn fault_end(plan: &FaultPlan, index: usize, heal_ms: u64) -> Option<u64> {
    let TimedFault { at_ms, fault } = &plan.0[index];
    let end = match fault.tag().lasts() {
        Lasts::ForMs => at_ms + fault.for_ms()?,
        Lasts::UntilUndone => plan.0[index + 1..]
            .iter()
            .find(|t| t.fault.undoes(fault))
            .map_or(heal_ms, |t| t.at_ms),
        Lasts::Moment | Lasts::WhenStruck | Lasts::ToEnd => return None,
    };
    Some(end.min(heal_ms))
}

/// The server events a story tells in words that need the rest of the history, by index:
/// whose element a command on a shared list, set or hash took or changed (`redis::story`),
/// whose session expired (`zk::story`). None: routine after all, left out. Every other event
/// tells itself (`describe`).
pub(crate) struct Retold(BTreeMap<usize, Option<String>>);

impl Retold {
    pub(crate) fn of(history: &History) -> Retold {
        let mut retold = crate::redis::story::retell(&history.events);
        retold.extend(crate::zk::story::retell(&history.events));
        Retold(retold)
    }

    /// What the `i`th event `e` of the history says, if it is one a timeline tells.
    pub(crate) fn describe(&self, i: usize, e: &Event) -> Option<String> {
        match self.0.get(&i) {
            Some(told) => told.clone(),
            None => describe(e),
        }
    }
}

/// What the event says on its own, if it is one a timeline tells.
pub(crate) fn describe(e: &Event) -> Option<String> {
    let token = |t: &Option<i64>| t.map_or(String::new(), |t| format!(" (token {t})"));
    Some(match (&e.op, e.kind) {
        (Op::Harness(HarnessOp::Fault { fault }), _) => format!("fault: {fault}"),
        (Op::Harness(HarnessOp::Paused { node, step, for_ms }), _) => {
            format!("{node} freezes for {for_ms} ms as it reaches its {step}")
        }
        (Op::Harness(HarnessOp::Heal), _) => "heal phase: faults repaired, no new ones".into(),
        (Op::Harness(HarnessOp::Unfinished { client }), _) => {
            format!("{client} had not finished its workload")
        }
        (Op::Harness(HarnessOp::End), _) => "run ends".into(),
        (
            Op::Lock(LockOp::Acquire {
                lock,
                mode,
                token: t,
                granted_by,
                valid_ms,
            }),
            Kind::Ok,
        ) => {
            let lock = match mode {
                Some(LockMode::Read) => format!("{lock} to read"),
                Some(LockMode::Write) => format!("{lock} to write"),
                None => lock.clone(),
            };
            let on = match granted_by.as_slice() {
                [] => String::new(),
                servers => format!(" on {}", servers.join(", ")),
            };
            let valid = valid_ms.map_or(String::new(), |v| format!(", valid {v} ms by its clock"));
            format!("acquires {lock}{}{on}{valid}", token(t))
        }
        (Op::Lock(LockOp::Extend { lock, valid_ms }), Kind::Ok) => {
            let valid = valid_ms.map_or(String::new(), |v| format!(", valid {v} ms by its clock"));
            format!("extends {lock}{valid}")
        }
        (Op::Lock(LockOp::Extend { lock, .. }), Kind::Fail) => format!("fails to extend {lock}"),
        (Op::Lock(LockOp::Release { lock }), Kind::Invoke) => format!("releases {lock}"),
        (Op::Lock(LockOp::Lost { lock }), _) => format!("learns it lost {lock}"),
        (Op::Election(ElectionOp::Lead { election, token: t }), Kind::Ok) => {
            format!("becomes the leader of {election}{}", token(t))
        }
        (Op::Election(ElectionOp::StepDown { election }), Kind::Invoke) => {
            format!("steps down as the leader of {election}")
        }
        (Op::Election(ElectionOp::LostLead { election }), _) => {
            format!("learns it no longer leads {election}")
        }
        (Op::Queue(QueueOp::Offer { queue, item }), Kind::Ok) => {
            format!("offers {item} to {queue}")
        }
        (
            Op::Queue(QueueOp::Take {
                queue,
                item: Some(item),
                node,
            }),
            Kind::Ok,
        ) => format!(
            "takes {item} from {queue}{}",
            node.as_ref()
                .map_or(String::new(), |n| format!(" (node {n})"))
        ),
        (Op::Queue(QueueOp::Take { queue, .. }), Kind::Info) => {
            format!("does not know whether it took an item from {queue}")
        }
        (Op::Queue(QueueOp::Claim { item, node, .. }), _) => {
            format!("asks to take {item} (node {node})")
        }
        (Op::Queue(QueueOp::Empty { queue }), _) => {
            format!("finds {queue} empty and waits for an offer")
        }
        (Op::Barrier(BarrierOp::Enter { barrier, count }), Kind::Invoke) => {
            format!("arrives at {barrier} (waits for {count})")
        }
        (Op::Barrier(BarrierOp::Enter { barrier, .. }), Kind::Ok) => format!("passes {barrier}"),
        (Op::Barrier(BarrierOp::Leave { barrier }), Kind::Invoke) => {
            format!("is done with its work, leaves {barrier}")
        }
        (Op::Barrier(BarrierOp::Leave { barrier }), Kind::Ok) => format!("has left {barrier}"),
        (
            Op::Store(StoreOp::StoreWrite {
                client,
                based_on,
                current,
                value,
                token: t,
                accepted,
            }),
            _,
        ) if !accepted || based_on != current => format!(
            "store {} {client}'s write of {value}{} (it read {based_on}; the register held \
             {current})",
            if *accepted { "accepts" } else { "refuses" },
            token(t)
        ),
        (Op::Server(event) | Op::User(event), _) if !event.routine => {
            if let Some(told) = &event.told {
                return Some(told.clone());
            }
            let fields: Vec<String> = event
                .fields
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => format!("{k}={s}"),
                    other => format!("{k}={other}"),
                })
                .collect();
            format!("{} {}", event.op.replace('_', " "), fields.join(" "))
                .trim_end()
                .to_string()
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
