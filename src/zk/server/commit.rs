//! Writes as a log carries them. Every change to the replicated state (the tree and the
//! session table) is one [`Write`]: its zxid, who wrote it and when, and what it does. A
//! server takes a zxid for a write ([`Server::propose`]) and applies writes in zxid order
//! ([`Server::commit`]); applying a write is deterministic, so every server that applies the
//! same log holds the same tree, and each fires the watches of its own connections.
//!
//! ZooKeeper's leader turns a request into a txn against its outstanding changes
//! (`PrepRequestProcessor`) and every server applies the txn (`DataTree.processTxn`). Here
//! the request itself is the txn: checked against the tree the earlier writes leave, it
//! fails or succeeds where 3.8's prep would, as a failed write still takes its zxid there.

use std::rc::Rc;

use super::ensemble::Origin;
use super::requests::txn;
use super::{Change, ConnId, Now, Output, Server};
use crate::zk::acl::AuthId;
use crate::zk::proto::{ErrorCode, Request, Response};

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

pub use super::ops::is_write;

impl Server {
    /// Takes the next zxid for `op`, written by `session` with identities `who` at `now`.
    pub(super) fn propose(
        &mut self,
        now: Now,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: WriteOp,
    ) -> Write {
        Write {
            zxid: self.next_zxid(),
            session,
            wall_ms: now.wall_ms,
            who,
            op,
            origin: None,
        }
    }

    /// Applies `write`, the next in zxid order, firing this server's watches into `out`;
    /// the result is the reply a request write's client gets. `now` is this server's clock
    /// (a new session's first deadline).
    pub(super) fn commit(
        &mut self,
        now: Now,
        write: Write,
        out: &mut Vec<Output>,
    ) -> Result<Response, ErrorCode> {
        self.last_zxid = self.last_zxid.max(write.zxid);
        let Write {
            zxid,
            session,
            wall_ms,
            who,
            op,
            ..
        } = write;
        let txn = txn(wall_ms, session, zxid, &who);
        match op {
            WriteOp::Request(req) => self.apply_write(txn, req, out),
            WriteOp::Refused(err) => Err(err),
            WriteOp::CreateSession { timeout_ms, passwd } => {
                self.sessions
                    .insert(session, timeout_ms, passwd, now.mono_ms);
                Ok(Response::Ping)
            }
            WriteOp::ExpireSession => {
                let conn = self.sessions.remove(session).and_then(|s| s.conn);
                if let Some(conn) = conn {
                    self.detach(conn);
                }
                out.push(Output::Changed(Change::SessionExpired { session, zxid }));
                self.kill_session(session, zxid, out);
                if let Some(conn) = conn {
                    out.push(Output::Close { conn });
                }
                Ok(Response::CloseSession)
            }
            WriteOp::DeleteContainer { path } => {
                self.tree.delete_container(&path, zxid)?;
                self.deleted(&path, 0, zxid, out);
                Ok(Response::Delete)
            }
        }
    }

    /// Takes a zxid for `op` from `conn`'s session and applies it at once, as a server
    /// that is the whole ensemble does.
    pub(super) fn write_now(
        &mut self,
        now: Now,
        conn: ConnId,
        session: i64,
        op: WriteOp,
        out: &mut Vec<Output>,
    ) -> Result<Response, ErrorCode> {
        let write = self.propose(now, session, self.who(conn), op);
        self.commit(now, write, out)
    }
}
