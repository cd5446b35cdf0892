//! A leader election of the user's own written against tokio-zookeeper, as it would be for
//! production: candidates stand with ephemeral sequential nodes, the lowest leads, and every
//! other candidate watches the one just below its own. What a candidate does when that watch
//! fires is the variant, as in `election`: list again and lead only if lowest (the recipe),
//! or lead at once, whatever fired it (the watch is cancelled when the connection drops),
//! which elects a second leader while the first still leads. As in `tk_lock`, every wait is
//! bounded, since tokio-zookeeper never notices a silent connection; and since it never says
//! a session expired either, a leader looks at its own node to know it still leads.

use locksim::recipes::zk::kit::{self, ELECTION_DIR, Report};
use locksim::tokio_zookeeper::error::Error;
use locksim::tokio_zookeeper::{Acl, CreateMode, WatchedEvent, ZooKeeper};
use locksim::zk::tokio_zookeeper::SESSION_TIMEOUT_MS;
use locksim::{Election, Grant, Node, RecipeError};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// What a candidate does when the watch on the candidate below it fires.
#[derive(Debug, Clone, Copy)]
pub enum OnWatch {
    /// Lists the candidates again: it leads only when its node is the lowest.
    ListAgain,
    /// Leads at once, whatever fired the watch (flawed).
    Lead,
}

/// How many times this host has stood, over all its sessions, to name its nodes.
#[derive(Default)]
struct Stood(u64);

/// One client's candidacy, bound to one tokio-zookeeper session.
pub struct TkElection {
    zk: ZooKeeper,
    node: Node,
    report: Report,
    on_watch: OnWatch,
    stood: Rc<RefCell<Stood>>,
    mine: Option<(String, i64)>,
    /// When the last answered request (or the session's handshake) was asked for: the
    /// server heard from the session then or later, so it lives a session timeout past it.
    alive_at: Cell<u64>,
}

impl TkElection {
    pub async fn connect(node: Node, on_watch: OnWatch) -> Result<TkElection, RecipeError> {
        let asked = node.timer().now_ms();
        let (zk, _events) = locksim::zk::tokio_zookeeper::connect(&node, "zk1").await?;
        Ok(TkElection {
            zk,
            report: Report::new(&node, ELECTION_DIR),
            on_watch,
            stood: node.kept(),
            mine: None,
            alive_at: Cell::new(asked),
            node,
        })
    }

    /// `request`'s reply within `within_ms`; none gives the session up.
    async fn ask_within<T>(
        &self,
        within_ms: u64,
        request: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, RecipeError> {
        let timer = self.node.timer();
        let asked = timer.now_ms();
        let reply = timer.timeout(within_ms, request).await;
        let reply = reply.ok_or(RecipeError::SessionExpired)??;
        self.alive_at.set(asked);
        Ok(reply)
    }

    /// `request`'s reply within a session timeout.
    async fn ask<T>(
        &self,
        request: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, RecipeError> {
        let within = self.node.param(SESSION_TIMEOUT_MS);
        self.ask_within(within, request).await
    }

    /// Creates this candidate's node and reports it: its name and czxid.
    async fn stand(&self) -> Result<(String, i64), RecipeError> {
        self.stood.borrow_mut().0 += 1;
        let n = self.stood.borrow().0;
        let path = format!("{ELECTION_DIR}/_c_{}_{n}_lock-", self.node.name);
        let (acl, mode) = (Acl::open_unsafe(), CreateMode::EphemeralSequential);
        let created = self.ask(self.zk.create(&path, &b""[..], acl, mode)).await?;
        let created = created.map_err(|e| RecipeError::Unexpected(e.to_string()))?;
        let stat = self.ask(self.zk.exists(&created)).await?;
        let name = created[ELECTION_DIR.len() + 1..].to_string();
        self.report.enqueued(&name, None);
        Ok((name, stat.ok_or(RecipeError::NodeGone)?.czxid))
    }

    /// Waits at most a session timeout on the watch set on `path`: whether it fired.
    async fn wait(
        &self,
        path: &str,
        watch: impl Future<Output = Result<WatchedEvent, impl Sized>>,
    ) -> bool {
        let within = self.node.param(SESSION_TIMEOUT_MS);
        match self.node.timer().timeout(within, watch).await {
            Some(Ok(event)) => {
                self.report.woken_by(path, event.event_type.into());
                true
            }
            // Cancelled: the connection dropped, and the watch with it.
            Some(Err(_)) => true,
            None => false,
        }
    }
}

impl Election for TkElection {
    async fn lead(&mut self) -> Result<Grant, RecipeError> {
        if self.mine.is_none() {
            self.mine = Some(self.stand().await?);
        }
        let (mine, czxid) = self.mine.clone().expect("stood above");
        let leads = Grant {
            token: Some(czxid),
            ..Grant::default()
        };
        loop {
            let children = self.ask(self.zk.get_children(ELECTION_DIR)).await?;
            let line = kit::line(&children.unwrap_or_default());
            let Some(at) = line.iter().position(|c| *c == mine) else {
                self.mine = None;
                return Err(RecipeError::NodeGone);
            };
            if at == 0 {
                return Ok(leads);
            }
            let below = format!("{ELECTION_DIR}/{}", line[at - 1]);
            let (watch, stat) = self.ask(self.zk.with_watcher().exists(&below)).await?;
            if stat.is_none() {
                continue;
            }
            let fired = self.wait(&below, watch).await;
            if fired && matches!(self.on_watch, OnWatch::Lead) {
                return Ok(leads);
            }
        }
    }

    async fn resign(&mut self) -> Result<(), RecipeError> {
        let Some((mine, _)) = self.mine.take() else {
            return Ok(());
        };
        // Gone already (NoNode) counts as resigned.
        let _ = self
            .ask(self.zk.delete(&format!("{ELECTION_DIR}/{mine}"), None))
            .await?;
        Ok(())
    }

    /// Completes once the session may have expired, which tokio-zookeeper would not say: the
    /// leader looks at its node every third of a session timeout and counts leadership lost
    /// when the node is gone, or when two thirds of one pass after `alive_at` without an
    /// answer (a pause included), as the Java client's read timeout does. The session lives
    /// the last third at least, so the leader gives up before the server can expire it.
    async fn leadership_lost(&mut self) {
        // Not standing, so not leading.
        let Some((mine, _)) = self.mine.clone() else {
            return;
        };
        let path = format!("{ELECTION_DIR}/{mine}");
        let (timer, third) = (self.node.timer(), self.node.param(SESSION_TIMEOUT_MS) / 3);
        loop {
            timer.sleep_until(self.alive_at.get() + third).await;
            let left = (self.alive_at.get() + 2 * third).saturating_sub(timer.now_ms());
            let looked = self.ask_within(left, self.zk.exists(&path)).await;
            if !matches!(looked, Ok(Some(_))) {
                return;
            }
        }
    }
}
