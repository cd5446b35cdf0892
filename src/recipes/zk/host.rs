//! A simulated client host's way to the ZooKeeper recipes, one glue for all of them: the
//! directories they work in, a session with `zk1`, names drawn from the host's own seeded
//! stream, and what each recipe reports turned into history events.

use super::election::Candidate;
use super::election::decide::Flavor as ElectionFlavor;
use super::kit::Report;
use super::lock::decide::Contender;
use super::lock::{Flavor as LockFlavor, Step, ZkLock};
use super::queue::decide::Flavor as QueueFlavor;
use super::queue::{QueueError, QueueEvent, Ticket, ZkQueue};
use crate::history::{ClientOp, ElectionOp, Kind, Op, QueueOp, WatchEvent};
use crate::recipes::{LockError, Observation};
use crate::sim::node::Node;
use crate::zk::PORT;
use crate::zk::client::{ConnectFuture, ZkClient, ZkConfig, ZkError};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use turmoil::net::TcpStream;

/// The lock directory every client contends for.
pub const LOCK_DIR: &str = "/locksim/lock";
/// The election directory every client stands in.
pub const ELECTION_DIR: &str = "/locksim/election";
/// The queue's directory.
pub const QUEUE_DIR: &str = "/locksim/queue";
/// Where offers and takes leave the markers that settle their lost replies.
pub const MARKER_DIR: &str = "/locksim/queue-markers";

/// One client host's way to its recipe, kept for the host's life: every session it opens
/// draws its node names from the same stream, so a replay names them alike.
#[derive(Debug)]
pub struct ZkHost {
    node: Node,
    config: ZkConfig,
    rng: Rc<RefCell<ChaCha8Rng>>,
    /// The GUID of a create whose outcome is unknown, which only a lock flaw carries from
    /// one session to the next.
    carried: Rc<RefCell<Option<String>>>,
    /// The servers its sessions connect to, in the order they try them.
    servers: Rc<[String]>,
    /// Attempts to connect so far, across sessions: each tries the next server.
    attempts: Rc<Cell<usize>>,
}

impl ZkHost {
    /// The glue of client host `node`, connecting with `config`.
    pub fn new(node: &Node, config: ZkConfig) -> ZkHost {
        ZkHost {
            node: node.clone(),
            rng: Rc::new(RefCell::new(node.rng())),
            carried: Rc::new(RefCell::new(None)),
            servers: Rc::from(["zk1".to_string()]),
            attempts: Rc::default(),
            config,
        }
    }

    /// Sessions connect to `servers` instead of `zk1` alone: as the Java client's
    /// `StaticHostProvider`, in an order shuffled once (from the host's seed), each attempt
    /// to connect trying the next, round and round.
    pub fn with_servers(mut self, servers: Vec<String>) -> ZkHost {
        self.servers = crate::zk::try_order(&self.node, servers).into();
        self
    }

    /// A new session with one of its servers, its driver a task of the host.
    pub async fn session(&self) -> Result<ZkClient, ZkError> {
        let (servers, attempts) = (self.servers.clone(), self.attempts.clone());
        let connector = move || -> ConnectFuture<TcpStream> {
            let attempt = attempts.get();
            attempts.set(attempt + 1);
            let server = servers[attempt % servers.len()].clone();
            Box::pin(async move { TcpStream::connect((server.as_str(), PORT)).await })
        };
        let (client, driver) = ZkClient::connect(connector, self.config.clone()).await?;
        self.node.spawn(driver.run());
        Ok(client)
    }

    /// Fresh names from the host's stream: `prefix` and 16 hex digits.
    fn guids(&self, prefix: &'static str) -> Box<dyn FnMut() -> String> {
        let rng = self.rng.clone();
        Box::new(move || format!("{prefix}{:016x}", rng.borrow_mut().random::<u64>()))
    }

    /// Records that a watch on `path` woke the client with `event`.
    fn woken(node: &Node, path: String, event: WatchEvent) {
        let lock = None;
        node.record(Kind::Info, Op::Client(ClientOp::Wake { lock, path, event }));
    }

    /// A lock of `flavor` on a new session, queuing as `contender`, reporting its place in
    /// line and its wake-ups; its steps are where a fault may strike (`Node::step`; its next
    /// request, sent at its next await, waits while the host is paused).
    pub async fn lock(
        &self,
        flavor: LockFlavor,
        contender: Contender,
    ) -> Result<ZkLock, LockError> {
        let client = self
            .session()
            .await
            .map_err(|_| LockError::ConnectionLoss)?;
        let report = Report::new(&self.node, LOCK_DIR);
        let observer = Rc::new(move |o| match o {
            Observation::Enqueued { node: name, .. } => report.enqueued(&name, contender.mode()),
            Observation::Woken { path, event } => report.woken_by(&path, event),
        });
        let gate = self.node.gate.clone();
        let steps: Step = Rc::new(move |step| {
            gate.strike(step, Node::true_ms());
        });
        let guids = self.guids("_c_");
        let lock = ZkLock::new(client, flavor, contender, LOCK_DIR, guids, observer)
            .with_steps(steps)
            .with_carried_guid(self.carried.clone());
        lock.ensure_dir().await?;
        Ok(lock)
    }

    /// An election candidate of `flavor` on a new session, reporting its candidacy and its
    /// wake-ups.
    pub async fn candidate(&self, flavor: ElectionFlavor) -> Result<Candidate, LockError> {
        let client = self
            .session()
            .await
            .map_err(|_| LockError::ConnectionLoss)?;
        let node = self.node.clone();
        let observer = Rc::new(move |o| match o {
            Observation::Enqueued { node: name, seq } => {
                let election = ELECTION_DIR.into();
                let op = ElectionOp::Candidate {
                    election,
                    node: name,
                    seq,
                };
                node.record(Kind::Info, Op::Election(op));
            }
            Observation::Woken { path, event } => ZkHost::woken(&node, path, event),
        });
        let guids = self.guids("_c_");
        let candidate = Candidate::new(client, flavor, ELECTION_DIR, guids, observer)
            .with_carried_guid(self.carried.clone());
        candidate.ensure_dir().await?;
        Ok(candidate)
    }

    /// A queue client of `flavor` on a new session, reporting its claims, its empty
    /// listings and its wake-ups; its markers are named from the host's stream, and the
    /// operation in flight is kept by the host (`Node::kept`) for the next session.
    pub async fn queue(&self, flavor: QueueFlavor) -> Result<ZkQueue, QueueError> {
        let client = self
            .session()
            .await
            .map_err(|_| QueueError::SessionExpired)?;
        let node = self.node.clone();
        let observer = Rc::new(move |e| {
            let queue = QUEUE_DIR.into();
            let op = match e {
                QueueEvent::Claim { item, node } => QueueOp::Claim { queue, item, node },
                QueueEvent::Empty => QueueOp::Empty { queue },
                QueueEvent::Woken { path, event } => return ZkHost::woken(&node, path, event),
            };
            node.record(Kind::Info, Op::Queue(op));
        });
        let guids = self.guids("");
        let queue = ZkQueue::new(client, flavor, QUEUE_DIR, MARKER_DIR, guids, observer)
            .with_ticket(self.node.kept::<Ticket>());
        queue.ensure_dirs().await?;
        Ok(queue)
    }
}
