//! Whose session expired, told from the history. The server records a session's expiry by
//! its number and its ephemeral nodes' deletions as routine; a story needs the client that
//! owned it (CURATOR-498 is about a client whose old session's node goes when that session
//! expires). The history does not record which client's handshake got which session, so it
//! is read back from what does name both: a node the session created (`znode_created`) that
//! a client names as its own (its place in a lock's line, its candidacy, its barrier node),
//! and a client's reads and writes that carry their session. Nothing more is recorded, so no
//! history and no digest changes. A session two clients claim is told by its number alone.

use crate::history::{BarrierOp, ClientOp, ElectionOp, Event, LockOp, Op};
use crate::zk::events::ZkEvent;
use std::collections::BTreeMap;

/// How a timeline tells each `session_expired` of `events`, by its index: whose session it
/// was, where the history says, and the ephemeral nodes its expiry deleted.
/// `c4's session 0x100000000000003 expired; its ephemeral /lock/_c_…-lock-0000000003 deleted`.
pub(crate) fn retell(events: &[Event]) -> BTreeMap<usize, Option<String>> {
    let owners = owners(events);
    let read = |e: &Event| match &e.op {
        Op::Server(event) => event.read::<ZkEvent>(),
        _ => None,
    };
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let Some(ZkEvent::SessionExpired { session }) = read(e) else {
                return None;
            };
            let deleted: Vec<String> = events[i + 1..]
                .iter()
                .take_while(|d| d.time_ms == e.time_ms)
                .filter_map(|d| match read(d) {
                    Some(ZkEvent::ZnodeDeleted { path, session: s }) if s == session => Some(path),
                    _ => None,
                })
                .collect();
            let whose = match owners.get(&session) {
                Some(Some(client)) => format!("{client}'s "),
                _ => String::new(),
            };
            let ephemerals = match deleted.as_slice() {
                [] => String::new(),
                [one] => format!("; its ephemeral {one} deleted"),
                many => format!("; its ephemerals {} deleted", many.join(", ")),
            };
            Some((
                i,
                Some(format!("{whose}session 0x{session:x} expired{ephemerals}")),
            ))
        })
        .collect()
}

/// Each session some client claims, with that client (None: two clients claim it).
fn owners(events: &[Event]) -> BTreeMap<i64, Option<String>> {
    let mut created: BTreeMap<String, i64> = BTreeMap::new();
    let mut owners: BTreeMap<i64, Option<String>> = BTreeMap::new();
    for e in events {
        let session = match &e.op {
            Op::Server(event) => {
                if let Some(ZkEvent::ZnodeCreated { path, session }) = event.read() {
                    created.insert(path, session);
                }
                continue;
            }
            Op::Client(
                ClientOp::DataRead { session, .. } | ClientOp::DataWritten { session, .. },
            ) => Some(*session),
            Op::Lock(LockOp::Enqueued {
                lock: dir, node, ..
            })
            | Op::Election(ElectionOp::Candidate {
                election: dir,
                node,
                ..
            }) => created.get(&within(dir, node)).copied(),
            Op::Barrier(BarrierOp::Joined { node, .. }) => created.get(node).copied(),
            _ => None,
        };
        if let Some(session) = session {
            owners
                .entry(session)
                .and_modify(|owner| {
                    if owner.as_ref() != Some(&e.node) {
                        *owner = None;
                    }
                })
                .or_insert_with(|| Some(e.node.clone()));
        }
    }
    owners
}

/// The path of node `name` in the directory `dir` (a name that is a path already stays).
fn within(dir: &str, name: &str) -> String {
    if name.starts_with('/') {
        name.to_string()
    } else {
        format!("{}/{name}", dir.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::event;
    use crate::history::Kind;

    fn server(at: u64, event: ZkEvent) -> Event {
        crate::check::test_history::event(at, "zk1", Kind::Info, event.into())
    }

    fn enqueued(at: u64, client: &str, node: &str) -> Event {
        let op = LockOp::Enqueued {
            lock: "/l".into(),
            node: node.into(),
            seq: None,
            mode: None,
        };
        event(at, client, Kind::Info, Op::Lock(op))
    }

    fn created(at: u64, path: &str, session: i64) -> Event {
        let path = path.into();
        server(at, ZkEvent::ZnodeCreated { path, session })
    }

    fn deleted(at: u64, path: &str, session: i64) -> Event {
        let path = path.into();
        server(at, ZkEvent::ZnodeDeleted { path, session })
    }

    #[test]
    fn an_expiry_names_the_client_whose_node_the_session_made_and_its_ephemerals() {
        let events = [
            created(1, "/l/n-1", 0x101),
            enqueued(2, "c2", "n-1"),
            created(3, "/l/n-2", 0x102),
            server(50, ZkEvent::SessionExpired { session: 0x101 }),
            deleted(50, "/l/n-1", 0x101),
            deleted(50, "/l/n-2", 0x102),
            deleted(51, "/l/n-3", 0x101),
            server(60, ZkEvent::SessionExpired { session: 0x102 }),
        ];
        assert_eq!(
            retell(&events).into_iter().collect::<Vec<_>>(),
            [
                (
                    3,
                    Some("c2's session 0x101 expired; its ephemeral /l/n-1 deleted".into())
                ),
                (7, Some("session 0x102 expired".into())),
            ]
        );
    }

    #[test]
    fn a_session_is_a_clients_by_its_reads_and_its_nodes_and_nobodys_when_two_claim_it() {
        let read = |client: &str, session| {
            let op = ClientOp::DataRead {
                path: "/n".into(),
                session,
                mzxid: 1,
            };
            event(1, client, Kind::Info, Op::Client(op))
        };
        let events = [
            read("c1", 7),
            created(2, "/l/n-1", 8),
            enqueued(3, "c2", "n-1"),
            created(4, "/l/n-2", 8),
            enqueued(5, "c3", "n-2"),
            read("c1", 7),
        ];
        assert_eq!(
            owners(&events).into_iter().collect::<Vec<_>>(),
            [(7, Some("c1".into())), (8, None)]
        );
    }
}
