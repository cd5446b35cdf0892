//! locksim: deterministic simulation of distributed coordination recipes.
//!
//! Simulated ZooKeeper and Redis servers run in a seeded turmoil network that partitions,
//! delays and drops messages, crashes servers, pauses clients and skews their clocks; your
//! recipe runs against them, checkers judge the recorded history (mutual exclusion, no herd,
//! liveness, ...), and a finding is a seed plus a shrunk fault plan that replays exactly.
//!
//! # Test your own recipe
//!
//! A lock is anything that implements [`Lock`]; write it against redis-rs (re-exported as
//! [`redis_rs`]) and open its connection with [`redis::rs::connect`]. This one releases by
//! a plain `DEL`, whoever's lock the key holds by then:
//!
//! ```
//! use locksim::redis_rs::{AsyncCommands, aio::MultiplexedConnection, cmd};
//! use locksim::{Grant, Lock, LockError, Node, Property, Scenario};
//!
//! struct PlainDel { conn: MultiplexedConnection, node: Node }
//!
//! impl Lock for PlainDel {
//!     async fn acquire(&mut self) -> Result<Grant, LockError> {
//!         loop {
//!             let asked = self.node.timer().now_ms();
//!             let set: Option<String> = cmd("SET").arg("lock").arg(&self.node.name)
//!                 .arg("NX").arg("PX").arg(200).query_async(&mut self.conn).await?;
//!             let valid_ms = 190u64.saturating_sub(self.node.timer().now_ms() - asked);
//!             if set.is_some() && valid_ms > 0 {
//!                 return Ok(Grant { valid_ms: Some(valid_ms), ..Grant::default() });
//!             }
//!             self.node.timer().sleep(10).await;
//!         }
//!     }
//!
//!     async fn release(&mut self) -> Result<(), LockError> {
//!         let _: u32 = self.conn.del("lock").await?;
//!         Ok(())
//!     }
//! }
//!
//! let found = Scenario::redis(1)
//!     .lock_workload(|node| async move {
//!         let conn = locksim::redis::rs::connect(&node, "redis1").await?;
//!         Ok(PlainDel { conn, node })
//!     })
//!     .profile("own-assumptions")
//!     .set("faults=delay")
//!     .set("delay_max_ms=400")
//!     .explore_guided(300);
//! // Its DEL, delayed past its key's expiry, removes the next holder's key.
//! found.assert_violates(Property::MUTEX);
//! ```
//!
//! A failed assertion prints the violations, the shrunk fault plan, the timeline, the trace
//! it wrote (under `target/locksim-traces`, or `LOCKSIM_TRACES`) and the command that
//! replays it through your own test binary (`LOCKSIM_REPLAY=<trace> cargo test ...`).
//! `LOCKSIM_SEED=N` and `LOCKSIM_SEEDS=A..B` pin the seeds, in place of a guided campaign
//! too. `examples/user-recipes` in the repository is a crate of such tests.
//!
//! A property of your own is a [`Property::new`] judged by a [`check::Checker`] you add with
//! [`Experiment::check`]; a parameter of your own is a [`Param`] you declare with
//! [`Experiment::param`] and read with [`Node::param`]; an event of your own goes into the
//! history with [`Node::record_event`]. A ZooKeeper lock of your own is written against
//! [`zk::client::ZkClient`] with the recipe kit, [`recipes::zk::kit`]; so are a leader
//! election ([`Election`], run by `Scenario::zookeeper().election_workload`), a queue
//! ([`Queue`], `queue_workload`) and barriers ([`Barrier`], [`DoubleBarrier`]), judged by
//! the same checkers as locksim's own; on Redis, `Scenario::redis(n)` runs each of them
//! too, written against redis-rs. A program that fits none of them runs whole with
//! `client_program`. What a recipe must remember across its sessions it keeps with
//! [`Node::kept`]. A ZooKeeper recipe written against tokio-zookeeper (re-exported as
//! [`tokio_zookeeper`]) opens its session with [`zk::tokio_zookeeper::connect`] on one
//! server, or with [`zk::tokio_zookeeper::connect_ensemble`] on the run's ensemble, where it
//! moves to another member when its own is lost; either way the recipe bounds its own waits.
//!
//! # Guides
//!
//! One guide per concern, in the repository's `docs/` (each linked from its README):
//!
//! - `docs/own-recipes.md`: your own recipes, from the example crate `examples/user-recipes`.
//! - `docs/scenarios.md`: the built-in scenarios, their properties, and the ZooKeeper recipes.
//! - `docs/commands.md`: the command line, the time scale and the parameters.
//! - `docs/faults-and-traces.md`: faults, trace files, targeted faults, reading a violation.
//! - `docs/catalogue.md`: the ZooKeeper (Z1–Z17) and Redis (R1–R8) bug catalogues.
//! - `docs/serving.md`: serving the simulated servers to real clients; which clients run in
//!   a simulated run.
//! - `docs/scaling-out.md`: exploring in shards and merging their reports.
//! - `docs/models.md`: the stateright models of the recipes' decisions.
//! - `docs/benchmark.md`: locksim against a bare turmoil simulation.
//! - `docs/layout.md`: the code layout.

#![deny(missing_docs)]
// A public type that a user cannot name is an internal one leaking through a signature.
#![warn(unnameable_types)]

#[cfg(feature = "cli")]
mod bench;
pub mod check;
#[cfg(feature = "cli")]
#[doc(hidden)] // public for the `locksim` binary (src/main.rs) alone, not an API
pub mod cli;
mod coverage;
pub mod experiment;
pub mod explore;
pub mod history;
pub mod html;
pub mod params;
pub mod recipes;
pub(crate) mod recorder;
pub mod redis;
pub mod scenario;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sim;
pub mod store;
pub mod timeline;
pub mod trace;
pub(crate) mod workload;
pub mod world;
pub mod zk;

pub use check::Property;
pub use experiment::{Experiment, Explored};
pub use recipes::{
    Barrier, DoubleBarrier, Election, Grant, Lock, LockError, Queue, RecipeError, Taken,
};
pub use scenario::Scenario;
pub use sim::node::Node;
pub use sim::param::Param;

/// The redis-rs crate (`redis` on crates.io) at the version `redis::rs` connects with, so a
/// recipe written against it needs no dependency of its own to match.
pub use redis_rs;
/// The tokio-zookeeper crate (0.4, carried patched with a transport seam as
/// `locksim-tokio-zookeeper`) that [`zk::tokio_zookeeper::connect`] opens sessions of, so a
/// recipe written against it needs no dependency of its own to match.
pub use tokio_zookeeper;
/// The turmoil crate the simulated network runs on.
pub use turmoil;
