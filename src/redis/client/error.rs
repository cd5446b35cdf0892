//! How a request can end without a reply.

use std::fmt;

use crate::redis::resp::ReplyError;

/// A request that got no usable reply. The connection is dead afterwards: every later call
/// fails at once with `Closed`, and the caller reconnects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallError {
    /// No reply within the timeout. The outcome is unknown: the server may have applied the
    /// request and its reply may still be on the way, so a history records the operation
    /// as `info`, never as `fail`.
    Timeout,
    /// The server closed the connection, or an I/O error broke it. Unknown as well once the
    /// request was written (it may have been applied before the connection went); also what
    /// every call on an already dead connection returns, without sending anything.
    Closed,
    /// Bytes that are not a RESP2 reply, or one past the codec's limits.
    Protocol(ReplyError),
    /// More bytes than the one reply, before the next request: a server that answers twice
    /// would otherwise have its second answer read as the reply to the next request.
    Unsolicited,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Timeout => f.write_str("timed out (outcome unknown)"),
            CallError::Closed => f.write_str("connection closed"),
            CallError::Protocol(err) => write!(f, "malformed reply: {err:?}"),
            CallError::Unsolicited => f.write_str("bytes after the reply"),
        }
    }
}

impl std::error::Error for CallError {}
