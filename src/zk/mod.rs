//! Simulated ZooKeeper: wire codec, sans-IO server core, async client.

pub mod client;
pub mod host;
pub mod proto;
pub mod serve;
pub mod server;
pub mod session;
pub mod tree;
pub mod watch;
