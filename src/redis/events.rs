//! The Redis family's events in the history: what a simulated Redis host records that
//! changes the story (keys its expiry cycle deleted, restarts and failovers with the
//! acknowledged writes they lost).

use crate::history::{Op, ServerEvent};
use serde::{Deserialize, Serialize};

/// The family's name, as checkers say they read its events.
pub const FAMILY: &str = "redis";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RedisEvent {
    /// The active expiry cycle deleted `key` (its deadline passed on the server's clock).
    KeyExpired { key: String },
    /// The server came back from a crash without `lost` of what it had acknowledged: every
    /// key without persistence, the writes of the last unsynced second with AOF everysec.
    Restarted { lost: u64 },
    /// The replica took over, without the `lost` writes it had not received.
    FailedOver { lost: u64 },
}

impl From<RedisEvent> for Op {
    fn from(event: RedisEvent) -> Op {
        Op::Server(ServerEvent::new(&event))
    }
}
