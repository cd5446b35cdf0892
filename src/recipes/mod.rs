//! Coordination recipes: each keeps its decisions in a pure core and does I/O in a thin
//! async driver. The workload drives every lock recipe through the `Lock` trait.

pub mod redis;
pub mod zk;

use crate::history::WatchEvent;
use std::fmt;

/// What a successful acquire hands the holder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Fencing token, for recipes that have one (ZooKeeper: the lock node's czxid).
    pub token: Option<i64>,
    /// The servers that granted it, for recipes that need several (Redlock's quorum).
    pub granted_by: Vec<String>,
    /// How much longer the holder counts on it, by its own clock, for lease-based recipes.
    pub valid_ms: Option<u64>,
}

/// Why a lock operation did not succeed, as the workload reads it: whether the session is
/// gone, the outcome unknown, or the recipe's place in line lost.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockError {
    /// The session is gone: this lock object is dead; a new session is needed.
    SessionExpired,
    /// The outcome is unknown (the connection dropped mid-request); retrying may help.
    ConnectionLoss,
    /// The recipe's own place in line vanished while its session lived (someone deleted it);
    /// the next acquire starts over.
    NodeGone,
    /// Any other server answer the recipe cannot handle.
    Unexpected(String),
}

impl LockError {
    /// Whether the workload must connect again before it retries.
    pub fn needs_new_session(&self) -> bool {
        matches!(self, LockError::SessionExpired)
    }
}

/// A redis-rs error as a lock recipe's, so a recipe written against redis-rs can use `?` on
/// its commands: a connection that redis-rs says must be replaced (dropped, broken), or
/// whose request timed out, is a session gone, and the workload connects again. A timeout
/// ends the connection because the simulated TCP never retransmits a lost segment: a
/// connection that lost one stays silent for good, where a real one would recover or be
/// reset. Any other error is an answer the recipe cannot handle.
impl From<redis_rs::RedisError> for LockError {
    fn from(e: redis_rs::RedisError) -> LockError {
        if e.is_unrecoverable_error() || e.is_timeout() {
            LockError::SessionExpired
        } else if e.is_io_error() {
            LockError::ConnectionLoss
        } else {
            LockError::Unexpected(e.to_string())
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::SessionExpired => f.write_str("session expired"),
            LockError::ConnectionLoss => f.write_str("connection loss"),
            LockError::NodeGone => f.write_str("my lock node vanished"),
            LockError::Unexpected(s) => write!(f, "unexpected: {s}"),
        }
    }
}

/// What a recipe reports while it works, so the history shows queue order and wake-ups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// Its node joined the line.
    Enqueued {
        /// The node's name.
        node: String,
        /// Its sequence number.
        seq: Option<i64>,
    },
    /// A watch woke it.
    Woken {
        /// The watched path.
        path: String,
        /// The node event it fired with.
        event: WatchEvent,
    },
}

/// Where a recipe sends its observations (the host records them).
pub type Observer = std::rc::Rc<dyn Fn(Observation)>;

/// A lock recipe bound to one session.
#[allow(async_fn_in_trait)]
pub trait Lock {
    /// Waits until the lock is held (retrying inside as the recipe does), or fails.
    async fn acquire(&mut self) -> Result<Grant, LockError>;
    /// Gives the lock back.
    async fn release(&mut self) -> Result<(), LockError>;
    /// Extends the lock held, for recipes whose lock is a lease shorter than the work:
    /// the new grant (same token, `valid_ms` counted from now on the client's clock), or
    /// None when it was not extended (nothing held, the recipe's bound reached, no quorum,
    /// too late). The lock then stays held as long as it was. A recipe whose lock lasts as
    /// long as its session (ZooKeeper's) never needs it.
    async fn extend(&mut self) -> Option<Grant> {
        None
    }
    /// Completes once the recipe learns a lock it holds is lost (its session expired, its
    /// lease ran out on its own clock). By default never: a recipe that cannot tell keeps
    /// working as if it still held the lock, which is what the checkers then judge.
    async fn lost(&mut self) {
        std::future::pending().await
    }
    /// Ends the session (releasing whatever it still holds). By default it drops the lock
    /// and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}
