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
        }
    }
}

impl Default for ZkConfig {
    fn default() -> Self {
        ZkConfig::with_session_timeout(10_000)
    }
}
