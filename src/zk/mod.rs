//! Simulated ZooKeeper: wire codec, sans-IO server core, async client, and the glue that
//! serves the core inside the simulation (`sim_host`) and on a real socket (`serve`);
//! `tokio_zookeeper` opens sessions of the tokio-zookeeper crate with the simulated host.

pub(crate) mod acl;
pub mod client;
pub mod events;
pub(crate) mod host;
pub mod proto;
pub mod seq;
#[cfg(feature = "serve")]
pub mod serve;
pub(crate) mod server;
pub mod session;
pub(crate) mod sim_host;
pub(crate) mod sim_peers;
pub(crate) mod story;
pub mod tokio_zookeeper;
pub(crate) mod tree;
pub(crate) mod watch;

/// ZooKeeper's client port, where the simulated servers listen.
pub const PORT: u16 = 2181;
