//! The context a case script runs in: its sessions (locksim clients behind valves), its
//! named watches, and the transcript every call writes to (the calls: `ops`, `raw`). Calls record
//! their outcome and return what the script needs next; nothing here panics on a server's
//! answer, so a difference shows up in the transcript rather than as an abort.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use locksim::zk::client::{SessionEvents, Watch, ZkClient, ZkConfig, ZkError};
use locksim::zk::proto::{EventType, KeeperState, WatcherEvent};
use tokio::task::spawn_local;
use tokio::time::timeout;

use super::transcript::{Item, Transcript};
use super::valve::Valve;

/// Longer than any single call or awaited event should take on either server.
pub const LIMIT: Duration = Duration::from_secs(8);

/// The session timeout cases use unless they test expiry: the most the server grants
/// (20 ticks of 100 ms).
pub const LONG_SESSION_MS: u32 = 2_000;

/// One client session of the case: `s1`, `s2`, ...
pub struct Sess {
    pub label: String,
    pub client: ZkClient,
    valve: Valve,
    /// The server its next dial goes to.
    target: Rc<Cell<SocketAddr>>,
    all: SessionEvents,
    /// Every event the session received so far, in order.
    log: Vec<WatcherEvent>,
}

pub struct Cx {
    /// Where sessions and raw connections go unless told otherwise.
    pub addr: SocketAddr,
    /// The ensemble's members, followers in id order and the leader last (`addr` alone for
    /// a single server).
    pub members: Vec<SocketAddr>,
    /// The case's own subtree, the same on both servers.
    pub base: String,
    pub t: Transcript,
    pub sessions: Vec<Sess>,
    pub watches: BTreeMap<String, Watch>,
    /// Raw sessions opened so far (labelled `r1`, `r2`, ...).
    pub raw_count: usize,
}

/// An index into the case's sessions.
pub type S = usize;

impl Cx {
    pub fn new(addr: SocketAddr, case: &str) -> Self {
        Cx::ensemble(vec![addr], case)
    }

    /// A case on an ensemble whose members are listed followers first, leader last; `addr`
    /// is the leader.
    pub fn ensemble(members: Vec<SocketAddr>, case: &str) -> Self {
        Cx {
            addr: *members.last().expect("at least one server"),
            members,
            base: format!("/{case}"),
            t: Transcript::new(),
            sessions: Vec::new(),
            watches: BTreeMap::new(),
            raw_count: 0,
        }
    }

    /// A path under the case's subtree (`p("")` is the subtree's root).
    pub fn p(&self, rel: &str) -> String {
        if rel.is_empty() {
            self.base.clone()
        } else {
            format!("{}/{rel}", self.base)
        }
    }

    /// Opens a session through locksim's client. Panics if the server refuses outright:
    /// no case can go on without it.
    pub async fn session(&mut self, timeout_ms: u32) -> S {
        self.session_at(self.addr, timeout_ms).await
    }

    /// Opens a session on the server at `addr`; it reconnects there too until `redirect`.
    pub async fn session_at(&mut self, addr: SocketAddr, timeout_ms: u32) -> S {
        let label = format!("s{}", self.sessions.len() + 1);
        let valve = Valve::default();
        let target = Rc::new(Cell::new(addr));
        let dial = {
            let (valve, target) = (valve.clone(), Rc::clone(&target));
            move || valve.connector(target.get())()
        };
        let config = ZkConfig {
            session_timeout_ms: timeout_ms,
            connect_attempt_timeout_ms: 2_000,
            reconnect_backoff_ms: 50,
            initial_connect_attempts: 3,
            ..ZkConfig::default()
        };
        let (client, driver) = ZkClient::connect(dial, config)
            .await
            .unwrap_or_else(|e| panic!("{label}: cannot open a session: {e}"));
        spawn_local(driver.run());
        let all = client.all_events();
        self.t.label(client.session_id(), &label);
        self.sessions.push(Sess {
            label,
            client,
            valve,
            target,
            all,
            log: Vec::new(),
        });
        self.sessions.len() - 1
    }

    pub fn session_id(&self, s: S) -> i64 {
        self.sessions[s].client.session_id()
    }

    pub fn valve(&self, s: S) -> &Valve {
        &self.sessions[s].valve
    }

    /// Sends session `s`'s next dials to `addr` (the current connection stays).
    pub fn redirect(&self, s: S, addr: SocketAddr) {
        self.sessions[s].target.set(addr);
    }

    /// How many events session `s` received so far (for `wait_since`).
    pub fn seen(&mut self, s: S) -> usize {
        let sess = &mut self.sessions[s];
        while let Some(e) = sess.all.try_next() {
            sess.log.push(e);
        }
        sess.log.len()
    }

    pub fn step(&self, s: S, what: String) -> String {
        format!("{} {what}", self.sessions[s].label)
    }

    pub async fn run<T>(
        &self,
        call: impl Future<Output = Result<T, ZkError>>,
    ) -> Result<T, Vec<Item>> {
        match timeout(LIMIT, call).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(vec![Item::Text(error(&err))]),
            Err(_) => Err(vec![Item::Text("no answer".into())]),
        }
    }

    /// What a named watch delivered so far, and whether it is spent. Call after `settle`.
    pub fn watch(&mut self, name: &str) {
        let items = match self.watches.get_mut(name) {
            Some(watch) => {
                let mut events = Vec::new();
                while let Some(e) = watch.try_next() {
                    events.push(e);
                }
                let state = if watch.is_finished() {
                    "spent"
                } else {
                    "armed"
                };
                vec![Item::Events(events), Item::Text(state.into())]
            }
            None => vec![Item::Text("never set".into())],
        };
        self.t.push(format!("watch {name}"), items);
    }

    /// Waits until session `s` received an event matching `want`; records only a failure
    /// (the event itself shows in the session's log at the end).
    pub async fn wait_for(&mut self, s: S, what: &str, want: impl Fn(&WatcherEvent) -> bool) {
        self.wait_since(s, 0, what, want).await;
    }

    /// As `wait_for`, counting only the events after the first `since` (see `seen`).
    pub async fn wait_since(
        &mut self,
        s: S,
        since: usize,
        what: &str,
        want: impl Fn(&WatcherEvent) -> bool,
    ) {
        let step = self.step(s, format!("wait for {what}"));
        let sess = &mut self.sessions[s];
        if sess.log.iter().skip(since).any(&want) {
            return;
        }
        let found = timeout(LIMIT, async {
            while let Some(e) = sess.all.next().await {
                let hit = want(&e);
                sess.log.push(e);
                if hit {
                    return true;
                }
            }
            false
        })
        .await;
        if found != Ok(true) {
            self.t.push(step, vec![Item::Text("did not happen".into())]);
        }
    }

    pub async fn wait_state(&mut self, s: S, state: KeeperState) {
        self.wait_for(s, &format!("{state:?}"), |e| {
            e.event_type == EventType::None && e.state == state
        })
        .await;
    }

    pub async fn wait_node_event(&mut self, s: S, kind: EventType, rel: &str) {
        let path = self.p(rel);
        self.wait_for(s, &format!("{kind:?} {path}"), |e| {
            e.event_type == kind && e.path == path
        })
        .await;
    }

    /// Lets every notification already caused reach its session: a read on each live
    /// session is answered only after the notifications queued before it (unrecorded).
    pub async fn settle(&mut self) {
        for sess in &mut self.sessions {
            let _ = timeout(LIMIT, sess.client.exists("/")).await;
            while let Some(e) = sess.all.try_next() {
                sess.log.push(e);
            }
        }
    }

    /// Settles, records each session's events in order, closes what is left, and hands
    /// the transcript back.
    pub async fn finish(mut self) -> Transcript {
        self.settle().await;
        let names: Vec<String> = self.watches.keys().cloned().collect();
        for name in names {
            self.watch(&name);
        }
        for sess in &self.sessions {
            self.t.push(
                format!("{} received", sess.label),
                vec![Item::Events(sess.log.clone())],
            );
        }
        for sess in &self.sessions {
            let _ = timeout(LIMIT, sess.client.close()).await;
        }
        self.t
    }
}

pub fn error(err: &ZkError) -> String {
    match err {
        ZkError::Server(code) => format!("err {code:?}"),
        other => format!("client {other:?}"),
    }
}
