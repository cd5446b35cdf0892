//! Herd effect: one lock-node deletion should wake at most one waiting client (Z3, Z12).
//!
//! A Wake is attributed to the latest earlier server change that could have fired it: a
//! NodeDeleted on P to the latest deletion of P; a NodeChildrenChanged on D to the latest
//! creation or deletion of a direct child of D. Other watch events (data changes, session
//! events) are not caused by a deletion and are ignored. Wakes attributed to a creation are
//! not counted: the property is wake-ups per deletion.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{History, LockOp, Op};
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
    for (index, event) in history.events.iter().enumerate() {
        match (&event.op, znode_change(&event.op)) {
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
                Op::Lock(LockOp::Wake {
                    path, event: kind, ..
                }),
                _,
            ) => {
                let cause = match kind.as_str() {
                    "NodeDeleted" => deletions.get(path.as_str()).copied(),
                    "NodeChildrenChanged" => child_changes.get(path.as_str()).copied().flatten(),
                    _ => None,
                };
                if let Some(deletion) = cause {
                    woken.entry(deletion).or_default().insert(&event.node);
                }
            }
            _ => {}
        }
    }
    woken
        .into_iter()
        .filter(|(_, clients)| clients.len() > 1)
        .map(|(deletion, clients)| {
            let clients: Vec<String> = clients.into_iter().map(str::to_string).collect();
            Violation {
                property: Property::Herd,
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
        Property::Herd
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
        h.at(1501, "c3").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1501, "c2").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1502, "c4").info(wake(L1, L1, "NodeChildrenChanged"));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].property, Property::Herd);
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
        h.at(1501, "c2").info(wake(L1, N1, "NodeDeleted"));
        h.at(1501, "c3").info(wake(L1, N1, "NodeDeleted"));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].clients, ["c2", "c3"]);
    }

    #[test]
    fn one_client_woken_twice_by_one_deletion_counts_once() {
        let mut h = HistoryBuilder::default();
        h.at(1500, "zk1").info(deleted(N1));
        h.at(1501, "c2").info(wake(L1, N1, "NodeDeleted"));
        h.at(1501, "c2").info(wake(L1, L1, "NodeChildrenChanged"));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn each_deletion_waking_its_own_successor_is_fine() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "c2").info(wake(L1, N1, "NodeDeleted"));
        h.at(2000, "zk1").info(deleted(N2));
        h.at(2001, "c3").info(wake(L1, N2, "NodeDeleted"));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn wakes_caused_by_creations_or_other_events_are_not_counted() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "c2").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1100, "zk1").info(created(N3));
        h.at(1101, "c3").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1101, "c4").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1200, "c5").info(wake(L1, N1, "NodeDataChanged"));
        h.at(1200, "c6").info(wake(L1, "", "None"));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_deletion_elsewhere_does_not_take_the_blame() {
        let mut h = HistoryBuilder::default();
        h.at(1000, "zk1").info(deleted(N1));
        h.at(1001, "zk1").info(deleted("/locks/l2/lock-0000000001"));
        h.at(1002, "c2").info(wake(L1, L1, "NodeChildrenChanged"));
        h.at(1002, "c3").info(wake(L2, L2, "NodeChildrenChanged"));
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn parent_of_paths() {
        assert_eq!(parent("/locks/l1/n"), "/locks/l1");
        assert_eq!(parent("/locks"), "/");
    }
}
