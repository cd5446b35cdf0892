//! Errors a client operation can end with. Kept `Clone` so the driver can hand the same
//! terminal error (expired / closed) to every later caller.

use std::fmt;
use std::io;

use crate::zk::proto::{DecodeError, ErrorCode, OpCode};

/// How a client operation failed, as a recipe acts on it: a server's answer, an outcome
/// unknown, or a client that is done for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZkError {
    /// The server answered with this error code (NoNode, NodeExists, BadVersion, ...).
    Server(ErrorCode),
    /// The connection dropped (or was not up) while the request was pending: the outcome is
    /// unknown, the session may still be alive.
    ConnectionLoss,
    /// The server said the session expired; the client is closed for good.
    SessionExpired,
    /// `close()` was called (or the driver is gone); the client is closed for good. Java
    /// reports this case as SessionExpired: `code()` does the same.
    Closed,
    /// The initial connect failed on an I/O error.
    Io(io::ErrorKind),
    /// The initial connect failed on bytes that break the protocol.
    Protocol(ProtocolError),
}

impl ZkError {
    /// The KeeperException code a Java client would report for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            ZkError::Server(code) => *code,
            ZkError::ConnectionLoss | ZkError::Io(_) | ZkError::Protocol(_) => {
                ErrorCode::ConnectionLoss
            }
            ZkError::SessionExpired | ZkError::Closed => ErrorCode::SessionExpired,
        }
    }
}

impl fmt::Display for ZkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZkError::Server(code) => write!(f, "server error {code:?}"),
            ZkError::ConnectionLoss => f.write_str("connection loss"),
            ZkError::SessionExpired => f.write_str("session expired"),
            ZkError::Closed => f.write_str("client closed"),
            ZkError::Io(kind) => write!(f, "I/O error: {kind}"),
            ZkError::Protocol(err) => write!(f, "protocol error: {err:?}"),
        }
    }
}

impl std::error::Error for ZkError {}

/// Why the bytes from the server could not be accepted; the connection is dropped for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// A packet that does not decode.
    Decode(DecodeError),
    /// A reply whose xid is not the oldest pending request's (the server answers in order).
    XidMismatch {
        /// The oldest pending request's xid; None when nothing was pending.
        expected: Option<i32>,
        /// The reply's xid.
        got: i32,
    },
    /// A reply body of the wrong kind for the request it answers.
    UnexpectedResponse(OpCode),
}

impl From<DecodeError> for ProtocolError {
    fn from(err: DecodeError) -> Self {
        ProtocolError::Decode(err)
    }
}
