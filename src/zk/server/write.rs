//! Writes as a log carries them. Every change to the replicated state (the tree and the
//! session table) is one [`Write`]: its zxid, who wrote it and when, and what it does.

use std::rc::Rc;

use super::ids::Origin;
use crate::zk::acl::AuthId;
use crate::zk::proto::{ErrorCode, Request};

/// One write of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    pub zxid: i64,
    /// The session that wrote it (0 for the server's own: the reaper's deletes).
    pub session: i64,
    /// The proposing server's wall clock: nodes' ctime and mtime, TTL ages.
    pub wall_ms: i64,
    /// The writer's identities, against which the tree checks ACLs.
    pub who: Rc<Vec<AuthId>>,
    pub op: WriteOp,
    /// Where the request came in, in an ensemble: that server answers it once applied.
    pub origin: Option<Origin>,
}

/// What a write does.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// A client's write request (create in every form, delete, setData, setACL, multi,
    /// closeSession, reconfig).
    Request(Request),
    /// A write refused as it was read: it fails with this code and takes its zxid.
    Refused(ErrorCode),
    /// A new session with this negotiated timeout and password.
    CreateSession { timeout_ms: u64, passwd: [u8; 16] },
    /// The session's deadline passed: it and its ephemerals go.
    ExpireSession,
    /// The reaper deletes an empty container or an expired TTL node.
    DeleteContainer { path: String },
}
