//! The stream tokio-zookeeper runs over: turmoil's TCP stream behind the host's pause gate,
//! dialled to one server, or on an ensemble to the next one, with a receive timeout.

use crate::sim::pause::PauseGate;
use crate::zk::PORT;
use ::tokio_zookeeper::ZooKeeperTransport;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

thread_local! {
    /// The pause gates of the hosts whose streams this thread runs, by key. A stream holds
    /// only its key, so it is `Send` as tokio-zookeeper's transport must be; the simulation
    /// runs every host on one thread, where the key finds the gate.
    static GATES: RefCell<BTreeMap<u64, PauseGate>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT_GATE: Cell<u64> = const { Cell::new(0) };
}

/// A host's pause gate, as a `Send` key to it; dropping the last clone forgets the gate.
#[derive(Debug)]
pub(super) struct GateKey(u64);

impl GateKey {
    pub(super) fn new(gate: PauseGate) -> GateKey {
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

    async fn open(&self) {
        poll_fn(|cx| self.poll_open(cx)).await;
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
pub(super) struct SimAddr {
    /// The servers, in the order they are tried; one without `failover`.
    pub(super) servers: Arc<[String]>,
    pub(super) gate: Arc<GateKey>,
    /// A connect that takes longer fails (turmoil's connect to a partitioned host waits);
    /// with `failover`, so does a handshake whose reply takes longer.
    pub(super) connect_timeout: Duration,
    /// How it moves among the servers; none: upstream's one server, one attempt.
    pub(super) failover: Option<Failover>,
}

/// The Java client's way among an ensemble's servers (`connect_ensemble`).
#[derive(Debug, Clone)]
pub(super) struct Failover {
    /// The host's attempts so far, across its sessions: each dials the next server.
    pub(super) attempts: Arc<AtomicUsize>,
    /// Whether this session has made an attempt: every later one waits `backoff` first.
    pub(super) tried: Arc<AtomicBool>,
    pub(super) backoff: Duration,
    /// A connection that hears nothing for this long fails.
    pub(super) read_timeout: Duration,
}

/// turmoil's TCP stream, behind the host's pause gate.
#[derive(Debug)]
pub(super) struct SimStream {
    inner: turmoil::net::TcpStream,
    gate: Arc<GateKey>,
    /// On an ensemble: when silence fails it.
    silence: Option<Silence>,
}

/// A receive timeout: the handshake's reply due by the attempt's connect timeout, then
/// something heard every read timeout.
#[derive(Debug)]
struct Silence {
    server: String,
    deadline: Pin<Box<Sleep>>,
    read_timeout: Duration,
}

impl Silence {
    /// Bytes arrived: the next are due a read timeout from now.
    fn heard(&mut self) {
        let next = Instant::now() + self.read_timeout;
        self.deadline.as_mut().reset(next);
    }

    /// Ready with the error once nothing came in time (the caller found nothing to read).
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        ready!(self.deadline.as_mut().poll(cx));
        let why = format!("nothing heard from {} in time", self.server);
        Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, why))
    }
}

/// A TCP connection to `server` within `timeout`, on tokio's clock (the true one: the
/// address must be `Send`, a node's clock is not).
async fn dial(server: &str, timeout: Duration) -> io::Result<turmoil::net::TcpStream> {
    let connect = turmoil::net::TcpStream::connect((server, PORT));
    tokio::time::timeout(timeout, connect).await.map_err(|_| {
        let ms = timeout.as_millis();
        let why = format!("no connection to {server} within {ms} ms");
        io::Error::new(io::ErrorKind::TimedOut, why)
    })?
}

impl SimAddr {
    /// Dials the next server until one takes the connection: every failure of the
    /// connection, of a later handshake or of its silence comes back here, so the session
    /// goes round the ensemble until a server takes it back or says it expired.
    async fn fail_over(self, failover: Failover) -> io::Result<SimStream> {
        loop {
            if failover.tried.swap(true, Ordering::Relaxed) {
                tokio::time::sleep(failover.backoff).await;
            }
            self.gate.open().await;
            let attempt = failover.attempts.fetch_add(1, Ordering::Relaxed);
            let server = &self.servers[attempt % self.servers.len()];
            let started = Instant::now();
            let Ok(inner) = dial(server, self.connect_timeout).await else {
                continue;
            };
            let silence = Silence {
                server: server.clone(),
                deadline: Box::pin(tokio::time::sleep_until(started + self.connect_timeout)),
                read_timeout: failover.read_timeout,
            };
            return Ok(SimStream {
                inner,
                gate: self.gate,
                silence: Some(silence),
            });
        }
    }
}

impl ZooKeeperTransport for SimStream {
    type Addr = SimAddr;
    type ConnectError = io::Error;

    fn connect<'a>(
        addr: SimAddr,
    ) -> Pin<Box<dyn Future<Output = io::Result<SimStream>> + Send + 'a>> {
        Box::pin(async move {
            if let Some(failover) = addr.failover.clone() {
                return addr.fail_over(failover).await;
            }
            addr.gate.open().await;
            let inner = dial(&addr.servers[0], addr.connect_timeout).await?;
            Ok(SimStream {
                inner,
                gate: addr.gate,
                silence: None,
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
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                if let Some(silence) = &mut this.silence {
                    silence.heard();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => match &mut this.silence {
                // Read first, then judge the silence: what came during a pause counts.
                Some(silence) => silence.poll_expired(cx).map(Err),
                None => Poll::Pending,
            },
            other => other,
        }
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
pub(super) struct Refused;

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
