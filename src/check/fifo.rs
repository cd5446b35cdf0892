//! FIFO: a lock is granted in queue order among the clients still contending for it (the
//! ordering the ZooKeeper lock recipe promises; Z5 and Z6 break it).
//!
//! A client's Enqueued marks its place; re-enqueuing replaces it. Places compare by sequence
//! number when both have one, otherwise by the true time they were enqueued (same-millisecond
//! places are unordered, so never blamed). A place stops contending once its client is
//! granted, its lock node is deleted (session expiry, release, cleanup), or its acquire
//! fails: passing it then is correct, not a violation.
//!
//! A client records Enqueued when the create's reply reaches it, which can be long after the
//! server created the node: a client paused in between may learn of its node only after its
//! session expired and the node was deleted. Such a place never contends, so the node's
//! life is read from the server's ZnodeCreated / ZnodeDeleted events, not from the client.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{History, Kind, LockOp, Op};
use crate::zk::events::{ZnodeChange, znode_change};
use crate::zk::{self, seq};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy)]
struct Place<'a> {
    time_ms: u64,
    /// Bare node name, e.g. "lock-0000000003"; matched against the end of deleted paths.
    node: &'a str,
    seq: Option<i64>,
}

/// One violation per grant and each live contender it jumped; `clients` is
/// `[granted, passed over]`, `times_ms` is `[grant, when the passed-over client enqueued]`.
pub fn check(history: &History) -> Vec<Violation> {
    // lock -> client -> its live place in line
    let mut queues: BTreeMap<&str, BTreeMap<&str, Place>> = BTreeMap::new();
    // bare node name -> whether the server still has it (the latest create or delete wins)
    let mut exists: BTreeMap<&str, bool> = BTreeMap::new();
    let mut violations = Vec::new();
    for event in &history.events {
        let client = event.node.as_str();
        if let Some((change, path)) = znode_change(&event.op) {
            exists.insert(bare_name(path), change == ZnodeChange::Created);
            if change == ZnodeChange::Deleted {
                for queue in queues.values_mut() {
                    queue.retain(|_, place| !is_node_of(path, place.node));
                }
            }
            continue;
        }
        match (&event.op, event.kind) {
            (
                Op::Lock(LockOp::Enqueued {
                    lock, node, seq, ..
                }),
                _,
            ) => {
                let queue = queues.entry(lock).or_default();
                if exists.get(node.as_str()) == Some(&false) {
                    queue.remove(client);
                    continue;
                }
                let place = Place {
                    time_ms: event.time_ms,
                    node,
                    seq: *seq,
                };
                queue.insert(client, place);
            }
            (Op::Lock(LockOp::Acquire { lock, .. }), Kind::Fail) => {
                if let Some(queue) = queues.get_mut(lock.as_str()) {
                    queue.remove(client);
                }
            }
            (Op::Lock(LockOp::Acquire { lock, .. }), Kind::Ok) => {
                let Some(queue) = queues.get_mut(lock.as_str()) else {
                    continue;
                };
                let Some(mine) = queue.remove(client) else {
                    continue;
                };
                for (other, theirs) in queue.iter() {
                    if let Some(why) = ahead(theirs, &mine) {
                        violations.push(Violation {
                            property: Property::FIFO,
                            clients: vec![client.to_string(), other.to_string()],
                            times_ms: vec![event.time_ms, theirs.time_ms],
                            detail: format!(
                                "{client} was granted {lock} at {} ms ahead of {other} \
                                 (enqueued earlier, {why})",
                                event.time_ms
                            ),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    violations
}

/// Why `theirs` is ahead of `mine` in line, if it is.
fn ahead(theirs: &Place, mine: &Place) -> Option<String> {
    match (theirs.seq, mine.seq) {
        (Some(a), Some(b)) => {
            (seq::serial_cmp(a, b).is_lt()).then(|| format!("seq {a} before {b}"))
        }
        _ => (theirs.time_ms < mine.time_ms)
            .then(|| format!("at {} ms < {} ms", theirs.time_ms, mine.time_ms)),
    }
}

/// Whether deleting `path` removes the lock node named `node`.
fn is_node_of(path: &str, node: &str) -> bool {
    !node.is_empty() && bare_name(path) == node
}

/// The last component of a node's path: what Enqueued names it by.
fn bare_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The `fifo` property's checker.
pub struct Fifo;

impl Checker for Fifo {
    fn property(&self) -> Property {
        Property::FIFO
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Lock, Reads::Server(zk::events::FAMILY)]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::history::History;
    use crate::zk::events::ZkEvent;

    fn wait(h: &mut HistoryBuilder, t: u64, client: &str, node: &str, seq: Option<i64>) {
        h.at(t, client).invoke(acquire(L1));
        h.at(t + 1, client).info(enqueued(L1, node, seq));
    }

    #[test]
    fn granting_a_later_sequence_ahead_of_a_live_earlier_one_is_reported() {
        // Z6: after the counter wrapped, c3's node sorts first although c2 is ahead.
        let mut h = HistoryBuilder::default();
        wait(&mut h, 100, "c2", "lock-0000000003", Some(3));
        wait(&mut h, 110, "c3", "lock-0000000005", Some(5));
        h.at(900, "c3").ok(acquire(L1));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].property, Property::FIFO);
        assert_eq!(v[0].clients, ["c3", "c2"]);
        assert_eq!(v[0].times_ms, [900, 101]);
        assert_eq!(
            v[0].detail,
            "c3 was granted /locks/l1 at 900 ms ahead of c2 (enqueued earlier, seq 3 before 5)"
        );
    }

    #[test]
    fn places_compare_in_serial_order_across_the_counter_wrap() {
        let line = |granted: &str| {
            let mut h = HistoryBuilder::default();
            wait(&mut h, 100, "c1", "lock-2147483647", Some(2_147_483_647));
            wait(&mut h, 110, "c2", "lock--2147483648", Some(-2_147_483_648));
            h.at(900, granted).ok(acquire(L1));
            check(&h.build())
        };
        assert_eq!(line("c1"), [], "the last number before the wrap is ahead");
        let v = line("c2");
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c2", "c1"]);
        assert!(
            v[0].detail
                .ends_with("(enqueued earlier, seq 2147483647 before -2147483648)")
        );
    }

    #[test]
    fn without_sequence_numbers_enqueue_time_decides() {
        let mut h = HistoryBuilder::default();
        wait(&mut h, 100, "c1", "a", None);
        wait(&mut h, 200, "c2", "b", Some(1));
        wait(&mut h, 300, "c3", "c", None);
        h.at(400, "c3").ok(acquire(L1));
        let v = check(&h.build());
        let passed: Vec<_> = v.iter().map(|v| v.clients[1].as_str()).collect();
        assert_eq!(passed, ["c1", "c2"]);
        assert!(
            v[0].detail
                .ends_with("(enqueued earlier, at 101 ms < 301 ms)"),
            "{}",
            v[0].detail
        );
    }

    #[test]
    fn a_predecessor_whose_node_was_deleted_by_session_expiry_is_skipped() {
        let mut h = HistoryBuilder::default();
        wait(&mut h, 100, "c1", "lock-0000000001", Some(1));
        wait(&mut h, 110, "c2", "lock-0000000002", Some(2));
        h.at(500, "zk1")
            .info(ZkEvent::SessionExpired { session: 1 }.into());
        h.at(500, "zk1").info(deleted("/locks/l1/lock-0000000001"));
        h.at(510, "c2").ok(acquire(L1));
        assert_eq!(check(&h.build()), []);
    }

    /// c1's node (seq 10) is created before c2's (seq 19), but c1 records its place only at
    /// 493 ms, as a client paused between the server's create and the reply does; c2 is
    /// granted at 511 ms. With `expired`, c1's session expired and its node was deleted at
    /// 340 ms (seed 243 of `explore zk-lock --set pause_max_ms=600`).
    fn late_place(expired: bool) -> History {
        let mut h = HistoryBuilder::default();
        h.at(100, "c1").invoke(acquire(L1));
        h.at(101, "zk1").info(created("/locks/l1/lock-0000000010"));
        h.at(110, "c2").invoke(acquire(L1));
        h.at(111, "zk1").info(created("/locks/l1/lock-0000000019"));
        h.at(112, "c2")
            .info(enqueued(L1, "lock-0000000019", Some(19)));
        if expired {
            h.at(340, "zk1")
                .info(ZkEvent::SessionExpired { session: 1 }.into());
            h.at(340, "zk1").info(deleted("/locks/l1/lock-0000000010"));
        }
        h.at(493, "c1")
            .info(enqueued(L1, "lock-0000000010", Some(10)));
        h.at(511, "c2").ok(acquire(L1));
        h.build()
    }

    #[test]
    fn a_place_learned_after_its_node_was_deleted_never_contends() {
        assert_eq!(check(&late_place(true)), []);
    }

    #[test]
    fn a_place_learned_late_while_its_node_lives_still_contends() {
        let v = check(&late_place(false));
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c2", "c1"]);
    }

    #[test]
    fn grants_in_order_failed_contenders_and_re_enqueued_places_are_fine() {
        let mut h = HistoryBuilder::default();
        wait(&mut h, 100, "c1", "lock-0000000001", Some(1));
        wait(&mut h, 110, "c2", "lock-0000000002", Some(2));
        wait(&mut h, 120, "c3", "lock-0000000003", Some(3));
        wait(&mut h, 130, "c4", "lock-0000000004", Some(4));
        h.at(200, "c1").ok(acquire(L1));
        // c2 gave up; c3 lost its session and queued again behind c4.
        h.at(210, "c2").fail(acquire(L1));
        h.at(220, "c3")
            .info(enqueued(L1, "lock-0000000007", Some(7)));
        h.at(300, "c1").invoke(release(L1));
        h.at(301, "zk1").info(deleted("/locks/l1/lock-0000000001"));
        h.at(302, "c4").ok(acquire(L1));
        h.at(400, "c4").invoke(release(L1));
        h.at(401, "zk1").info(deleted("/locks/l1/lock-0000000004"));
        h.at(402, "c3").ok(acquire(L1));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn same_millisecond_places_without_sequence_are_unordered() {
        let mut h = HistoryBuilder::default();
        h.at(100, "c1").info(enqueued(L1, "a", None));
        h.at(100, "c2").info(enqueued(L1, "b", None));
        h.at(100, "c2").invoke(acquire(L1));
        h.at(150, "c2").ok(acquire(L1));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn other_locks_queues_are_independent() {
        let mut h = HistoryBuilder::default();
        wait(&mut h, 100, "c1", "lock-0000000001", Some(1));
        h.at(110, "c2")
            .info(enqueued(L2, "lock-0000000009", Some(9)));
        h.at(120, "c2").invoke(acquire(L2));
        h.at(130, "c2").ok(acquire(L2));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn node_matching_needs_a_whole_name() {
        assert!(is_node_of("/locks/l1/lock-0000000001", "lock-0000000001"));
        assert!(!is_node_of("/locks/l1/xlock-0000000001", "lock-0000000001"));
        assert!(!is_node_of("/locks/l1/lock-0000000001", ""));
        assert!(!is_node_of("/locks/l1/lock", ""), "a place without a node");
    }
}
