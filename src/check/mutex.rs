//! Mutual exclusion: no two clients hold the same lock at the same true instant.
//!
//! A client holds lock L from its Acquire{L} ok until its next Release{L} invoke (it stops
//! believing it holds the lock when it starts releasing), a Lost{L}, the End marker, or the
//! end of the history. Overlap is decided by position in the history, which is true-time
//! order refined by recording order: a release at 100 ms recorded before the next holder's
//! acquire at 100 ms is a clean hand-over, while a hold that opens and closes inside the same
//! millisecond as another's is still caught.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{HarnessOp, History, Kind, LockMode, LockOp, Op};
use std::collections::BTreeMap;

/// A position in the history: the event index (the order) and its true time (for reports).
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// The event's index in the history.
    pub index: usize,
    /// Its true time.
    pub time_ms: u64,
}

/// One client's hold of a lock, as `mutex` judges it: from its acquire's ok to its release's
/// invoke, a loss, or the end. The building block of a checker of one's own about holders.
#[derive(Debug)]
pub struct Hold<'a> {
    /// The holder.
    pub client: &'a str,
    /// What it was granted, for a lock with modes.
    pub mode: Option<LockMode>,
    /// Its acquire's ok.
    pub from: Point,
    /// Its release's invoke, its loss, or the end of the run.
    pub until: Point,
}

impl Hold<'_> {
    /// Whether the two holds share some instant.
    pub fn overlaps(&self, other: &Hold) -> bool {
        self.from.index < other.until.index && other.from.index < self.until.index
    }
}

/// Every pair of holds of the same lock by different clients that overlap, ordered by lock
/// and then by the start of the earlier hold; `times_ms` is the overlap `[from, until]`.
pub fn check(history: &History) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (lock, holds) in lock_holds(history) {
        for (i, a) in holds.iter().enumerate() {
            for b in &holds[i + 1..] {
                // One client's holds of a lock never overlap (a hold only opens when none
                // is open), so any overlap is between two clients.
                if a.overlaps(b) {
                    violations.push(violation(lock, a, b));
                }
            }
        }
    }
    violations
}

/// Holds per lock, each lock's sorted by where they start.
pub fn lock_holds(history: &History) -> BTreeMap<&str, Vec<Hold<'_>>> {
    // (lock, client) -> where its current hold began, in what mode
    let mut open: BTreeMap<(&str, &str), (Point, Option<LockMode>)> = BTreeMap::new();
    let mut holds: BTreeMap<&str, Vec<Hold>> = BTreeMap::new();
    for (index, event) in history.events.iter().enumerate() {
        let point = Point {
            index,
            time_ms: event.time_ms,
        };
        let client = event.node.as_str();
        let ending: Vec<(&str, &str)> = match (&event.op, event.kind) {
            (Op::Lock(LockOp::Acquire { lock, mode, .. }), Kind::Ok) => {
                open.entry((lock.as_str(), client))
                    .or_insert((point, *mode));
                continue;
            }
            (Op::Lock(LockOp::Release { lock }), Kind::Invoke)
            | (Op::Lock(LockOp::Lost { lock }), _) => {
                vec![(lock.as_str(), client)]
            }
            (Op::Harness(HarnessOp::End), _) => open.keys().copied().collect(),
            _ => continue,
        };
        for key in ending {
            if let Some((from, mode)) = open.remove(&key) {
                holds.entry(key.0).or_default().push(Hold {
                    client: key.1,
                    mode,
                    from,
                    until: point,
                });
            }
        }
    }
    let end = Point {
        index: history.events.len(),
        time_ms: history.events.last().map_or(0, |e| e.time_ms),
    };
    for ((lock, client), (from, mode)) in open {
        holds.entry(lock).or_default().push(Hold {
            client,
            mode,
            from,
            until: end,
        });
    }
    for list in holds.values_mut() {
        list.sort_by_key(|h| h.from.index);
    }
    holds
}

fn violation(lock: &str, first: &Hold, second: &Hold) -> Violation {
    let from = second.from.time_ms;
    let until = first.until.time_ms.min(second.until.time_ms);
    Violation {
        property: Property::MUTEX,
        clients: vec![first.client.to_string(), second.client.to_string()],
        times_ms: vec![from, until],
        detail: format!(
            "{} and {} both held {lock} during {from}..{until} ms",
            first.client, second.client
        ),
    }
}

/// The `mutex` property's checker.
pub struct Mutex;

impl Checker for Mutex {
    fn property(&self) -> Property {
        Property::MUTEX
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Lock, Reads::Harness]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;

    #[test]
    fn two_holders_of_one_lock_are_reported_with_the_overlap() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "c1").invoke(acquire(L1));
        h.at(1010, "c1").ok(acquire(L1));
        h.at(1020, "c3").invoke(acquire(L1));
        h.at(1040, "c3").ok(acquire(L1));
        h.at(1210, "c1").invoke(release(L1));
        h.at(1215, "c1").ok(release(L1));
        h.at(1300, "c3").invoke(release(L1));
        h.at(1305, "c3").ok(release(L1));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].property, Property::MUTEX);
        assert_eq!(v[0].clients, ["c1", "c3"]);
        assert_eq!(v[0].times_ms, [1040, 1210]);
        assert_eq!(
            v[0].detail,
            "c1 and c3 both held /locks/l1 during 1040..1210 ms"
        );
    }

    #[test]
    fn old_holder_that_never_learned_of_expiry_holds_until_the_end() {
        // Z2: c1's session expired while it was partitioned; c2 got the lock; c1 never
        // recorded Lost, so it held until End.
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire(L1));
        h.at(20, "c2").invoke(acquire(L1));
        h.at(500, "zk1").info(deleted("/locks/l1/lock-0000000001"));
        h.at(510, "c2").ok(acquire(L1));
        h.at(900, "harness").info(Op::Harness(HarnessOp::End));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].clients, ["c1", "c2"]);
        assert_eq!(v[0].times_ms, [510, 900]);
    }

    #[test]
    fn hold_opened_and_closed_within_another_holds_millisecond_is_caught() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(0, "c2").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire(L1));
        h.at(50, "c2").ok(acquire(L1));
        h.at(50, "c2").invoke(release(L1));
        h.at(60, "c1").invoke(release(L1));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].clients, ["c1", "c2"]);
        assert_eq!(v[0].times_ms, [50, 50]);
    }

    #[test]
    fn one_violation_per_overlapping_pair() {
        let mut h = HistoryBuilder::default();
        for client in ["c1", "c2", "c3"] {
            h.at(0, client).invoke(acquire(L1));
        }
        h.at(10, "c1").ok(acquire(L1));
        h.at(20, "c2").ok(acquire(L1));
        h.at(30, "c3").ok(acquire(L1));
        let v = check(&h.build());
        let pairs: Vec<_> = v.iter().map(|v| v.clients.clone()).collect();
        assert_eq!(pairs, [["c1", "c2"], ["c1", "c3"], ["c2", "c3"]]);
        let times: Vec<_> = v.iter().map(|v| v.times_ms.clone()).collect();
        assert_eq!(times, [[20, 30], [30, 30], [30, 30]]);
    }

    #[test]
    fn release_then_next_acquire_in_the_same_millisecond_is_fine() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(5, "c2").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire(L1));
        h.at(100, "c1").invoke(release(L1));
        h.at(100, "c2").ok(acquire(L1));
        h.at(100, "c1").ok(release(L1));
        h.at(200, "c2").invoke(release(L1));
        h.at(201, "c2").ok(release(L1));
        h.at(300, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn lost_ends_the_hold_and_different_locks_do_not_conflict() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(0, "c2").invoke(acquire(L2));
        h.at(10, "c1").ok(acquire(L1));
        h.at(10, "c2").ok(acquire(L2));
        h.at(20, "c3").invoke(acquire(L1));
        h.at(400, "c1").info(lost(L1));
        h.at(450, "c3").ok(acquire(L1));
        h.at(500, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_client_re_acquiring_while_holding_is_not_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire(L1));
        h.at(20, "c1").invoke(acquire(L1));
        h.at(30, "c1").ok(acquire(L1));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn acquire_after_end_does_not_overlap_a_hold_closed_by_end() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire(L1));
        h.at(100, "harness").info(Op::Harness(HarnessOp::End));
        h.at(100, "c2").invoke(acquire(L1));
        h.at(100, "c2").ok(acquire(L1));
        assert_eq!(check(&h.build()), []);
    }
}
