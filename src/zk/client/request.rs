//! What travels between the handles and the driver: a call and its reply, and the record of
//! a request sent and not yet answered.

use tokio::sync::oneshot;

use super::error::ZkError;
use super::watches::Watch;
use crate::zk::proto::{ErrorCode, Request, Response};

/// A server's answer: the body or its error code, and the watch the reply registered.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) result: Result<Response, ErrorCode>,
    pub(super) watch: Option<Watch>,
}

/// One request from a handle; `reply` completes with the answer or a client-made error.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) request: Request,
    pub(super) reply: oneshot::Sender<Result<Reply, ZkError>>,
}

/// A request on the wire awaiting its reply. `reply` is None for the driver's own requests
/// (SetWatches), which take a place in the FIFO like any other.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) xid: i32,
    pub(super) request: Request,
    pub(super) reply: Option<oneshot::Sender<Result<Reply, ZkError>>>,
}

impl Pending {
    /// Completes the caller's request with a client-made error (the connection dropped).
    pub(super) fn fail(self, err: ZkError) {
        if let Some(reply) = self.reply {
            // The caller may have stopped waiting; nothing to do then.
            let _ = reply.send(Err(err));
        }
    }
}
