//! tokio-zookeeper over the simulated network: a recipe written against the
//! `tokio-zookeeper` crate (re-exported as `locksim::tokio_zookeeper`) runs unmodified against
//! the simulated ZooKeeper host, inside the run, under its faults.
//!
//! tokio-zookeeper dials `tokio::net::TcpStream` itself; locksim carries it patched with a
//! transport seam (`ZooKeeperBuilder::connect_with_transport`, upstream-ready, in
//! `crates/tokio-zookeeper/locksim.patch`) and hands it turmoil's stream, opened again on
//! each of its reconnects. Its connection task is its own (`tokio::spawn`, outside the
//! host's pause gate), so the stream checks the gate instead: a paused client reads and
//! writes nothing, heartbeats included, as a frozen process would not.
//!
//! What it does not do, as upstream does not: time out a request or notice a silent
//! connection (it has no receive timeout), tell the recipe of a disconnect or an expired
//! session, or set watches again after a reconnect. A recipe on it bounds its own waits
//! (`docs/own-recipes.md`).

use super::PORT;
use crate::history::WatchEvent;
use crate::sim::node::Node;
use crate::sim::param::Param;
use crate::sim::pause::PauseGate;
use ::tokio_zookeeper::error::Error;
use ::tokio_zookeeper::{
    WatchedEvent, WatchedEventType, ZooKeeper, ZooKeeperBuilder, ZooKeeperTransport,
};
use futures_core::Stream;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The scenario's session timeout (`session_timeout_ms`), which `connect` asks for.
pub const SESSION_TIMEOUT_MS: Param<u64> = Param::u64("session_timeout_ms", 200);

/// A tokio-zookeeper session from `node` with the simulated ZooKeeper host `server`
/// (`"zk1"`), asking for the scenario's session timeout: the client and its stream of
/// watch events (every watch's, as tokio-zookeeper's default watcher sends them). A TCP
/// connection, then the session's handshake, within a third of the session timeout on the
/// node's clock (as locksim's own client connects), or an error.
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
        server: server.to_string(),
        gate: Arc::new(GateKey::new(node.gate.clone())),
        connect_timeout: Duration::from_millis(within_ms),
    };
    let session = builder.connect_with_transport::<SimStream>(addr);
    match node.timer().timeout(within_ms, session).await {
        Some(session) => session,
        None => Err(timed_out(server, within_ms).await),
    }
}

/// A tokio-zookeeper error saying no session came within `ms`: what its `connect` returns
/// when its transport cannot connect, which is the only way to make one outside the crate.
async fn timed_out(server: &str, ms: u64) -> Error {
    let message = format!("no session with {server} within {ms} ms");
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

thread_local! {
    /// The pause gates of the hosts whose streams this thread runs, by key. A stream holds
    /// only its key, so it is `Send` as tokio-zookeeper's transport must be; the simulation
    /// runs every host on one thread, where the key finds the gate.
    static GATES: RefCell<BTreeMap<u64, PauseGate>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT_GATE: Cell<u64> = const { Cell::new(0) };
}

/// A host's pause gate, as a `Send` key to it; dropping the last clone forgets the gate.
#[derive(Debug)]
struct GateKey(u64);

impl GateKey {
    fn new(gate: PauseGate) -> GateKey {
        let key = NEXT_GATE.get();
        NEXT_GATE.set(key + 1);
        GATES.with_borrow_mut(|gates| gates.insert(key, gate));
        GateKey(key)
    }

    /// Ready while the host runs (or on a thread that does not know the gate).
    fn poll_open(&self, cx: &mut Context<'_>) -> Poll<()> {
        let gate = GATES.with_borrow(|gates| gates.get(&self.0).cloned());
        gate.map_or(Poll::Ready(()), |gate| gate.poll_open(cx))
    }
}

impl Drop for GateKey {
    fn drop(&mut self) {
        // On another thread, or while the thread's locals are torn down: nothing to forget.
        let _ = GATES.try_with(|gates| gates.borrow_mut().remove(&self.0));
    }
}

/// Where tokio-zookeeper connects, each time it does.
#[derive(Debug, Clone)]
struct SimAddr {
    server: String,
    gate: Arc<GateKey>,
    /// A connect that takes longer fails (turmoil's connect to a partitioned host waits).
    connect_timeout: Duration,
}

/// turmoil's TCP stream, behind the host's pause gate.
#[derive(Debug)]
struct SimStream {
    inner: turmoil::net::TcpStream,
    gate: Arc<GateKey>,
}

impl ZooKeeperTransport for SimStream {
    type Addr = SimAddr;
    type ConnectError = io::Error;

    fn connect<'a>(
        addr: SimAddr,
    ) -> Pin<Box<dyn Future<Output = io::Result<SimStream>> + Send + 'a>> {
        Box::pin(async move {
            poll_fn(|cx| addr.gate.poll_open(cx)).await;
            // On tokio's clock, the true one: the address must be Send, a node's clock is not.
            let connect = turmoil::net::TcpStream::connect((addr.server.as_str(), PORT));
            let inner = tokio::time::timeout(addr.connect_timeout, connect)
                .await
                .map_err(|_| {
                    let ms = addr.connect_timeout.as_millis();
                    let why = format!("no connection to {} within {ms} ms", addr.server);
                    io::Error::new(io::ErrorKind::TimedOut, why)
                })??;
            Ok(SimStream {
                inner,
                gate: addr.gate,
            })
        })
    }
}

impl AsyncRead for SimStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(self.gate.poll_open(cx));
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for SimStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.gate.poll_open(cx));
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.gate.poll_open(cx));
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.gate.poll_open(cx));
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A transport that never connects, saying why: `timed_out`'s way to an `Error`.
#[derive(Debug)]
struct Refused;

impl ZooKeeperTransport for Refused {
    type Addr = String;
    type ConnectError = io::Error;

    fn connect<'a>(why: String) -> Pin<Box<dyn Future<Output = io::Result<Refused>> + Send + 'a>> {
        Box::pin(async move { Err(io::Error::new(io::ErrorKind::TimedOut, why)) })
    }
}

impl AsyncRead for Refused {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Refused {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(0))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Op, Recorder};
    use crate::sim::clock::Clock;
    use crate::sim::seed::Seeds;
    use crate::sim::software::ServerFamily;
    use crate::zk::sim_host::ZkFamily;
    use ::tokio_zookeeper::{Acl, CreateMode};
    use std::rc::Rc;

    fn node(name: &str, recorder: &Recorder) -> Node {
        Node {
            name: name.into(),
            clock: Rc::new(RefCell::new(Clock::default())),
            gate: PauseGate::default(),
            recorder: recorder.clone(),
            seeds: Seeds::new(1),
            params: Default::default(),
            kept: Default::default(),
        }
    }

    type Step = (u64, Box<dyn Fn(&mut turmoil::Sim<'_>, &Node)>);

    /// Runs `client` on `c1` against `zk1`, doing each step to the world at its time: the
    /// history's ops.
    fn world<F>(steps: Vec<Step>, client: impl FnOnce(Node) -> F + 'static) -> Vec<Op>
    where
        F: Future<Output = Result<(), String>> + 'static,
    {
        let recorder = Recorder::default();
        let mut sim = turmoil::Builder::new()
            .tick_duration(Duration::from_millis(1))
            .min_message_latency(Duration::from_millis(1))
            .max_message_latency(Duration::from_millis(1))
            .simulation_duration(Duration::from_secs(60))
            .build();
        let family = ZkFamily {
            tick_ms: 20,
            seq_start: 0,
            container_check_ms: crate::zk::server::CONTAINER_CHECK_MS,
            member: None,
            extended_types: false,
        };
        let software = Rc::new(RefCell::new(family.install(node("zk1", &recorder))));
        sim.host("zk1", move || software.borrow().start());
        let c1 = node("c1", &recorder);
        let gate = c1.gate.clone();
        let program = client(c1.clone());
        sim.client(
            "c1",
            async move { gate.gate(program).await.map_err(Into::into) },
        );
        let mut steps = steps.into_iter().peekable();
        loop {
            let now = sim.elapsed().as_millis() as u64;
            while let Some((_, step)) = steps.next_if(|(at, _)| *at <= now) {
                step(&mut sim, &c1);
            }
            if sim.step().expect("the client's checks hold") {
                break;
            }
        }
        recorder.take().events.into_iter().map(|e| e.op).collect()
    }

    async fn create(zk: &ZooKeeper, path: &str, mode: CreateMode) -> Result<String, String> {
        zk.create(path, &b""[..], Acl::open_unsafe(), mode)
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }

    /// An error and its sources.
    fn chain(e: &dyn std::error::Error) -> String {
        match e.source() {
            Some(source) => format!("{e}: {}", chain(source)),
            None => e.to_string(),
        }
    }

    #[test]
    fn a_session_creates_and_its_watch_fires() {
        world(vec![], |node| async move {
            let (zk, _events) = connect(&node, "zk1").await.map_err(|e| e.to_string())?;
            let mine = create(&zk, "/lock-", CreateMode::EphemeralSequential).await?;
            let (watch, stat) = zk
                .with_watcher()
                .exists(&mine)
                .await
                .map_err(|e| e.to_string())?;
            assert!(stat.is_some(), "{mine} exists");
            let deleted = zk.delete(&mine, None).await.map_err(|e| e.to_string())?;
            assert_eq!(deleted, Ok(()));
            let event = watch.await.map_err(|e| e.to_string())?;
            assert_eq!(WatchEvent::from(event.event_type), WatchEvent::NodeDeleted);
            Ok(())
        });
    }

    #[test]
    fn after_zk1_restarts_the_client_reconnects_to_its_session() {
        // Unpatched, the reconnect's Connect is registered under a non-zero xid while its
        // reply is read as xid 0: the connection task panics and every request fails.
        let steps: Vec<Step> = vec![(
            100,
            Box::new(|sim, _| {
                sim.crash("zk1");
                sim.bounce("zk1");
            }),
        )];
        world(steps, |node| async move {
            let (zk, _events) = connect(&node, "zk1").await.map_err(|e| e.to_string())?;
            let mine = create(&zk, "/mine", CreateMode::Ephemeral).await?;
            tokio::time::sleep(Duration::from_millis(150)).await;
            // The first request may find the connection dropped (it fails, unknown); the
            // client reconnects to the same session, whose ephemeral node is still there.
            let _ = zk.exists(&mine).await;
            let stat = zk.exists(&mine).await.map_err(|e| e.to_string())?;
            assert!(stat.is_some(), "the session survived the reconnect");
            Ok(())
        });
    }

    #[test]
    fn a_reconnected_session_keeps_its_timeout() {
        // Unpatched, the reconnect asks for timeout 0 and the server gives the session its
        // minimum, two ticks (40 ms): a 50 ms pause then expires it.
        let steps: Vec<Step> = vec![
            (
                100,
                Box::new(|sim, _| {
                    sim.crash("zk1");
                    sim.bounce("zk1");
                }),
            ),
            (200, Box::new(|_, c1| c1.gate.pause())),
            (250, Box::new(|_, c1| c1.gate.resume())),
        ];
        let ops = world(steps, |node| async move {
            let (zk, _events) = connect(&node, "zk1").await.map_err(|e| e.to_string())?;
            create(&zk, "/mine", CreateMode::Ephemeral).await?;
            tokio::time::sleep(Duration::from_millis(400)).await;
            Ok(())
        });
        let expired = ops
            .iter()
            .any(|op| format!("{op:?}").contains("session_expired"));
        assert!(!expired, "{ops:?}");
    }

    #[test]
    fn a_paused_client_sends_no_heartbeats_and_its_session_expires() {
        let steps: Vec<Step> = vec![
            (100, Box::new(|_, c1| c1.gate.pause())),
            (500, Box::new(|_, c1| c1.gate.resume())),
        ];
        let ops = world(steps, |node| async move {
            let (zk, _events) = connect(&node, "zk1").await.map_err(|e| e.to_string())?;
            create(&zk, "/mine", CreateMode::Ephemeral).await?;
            tokio::time::sleep(Duration::from_millis(600)).await;
            Ok(())
        });
        let expired = ops
            .iter()
            .any(|op| format!("{op:?}").contains("session_expired"));
        assert!(expired, "{ops:?}");
    }

    #[test]
    fn no_session_within_a_third_of_the_session_timeout_is_an_error() {
        let steps: Vec<Step> = vec![(0, Box::new(|sim, _| sim.hold("c1", "zk1")))];
        world(steps, |node| async move {
            let error = match connect(&node, "zk1").await {
                Ok(_) => return Err("connected while held".into()),
                Err(e) => chain(&e),
            };
            assert!(error.contains("within 66 ms"), "{error}");
            Ok(())
        });
    }
}
