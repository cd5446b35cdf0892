//! The pure decisions of the ZooKeeper shared lock (the recipes doc's read/write lock):
//! readers and writers queue under one directory with `read-` and `write-` nodes that share
//! the parent's sequence counter. A reader waits only behind writers, on the next-lower
//! `write-` node; a writer waits behind everyone, on the next-lower node of either kind. So a
//! writer's release wakes every reader queued between it and the next writer, and any other
//! release wakes at most one waiter. The lock driver (`recipes::zk::lock`) runs these through
//! `decide::Contender`, with the exclusive lock's GUID, watch and release handling.

use super::lock::decide::{Decision, queue};
use crate::history::LockMode;

/// Which shared lock the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipes-doc shared lock.
    Recipe,
    /// A reader also waits behind writers queued after it, once no lower writer is left
    /// (kazoo's ReadLock counted higher writers among its contenders, kazoo #649): the reader
    /// and the writer queued after it, which waits on it, wait for each other for ever (Z9).
    HigherWriter,
}

/// The name prefix of a node queued for `mode`.
pub fn prefix(mode: LockMode) -> &'static str {
    match mode {
        LockMode::Read => "read-",
        LockMode::Write => "write-",
    }
}

/// The mode a node was queued for, by its name (the part before the sequence number ends
/// in a mode's prefix); None for a node that is no contender of the shared lock.
pub fn mode_of(name: &str) -> Option<LockMode> {
    let head = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-');
    [LockMode::Read, LockMode::Write]
        .into_iter()
        .find(|&mode| head.ends_with(prefix(mode).trim_end_matches('-')))
}

/// What a contender queued for `mode` as `my_node` does after listing the directory.
pub fn decide(flavor: Flavor, mode: LockMode, my_node: &str, children: &[String]) -> Decision {
    let q = queue(children);
    let Some(mine) = q.iter().position(|(_, name)| *name == my_node) else {
        return Decision::NodeGone;
    };
    let blocks = |name: &str| mode == LockMode::Write || mode_of(name) == Some(LockMode::Write);
    let lower = q[..mine].iter().rev().find(|(_, name)| blocks(name));
    let higher = || {
        q[mine + 1..]
            .iter()
            .find(|(_, name)| mode == LockMode::Read && mode_of(name) == Some(LockMode::Write))
    };
    let behind = match flavor {
        Flavor::Recipe => lower,
        Flavor::HigherWriter => lower.or_else(higher),
    };
    match behind {
        None => Decision::Acquired,
        Some((_, name)) => Decision::WatchPredecessor(name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LockMode::{Read, Write};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// r1 < w2 < r3 < r4 < w5 < r6, GUID-prefixed and listed out of order.
    fn line() -> Vec<String> {
        names(&[
            "_c_f-read-0000000006",
            "_c_a-read-0000000001",
            "_c_d-read-0000000004",
            "_c_b-write-0000000002",
            "_c_e-write-0000000005",
            "_c_c-read-0000000003",
        ])
    }

    #[test]
    fn modes_are_read_from_the_names_guid_prefixed_or_not() {
        assert_eq!(mode_of("_c_a1-read-0000000001"), Some(Read));
        assert_eq!(mode_of("write-0000000002"), Some(Write));
        assert_eq!(mode_of("_c_a1-write--2147483648"), Some(Write));
        assert_eq!(mode_of("_c_a1-lock-0000000003"), None);
        assert_eq!(mode_of("_c_read-lock-0000000003"), None);
    }

    #[test]
    fn a_reader_waits_on_the_next_lower_writer_only() {
        let kids = line();
        let d = |me: &str| decide(Flavor::Recipe, Read, me, &kids);
        assert_eq!(d("_c_a-read-0000000001"), Decision::Acquired);
        let behind_w2 = Decision::WatchPredecessor("_c_b-write-0000000002".into());
        assert_eq!(d("_c_c-read-0000000003"), behind_w2);
        assert_eq!(d("_c_d-read-0000000004"), behind_w2, "not on the reader r3");
        assert_eq!(
            d("_c_f-read-0000000006"),
            Decision::WatchPredecessor("_c_e-write-0000000005".into())
        );
        assert_eq!(d("_c_z-read-0000000007"), Decision::NodeGone);
    }

    #[test]
    fn readers_with_no_lower_writer_all_hold_it_together() {
        let kids = names(&["read-0000000001", "read-0000000002", "write-0000000003"]);
        for me in ["read-0000000001", "read-0000000002"] {
            assert_eq!(decide(Flavor::Recipe, Read, me, &kids), Decision::Acquired);
        }
    }

    #[test]
    fn a_writer_waits_on_the_next_lower_node_of_either_kind() {
        let kids = line();
        let d = |me: &str| decide(Flavor::Recipe, Write, me, &kids);
        assert_eq!(
            d("_c_b-write-0000000002"),
            Decision::WatchPredecessor("_c_a-read-0000000001".into())
        );
        assert_eq!(
            d("_c_e-write-0000000005"),
            Decision::WatchPredecessor("_c_d-read-0000000004".into())
        );
        let alone = names(&["write-0000000009"]);
        assert_eq!(
            decide(Flavor::Recipe, Write, "write-0000000009", &alone),
            Decision::Acquired
        );
    }

    #[test]
    fn the_flawed_reader_waits_on_a_higher_writer_that_waits_on_it() {
        let kids = names(&["read-0000000001", "write-0000000002"]);
        assert_eq!(
            decide(Flavor::HigherWriter, Read, "read-0000000001", &kids),
            Decision::WatchPredecessor("write-0000000002".into())
        );
        assert_eq!(
            decide(Flavor::HigherWriter, Write, "write-0000000002", &kids),
            Decision::WatchPredecessor("read-0000000001".into()),
            "a deadlock"
        );
        assert_eq!(
            decide(Flavor::Recipe, Read, "read-0000000001", &kids),
            Decision::Acquired
        );
    }
}
