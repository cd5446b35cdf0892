//! Taking a zxid for a write and applying it. A server takes a zxid for a write
//! ([`Replica::propose`]) and applies writes in zxid order ([`Replica::commit`]); applying
//! a write is deterministic, so every server that applies the same log holds the same tree,
//! and each fires the watches of its own connections.
//!
//! ZooKeeper's leader turns a request into a txn against its outstanding changes
//! (`PrepRequestProcessor`) and every server applies the txn (`DataTree.processTxn`). Here
//! the request itself is the txn: checked against the tree the earlier writes leave, it
//! fails or succeeds where 3.8's prep would, as a failed write still takes its zxid there.

use std::rc::Rc;

use super::ids::{ConnId, Now};
use super::output::{Change, Output};
use super::replica::Replica;
use super::requests::txn;
use super::write::{Write, WriteOp};
use crate::zk::acl::AuthId;
use crate::zk::proto::{ErrorCode, Response};

impl Replica {
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
        let result = match op {
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
            WriteOp::DeleteContainer { path } => match self.tree.delete_container(&path, zxid) {
                Ok(()) => {
                    self.deleted(&path, 0, zxid, out);
                    Ok(Response::Delete)
                }
                Err(err) => Err(err),
            },
        };
        if let Some(misses) = &mut self.near_misses {
            misses.margins(now.mono_ms, out);
        }
        result
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
