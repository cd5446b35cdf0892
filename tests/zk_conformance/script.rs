//! The context a case script runs in: its sessions (locksim clients behind valves, plus raw
//! connections), its named watches, and the transcript every call writes to. Calls record
//! their outcome and return what the script needs next; nothing here panics on a server's
//! answer, so a difference shows up in the transcript rather than as an abort.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use locksim::zk::client::{SessionEvents, Watch, ZkClient, ZkConfig, ZkError};
use locksim::zk::proto::{
    CreateMode, EventType, KeeperState, Request, Response, Stat, WatcherEvent,
};
use tokio::task::spawn_local;
use tokio::time::timeout;

use super::raw::RawConn;
use super::transcript::{Item, Transcript};
use super::valve::Valve;

/// Longer than any single call or awaited event should take on either server.
const LIMIT: Duration = Duration::from_secs(8);

/// The session timeout cases use unless they test expiry: the most the server grants
/// (20 ticks of 100 ms).
pub const LONG_SESSION_MS: u32 = 2_000;

/// One client session of the case: `s1`, `s2`, ...
pub struct Sess {
    label: String,
    client: ZkClient,
    valve: Valve,
    all: SessionEvents,
    /// Every event the session received so far, in order.
    log: Vec<WatcherEvent>,
}

pub struct Cx {
    pub addr: SocketAddr,
    /// The case's own subtree, the same on both servers.
    pub base: String,
    t: Transcript,
    sessions: Vec<Sess>,
    watches: BTreeMap<String, Watch>,
    raw_count: usize,
}

/// An index into the case's sessions.
pub type S = usize;

impl Cx {
    pub fn new(addr: SocketAddr, case: &str) -> Self {
        Cx {
            addr,
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
        let label = format!("s{}", self.sessions.len() + 1);
        let valve = Valve::default();
        let config = ZkConfig {
            session_timeout_ms: timeout_ms,
            connect_attempt_timeout_ms: 2_000,
            reconnect_backoff_ms: 50,
            initial_connect_attempts: 3,
        };
        let (client, driver) = ZkClient::connect(valve.connector(self.addr), config)
            .await
            .unwrap_or_else(|e| panic!("{label}: cannot open a session: {e}"));
        spawn_local(driver.run());
        let all = client.all_events();
        self.t.label(client.session_id(), &label);
        self.sessions.push(Sess {
            label,
            client,
            valve,
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

    fn step(&self, s: S, what: String) -> String {
        format!("{} {what}", self.sessions[s].label)
    }

    async fn run<T>(&self, call: impl Future<Output = Result<T, ZkError>>) -> Result<T, Vec<Item>> {
        match timeout(LIMIT, call).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(vec![Item::Text(error(&err))]),
            Err(_) => Err(vec![Item::Text("no answer".into())]),
        }
    }

    pub async fn create(
        &mut self,
        s: S,
        rel: &str,
        data: &str,
        mode: CreateMode,
    ) -> Option<String> {
        let path = self.p(rel);
        let step = self.step(s, format!("create {path} {mode:?} {data:?}"));
        let client = self.sessions[s].client.clone();
        match self.run(client.create(&path, data.as_bytes(), mode)).await {
            Ok(created) => {
                self.t.push(step, vec![Item::Text(format!("ok {created}"))]);
                Some(created)
            }
            Err(items) => {
                self.t.push(step, items);
                None
            }
        }
    }

    /// A create with an absolute path as given (for malformed paths).
    pub async fn create_abs(&mut self, s: S, path: &str, mode: CreateMode) {
        let step = self.step(s, format!("create {path:?} {mode:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.create(path, b"", mode)).await {
            Ok(created) => vec![Item::Text(format!("ok {created}"))],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn create2(&mut self, s: S, rel: &str, data: &str, mode: CreateMode) {
        let path = self.p(rel);
        let step = self.step(s, format!("create2 {path} {mode:?} {data:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.create2(&path, data.as_bytes(), mode)).await {
            Ok((created, stat)) => vec![Item::Text(format!("ok {created}")), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn delete(&mut self, s: S, rel: &str, version: i32) {
        self.delete_abs(s, &self.p(rel), version).await;
    }

    pub async fn delete_abs(&mut self, s: S, path: &str, version: i32) {
        let step = self.step(s, format!("delete {path:?} v{version}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.delete(path, version)).await {
            Ok(()) => vec![Item::Text("ok".into())],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn set_data(&mut self, s: S, rel: &str, data: &str, version: i32) {
        let path = self.p(rel);
        let step = self.step(s, format!("setData {path} {data:?} v{version}"));
        let client = self.sessions[s].client.clone();
        let items = match self
            .run(client.set_data(&path, data.as_bytes(), version))
            .await
        {
            Ok(stat) => vec![Item::Text("ok".into()), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn exists(&mut self, s: S, rel: &str) {
        self.exists_abs(s, &self.p(rel)).await;
    }

    pub async fn exists_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("exists {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.exists(path)).await {
            Ok(stat) => stat_or_none(stat),
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// exists with a watch kept as `name`.
    pub async fn exists_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("exists+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.exists_watch(&path)).await {
            Ok((stat, watch)) => {
                self.watches.insert(name.to_string(), watch);
                stat_or_none(stat)
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_data(&mut self, s: S, rel: &str) {
        self.get_data_abs(s, &self.p(rel)).await;
    }

    pub async fn get_data_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("getData {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_data(path)).await {
            Ok((data, stat)) => vec![Item::Data(data), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// getData with a watch kept as `name` (when the server set one).
    pub async fn get_data_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getData+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_data_watch(&path)).await {
            Ok((data, stat, watch)) => {
                self.watches.insert(name.to_string(), watch);
                vec![Item::Data(data), Item::Stat(stat)]
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_children(&mut self, s: S, rel: &str) {
        self.get_children_abs(s, &self.p(rel)).await;
    }

    pub async fn get_children_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("getChildren {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children(path)).await {
            Ok(children) => vec![Item::Children(children.into_iter().collect())],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_children2(&mut self, s: S, rel: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getChildren2 {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children2(&path)).await {
            Ok((children, stat)) => vec![
                Item::Children(children.into_iter().collect()),
                Item::Stat(stat),
            ],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// getChildren with a watch kept as `name` (when the server set one).
    pub async fn get_children_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getChildren+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children_watch(&path)).await {
            Ok((children, watch)) => {
                self.watches.insert(name.to_string(), watch);
                vec![Item::Children(children.into_iter().collect())]
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn close(&mut self, s: S) {
        let step = self.step(s, "close".into());
        let client = self.sessions[s].client.clone();
        let items = match timeout(LIMIT, client.close()).await {
            Ok(()) => vec![Item::Text("done".into())],
            Err(_) => vec![Item::Text("no answer".into())],
        };
        self.t.push(step, items);
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
        let step = self.step(s, format!("wait for {what}"));
        let sess = &mut self.sessions[s];
        if sess.log.iter().any(&want) {
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

    /// Opens a raw session (new when `session` is None, else a resume with that id and
    /// password); records the answer and whether the server then closed the connection.
    pub async fn raw_connect(
        &mut self,
        what: &str,
        session: Option<(i64, Vec<u8>)>,
        timeout_ms: i32,
    ) -> Option<(RawConn, i64, Vec<u8>)> {
        let (id, passwd) = session.unwrap_or((0, vec![0; 16]));
        let step = format!("raw connect {what} timeout={timeout_ms}");
        match RawConn::connect(self.addr, id, &passwd, timeout_ms).await {
            Ok((mut conn, response)) => {
                if id == 0 && response.session_id != 0 {
                    self.raw_count += 1;
                    self.t
                        .label(response.session_id, &format!("r{}", self.raw_count));
                }
                let granted = response.timeout_ms > 0;
                let mut items = vec![
                    Item::Text(format!("timeout={}", response.timeout_ms)),
                    Item::Session(response.session_id),
                    Item::Text(format!(
                        "passwd={}",
                        if response.passwd.iter().all(|&b| b == 0) {
                            "zeros"
                        } else {
                            "set"
                        }
                    )),
                ];
                if !granted {
                    let closed = conn.closed_by_server().await;
                    items.push(Item::Text(format!("closed={closed}")));
                }
                self.t.push(step, items);
                granted.then_some((conn, response.session_id, response.passwd))
            }
            Err(err) => {
                self.t.push(step, vec![Item::Text(format!("{err:?}"))]);
                None
            }
        }
    }

    /// A request on a raw connection; records the error code or the body's gist.
    pub async fn raw_call(&mut self, conn: &mut RawConn, what: &str, xid: i32, request: Request) {
        let step = format!("raw {what}");
        let items = match conn.call(xid, &request).await {
            Ok((header, body)) => vec![Item::Text(format!("{:?}", header.err)), raw_body(body)],
            Err(err) => vec![Item::Text(format!("{err:?}"))],
        };
        self.t.push(step, items);
    }

    /// Whether the server closes a raw connection (within the limit).
    pub async fn raw_closed(&mut self, conn: &mut RawConn, what: &str) {
        let closed = conn.closed_by_server().await;
        self.t.push(
            format!("raw {what} closed by server"),
            vec![Item::Text(closed.to_string())],
        );
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

fn stat_or_none(stat: Option<Stat>) -> Vec<Item> {
    match stat {
        Some(stat) => vec![Item::Stat(stat)],
        None => vec![Item::Text("none".into())],
    }
}

fn raw_body(body: Option<Response>) -> Item {
    match body {
        Some(Response::Create { path }) => Item::Text(path),
        Some(Response::Exists { stat }) => Item::Stat(stat),
        Some(other) => Item::Text(format!("{:?}", other_kind(&other))),
        None => Item::Text("-".into()),
    }
}

fn other_kind(response: &Response) -> String {
    let debug = format!("{response:?}");
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or("")
        .to_string()
}

pub fn error(err: &ZkError) -> String {
    match err {
        ZkError::Server(code) => format!("err {code:?}"),
        other => format!("client {other:?}"),
    }
}
