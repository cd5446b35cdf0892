//! How a request can end other than with the reply the caller wanted: no reply at all
//! (`CallError`), an error reply (`ServerError`), or, for the typed helpers, a reply the
//! command never sends (`CommandError::Unexpected`).

use std::fmt;

use crate::redis::resp::{Frame, ReplyError};

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
    /// Bytes that are not a RESP2 or RESP3 reply, or one past the codec's limits.
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

/// The kinds of error reply recipes act on; Redis names the kind in the first word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `ERR`: the generic error (syntax, arity, a bad integer, a failed script).
    Err,
    /// `NOSCRIPT`: EVALSHA of a script the server does not have; nothing ran.
    NoScript,
    /// `READONLY`: a write sent to a replica, e.g. a master demoted by a failover.
    ReadOnly,
    /// `WRONGTYPE`: the key holds another type.
    WrongType,
    /// `BUSY`: a script is running too long; the server refuses other commands meanwhile.
    Busy,
    /// Any other code: see `ServerError::code`.
    Other,
}

/// An error reply (`-CODE message`): the server answered, and refused the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    text: Vec<u8>,
}

impl ServerError {
    /// The error reply with this text (what `Frame::Error` holds).
    pub fn new(text: Vec<u8>) -> ServerError {
        ServerError { text }
    }

    /// The first word, by Redis's convention the error's code: `ERR`, `NOSCRIPT`, ...
    pub fn code(&self) -> &[u8] {
        self.text.split(|&b| b == b' ').next().unwrap_or_default()
    }

    /// The code, for the kinds recipes tell apart.
    pub fn kind(&self) -> ErrorKind {
        match self.code() {
            b"ERR" => ErrorKind::Err,
            b"NOSCRIPT" => ErrorKind::NoScript,
            b"READONLY" => ErrorKind::ReadOnly,
            b"WRONGTYPE" => ErrorKind::WrongType,
            b"BUSY" => ErrorKind::Busy,
            _ => ErrorKind::Other,
        }
    }

    /// The whole text, code included, as the server sent it.
    pub fn text(&self) -> &[u8] {
        &self.text
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.text))
    }
}

impl std::error::Error for ServerError {}

/// Why a typed helper (`set_nx_px`, `get`, `del`, `eval`, `evalsha`) has no value to return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// No reply: see `CallError` (outcome unknown, connection dead).
    Call(CallError),
    /// The server refused the command. For a plain command nothing was applied; a script
    /// that fails midway keeps the writes it made before (Redis has no rollback).
    Server(ServerError),
    /// A well-formed reply of a type this command never sends: a server bug. The connection
    /// stays usable, since it was exactly one reply.
    Unexpected(Frame),
}

impl From<CallError> for CommandError {
    fn from(err: CallError) -> Self {
        CommandError::Call(err)
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Call(err) => err.fmt(f),
            CommandError::Server(err) => write!(f, "error reply: {err}"),
            CommandError::Unexpected(frame) => write!(f, "unexpected reply: {frame:?}"),
        }
    }
}

impl std::error::Error for CommandError {}
