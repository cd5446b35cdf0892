//! Simulated ZooKeeper: wire codec, sans-IO server core, async client, and the glue that
//! serves the core inside the simulation (`sim_host`) and on a real socket (`serve`).

pub mod client;
pub mod events;
pub mod host;
pub mod proto;
pub mod seq;
#[cfg(feature = "cli")]
pub mod serve;
pub mod server;
pub mod session;
pub mod sim_host;
pub mod tree;
pub mod watch;

/// ZooKeeper's client port, where the simulated servers listen.
pub const PORT: u16 = 2181;
