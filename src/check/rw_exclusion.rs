//! Read/write exclusion: a writer never holds a lock together with any other holder; readers
//! may hold it together. Holds are `mutex`'s (from the Acquire ok to the Release invoke, a
//! Lost, or the end), each with the mode it was granted; a hold without a mode counts as a
//! writer's.
//!
//! Readers that never overlap would make a clean verdict hollow (the recipe could be
//! serialising them), so the checker also reports the most readers that held a lock at once.

use super::mutex::{Hold, lock_holds};
use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{History, LockMode};

/// Every overlapping pair of holds of one lock of which one is a writer's, ordered by lock
/// and then by the start of the earlier hold; `times_ms` is the overlap `[from, until]`.
pub fn check(history: &History) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (lock, holds) in lock_holds(history) {
        for (i, a) in holds.iter().enumerate() {
            for b in &holds[i + 1..] {
                if (is_writer(a) || is_writer(b)) && a.overlaps(b) {
                    violations.push(violation(lock, a, b));
                }
            }
        }
    }
    violations
}

fn is_writer(hold: &Hold) -> bool {
    hold.mode != Some(LockMode::Read)
}

fn violation(lock: &str, first: &Hold, second: &Hold) -> Violation {
    let from = second.from.time_ms;
    let until = first.until.time_ms.min(second.until.time_ms);
    let role = |h: &Hold| if is_writer(h) { "writer" } else { "reader" };
    Violation {
        property: Property::RW_EXCLUSION,
        clients: vec![first.client.to_string(), second.client.to_string()],
        times_ms: vec![from, until],
        detail: format!(
            "{} ({}) and {} ({}) both held {lock} during {from}..{until} ms",
            first.client,
            role(first),
            second.client,
            role(second)
        ),
    }
}

/// The most readers that held one lock at once, and when that began (the earliest such
/// instant); None if no two readers ever overlapped.
pub fn readers_together(history: &History) -> Option<ReadersTogether> {
    let mut best: Option<ReadersTogether> = None;
    for (lock, holds) in lock_holds(history) {
        let readers: Vec<&Hold> = holds.iter().filter(|h| !is_writer(h)).collect();
        // The count of readers holding is highest just after some reader's hold begins.
        for start in &readers {
            let mut clients: Vec<&str> = readers
                .iter()
                .filter(|h| h.from.index <= start.from.index && start.from.index < h.until.index)
                .map(|h| h.client)
                .collect();
            clients.sort_unstable();
            clients.dedup();
            if clients.len() > best.as_ref().map_or(1, |b| b.clients.len()) {
                best = Some(ReadersTogether {
                    lock: lock.to_string(),
                    clients: clients.into_iter().map(str::to_string).collect(),
                    time_ms: start.from.time_ms,
                });
            }
        }
    }
    best
}

/// Readers that held a lock at the same instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadersTogether {
    pub lock: String,
    pub clients: Vec<String>,
    pub time_ms: u64,
}

/// The `rw-exclusion` property's checker.
pub struct RwExclusion;

impl Checker for RwExclusion {
    fn property(&self) -> Property {
        Property::RW_EXCLUSION
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Lock, Reads::Harness]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }

    fn witness(&self, history: &History) -> Option<String> {
        readers_together(history).map(|r| {
            format!(
                "{} readers held {} together at {} ms: {}",
                r.clients.len(),
                r.lock,
                r.time_ms,
                r.clients.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::history::{HarnessOp, LockOp, Op};
    use LockMode::{Read, Write};

    fn acquire_as(lock: &str, mode: LockMode) -> Op {
        Op::Lock(LockOp::Acquire {
            lock: lock.into(),
            mode: Some(mode),
            token: None,
            granted_by: Vec::new(),
            valid_ms: None,
        })
    }

    /// c1 and c2 read from 10 and 20 until 100 and 110; c3 writes from `write_at` to 300.
    fn two_readers_and_a_writer(write_at: u64) -> History {
        let mut h = HistoryBuilder::default();
        for c in ["c1", "c2", "c3"] {
            h.at(0, c).invoke(acquire(L1));
        }
        h.at(10, "c1").ok(acquire_as(L1, Read));
        h.at(20, "c2").ok(acquire_as(L1, Read));
        if write_at < 100 {
            h.at(write_at, "c3").ok(acquire_as(L1, Write));
        }
        h.at(100, "c1").invoke(release(L1));
        h.at(110, "c2").invoke(release(L1));
        if write_at >= 100 {
            h.at(write_at, "c3").ok(acquire_as(L1, Write));
        }
        h.at(300, "c3").invoke(release(L1));
        h.at(400, "harness").info(Op::Harness(HarnessOp::End));
        h.build()
    }

    #[test]
    fn readers_together_are_allowed_and_reported() {
        let h = two_readers_and_a_writer(120);
        assert_eq!(check(&h), []);
        assert_eq!(
            readers_together(&h),
            Some(ReadersTogether {
                lock: L1.into(),
                clients: vec!["c1".into(), "c2".into()],
                time_ms: 20,
            })
        );
        assert_eq!(
            RwExclusion.witness(&h).as_deref(),
            Some("2 readers held /locks/l1 together at 20 ms: c1, c2")
        );
    }

    #[test]
    fn a_writer_among_readers_is_a_violation_with_each_reader() {
        let v = check(&two_readers_and_a_writer(50));
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].property, Property::RW_EXCLUSION);
        assert_eq!(v[0].clients, ["c1", "c3"]);
        assert_eq!(v[0].times_ms, [50, 100]);
        assert_eq!(
            v[0].detail,
            "c1 (reader) and c3 (writer) both held /locks/l1 during 50..100 ms"
        );
        assert_eq!(v[1].clients, ["c2", "c3"]);
    }

    #[test]
    fn two_writers_or_holds_without_a_mode_conflict_and_lone_readers_show_nothing() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(0, "c2").invoke(acquire(L1));
        h.at(10, "c1").ok(acquire_as(L1, Write));
        h.at(20, "c2").ok(acquire(L1));
        let h = h.build();
        assert_eq!(check(&h).len(), 1);
        assert_eq!(readers_together(&h), None);
    }
}
