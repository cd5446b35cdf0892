//! Liveness: once the heal phase begins (faults repaired, no new ones), every client that
//! wants a lock gets it within a bound (Z1, Z4, Z7, Z9, R7).
//!
//! A client wants a lock from its first Acquire invoke until an Acquire ok; a fail (or an
//! unknown outcome) followed by another invoke keeps it wanting, since the recipe is
//! retrying; one not followed by an invoke ends the want there, as the client gave up. Only
//! time after the heal counts against the bound: before it, faults may legitimately block
//! progress. Wants are tracked per client and lock, so wanting one lock after getting
//! another is a new want.
//!
//! A workload that had not finished when the run stopped at its time limit (the harness
//! records Unfinished) is a violation too, whatever it was stuck in: a client that never got
//! a session back records no Acquire at all. The run limit leaves room for one liveness bound
//! after the heal plus the work left, so a correct recipe finishes within it.

use super::malformed::operation;
use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{Event, HarnessOp, History, Kind, LockOp, Op};
use std::collections::BTreeMap;

/// One violation per want whose post-heal wait exceeded `bound_ms`, in the order the waits
/// ended (open waits last, by client); `times_ms` is `[wanted from, heal, wait ended]`. Then
/// one per unfinished client not already reported as still waiting, by client; its
/// `times_ms` is `[stuck since, heal, end]`. Events after the End marker are not considered.
pub fn check(history: &History, bound_ms: u64) -> Vec<Violation> {
    let Some(heal_ms) = history.heal_ms() else {
        return Vec::new();
    };
    let judge = Judge { heal_ms, bound_ms };
    let mut wants: BTreeMap<(&str, &str), Want> = BTreeMap::new();
    let mut unfinished: Vec<&str> = Vec::new();
    let mut violations = Vec::new();
    for event in &history.events {
        let lock = match &event.op {
            Op::Lock(LockOp::Acquire { lock, .. }) => lock.as_str(),
            Op::Harness(HarnessOp::Unfinished { client }) => {
                unfinished.push(client);
                continue;
            }
            Op::Harness(HarnessOp::End) => break,
            _ => continue,
        };
        let key = (event.node.as_str(), lock);
        let t = event.time_ms;
        match event.kind {
            Kind::Invoke => {
                wants
                    .entry(key)
                    .or_insert(Want {
                        since_ms: t,
                        gave_up_ms: None,
                    })
                    .gave_up_ms = None;
            }
            Kind::Ok => {
                if let Some(want) = wants.remove(&key) {
                    violations.extend(judge.wait(key, want.since_ms, t, Ending::Granted));
                }
            }
            Kind::Fail | Kind::Info => {
                if let Some(want) = wants.get_mut(&key) {
                    want.gave_up_ms = Some(t);
                }
            }
        }
    }
    let end_ms = history.end_ms();
    let mut reported_waiting: Vec<&str> = Vec::new();
    for (key, want) in wants {
        let (until_ms, ending) = match want.gave_up_ms {
            Some(gave_up_ms) => (gave_up_ms, Ending::GaveUp),
            None => (end_ms, Ending::StillWaiting),
        };
        let still_waiting = matches!(ending, Ending::StillWaiting);
        if let Some(v) = judge.wait(key, want.since_ms, until_ms, ending) {
            violations.push(v);
            if still_waiting {
                reported_waiting.push(key.0);
            }
        }
    }
    unfinished.sort_unstable();
    unfinished.dedup();
    for client in unfinished {
        if !reported_waiting.contains(&client) {
            violations.push(judge.unfinished(history, client, end_ms));
        }
    }
    violations
}

/// What `client` was doing when the run stopped, and since when: its last invocation if it
/// never completed, else its last event.
fn stuck_in(history: &History, client: &str) -> (String, Option<u64>) {
    let mut open: Vec<&Event> = Vec::new();
    let mut last = None;
    for event in history.events.iter().filter(|e| e.node == client) {
        last = Some(event);
        match event.kind {
            Kind::Invoke => open.push(event),
            _ if operation(&event.op).is_some() => {
                open.retain(|e| operation(&e.op) != operation(&event.op))
            }
            _ => {}
        }
    }
    if let Some(e) = open.last() {
        return (
            format!("in {} since {} ms", e.op.name(), e.time_ms),
            Some(e.time_ms),
        );
    }
    match last {
        Some(e) => (
            format!(
                "idle since its last event ({} {}) at {} ms",
                e.op.name(),
                e.kind.name(),
                e.time_ms
            ),
            Some(e.time_ms),
        ),
        None => ("it recorded nothing".to_string(), None),
    }
}

struct Want {
    since_ms: u64,
    /// When its latest attempt failed, if no attempt followed yet.
    gave_up_ms: Option<u64>,
}

enum Ending {
    Granted,
    GaveUp,
    StillWaiting,
}

struct Judge {
    heal_ms: u64,
    bound_ms: u64,
}

impl Judge {
    fn unfinished(&self, history: &History, client: &str, end_ms: u64) -> Violation {
        let (doing, since_ms) = stuck_in(history, client);
        Violation {
            property: Property::LIVENESS,
            clients: vec![client.to_string()],
            times_ms: vec![since_ms.unwrap_or(0), self.heal_ms, end_ms],
            detail: format!(
                "{client} had not finished its workload when the run stopped at {end_ms} ms: \
                 {doing}"
            ),
        }
    }

    fn wait(
        &self,
        (client, lock): (&str, &str),
        since_ms: u64,
        until_ms: u64,
        ending: Ending,
    ) -> Option<Violation> {
        let counted_from = since_ms.max(self.heal_ms);
        if until_ms.saturating_sub(counted_from) <= self.bound_ms {
            return None;
        }
        let how = match ending {
            Ending::Granted => "granted",
            Ending::GaveUp => "gave up",
            Ending::StillWaiting => "still waiting at the end",
        };
        Some(Violation {
            property: Property::LIVENESS,
            clients: vec![client.to_string()],
            times_ms: vec![since_ms, self.heal_ms, until_ms],
            detail: format!(
                "{client} wanted {lock} from {since_ms} ms (heal at {} ms) and did not get it \
                 within {} ms ({how} at {until_ms} ms)",
                self.heal_ms, self.bound_ms
            ),
        })
    }
}

/// The `liveness` property's checker.
pub struct Liveness;

impl Checker for Liveness {
    fn property(&self) -> Property {
        Property::LIVENESS
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Lock, Reads::Harness]
    }

    fn check(&self, history: &History, cfg: &CheckConfig) -> Vec<Violation> {
        check(history, cfg.liveness_bound_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::history::ClientOp;

    const BOUND: u64 = 2000;

    #[test]
    fn waiter_blocked_by_an_orphan_node_is_reported() {
        // Z1: c1's create reply was lost; its orphan node blocks c2 forever.
        let mut h = HistoryBuilder::default();
        h.at(1200, "c2").invoke(acquire(L1));
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(9000, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].property, Property::LIVENESS);
        assert_eq!(v[0].clients, ["c2"]);
        assert_eq!(v[0].times_ms, [1200, 1500, 9000]);
        assert_eq!(
            v[0].detail,
            "c2 wanted /locks/l1 from 1200 ms (heal at 1500 ms) and did not get it within \
             2000 ms (still waiting at the end at 9000 ms)"
        );
    }

    #[test]
    fn late_grant_and_retries_after_failures_count_from_the_first_invoke() {
        let mut h = HistoryBuilder::default();
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(1600, "c1").invoke(acquire(L1));
        h.at(2000, "c1").fail(acquire(L1));
        h.at(2100, "c1").invoke(acquire(L1));
        h.at(3000, "c1").info(acquire(L1));
        h.at(3100, "c1").invoke(acquire(L1));
        h.at(3700, "c1").ok(acquire(L1));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].clients, ["c1"]);
        assert_eq!(v[0].times_ms, [1600, 1500, 3700]);
        assert!(
            v[0].detail.ends_with("(granted at 3700 ms)"),
            "{}",
            v[0].detail
        );
    }

    #[test]
    fn a_retry_after_a_fail_keeps_the_want_open_to_the_end() {
        let mut h = HistoryBuilder::default();
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(1600, "c1").invoke(acquire(L1));
        h.at(2000, "c1").fail(acquire(L1));
        h.at(2100, "c1").invoke(acquire(L1));
        h.at(9000, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].times_ms, [1600, 1500, 9000]);
        assert!(
            v[0].detail
                .ends_with("(still waiting at the end at 9000 ms)")
        );
    }

    #[test]
    fn giving_up_after_waiting_past_the_bound_is_reported_at_the_fail() {
        let mut h = HistoryBuilder::default();
        h.at(100, "c3").invoke(acquire(L1));
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(4000, "c3").fail(acquire(L1));
        h.at(9000, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].times_ms, [100, 1500, 4000]);
    }

    #[test]
    fn no_heal_means_no_liveness_violation() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(90_000, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(check(&h.build(), BOUND), []);
    }

    #[test]
    fn waiting_before_the_heal_does_not_count() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(10_000, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(12_000, "c1").ok(acquire(L1));
        assert_eq!(check(&h.build(), BOUND), []);
    }

    #[test]
    fn waits_within_the_bound_and_gave_up_early_are_fine() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(500, "c2").invoke(acquire(L1));
        h.at(600, "c2").fail(acquire(L1));
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(3500, "c1").ok(acquire(L1));
        h.at(3600, "c1").invoke(acquire(L2));
        h.at(5000, "harness").info(Op::Harness(HarnessOp::End));
        h.at(9000, "c1").ok(acquire(L2));
        assert_eq!(check(&h.build(), BOUND), []);
    }

    #[test]
    fn open_wait_counts_only_when_it_could_exceed_the_bound() {
        let at_bound = |end_ms| {
            let mut h = HistoryBuilder::default();
            h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
            h.at(3000, "c1").invoke(acquire(L1));
            h.at(end_ms, "harness").info(Op::Harness(HarnessOp::End));
            check(&h.build(), BOUND).len()
        };
        assert_eq!(at_bound(5000), 0);
        assert_eq!(at_bound(5001), 1);
    }

    fn unfinished(client: &str) -> Op {
        Op::Harness(HarnessOp::Unfinished {
            client: client.to_string(),
        })
    }

    #[test]
    fn a_client_stuck_before_its_first_acquire_is_reported() {
        // c2 never got a session: no Acquire at all, only an open Connect.
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(Op::Client(ClientOp::Connect));
        h.at(0, "c2").invoke(Op::Client(ClientOp::Connect));
        h.at(3, "c1").ok(Op::Client(ClientOp::Connect));
        h.at(4, "c1").invoke(acquire(L1));
        h.at(9, "c1").ok(acquire(L1));
        h.at(600, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(3670, "harness").info(unfinished("c2"));
        h.at(3670, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].property, Property::LIVENESS);
        assert_eq!(v[0].clients, ["c2"]);
        assert_eq!(v[0].times_ms, [0, 600, 3670]);
        assert_eq!(
            v[0].detail,
            "c2 had not finished its workload when the run stopped at 3670 ms: in connect \
             since 0 ms"
        );
    }

    #[test]
    fn an_unfinished_idle_client_is_reported_with_its_last_event() {
        let mut h = HistoryBuilder::default();
        h.at(100, "c1").invoke(acquire(L1));
        h.at(110, "c1").ok(acquire(L1));
        h.at(120, "c1").invoke(release(L1));
        h.at(130, "c1").info(release(L1));
        h.at(600, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(900, "harness").info(unfinished("c1"));
        h.at(900, "harness").info(unfinished("c3"));
        h.at(900, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        let details: Vec<&str> = v.iter().map(|v| v.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "c1 had not finished its workload when the run stopped at 900 ms: idle since \
                 its last event (release info) at 130 ms",
                "c3 had not finished its workload when the run stopped at 900 ms: it recorded \
                 nothing",
            ]
        );
        assert_eq!(v[1].times_ms, [0, 600, 900]);
    }

    #[test]
    fn a_client_still_waiting_past_the_bound_is_reported_once() {
        let mut h = HistoryBuilder::default();
        h.at(1200, "c2").invoke(acquire(L1));
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(9000, "harness").info(unfinished("c2"));
        h.at(9000, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].detail.contains("still waiting at the end"),
            "{}",
            v[0].detail
        );
    }

    #[test]
    fn a_finished_workload_after_a_slow_session_is_fine() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(Op::Client(ClientOp::Connect));
        h.at(1400, "c1").ok(Op::Client(ClientOp::Connect));
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(1600, "c1").invoke(acquire(L1));
        h.at(1700, "c1").ok(acquire(L1));
        h.at(9000, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(check(&h.build(), BOUND), []);
    }

    #[test]
    fn without_an_end_marker_the_last_event_ends_the_wait() {
        let mut h = HistoryBuilder::default();
        h.at(1500, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(1600, "c1").invoke(acquire(L1));
        h.at(4000, "zk1").info(created("/locks/l1/x"));
        let v = check(&h.build(), BOUND);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].times_ms, [1600, 1500, 4000]);
    }
}
