//! Read-your-writes: within a session, a read never shows a znode older than the session has
//! already seen it, by its own write or an earlier read. ZooKeeper promises it across a
//! session's moves between servers (its single system image): a server that has applied less
//! than the client's last-seen zxid refuses the connection. A client that resumes with a wrong
//! last-seen zxid is taken by a lagging follower and reads the past there (Z16).
//!
//! It reads what recipes record of their reads and writes of a znode's data (`DataRead`,
//! `DataWritten`): the version of the node each saw, as the mzxid of the write that left it.
//! A new session starts with nothing seen: ZooKeeper promises nothing across sessions.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{ClientOp, History, Op};
use std::collections::BTreeMap;

/// What a session has seen of a znode: the newest version, when, and how.
#[derive(Debug, Clone, Copy)]
struct Seen {
    mzxid: i64,
    time_ms: u64,
    by_write: bool,
}

/// One violation per read older than what its session had seen; `clients` is `[reader]`,
/// `times_ms` is `[the read, when the session saw the newer version]`.
pub fn check(history: &History) -> Vec<Violation> {
    // (client, session, path) -> the newest version the session has seen
    let mut seen: BTreeMap<(&str, i64, &str), Seen> = BTreeMap::new();
    let mut violations = Vec::new();
    for event in &history.events {
        let (path, session, mzxid, by_write) = match &event.op {
            Op::Client(ClientOp::DataRead {
                path,
                session,
                mzxid,
            }) => (path, *session, *mzxid, false),
            Op::Client(ClientOp::DataWritten {
                path,
                session,
                mzxid,
            }) => (path, *session, *mzxid, true),
            _ => continue,
        };
        let client = event.node.as_str();
        let key = (client, session, path.as_str());
        match seen.get(&key) {
            Some(before) if !by_write && mzxid < before.mzxid => {
                let how = if before.by_write {
                    "its own write"
                } else {
                    "a read"
                };
                violations.push(Violation {
                    property: Property::READ_YOUR_WRITES,
                    clients: vec![client.to_string()],
                    times_ms: vec![event.time_ms, before.time_ms],
                    detail: format!(
                        "{client} read {path} at {} ms as of zxid {mzxid:#x}, older than it had \
                         seen it in the same session ({how} at {} ms, zxid {:#x}): the read \
                         went back in time",
                        event.time_ms, before.time_ms, before.mzxid
                    ),
                });
            }
            Some(before) if mzxid <= before.mzxid => {}
            _ => {
                seen.insert(
                    key,
                    Seen {
                        mzxid,
                        time_ms: event.time_ms,
                        by_write,
                    },
                );
            }
        }
    }
    violations
}

/// The checker of `Property::READ_YOUR_WRITES`.
pub struct ReadYourWrites;

impl Checker for ReadYourWrites {
    fn property(&self) -> Property {
        Property::READ_YOUR_WRITES
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Client]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::HistoryBuilder;

    const PATH: &str = "/locksim/counter";

    fn read(session: i64, mzxid: i64) -> Op {
        Op::Client(ClientOp::DataRead {
            path: PATH.into(),
            session,
            mzxid,
        })
    }

    fn wrote(session: i64, mzxid: i64) -> Op {
        Op::Client(ClientOp::DataWritten {
            path: PATH.into(),
            session,
            mzxid,
        })
    }

    #[test]
    fn a_read_older_than_the_sessions_own_write_is_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(10, "c1").info(read(7, 3));
        h.at(20, "c1").info(wrote(7, 9));
        h.at(30, "c1").info(read(7, 5));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, vec!["c1"]);
        assert_eq!(v[0].times_ms, vec![30, 20]);
        assert!(
            v[0].detail.contains("its own write at 20 ms"),
            "{}",
            v[0].detail
        );
    }

    #[test]
    fn a_read_older_than_an_earlier_read_is_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(10, "c1").info(read(7, 6));
        h.at(30, "c1").info(read(7, 4));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].detail.contains("a read at 10 ms"), "{}", v[0].detail);
    }

    #[test]
    fn other_sessions_and_other_clients_and_newer_reads_are_free() {
        let mut h = HistoryBuilder::default();
        h.at(10, "c1").info(wrote(7, 9));
        // A new session of c1 promises nothing about what the old one saw.
        h.at(20, "c1").info(read(8, 4));
        // c2 never saw zxid 9.
        h.at(30, "c2").info(read(5, 2));
        h.at(40, "c1").info(read(7, 9));
        h.at(50, "c1").info(read(7, 12));
        assert!(check(&h.build()).is_empty());
    }
}
