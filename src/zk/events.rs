//! The ZooKeeper family's events in the history: what a simulated server records of its
//! tree and sessions, and how checkers read them back.

use crate::history::{Op, ServerEvent, WatchEvent};
use crate::zk::proto::EventType;
use serde::{Deserialize, Serialize};

/// The family's name, as checkers say they read its events.
pub const FAMILY: &str = "zookeeper";

/// What a simulated ZooKeeper server records in the history, one flat object tagged with
/// `op` (`znode_created`, `znode_deleted`, `session_expired`, `leading`, `reply_lost`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ZkEvent {
    /// A node was created.
    ZnodeCreated {
        /// The node's path, with any sequence suffix.
        path: String,
        /// The session whose create made it.
        session: i64,
    },
    /// A node was deleted: by a request, or with its owner's session.
    ZnodeDeleted {
        /// The node's path.
        path: String,
        /// The session whose delete removed it, or whose end (expiry, close) did.
        session: i64,
    },
    /// A session expired (its ephemerals are deleted next).
    SessionExpired {
        /// The session's id.
        session: i64,
    },
    /// An ensemble member won an election and started leading a new epoch.
    Leading {
        /// The epoch: the top half of every zxid it gives.
        epoch: u32,
    },
    /// The server dropped a client's connection instead of replying (a `lose_reply`
    /// fault): which request's reply was lost, as the fault names requests.
    ReplyLost {
        /// The client host.
        client: String,
        /// The request (`create`, `sync`, `get_children`).
        request: String,
    },
}

/// Tree changes are routine (a timeline tells them through the clients' acquires and
/// releases); an expired session, a new leader and a lost reply are news.
impl From<ZkEvent> for Op {
    fn from(event: ZkEvent) -> Op {
        Op::Server(match &event {
            ZkEvent::ReplyLost { client, request } => {
                let told =
                    format!("drops {client}'s connection instead of replying to its {request}");
                ServerEvent::new(&event).told(told)
            }
            ZkEvent::SessionExpired { .. } | ZkEvent::Leading { .. } => ServerEvent::new(&event),
            _ => ServerEvent::routine(&event),
        })
    }
}

/// Which way the tree changed at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZnodeChange {
    /// The node came into existence.
    Created,
    /// The node was deleted.
    Deleted,
}

/// The tree change `op` records, if it is one, with its path borrowed from the history.
pub fn znode_change(op: &Op) -> Option<(ZnodeChange, &str)> {
    let Op::Server(event) = op else {
        return None;
    };
    let change = match event.op.as_str() {
        "znode_created" => ZnodeChange::Created,
        "znode_deleted" => ZnodeChange::Deleted,
        _ => return None,
    };
    Some((change, event.fields.get("path")?.as_str()?))
}

impl From<EventType> for WatchEvent {
    fn from(event: EventType) -> WatchEvent {
        match event {
            EventType::None => WatchEvent::None,
            EventType::NodeCreated => WatchEvent::NodeCreated,
            EventType::NodeDeleted => WatchEvent::NodeDeleted,
            EventType::NodeDataChanged => WatchEvent::NodeDataChanged,
            EventType::NodeChildrenChanged => WatchEvent::NodeChildrenChanged,
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_changes_read_back_as_recorded_and_nothing_else_does() {
        let created: Op = ZkEvent::ZnodeCreated {
            path: "/l/a".into(),
            session: 7,
        }
        .into();
        let deleted: Op = ZkEvent::ZnodeDeleted {
            path: "/l/b".into(),
            session: 7,
        }
        .into();
        let expired: Op = ZkEvent::SessionExpired { session: 7 }.into();
        assert_eq!(znode_change(&created), Some((ZnodeChange::Created, "/l/a")));
        assert_eq!(znode_change(&deleted), Some((ZnodeChange::Deleted, "/l/b")));
        assert_eq!(znode_change(&expired), None);
        let Op::Server(event) = &expired else {
            panic!("a server event: {expired:?}")
        };
        assert_eq!(
            event.read::<ZkEvent>(),
            Some(ZkEvent::SessionExpired { session: 7 })
        );
    }

    #[test]
    fn the_history_json_is_one_flat_object_tagged_with_the_op() {
        let op: Op = ZkEvent::ZnodeCreated {
            path: "/l/a".into(),
            session: 7,
        }
        .into();
        assert_eq!(
            serde_json::to_string(&op).unwrap(),
            r#"{"op":"znode_created","path":"/l/a","session":7}"#
        );
    }
}
