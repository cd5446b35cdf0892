//! What a recipe's operation reports when it does not succeed: the one error every recipe
//! trait returns, so the workloads read a lock's, an election's and a queue's alike.

use std::fmt;

/// Why a recipe's operation did not succeed, as the workload reads it: whether the session
/// is gone, the outcome unknown, or the recipe's place in line lost.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecipeError {
    /// The session is gone: this recipe object is dead; the workload connects again.
    SessionExpired,
    /// The outcome is unknown (the connection dropped mid-request); retrying may help.
    ConnectionLoss,
    /// The recipe's own place in line vanished while its session lived (someone deleted it);
    /// the next attempt starts over.
    NodeGone,
    /// Any other server answer the recipe cannot handle.
    Unexpected(String),
}

/// The name lock recipes know [`RecipeError`] by.
pub type LockError = RecipeError;

impl RecipeError {
    /// Whether the workload must connect again before it retries.
    pub fn needs_new_session(&self) -> bool {
        matches!(self, RecipeError::SessionExpired)
    }
}

/// A redis-rs error as a recipe's, so a recipe written against redis-rs can use `?` on its
/// commands: a connection that redis-rs says must be replaced (dropped, broken), or whose
/// request timed out, is a session gone, and the workload connects again. A timeout ends
/// the connection because the simulated TCP never retransmits a lost segment: a connection
/// that lost one stays silent for good, where a real one would recover or be reset. Any
/// other error is an answer the recipe cannot handle.
impl From<redis_rs::RedisError> for RecipeError {
    fn from(e: redis_rs::RedisError) -> RecipeError {
        if e.is_unrecoverable_error() || e.is_timeout() {
            RecipeError::SessionExpired
        } else if e.is_io_error() {
            RecipeError::ConnectionLoss
        } else {
            RecipeError::Unexpected(e.to_string())
        }
    }
}

/// A tokio-zookeeper client error as a recipe's, so a recipe written against it can use `?`
/// on its requests: such an error (a connection lost mid-request, a client that could not
/// reconnect) leaves the outcome unknown and the client without notice of its session, so
/// the session is given up and the workload connects again. Dropping the client closes the
/// session if its connection still works; otherwise the server expires it. Answers of the
/// server (NoNode, NodeExists) are the inner `Result` of each request, not this.
impl From<tokio_zookeeper::error::Error> for RecipeError {
    fn from(_: tokio_zookeeper::error::Error) -> RecipeError {
        RecipeError::SessionExpired
    }
}

impl fmt::Display for RecipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecipeError::SessionExpired => f.write_str("session expired"),
            RecipeError::ConnectionLoss => f.write_str("connection loss"),
            RecipeError::NodeGone => f.write_str("my node vanished"),
            RecipeError::Unexpected(s) => write!(f, "unexpected: {s}"),
        }
    }
}

impl std::error::Error for RecipeError {}
