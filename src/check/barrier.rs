//! Barrier: nobody passes a barrier's enter before every process it waits for arrived,
//! nobody passes its leave before every process that arrived is done with its work, and
//! after the heal every wait ends within a bound (Z11).
//!
//! A process arrives at its first Enter invoke on a barrier (a fail followed by another
//! invoke is the recipe retrying on a new session, not a new arrival); the Enter names how
//! many processes the barrier waits for. It is done with its work at its Leave invoke, or
//! when its node in the barrier (from its Joined events; without one, when the reply to its
//! create was lost, the node named after it) was deleted by its session's expiry and not
//! created again: a double barrier counts nodes, so a process whose session
//! expired has left the barrier whatever it believes, and the others may rightly pass
//! without it. Nothing else excuses a missing node.
//!
//! Waits: from the first Enter (or Leave) invoke to its ok, counted from the heal on; a wait
//! still open at the end runs to the end. Before the heal, faults may legitimately hold
//! everyone up. A run that stopped at its limit is also the `liveness` checker's
//! (Unfinished).

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{BarrierOp, Event, HarnessOp, History, Kind, Op};
use crate::zk::events::{self, ZkEvent};
use std::collections::{BTreeMap, BTreeSet};

pub struct Barrier;

impl Checker for Barrier {
    fn property(&self) -> Property {
        Property::BARRIER
    }

    fn reads(&self) -> &'static [Reads] {
        &[
            Reads::Barrier,
            Reads::Harness,
            Reads::Server(events::FAMILY),
        ]
    }

    fn check(&self, history: &History, cfg: &CheckConfig) -> Vec<Violation> {
        check(history, cfg.liveness_bound_ms)
    }
}

/// Early passes of enter, then early passes of leave, each in history order; then waits
/// longer than `bound_ms` after the heal, in the order they ended (open ones last, by
/// client and barrier). Events after the End marker are not considered.
pub fn check(history: &History, bound_ms: u64) -> Vec<Violation> {
    let events = until_end(history);
    let mut violations = early_enters(events);
    violations.extend(early_leaves(events));
    if let Some(heal_ms) = history.heal_ms() {
        violations.extend(long_waits(events, heal_ms, bound_ms, history.end_ms()));
    }
    violations
}

fn until_end(history: &History) -> &[Event] {
    let end = history
        .events
        .iter()
        .position(|e| e.op == Op::Harness(HarnessOp::End))
        .unwrap_or(history.events.len());
    &history.events[..end]
}

fn barrier_op(e: &Event) -> Option<&BarrierOp> {
    match &e.op {
        Op::Barrier(op) => Some(op),
        _ => None,
    }
}

/// Each process's first arrival at each barrier: (barrier, client) -> index.
fn arrivals(events: &[Event]) -> BTreeMap<(&str, &str), usize> {
    let mut first = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        if let (Some(BarrierOp::Enter { barrier, .. }), Kind::Invoke) = (barrier_op(e), e.kind) {
            first
                .entry((barrier.as_str(), e.node.as_str()))
                .or_insert(i);
        }
    }
    first
}

fn early_enters(events: &[Event]) -> Vec<Violation> {
    let arrived = arrivals(events);
    let mut violations = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let (Some(BarrierOp::Enter { barrier, count }), Kind::Ok) = (barrier_op(e), e.kind) else {
            continue;
        };
        let of_barrier = || arrived.iter().filter(|((b, _), _)| b == barrier);
        let before = of_barrier().filter(|(_, at)| **at < i).count();
        if before >= *count as usize {
            continue;
        }
        let late: Vec<String> = of_barrier()
            .filter(|(_, at)| **at > i)
            .map(|((_, client), at)| format!("{client} at {} ms", events[*at].time_ms))
            .collect();
        violations.push(Violation {
            property: Property::BARRIER,
            clients: vec![e.node.clone()],
            times_ms: vec![e.time_ms],
            detail: format!(
                "{} passed {barrier} at {} ms when {before} of its {count} processes had \
                 arrived (later: {})",
                e.node,
                e.time_ms,
                if late.is_empty() {
                    "none".to_string()
                } else {
                    late.join(", ")
                }
            ),
        });
    }
    violations
}

/// What the tree says of a node: its latest change so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeState {
    Present,
    Deleted,
    /// Deleted by its owner's session expiry.
    Expired,
}

fn early_leaves(events: &[Event]) -> Vec<Violation> {
    let arrived = arrivals(events);
    let mut expired_sessions: BTreeSet<i64> = BTreeSet::new();
    let mut nodes: BTreeMap<&str, NodeState> = BTreeMap::new();
    // (barrier, client) -> its nodes in that barrier.
    let mut joined: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    let mut leaving: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut violations = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if let Op::Server(server) = &e.op {
            match server.read::<ZkEvent>() {
                Some(ZkEvent::SessionExpired { session }) => {
                    expired_sessions.insert(session);
                }
                Some(ZkEvent::ZnodeCreated { .. }) | Some(ZkEvent::ZnodeDeleted { .. }) => {
                    let Some((change, path)) = events::znode_change(&e.op) else {
                        continue;
                    };
                    let expired = matches!(server.read::<ZkEvent>(),
                        Some(ZkEvent::ZnodeDeleted { session, .. }) if expired_sessions.contains(&session));
                    let state = match change {
                        events::ZnodeChange::Created => NodeState::Present,
                        events::ZnodeChange::Deleted if expired => NodeState::Expired,
                        events::ZnodeChange::Deleted => NodeState::Deleted,
                    };
                    nodes.insert(path, state);
                }
                _ => {}
            }
            continue;
        }
        let Some(op) = barrier_op(e) else { continue };
        match (op, e.kind) {
            (BarrierOp::Joined { barrier, node }, _) => {
                joined
                    .entry((barrier.as_str(), e.node.as_str()))
                    .or_default()
                    .push(node.as_str());
            }
            (BarrierOp::Leave { barrier }, Kind::Invoke) => {
                leaving.insert((barrier.as_str(), e.node.as_str()));
            }
            (BarrierOp::Leave { barrier }, Kind::Ok) => {
                let expired = |node: &str| nodes.get(node) == Some(&NodeState::Expired);
                let dropped_out = |client: &str| match joined.get(&(barrier.as_str(), client)) {
                    Some(own) => own.iter().all(|n| expired(n)),
                    // No Joined: its create's reply was lost. Its node is the one the
                    // recipe names after it.
                    None => expired(&format!("{barrier}/{client}")),
                };
                let working: Vec<String> = arrived
                    .keys()
                    .filter(|(b, client)| {
                        b == barrier
                            && *client != e.node
                            && !leaving.contains(&(*b, *client))
                            && !dropped_out(client)
                    })
                    .map(|(_, client)| {
                        let since = arrived[&(barrier.as_str(), *client)];
                        match since > i {
                            true => format!("{client} (arrived later)"),
                            false => client.to_string(),
                        }
                    })
                    .collect();
                if !working.is_empty() {
                    violations.push(Violation {
                        property: Property::BARRIER,
                        clients: vec![e.node.clone()],
                        times_ms: vec![e.time_ms],
                        detail: format!(
                            "{} passed the leave of {barrier} at {} ms while {} had not \
                             finished its work",
                            e.node,
                            e.time_ms,
                            working.join(", ")
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    violations
}

fn long_waits(events: &[Event], heal_ms: u64, bound_ms: u64, end_ms: u64) -> Vec<Violation> {
    // (client, phase, barrier) -> first invoke time.
    let mut open: BTreeMap<(&str, &str, &str), u64> = BTreeMap::new();
    let mut violations = Vec::new();
    let judge = |(client, phase, barrier): (&str, &str, &str), since: u64, until: u64, open| {
        let from = since.max(heal_ms);
        (until > from && until - from > bound_ms).then(|| Violation {
            property: Property::BARRIER,
            clients: vec![client.to_string()],
            times_ms: vec![since, heal_ms, until],
            detail: format!(
                "{client} waited in the {phase} of {barrier} from {since} ms to {until} ms{}, \
                 {} ms after the heal at {heal_ms} ms (bound {bound_ms} ms)",
                if open {
                    " (still waiting at the end)"
                } else {
                    ""
                },
                until - from
            ),
        })
    };
    for e in events {
        let (phase, barrier) = match barrier_op(e) {
            Some(BarrierOp::Enter { barrier, .. }) => ("enter", barrier.as_str()),
            Some(BarrierOp::Leave { barrier }) => ("leave", barrier.as_str()),
            _ => continue,
        };
        let key = (e.node.as_str(), phase, barrier);
        match e.kind {
            Kind::Invoke => {
                open.entry(key).or_insert(e.time_ms);
            }
            Kind::Ok => {
                if let Some(since) = open.remove(&key) {
                    violations.extend(judge(key, since, e.time_ms, false));
                }
            }
            Kind::Fail | Kind::Info => {}
        }
    }
    for (key, since) in open {
        violations.extend(judge(key, since, end_ms, true));
    }
    violations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::zk::events::ZkEvent;

    const B: &str = "/locksim/dbarrier/r0";

    fn enter(count: u32) -> Op {
        Op::Barrier(BarrierOp::Enter {
            barrier: B.into(),
            count,
        })
    }

    fn leave() -> Op {
        Op::Barrier(BarrierOp::Leave { barrier: B.into() })
    }

    fn joined(client: &str) -> Op {
        Op::Barrier(BarrierOp::Joined {
            barrier: B.into(),
            node: format!("{B}/{client}"),
        })
    }

    fn zk(event: ZkEvent) -> Op {
        event.into()
    }

    /// c1, c2, c3 arrive at 0, 10, 20 and pass at 30; leave at 50, 60, 70, pass at 80.
    fn three_in_step() -> HistoryBuilder {
        let mut h = HistoryBuilder::default();
        for (t, c) in [(0, "c1"), (10, "c2"), (20, "c3")] {
            h.at(t, c).invoke(enter(3));
            h.at(t + 1, c).info(joined(c));
        }
        for c in ["c1", "c2", "c3"] {
            h.at(30, c).ok(enter(3));
        }
        for (t, c) in [(50, "c1"), (60, "c2"), (70, "c3")] {
            h.at(t, c).invoke(leave());
        }
        for c in ["c1", "c2", "c3"] {
            h.at(80, c).ok(leave());
        }
        h
    }

    fn end(h: &mut HistoryBuilder, heal: u64, end: u64) {
        h.at(heal, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(end, "harness").info(Op::Harness(HarnessOp::End));
    }

    #[test]
    fn a_barrier_everyone_passed_together_is_clean() {
        let mut h = three_in_step();
        end(&mut h, 100, 200);
        assert_eq!(check(&h.build(), 1000), []);
    }

    #[test]
    fn passing_enter_before_the_last_arrival_is_caught() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(enter(3));
        h.at(5, "c2").invoke(enter(3));
        h.at(10, "c1").ok(enter(3));
        h.at(20, "c3").invoke(enter(3));
        h.at(30, "c2").ok(enter(3));
        h.at(30, "c3").ok(enter(3));
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c1"]);
        assert_eq!(v[0].times_ms, [10]);
        assert!(v[0].detail.contains("2 of its 3"), "{}", v[0].detail);
        assert!(v[0].detail.contains("c3 at 20 ms"), "{}", v[0].detail);
    }

    #[test]
    fn a_retried_enter_is_one_arrival_not_two() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(enter(2));
        h.at(5, "c1").fail(enter(2));
        h.at(6, "c1").invoke(enter(2));
        h.at(10, "c1").ok(enter(2));
        h.at(20, "c2").invoke(enter(2));
        h.at(20, "c2").ok(enter(2));
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c1"]);
    }

    #[test]
    fn passing_leave_while_another_still_works_is_caught() {
        let mut h = HistoryBuilder::default();
        for c in ["c1", "c2", "c3"] {
            h.at(0, c).invoke(enter(3));
        }
        for c in ["c1", "c2", "c3"] {
            h.at(10, c).ok(enter(3));
        }
        h.at(20, "c1").invoke(leave());
        h.at(25, "c2").invoke(leave());
        h.at(30, "c1").ok(leave());
        h.at(40, "c3").invoke(leave());
        h.at(50, "c2").ok(leave());
        h.at(50, "c3").ok(leave());
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c1"]);
        assert!(v[0].detail.contains("while c3 had not"), "{}", v[0].detail);
    }

    #[test]
    fn a_process_whose_session_expired_has_left_and_only_then() {
        let mut h = three_in_step_until_c3_works();
        h.at(40, "zk1")
            .info(zk(ZkEvent::SessionExpired { session: 3 }));
        h.at(40, "zk1").info(zk(ZkEvent::ZnodeDeleted {
            path: format!("{B}/c3"),
            session: 3,
        }));
        h.at(60, "c1").ok(leave());
        assert_eq!(
            check(&h.build(), 1000),
            [],
            "c3's node went with its session"
        );

        // The same node deleted by a live session (its own process's stray delete, say)
        // excuses nothing.
        let mut h = three_in_step_until_c3_works();
        h.at(40, "zk1").info(zk(ZkEvent::ZnodeDeleted {
            path: format!("{B}/c3"),
            session: 3,
        }));
        h.at(60, "c1").ok(leave());
        assert_eq!(check(&h.build(), 1000).len(), 1);

        // Nor does an expiry whose node was created again (it re-entered).
        let mut h = three_in_step_until_c3_works();
        h.at(40, "zk1")
            .info(zk(ZkEvent::SessionExpired { session: 3 }));
        h.at(40, "zk1").info(zk(ZkEvent::ZnodeDeleted {
            path: format!("{B}/c3"),
            session: 3,
        }));
        h.at(45, "zk1").info(zk(ZkEvent::ZnodeCreated {
            path: format!("{B}/c3"),
            session: 4,
        }));
        h.at(60, "c1").ok(leave());
        assert_eq!(check(&h.build(), 1000).len(), 1);
    }

    #[test]
    fn a_process_that_never_heard_its_node_was_created_has_left_when_it_expired() {
        // c3's create went through, its reply was lost: no Joined; its enter fails.
        let lost_reply = || {
            let mut h = HistoryBuilder::default();
            for c in ["c1", "c2", "c3"] {
                h.at(0, c).invoke(enter(3));
            }
            for c in ["c1", "c2"] {
                h.at(1, c).info(joined(c));
            }
            h.at(1, "zk1").info(zk(ZkEvent::ZnodeCreated {
                path: format!("{B}/c3"),
                session: 3,
            }));
            for c in ["c1", "c2"] {
                h.at(10, c).ok(enter(3));
            }
            for c in ["c1", "c2"] {
                h.at(20, c).invoke(leave());
            }
            h
        };
        let mut h = lost_reply();
        h.at(40, "zk1")
            .info(zk(ZkEvent::SessionExpired { session: 3 }));
        h.at(40, "zk1").info(zk(ZkEvent::ZnodeDeleted {
            path: format!("{B}/c3"),
            session: 3,
        }));
        h.at(50, "c3").fail(enter(3));
        h.at(60, "c1").ok(leave());
        assert_eq!(
            check(&h.build(), 1000),
            [],
            "c3's node went with its session"
        );

        let mut h = lost_reply();
        h.at(40, "zk1").info(zk(ZkEvent::ZnodeDeleted {
            path: format!("{B}/c3"),
            session: 3,
        }));
        h.at(60, "c1").ok(leave());
        assert_eq!(
            check(&h.build(), 1000).len(),
            1,
            "deleted by a live session"
        );
    }

    /// All three passed enter; c1 and c2 are leaving, c3 still works.
    fn three_in_step_until_c3_works() -> HistoryBuilder {
        let mut h = HistoryBuilder::default();
        for c in ["c1", "c2", "c3"] {
            h.at(0, c).invoke(enter(3));
        }
        for c in ["c1", "c2", "c3"] {
            h.at(1, c).info(joined(c));
        }
        for c in ["c1", "c2", "c3"] {
            h.at(10, c).ok(enter(3));
        }
        h.at(20, "c1").invoke(leave());
        h.at(20, "c2").invoke(leave());
        h
    }

    #[test]
    fn a_wait_longer_than_the_bound_after_the_heal_is_caught_open_or_closed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(enter(2));
        h.at(0, "c2").invoke(enter(2));
        h.at(100, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(900, "c1").ok(enter(2));
        h.at(3000, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), 500);
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].clients, ["c1"]);
        assert_eq!(v[0].times_ms, [0, 100, 900]);
        assert_eq!(v[1].clients, ["c2"]);
        assert!(v[1].detail.contains("still waiting"), "{}", v[1].detail);
        assert_eq!(check(&h.build(), 3000), [], "within a longer bound");
    }

    #[test]
    fn histories_without_barrier_events_have_nothing_to_judge() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        end(&mut h, 10, 5000);
        assert_eq!(check(&h.build(), 10), []);
    }
}
