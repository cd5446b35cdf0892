//! tokio-zookeeper over the simulated network: a recipe written against the
//! `tokio-zookeeper` crate (re-exported as `locksim::tokio_zookeeper`) runs unmodified against
//! the simulated ZooKeeper hosts, inside the run, under its faults.
//!
//! tokio-zookeeper dials `tokio::net::TcpStream` itself; locksim carries it patched with a
//! transport seam (`ZooKeeperBuilder::connect_with_transport`, upstream-ready, in
//! `crates/tokio-zookeeper/locksim.patch`) and hands it turmoil's stream, opened again on
//! each of its reconnects. Its connection task is its own (`tokio::spawn`, outside the
//! host's pause gate), so the stream checks the gate instead: a paused client reads and
//! writes nothing, heartbeats included, as a frozen process would not.
//!
//! Two ways in. `connect(&node, "zk1")` is upstream's client on one server: it has no
//! receive timeout (a silent connection goes unnoticed), and a reconnect that fails ends it
//! for good. `connect_ensemble(&node)` is the run's servers (`zk_servers`), kept as the Java
//! client (3.8) keeps its session: it moves to the next server when a connection fails, is
//! refused or goes silent for its read timeout, carrying the session and its last-seen zxid
//! (`connect_ensemble` says how). With either, what it does not do, as upstream does not:
//! time out a request, tell the recipe of a disconnect or an expired session, or set
//! watches again after a reconnect. A recipe on it bounds its own waits
//! (`docs/own-recipes.md`).

mod transport;

#[cfg(test)]
mod tests;

use crate::history::WatchEvent;
use crate::sim::node::Node;
use crate::sim::param::Param;
use ::tokio_zookeeper::error::Error;
use ::tokio_zookeeper::{Heartbeat, WatchedEvent, WatchedEventType, ZooKeeper, ZooKeeperBuilder};
use futures_core::Stream;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;
use transport::{Failover, GateKey, Refused, SimAddr, SimStream};

/// The scenario's session timeout (`session_timeout_ms`), which `connect` asks for.
pub const SESSION_TIMEOUT_MS: Param<u64> = Param::u64("session_timeout_ms", 200);

/// The scenario's ZooKeeper servers (`zk_servers`), which `connect_ensemble` connects to.
const ZK_SERVERS: Param<u32> = Param::u32("zk_servers", 1);

/// The servers' tick (`zk_tick_ms`), how long `connect_ensemble` waits between attempts.
const ZK_TICK_MS: Param<u64> = Param::u64("zk_tick_ms", 20);

/// A tokio-zookeeper session from `node` with the simulated ZooKeeper host `server`
/// (`"zk1"`), asking for the scenario's session timeout: the client and its stream of
/// watch events (every watch's, as tokio-zookeeper's default watcher sends them). A TCP
/// connection, then the session's handshake, within a third of the session timeout on the
/// node's clock (as locksim's own client connects), or an error. The client is upstream's:
/// its session is lost with `server` (see `connect_ensemble`).
///
/// ```no_run
/// use locksim::tokio_zookeeper::{Acl, CreateMode};
/// use locksim::{LockError, Node};
///
/// async fn enqueue(node: Node) -> Result<String, LockError> {
///     let (zk, _events) = locksim::zk::tokio_zookeeper::connect(&node, "zk1").await?;
///     let path = "/my-lock/lock-";
///     let created = zk
///         .create(path, &b""[..], Acl::open_unsafe(), CreateMode::EphemeralSequential)
///         .await?;
///     created.map_err(|e| LockError::Unexpected(e.to_string()))
/// }
/// ```
pub async fn connect(
    node: &Node,
    server: &str,
) -> Result<(ZooKeeper, impl Stream<Item = WatchedEvent> + use<>), Error> {
    let mut builder = ZooKeeperBuilder::default();
    builder.set_timeout(Duration::from_millis(node.param(SESSION_TIMEOUT_MS)));
    connect_with(node, server, builder).await
}

/// `connect` with tokio-zookeeper's options (another session timeout, say).
pub async fn connect_with(
    node: &Node,
    server: &str,
    builder: ZooKeeperBuilder,
) -> Result<(ZooKeeper, impl Stream<Item = WatchedEvent> + use<>), Error> {
    let within_ms = node.param(SESSION_TIMEOUT_MS) / 3;
    let addr = SimAddr {
        servers: Arc::from([server.to_string()]),
        gate: Arc::new(GateKey::new(node.gate.clone())),
        connect_timeout: Duration::from_millis(within_ms),
        failover: None,
    };
    let session = builder.connect_with_transport::<SimStream>(addr);
    match node.timer().timeout(within_ms, session).await {
        Some(session) => session,
        None => Err(timed_out(server, within_ms).await),
    }
}

/// A tokio-zookeeper session from `node` with the run's ZooKeeper servers (`zk1` to `zkN`,
/// its `zk_servers`), asking for the scenario's session timeout, that outlives the loss of
/// the server it is connected to, as the Java client's (3.8) does, and as locksim's own
/// client does on an ensemble:
///
/// - the servers are tried in an order shuffled once per host from its seed (Java's
///   `StaticHostProvider`), each connection attempt the next, round and round, across the
///   host's sessions; every attempt of a session after its first waits a tick
///   (`zk_tick_ms`) first (Java sleeps up to a second);
/// - an attempt, the TCP connection and the handshake's reply, not done within a third of
///   the session timeout is given up for the next server (Java: the session timeout over
///   the number of servers, the same for three);
/// - a connection that hears nothing for two thirds of the session timeout is dropped
///   (Java's read timeout), and the client pings after a third without sending
///   (`Heartbeat::OneThird`, Java's), so a live connection always hears something in time;
/// - every reconnect carries the session's id, password, timeout and last-seen zxid: a
///   server that has applied less than that zxid refuses it, and the next is tried, so the
///   session never reads an older state than it has seen.
///
/// A paused host is frozen: it dials, reads and writes nothing, and judges the silence only
/// when it resumes, after reading what arrived meanwhile, as a frozen Java client whose
/// send thread wakes in its `select` does. So a pause longer than the read timeout, with
/// nothing sent to it, drops the connection on resuming, and the client reconnects (to the
/// next server) within its session if the session lives, as a Java client would.
///
/// The first session: one try per server, each within a third of the session timeout on
/// the node's clock, or an error (the last try's). The timeouts above run on tokio's clock,
/// the true one (tokio-zookeeper's task is `Send`, a node's clock is not): a drifting
/// client's own clock does not stretch them.
///
/// ```no_run
/// use locksim::{LockError, Node};
///
/// async fn leader_of(node: Node) -> Result<Vec<String>, LockError> {
///     let (zk, _events) = locksim::zk::tokio_zookeeper::connect_ensemble(&node).await?;
///     let candidates = zk.get_children("/election").await?;
///     Ok(candidates.unwrap_or_default())
/// }
/// ```
pub async fn connect_ensemble(
    node: &Node,
) -> Result<(ZooKeeper, impl Stream<Item = WatchedEvent> + use<>), Error> {
    let servers: Vec<String> = (1..=node.param(ZK_SERVERS))
        .map(super::server_name)
        .collect();
    let session_ms = node.param(SESSION_TIMEOUT_MS);
    let within_ms = session_ms / 3;
    let mut builder = ZooKeeperBuilder::default();
    builder.set_timeout(Duration::from_millis(session_ms));
    builder.set_heartbeat(Heartbeat::OneThird);
    let tries = servers.len();
    let named = servers.join(", ");
    let addr = SimAddr {
        servers: super::try_order(node, servers).into(),
        gate: Arc::new(GateKey::new(node.gate.clone())),
        connect_timeout: Duration::from_millis(within_ms),
        failover: Some(Failover {
            attempts: node.kept::<Attempts>().borrow().0.clone(),
            tried: Arc::default(),
            backoff: Duration::from_millis(node.param(ZK_TICK_MS)),
            read_timeout: Duration::from_millis(2 * session_ms / 3),
        }),
    };
    let mut last = None;
    for _ in 0..tries {
        let session = builder.connect_with_transport::<SimStream>(addr.clone());
        match node.timer().timeout(within_ms, session).await {
            Some(Ok(session)) => return Ok(session),
            Some(Err(e)) => last = Some(e),
            None => last = None,
        }
    }
    match last {
        Some(e) => Err(e),
        None => Err(timed_out(&named, within_ms).await),
    }
}

/// A host's connection attempts to its ensemble so far, across its sessions: each dials
/// the next server in its order.
#[derive(Debug, Default)]
struct Attempts(Arc<AtomicUsize>);

/// A tokio-zookeeper error saying no session came within `ms`: what its `connect` returns
/// when its transport cannot connect, which is the only way to make one outside the crate.
async fn timed_out(servers: &str, ms: u64) -> Error {
    let message = format!("no session with {servers} within {ms} ms");
    match ZooKeeperBuilder::default()
        .connect_with_transport::<Refused>(message)
        .await
    {
        Err(e) => e,
        Ok(_) => unreachable!("Refused never connects"),
    }
}

/// What a wake-up on a tokio-zookeeper watch is, as `recipes::zk::kit::Report::woken_by`
/// records it.
impl From<WatchedEventType> for WatchEvent {
    fn from(event: WatchedEventType) -> WatchEvent {
        match event {
            WatchedEventType::None => WatchEvent::None,
            WatchedEventType::NodeCreated => WatchEvent::NodeCreated,
            WatchedEventType::NodeDeleted => WatchEvent::NodeDeleted,
            WatchedEventType::NodeDataChanged => WatchEvent::NodeDataChanged,
            WatchedEventType::NodeChildrenChanged => WatchEvent::NodeChildrenChanged,
            // Watches removed by a server: no node event the recipes judge.
            _ => WatchEvent::None,
        }
    }
}
