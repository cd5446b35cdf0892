//! Client knobs and the connector the driver dials (again) with.

use crate::sim::timer::Timer;
use std::future::Future;
use std::io;
use std::pin::Pin;

/// One dial of the server: a fresh stream per call, so the driver can reconnect.
pub type ConnectFuture<S> = Pin<Box<dyn Future<Output = io::Result<S>>>>;

/// Dials the server; called once per connect attempt.
pub type Connector<S> = Box<dyn Fn() -> ConnectFuture<S>>;

/// Client configuration. Defaults: 10 s session, attempt timeout = session timeout (the Java
/// client's `sessionTimeout / hostCount` for one host), 200 ms fixed backoff, 3 initial tries.
#[derive(Debug, Clone)]
pub struct ZkConfig {
    /// Session timeout asked for; the server clamps it and the client uses its answer.
    pub session_timeout_ms: u32,
    /// A connect attempt (dial + handshake) not done within this is abandoned and retried:
    /// a partitioned server makes the dial or the handshake hang.
    pub connect_attempt_timeout_ms: u64,
    /// Fixed pause before every reconnect attempt (Java sleeps a random 0-1 s; fixed keeps
    /// runs deterministic without a random stream).
    pub reconnect_backoff_ms: u64,
    /// How many attempts `connect` makes before giving up on the first session.
    pub initial_connect_attempts: u32,
    /// The clock every timeout, ping and backoff runs on: tokio's by default, the node's
    /// monotonic clock in the simulation (so drift and pauses change what it measures).
    pub timer: Timer,
    /// What a reconnect tells the server the session has seen: the last zxid, as the Java
    /// client does, unless a flawed control says otherwise.
    pub resume_zxid: ResumeZxid,
}

/// The last-seen zxid a reconnect sends. A server that has applied less than it refuses the
/// connection (the client tries another server), which is what keeps a session from ever
/// reading an older state than it has seen once it moves (ZooKeeper's single system image).
///
/// ```
/// use locksim::zk::client::{ResumeZxid, ZkConfig};
/// let flawed = ZkConfig {
///     resume_zxid: ResumeZxid::Zero,
///     ..ZkConfig::default()
/// };
/// assert_eq!(ZkConfig::default().resume_zxid, ResumeZxid::LastSeen);
/// # let _ = flawed;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ResumeZxid {
    /// The highest zxid of any reply header, as the Java client sends it.
    #[default]
    LastSeen,
    /// Always 0, as a client that never sets the field (zookeeper-client-rust #32): any
    /// server takes the session however far behind it is, so reads can go back in time
    /// (Z16, a flawed control).
    Zero,
}

impl ZkConfig {
    /// The defaults, asking for a session timeout of `session_timeout_ms`.
    pub fn with_session_timeout(session_timeout_ms: u32) -> Self {
        ZkConfig {
            session_timeout_ms,
            connect_attempt_timeout_ms: u64::from(session_timeout_ms),
            reconnect_backoff_ms: 200,
            initial_connect_attempts: 3,
            timer: Timer::tokio(),
            resume_zxid: ResumeZxid::LastSeen,
        }
    }
}

impl Default for ZkConfig {
    fn default() -> Self {
        ZkConfig::with_session_timeout(10_000)
    }
}
