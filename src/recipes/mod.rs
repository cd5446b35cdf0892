//! Coordination recipes: each keeps its decisions in a pure core and does I/O in a thin
//! async driver. The workloads drive every recipe through a trait of its kind, locksim's
//! own and a user's alike.
//!
//! - `lock`: `Lock` and the `Grant` an acquire hands the holder
//! - `election`: `Election`
//! - `queue`: `Queue` and the item a take returns
//! - `barrier`: `Barrier` and `DoubleBarrier`
//! - `error`: `RecipeError`, what every recipe trait returns when an operation fails
//! - `zk`, `redis`: locksim's own recipes over each server family

mod barrier;
mod election;
mod error;
mod lock;
mod queue;
pub mod redis;
pub mod zk;

pub use barrier::{Barrier, DoubleBarrier};
pub use election::Election;
pub use error::{LockError, RecipeError};
pub use lock::{Grant, Lock};
pub use queue::{Queue, Taken};

use crate::history::WatchEvent;

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
