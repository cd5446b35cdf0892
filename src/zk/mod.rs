//! Simulated ZooKeeper: wire codec, sans-IO server core, async client, and the glue that
//! serves the core inside the simulation (`sim_host`) and on a real socket (`serve`);
//! `tokio_zookeeper` opens sessions of the tokio-zookeeper crate with the simulated host.

pub(crate) mod acl;
pub mod client;
pub mod events;
pub(crate) mod host;
pub mod proto;
pub(crate) mod seq;
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

use crate::sim::node::Node;

/// ZooKeeper's client port, where the simulated servers listen.
pub const PORT: u16 = 2181;

/// The host name of ZooKeeper server `id` of a run: `zk1` to `zkN`.
pub(crate) fn server_name(id: u32) -> String {
    format!("zk{id}")
}

/// The order in which client host `node` tries `servers`: as the Java client's
/// `StaticHostProvider`, shuffled once, here from the host's seed, so every client of the
/// host (locksim's own and tokio-zookeeper) tries them alike on every replay.
pub(crate) fn try_order(node: &Node, servers: Vec<String>) -> Vec<String> {
    node.seeds.try_order(&node.name, servers)
}
