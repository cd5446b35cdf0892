//! The session ops: ping, and closeSession, a write that ends the session and deletes its
//! ephemeral nodes (the connection is closed after the reply).

use super::{NOT_MINE, Run, Serve, serve};
use crate::zk::proto::{OpCode, Request, Response};

/// The session ops' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::Ping, Run::Read(|_, _, _, _| Ok(Response::Ping))),
    serve(
        OpCode::CloseSession,
        Run::Write(|server, txn, req, out| {
            if req != Request::CloseSession {
                return Err(NOT_MINE);
            }
            server.sessions.remove(txn.session);
            server.kill_session(txn.session, txn.zxid, out);
            Ok(Response::CloseSession)
        }),
    ),
];
