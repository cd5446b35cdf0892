//! What a server is configured with: its clocks' tick, its session limits, its id and seed,
//! and the ensemble it is a member of.

use super::ids::ServerId;
use crate::zk::session::MAX_TIMEOUT_MS;

/// The zxid epoch: a single server that never changes leader keeps epoch 1.
pub(super) const EPOCH: i64 = 1;

/// 3.8's default `znode.container.checkIntervalMs`.
pub const CONTAINER_CHECK_MS: u64 = 60_000;

/// A server's configuration ([`ServerConfig::with_tick`] for ZooKeeper's defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// ZooKeeper tickTime.
    pub tick_ms: u64,
    /// Default 2 × tick.
    pub min_session_timeout_ms: u64,
    /// Default 20 × tick.
    pub max_session_timeout_ms: u64,
    /// Server id: the top byte of session ids.
    pub server_id: u8,
    /// Seed of the server's own random stream (session passwords).
    pub seed: u64,
    /// Where every node's sequence counter starts (ZooKeeper: 0).
    pub seq_start: i32,
    /// How often the reaper deletes empty containers and expired TTL nodes
    /// (`znode.container.checkIntervalMs`, 60 s in 3.8); its first round is one interval
    /// after the server starts.
    pub container_check_ms: u64,
    /// Whether TTL nodes may be created (`zookeeper.extendedTypesEnabled`, off in 3.8).
    pub extended_types: bool,
    /// The ensemble this server is a member of (`server_id` its id); None: it serves alone.
    pub ensemble: Option<EnsembleConfig>,
    /// Whether it measures how near its clients' requests came to a flaw's window (a read
    /// missing its session's own write, `Output::ReadMargin`; a read missing a node a
    /// session's end deleted, `Output::ReadBeforeEnd`): a guided search's runs, at a map
    /// update per request and per applied write.
    pub measures_margins: bool,
}

impl ServerConfig {
    /// ZooKeeper's defaults, capped at what a session timeout can be (a Java int).
    pub fn with_tick(tick_ms: u64, seed: u64) -> Self {
        let ticks = |n: u64| tick_ms.saturating_mul(n).min(MAX_TIMEOUT_MS);
        ServerConfig {
            tick_ms,
            min_session_timeout_ms: ticks(2),
            max_session_timeout_ms: ticks(20),
            server_id: 1,
            seed,
            seq_start: 0,
            container_check_ms: CONTAINER_CHECK_MS,
            extended_types: false,
            ensemble: None,
            measures_margins: false,
        }
    }
}

/// The members, and who leads when the ensemble starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnsembleConfig {
    /// Every member's id, this server's among them.
    pub members: Vec<ServerId>,
    /// The first election's winner: with every log empty, the highest id.
    pub leader: ServerId,
    /// How long a follower takes to apply a write after it learns it committed.
    pub apply_lag_ms: u64,
}
