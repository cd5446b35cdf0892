//! Herd effect: one lock-node deletion should wake at most one waiting client (Z3, Z12),
//! except the one wake-up a shared lock legitimately causes: a writer's release wakes every
//! reader queued behind it (they then hold it together). A deletion of a node queued as a
//! writer's (its Enqueued says mode write) that woke only clients waiting as readers is
//! therefore no herd. A node whose owner never heard its create answered (the reply lost,
//! then its session) has no Enqueued: its name tells its mode (`rwlock::mode_of`).
//!
//! A Wake is attributed to the latest earlier server change that could have fired it: a
//! NodeDeleted on P to the latest deletion of P; a NodeChildrenChanged on D to the latest
//! creation or deletion of a direct child of D. Other watch events (data changes, session
//! events) are not caused by a deletion and are ignored. Wakes attributed to a creation are
//! not counted: the property is wake-ups per deletion. A NodeChildrenChanged wake on a
//! watch that the client set with a listing of none (a queue consumer's `Empty`) is caused
//! by a creation, whatever changed after it: the first change to a directory without
//! children is one.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{ClientOp, History, LockMode, LockOp, Op, QueueOp, WatchEvent};
use crate::recipes::zk::rwlock;
use crate::zk;
use crate::zk::events::{ZnodeChange, znode_change};
use std::collections::{BTreeMap, BTreeSet};

/// One violation per deletion that woke more than one distinct client, in history order;
/// `clients` are the woken ones (sorted) and `times_ms` is the deletion's time.
pub fn check(history: &History) -> Vec<Violation> {
    // path -> its latest deletion
    let mut deletions: BTreeMap<&str, Deletion> = BTreeMap::new();
    // directory -> the latest deletion of a child, None if the latest change was a creation
    let mut child_changes: BTreeMap<&str, Option<Deletion>> = BTreeMap::new();
    // the clients each deletion woke, in history order of the deletions
    let mut woken: BTreeMap<Deletion, BTreeSet<&str>> = BTreeMap::new();
    // bare node name -> the mode it was queued for; client -> the mode it waits for
    let mut node_modes: BTreeMap<&str, LockMode> = BTreeMap::new();
    let mut waiting_as: BTreeMap<&str, Option<LockMode>> = BTreeMap::new();
    // the deletions of writers' nodes that woke only readers
    let mut readers_only: BTreeMap<Deletion, bool> = BTreeMap::new();
    // (client, directory) whose children watch was set by a listing of none
    let mut set_on_empty: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (index, event) in history.events.iter().enumerate() {
        match (&event.op, znode_change(&event.op)) {
            (Op::Lock(LockOp::Enqueued { node, mode, .. }), _) => {
                if let Some(mode) = mode {
                    node_modes.insert(node, *mode);
                }
                waiting_as.insert(&event.node, *mode);
            }
            (Op::Queue(QueueOp::Empty { queue }), _) => {
                set_on_empty.insert((&event.node, queue));
            }
            (_, Some((ZnodeChange::Deleted, path))) => {
                let deletion = Deletion {
                    index,
                    time_ms: event.time_ms,
                    path,
                };
                deletions.insert(path, deletion);
                child_changes.insert(parent(path), Some(deletion));
            }
            (_, Some((ZnodeChange::Created, path))) => {
                child_changes.insert(parent(path), None);
            }
            (
                Op::Client(ClientOp::Wake {
                    path, event: kind, ..
                }),
                _,
            ) => {
                let on_empty = set_on_empty.remove(&(event.node.as_str(), path.as_str()));
                let cause = match kind {
                    WatchEvent::NodeDeleted => deletions.get(path.as_str()).copied(),
                    WatchEvent::NodeChildrenChanged if on_empty => None,
                    WatchEvent::NodeChildrenChanged => {
                        child_changes.get(path.as_str()).copied().flatten()
                    }
                    _ => None,
                };
                if let Some(deletion) = cause {
                    woken.entry(deletion).or_default().insert(&event.node);
                    let node = bare_name(deletion.path);
                    let mode = node_modes
                        .get(node)
                        .copied()
                        .or_else(|| rwlock::mode_of(node));
                    let writers_node = mode == Some(LockMode::Write);
                    let reader = waiting_as.get(event.node.as_str()) == Some(&Some(LockMode::Read));
                    let all = readers_only.entry(deletion).or_insert(true);
                    *all &= writers_node && reader;
                }
            }
            _ => {}
        }
    }
    woken
        .into_iter()
        .filter(|(deletion, clients)| clients.len() > 1 && !readers_only[deletion])
        .map(|(deletion, clients)| {
            let clients: Vec<String> = clients.into_iter().map(str::to_string).collect();
            Violation {
                property: Property::HERD,
                detail: format!(
                    "deletion of {} at {} ms woke {} clients: {}",
                    deletion.path,
                    deletion.time_ms,
                    clients.len(),
                    clients.join(", ")
                ),
                clients,
                times_ms: vec![deletion.time_ms],
            }
        })
        .collect()
}

/// A ZnodeDeleted event; ordered by its place in the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Deletion<'a> {
    index: usize,
    time_ms: u64,
    path: &'a str,
}

/// The last component of `path`.
fn bare_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The directory holding `path` ("/" for top-level nodes).
fn parent(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((dir, _)) => dir,
    }
}

/// The `herd` property's checker.
pub struct Herd;

impl Checker for Herd {
    fn property(&self) -> Property {
        Property::HERD
    }

    fn reads(&self) -> &'static [Reads] {
        &[
            Reads::Lock,
            Reads::Queue,
            Reads::Client,
            Reads::Server(zk::events::FAMILY),
        ]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::zk::seq;

    const N1: &str = "/locks/l1/lock-0000000001";
    const N2: &str = "/locks/l1/lock-0000000002";
    const N3: &str = "/locks/l1/lock-0000000003";

    #[test]
    fn children_watchers_all_woken_by_one_release_is_a_herd() {
        // Z3: every waiter watches the lock directory's children.
        let mut h = HistoryBuilder::default();
        h.at(10, "zk1").info(created(N1));
        h.at(11, "zk1").info(created(N2));
        h.at(12, "zk1").info(created(N3));
        h.at(1500, "zk1").info(deleted(N1));
        h.at(1501, "c3")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1501, "c2")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1502, "c4")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].property, Property::HERD);
        assert_eq!(v[0].clients, ["c2", "c3", "c4"]);
        assert_eq!(v[0].times_ms, [1500]);
        assert_eq!(
            v[0].detail,
            "deletion of /locks/l1/lock-0000000001 at 1500 ms woke 3 clients: c2, c3, c4"
        );
    }

    #[test]
    fn everyone_watching_the_lowest_node_is_a_herd() {
        // Z12's herd: exists-watches on the same node.
        let mut h = HistoryBuilder::default();
        h.at(1500, "zk1").info(deleted(N1));
        h.at(1501, "c2").info(wake(L1, N1, WatchEvent::NodeDeleted));
        h.at(1501, "c3").info(wake(L1, N1, WatchEvent::NodeDeleted));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].clients, ["c2", "c3"]);
    }

    #[test]
    fn one_client_woken_twice_by_one_deletion_counts_once() {
        let mut h = HistoryBuilder::default();
        h.at(1500, "zk1").info(deleted(N1));
        h.at(1501, "c2").info(wake(L1, N1, WatchEvent::NodeDeleted));
        h.at(1501, "c2")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn each_deletion_waking_its_own_successor_is_fine() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "c2").info(wake(L1, N1, WatchEvent::NodeDeleted));
        h.at(2000, "zk1").info(deleted(N2));
        h.at(2001, "c3").info(wake(L1, N2, WatchEvent::NodeDeleted));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn wakes_caused_by_creations_or_other_events_are_not_counted() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "c2")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1100, "zk1").info(created(N3));
        h.at(1101, "c3")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1101, "c4")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1200, "c5")
            .info(wake(L1, N1, WatchEvent::NodeDataChanged));
        h.at(1200, "c6").info(wake(L1, "", WatchEvent::None));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_deletion_elsewhere_does_not_take_the_blame() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "zk1").info(deleted("/locks/l2/lock-0000000001"));
        h.at(1002, "c2")
            .info(wake(L1, L1, WatchEvent::NodeChildrenChanged));
        h.at(1002, "c3")
            .info(wake(L2, L2, WatchEvent::NodeChildrenChanged));
        assert_eq!(check(&h.build()), []);
    }

    fn enqueued_as(node: &str, mode: LockMode) -> Op {
        Op::Lock(LockOp::Enqueued {
            lock: L1.into(),
            node: node.into(),
            seq: seq::parse(node),
            mode: Some(mode),
        })
    }

    /// w1 holds; r2 and r3 wait on it as readers; w4 waits on r3 as a writer; c5 queued as
    /// `c5_mode` waits on w1 too.
    fn shared_line(c5_mode: LockMode) -> HistoryBuilder {
        let mut h = HistoryBuilder::default();
        let w1 = "/locks/l1/write-0000000001";
        h.at(10, "c1")
            .info(enqueued_as("write-0000000001", LockMode::Write));
        h.at(11, "c2")
            .info(enqueued_as("read-0000000002", LockMode::Read));
        h.at(12, "c3")
            .info(enqueued_as("read-0000000003", LockMode::Read));
        h.at(13, "c4")
            .info(enqueued_as("write-0000000004", LockMode::Write));
        h.at(14, "c5").info(enqueued_as("read-0000000005", c5_mode));
        h.at(100, "zk1").info(deleted(w1));
        h.at(101, "c2").info(wake(L1, w1, WatchEvent::NodeDeleted));
        h.at(101, "c3").info(wake(L1, w1, WatchEvent::NodeDeleted));
        h
    }

    #[test]
    fn a_writers_release_may_wake_every_reader_behind_it() {
        let h = shared_line(LockMode::Read);
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_writers_release_waking_a_writer_too_or_a_readers_waking_two_is_a_herd() {
        let mut h = shared_line(LockMode::Write);
        h.at(101, "c5").info(wake(
            L1,
            "/locks/l1/write-0000000001",
            WatchEvent::NodeDeleted,
        ));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c2", "c3", "c5"]);

        let r3 = "/locks/l1/read-0000000003";
        let mut h = shared_line(LockMode::Read);
        h.at(200, "zk1").info(deleted(r3));
        h.at(201, "c4").info(wake(L1, r3, WatchEvent::NodeDeleted));
        h.at(201, "c5").info(wake(L1, r3, WatchEvent::NodeDeleted));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c4", "c5"]);
        assert_eq!(v[0].times_ms, [200]);
    }

    #[test]
    fn a_writers_node_its_owner_never_heard_of_may_wake_every_reader_behind_it() {
        // w1's create reply was lost and its session then expired: no Enqueued names it,
        // and its name says it is a writer's.
        let mut h = HistoryBuilder::default();
        let w1 = "/locks/l1/_c_9-write-0000000001";
        h.at(11, "c2")
            .info(enqueued_as("read-0000000002", LockMode::Read));
        h.at(12, "c3")
            .info(enqueued_as("read-0000000003", LockMode::Read));
        h.at(100, "zk1").info(deleted(w1));
        h.at(101, "c2").info(wake(L1, w1, WatchEvent::NodeDeleted));
        h.at(101, "c3").info(wake(L1, w1, WatchEvent::NodeDeleted));
        assert_eq!(check(&h.build()), []);
        // An exclusive lock's node is still one wake-up per deletion.
        let l1 = "/locks/l1/_c_9-lock-0000000001";
        h.at(200, "zk1").info(deleted(l1));
        h.at(201, "c2").info(wake(L1, l1, WatchEvent::NodeDeleted));
        h.at(201, "c3").info(wake(L1, l1, WatchEvent::NodeDeleted));
        assert_eq!(check(&h.build()).len(), 1);
    }

    fn listed_empty(queue: &str) -> Op {
        Op::Queue(QueueOp::Empty {
            queue: queue.into(),
        })
    }

    #[test]
    fn consumers_woken_on_a_watch_set_by_an_empty_listing_were_woken_by_the_offer() {
        // c2 and c3 listed the queue empty; an offer fires both watches, and c4 takes the
        // item before their wake-ups arrive: the deletion is not what woke them.
        let q = "/q";
        let mut h = HistoryBuilder::default();
        h.at(10, "c2").info(listed_empty(q));
        h.at(11, "c3").info(listed_empty(q));
        h.at(20, "zk1").info(created("/q/qn-0000000001"));
        h.at(24, "zk1").info(deleted("/q/qn-0000000001"));
        h.at(25, "c2")
            .info(wake(q, q, WatchEvent::NodeChildrenChanged));
        h.at(25, "c3")
            .info(wake(q, q, WatchEvent::NodeChildrenChanged));
        assert_eq!(check(&h.build()), []);
        // Their next wake-ups, on watches set by listings that were not empty, count.
        h.at(30, "zk1").info(deleted("/q/qn-0000000002"));
        h.at(31, "c2")
            .info(wake(q, q, WatchEvent::NodeChildrenChanged));
        h.at(31, "c3")
            .info(wake(q, q, WatchEvent::NodeChildrenChanged));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c2", "c3"]);
        assert_eq!(v[0].times_ms, [30]);
    }

    #[test]
    fn parent_of_paths() {
        assert_eq!(parent("/locks/l1/n"), "/locks/l1");
        assert_eq!(parent("/locks"), "/");
    }
}
