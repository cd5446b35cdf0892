//! A ZooKeeper lock of the user's own written against tokio-zookeeper, as it would be for
//! production: ephemeral sequential nodes, the lowest holds the lock. Two variants: what a
//! waiter watches (the node just below its own, or the lowest node, which wakes every waiter
//! on each release: the herd effect), whether it bounds its waits, and which servers its
//! session uses. tokio-zookeeper on one server has no receive timeout: a connection that
//! goes silent (a partition) leaves a request or a watch waiting for good. A bounded lock
//! waits at most a session timeout for any answer and gives the session up when none comes;
//! on a watch it waits as long, then looks again. On the ensemble its session moves to
//! another member when its own is lost, as a Java client's does.

use locksim::recipes::zk::kit::{self, LOCK_DIR, Report};
use locksim::tokio_zookeeper::error::Error;
use locksim::tokio_zookeeper::{Acl, CreateMode, WatchedEvent, ZooKeeper};
use locksim::zk::tokio_zookeeper::{self, SESSION_TIMEOUT_MS};
use locksim::{Grant, Lock, LockError, Node};

/// Which node a waiter watches.
#[derive(Debug, Clone, Copy)]
pub enum Watches {
    Predecessor,
    Lowest,
}

/// How long it waits for ZooKeeper.
#[derive(Debug, Clone, Copy)]
pub enum Waits {
    /// As long as it takes (flawed: a silent connection hangs it).
    Unbounded,
    /// A session timeout at most, for a reply or between looks at the line.
    Bounded,
}

/// Which servers its session uses.
#[derive(Debug, Clone, Copy)]
pub enum Servers {
    /// `zk1` alone: the session is lost with it.
    Zk1,
    /// The run's ensemble: the session moves to another member when its own is lost.
    Ensemble,
}

/// How many sessions this host has opened, to name its nodes.
#[derive(Default)]
struct Sessions(u64);

/// One client's lock, bound to one tokio-zookeeper session.
pub struct TkLock {
    zk: ZooKeeper,
    node: Node,
    report: Report,
    watches: Watches,
    waits: Waits,
    /// Unique to the session; with a count, to each enqueue.
    prefix: String,
    enqueued: u64,
    mine: Option<(String, i64)>,
}

impl TkLock {
    pub async fn connect(
        node: Node,
        watches: Watches,
        waits: Waits,
        servers: Servers,
    ) -> Result<TkLock, LockError> {
        let zk = match servers {
            Servers::Zk1 => tokio_zookeeper::connect(&node, "zk1").await?.0,
            Servers::Ensemble => tokio_zookeeper::connect_ensemble(&node).await?.0,
        };
        let sessions = node.kept::<Sessions>();
        sessions.borrow_mut().0 += 1;
        let prefix = format!("{LOCK_DIR}/_c_{}_{}_", node.name, sessions.borrow().0);
        let report = Report::new(&node, LOCK_DIR);
        Ok(TkLock {
            zk,
            node,
            report,
            watches,
            waits,
            prefix,
            enqueued: 0,
            mine: None,
        })
    }

    /// `request`'s reply; bounded, none within a session timeout gives the session up.
    async fn ask<T>(
        &self,
        request: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, LockError> {
        let reply = match self.waits {
            Waits::Unbounded => request.await,
            Waits::Bounded => {
                let within = self.node.param(SESSION_TIMEOUT_MS);
                let reply = self.node.timer().timeout(within, request).await;
                reply.ok_or(LockError::SessionExpired)?
            }
        };
        Ok(reply?)
    }

    /// Waits on the watch set on `path`; bounded, returns after a session timeout without
    /// an event, for the caller to look again (which asks ZooKeeper, bounded).
    async fn wait(
        &self,
        path: &str,
        watch: impl Future<Output = Result<WatchedEvent, impl Sized>>,
    ) {
        let event = match self.waits {
            Waits::Unbounded => watch.await,
            Waits::Bounded => {
                let within = self.node.param(SESSION_TIMEOUT_MS);
                match self.node.timer().timeout(within, watch).await {
                    Some(event) => event,
                    None => return,
                }
            }
        };
        // Err: the connection dropped, and the watch with it; look again.
        if let Ok(event) = event {
            self.report.woken_by(path, event.event_type.into());
        }
    }
}

impl Lock for TkLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        let unexpected = |e: &dyn std::fmt::Display| LockError::Unexpected(e.to_string());
        if self.mine.is_none() {
            self.enqueued += 1;
            let path = format!("{}{}_lock-", self.prefix, self.enqueued);
            let (acl, mode) = (Acl::open_unsafe(), CreateMode::EphemeralSequential);
            let created = self.ask(self.zk.create(&path, &b""[..], acl, mode)).await?;
            let created = created.map_err(|e| unexpected(&e))?;
            let stat = self.ask(self.zk.exists(&created)).await?;
            let name = created[LOCK_DIR.len() + 1..].to_string();
            self.report.enqueued(&name, None);
            self.mine = Some((name, stat.ok_or(LockError::NodeGone)?.czxid));
        }
        let (mine, czxid) = self.mine.clone().expect("enqueued above");
        loop {
            let children = self.ask(self.zk.get_children(LOCK_DIR)).await?;
            let line = kit::line(&children.unwrap_or_default());
            let Some(at) = line.iter().position(|c| *c == mine) else {
                self.mine = None;
                return Err(LockError::NodeGone);
            };
            let watched = match (at, self.watches) {
                (0, _) => {
                    return Ok(Grant {
                        token: Some(czxid),
                        ..Grant::default()
                    });
                }
                (_, Watches::Predecessor) => format!("{LOCK_DIR}/{}", line[at - 1]),
                (_, Watches::Lowest) => format!("{LOCK_DIR}/{}", line[0]),
            };
            let (watch, stat) = self.ask(self.zk.with_watcher().exists(&watched)).await?;
            if stat.is_some() {
                self.wait(&watched, watch).await;
            }
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        let Some((mine, _)) = self.mine.take() else {
            return Ok(());
        };
        // Gone already (NoNode) counts as released.
        let _ = self
            .ask(self.zk.delete(&format!("{LOCK_DIR}/{mine}"), None))
            .await?;
        Ok(())
    }
}
