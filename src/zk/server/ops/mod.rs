//! The server's side of the op table: one file per family, as `zk::proto::ops` has them
//! (reads, writes, watches, sessions, acls), each op one row ([`Serve`]: its code and its
//! handler) beside the handler. The codec's row of an op is in the proto family file of the
//! same name; the handlers are here because they import the server, which the codec must not.
//!
//! What a handler is depends on how 3.8 runs the op: answered at once before the session is
//! looked at (auth), read from the tree this server has applied, or a write that goes through
//! the log and is applied in zxid order (`commit`), where it fails or succeeds as 3.8's prep
//! stage would.

mod acls;
mod reads;
mod sessions;
#[cfg(test)]
mod tests;
mod watches;
mod writes;

use super::ids::ConnId;
use super::output::Output;
use super::replica::Replica;
use crate::zk::acl::AuthId;
use crate::zk::proto::{ErrorCode, OpCode, Request, Response};
use crate::zk::tree::Txn;

/// Who asks a read: the connection (its watches), its session, and its identities (ACLs).
pub(super) struct Asker<'a> {
    pub(super) conn: ConnId,
    pub(super) session: i64,
    pub(super) who: &'a [AuthId],
}

/// A handler's result: the reply's body, or its error code.
type Reply = Result<Response, ErrorCode>;

/// How a row's op is run.
#[derive(Clone, Copy)]
pub(super) enum Run {
    /// Answered at once with its outputs, before the session is looked at or the request
    /// ordered with the session's others (the connection, its xid, the request).
    AtOnce(fn(&mut Replica, ConnId, i32, Request) -> Vec<Output>),
    /// Answered from the tree this server has applied, firing into the outputs what it must.
    Read(fn(&mut Replica, &Asker<'_>, Request, &mut Vec<Output>) -> Reply),
    /// A change of the replicated state: it takes a zxid and is applied as the txn given.
    Write(fn(&mut Replica, Txn<'_>, Request, &mut Vec<Output>) -> Reply),
}

/// One row: an op and its handler.
pub(super) struct Serve {
    op: OpCode,
    run: Run,
}

/// A row for `op`, run by `run`.
const fn serve(op: OpCode, run: Run) -> Serve {
    Serve { op, run }
}

/// Every family's rows. No op is in two rows, so the order decides nothing.
static TABLE: &[&[Serve]] = &[
    reads::OPS,
    writes::OPS,
    watches::OPS,
    sessions::OPS,
    acls::OPS,
];

/// How `req` is run; None for an op without a row (a test checks there is none).
pub(super) fn run_of(req: &Request) -> Option<Run> {
    let op = req.op();
    TABLE
        .iter()
        .flat_map(|rows| rows.iter())
        .find(|row| row.op == op)
        .map(|row| row.run)
}

/// Whether `req` changes the replicated state, and so goes through the log.
pub fn is_write(req: &Request) -> bool {
    matches!(run_of(req), Some(Run::Write(_)))
}

/// What a handler answers when handed another op's request, which the table never does.
const NOT_MINE: ErrorCode = ErrorCode::MarshallingError;

impl Replica {
    /// Runs one request that is not a write for `session` on `conn`, against the tree this
    /// server has applied.
    pub(super) fn read_request(
        &mut self,
        conn: ConnId,
        session: i64,
        req: Request,
        out: &mut Vec<Output>,
    ) -> Reply {
        let who = self.who(conn);
        let asker = Asker {
            conn,
            session,
            who: &who,
        };
        match run_of(&req) {
            Some(Run::Read(read)) => read(self, &asker, req, out),
            // `handle_request` answers an auth before a session is looked at, and sends
            // writes to `commit`.
            _ => Err(NOT_MINE),
        }
    }

    /// A write request, applied as the txn `txn`.
    pub(super) fn apply_write(
        &mut self,
        txn: Txn<'_>,
        req: Request,
        out: &mut Vec<Output>,
    ) -> Reply {
        match run_of(&req) {
            Some(Run::Write(write)) => write(self, txn, req, out),
            _ => Err(NOT_MINE),
        }
    }
}
