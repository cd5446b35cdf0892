//! The Redis family's simulation glue: serves the core on its host's port 6379 with the
//! node's clocks, runs the active expiry cycle, keeps what survives a crash (nothing, or an
//! append-only file synced always or every second), an optional asynchronous replica that a
//! `failover` promotes, a delayed restart, and `lose_reply` of a SET, a script or a
//! transaction's EXEC; and it
//! records what its clients' commands change (`watch`).
//!
//! What one connection's command sends to another (a pub/sub message) is queued for that
//! connection's task, which writes it between reads over the simulated TCP: a partition or
//! a pause stalls it as it stalls replies, and a connection that breaks ends the
//! subscription (the server forgets the client).
//!
//! The replica lives inside its master's host: it shares the master's clocks and failure
//! fate, and the master's name, as clients behind a virtual address would see it. What it
//! models is the asynchronous stream (its lag) and what a promotion loses.

use crate::history::Kind;
use crate::redis::PORT;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::command::Args;
use crate::redis::conn::Conn;
use crate::redis::events::RedisEvent;
use crate::redis::resp::{self, RequestReader};
use crate::redis::server::{self, Close, Config, Delivery, Outcome, Role, Server};
use crate::sim::fault::Fault;
use crate::sim::node::Node;
use crate::sim::software::{ServerFamily, ServerFuture, ServerSoftware};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, mpsc};
use turmoil::net::{TcpListener, TcpStream};
use watch::Watch;

mod watch;

/// What survives a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Nothing: the server restarts empty.
    None,
    /// An append-only file synced every `fsync_every_ms` (Redis: every second): the writes
    /// acknowledged since the last sync are lost.
    AofEverysec {
        /// How often the file is synced, ms.
        fsync_every_ms: u64,
    },
    /// An append-only file synced before every reply: no acknowledged write is lost.
    AofAlways,
}

/// Simulated Redis masters with these options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RedisFamily {
    pub expiry_clock: ExpiryClock,
    pub persistence: Persistence,
    /// After a crash, the server stays unreachable this long after its host is back
    /// (antirez's answer to restarts without fsync: wait out every TTL).
    pub restart_delay_ms: u64,
    /// The lag of an asynchronous replica; None: no replica.
    pub replica_lag_ms: Option<u64>,
}

/// The requests whose reply a Redis host can lose: a SET, a script (EVAL, EVALSHA), or a
/// transaction's EXEC. The swarm tries the first two, which the recipes send.
const REPLY_OPS: &[&str] = &["set", "eval", "exec"];

/// Active expiry runs ten times a second (`hz 10`).
const EXPIRE_CYCLE_MS: u64 = 100;

impl ServerFamily for RedisFamily {
    fn describe(&self) -> &'static str {
        "a Redis server"
    }

    fn reply_ops(&self) -> &'static [&'static str] {
        REPLY_OPS
    }

    fn swarm_reply_ops(&self) -> &'static [&'static str] {
        &REPLY_OPS[..2]
    }

    fn fails_over(&self) -> bool {
        self.replica_lag_ms.is_some()
    }

    fn install(&self, node: Node) -> Box<dyn ServerSoftware> {
        let mut server = Server::new(self.config(Role::Master));
        if self.replica_lag_ms.is_some() {
            // The replica starts in sync with the empty master.
            server.replica_acked(Some(0));
        }
        let state = State {
            server,
            replica: self.replica_lag_ms.map(|lag_ms| self.replica(lag_ms)),
            family: *self,
            node,
            aof: Vec::new(),
            unsynced: Vec::new(),
            lose: Vec::new(),
            started: false,
            replicated: Rc::new(Notify::new()),
            watch: Watch::default(),
            writers: BTreeMap::new(),
        };
        Box::new(RedisSoftware(Rc::new(RefCell::new(state))))
    }
}

impl RedisFamily {
    fn config(&self, role: Role) -> Config {
        Config {
            role,
            expiry_clock: self.expiry_clock,
            ..Config::default()
        }
    }

    fn replica(&self, lag_ms: u64) -> Replica {
        let mut server = Server::new(self.config(Role::Replica));
        let link = server.connect();
        Replica {
            server,
            link,
            lag_ms,
            in_flight: VecDeque::new(),
            acked: 0,
        }
    }
}

type Shared = Rc<RefCell<State>>;

struct State {
    family: RedisFamily,
    node: Node,
    server: Server,
    replica: Option<Replica>,
    /// The append-only file as synced to disk.
    aof: Vec<Args>,
    /// Appended but not yet synced (AOF everysec).
    unsynced: Vec<Args>,
    /// Armed lose_reply faults: (client, op).
    lose: Vec<(String, String)>,
    /// Whether the software ran before: the next start is a restart after a crash.
    started: bool,
    /// Wakes the replication task when the stream has something new.
    replicated: Rc<Notify>,
    /// The keyspace as the history last saw it change.
    watch: Watch,
    /// Each open connection's queue of bytes from other connections, and its client's
    /// name, by client id.
    writers: BTreeMap<u64, (Writer, String)>,
}

/// A connection's queue: bytes, and whether they answer its blocked command.
type Writer = mpsc::UnboundedSender<(Vec<u8>, bool)>;

struct Replica {
    server: Server,
    link: Conn,
    lag_ms: u64,
    /// The stream on its way: (when it arrives, on the node's monotonic clock; command).
    in_flight: VecDeque<(u64, Args)>,
    /// The master's offset it has applied up to, which it acknowledges as it goes (WAIT).
    acked: u64,
}

impl State {
    fn now(&self) -> Now {
        Now {
            wall_ms: self.node.wall_ms(),
            mono_ms: self.node.mono_ms(),
        }
    }

    /// Sends what a command changed to the AOF and the replica.
    fn propagate(&mut self, ops: Vec<Args>) {
        if ops.is_empty() {
            return;
        }
        match self.family.persistence {
            Persistence::None => {}
            Persistence::AofEverysec { .. } => self.unsynced.extend(ops.iter().cloned()),
            Persistence::AofAlways => self.aof.extend(ops.iter().cloned()),
        }
        let at = self.node.mono_ms();
        if let Some(replica) = &mut self.replica {
            let due = at + replica.lag_ms;
            replica
                .in_flight
                .extend(ops.into_iter().map(|op| (due, op)));
            self.replicated.notify_one();
        }
    }

    /// Rebuilds the server after a crash from what persisted; returns the acknowledged
    /// writes lost.
    fn recover(&mut self) -> u64 {
        let lost = match self.family.persistence {
            Persistence::None => self.server.dump(self.now()).len() as u64,
            Persistence::AofEverysec { .. } => self.unsynced.len() as u64,
            Persistence::AofAlways => 0,
        };
        self.unsynced.clear();
        let now = self.now();
        let mut server = Server::new(self.family.config(Role::Master));
        let mut link = server.connect();
        for op in &self.aof {
            server.replicate(&mut link, op, now);
        }
        self.server = server;
        self.watch.resync(&self.server);
        self.resync_replica();
        lost
    }

    /// A replica starts over from its master's data set (a full sync).
    fn resync_replica(&mut self) {
        let Some(lag_ms) = self.replica.as_ref().map(|r| r.lag_ms) else {
            return;
        };
        let now = self.now();
        let mut replica = self.family.replica(lag_ms);
        replica.server.load(self.server.dump(now), now);
        replica.acked = self.server.repl_offset();
        self.server.replica_acked(Some(replica.acked));
        self.route(None);
        self.replica = Some(replica);
    }

    /// Promotes the replica with what it received; the rest of the stream is lost.
    fn fail_over(&mut self) {
        let Some(mut replica) = self.replica.take() else {
            return;
        };
        let lost = replica.in_flight.len() as u64;
        replica.server.set_role(Role::Master);
        self.server = replica.server;
        self.unsynced.clear();
        let now = self.now();
        self.aof = server::rewrite(&self.server.dump(now));
        self.watch.resync(&self.server);
        self.replica = Some(self.family.replica(replica.lag_ms));
        self.resync_replica();
        self.node
            .record(Kind::Info, RedisEvent::FailedOver { lost }.into());
    }

    /// Records what `client`'s command `args` changed (it propagated something).
    fn record_changes(&mut self, client: &str, args: &[Vec<u8>], outcome: &Outcome, now: Now) {
        let reply = outcome.reply.as_ref();
        let ops = &outcome.propagate;
        let events = self
            .watch
            .command(&self.server, now, client, args, reply, ops);
        for event in events {
            self.node.record(Kind::Info, event.into());
        }
    }

    /// Serves the clients blocked on keys the last command made lists, recording each pop
    /// as its client's command and propagating it.
    fn serve_blocked(&mut self, now: Now) {
        for served in self.server.serve_blocked(now) {
            let client = self
                .writers
                .get(&served.client)
                .map(|(_, name)| name.clone());
            let outcome = Outcome {
                reply: Some(served.reply),
                propagate: served.propagate,
                close: None,
            };
            if let Some(client) = client {
                self.record_changes(&client, &served.args, &outcome, now);
            }
            self.propagate(outcome.propagate);
        }
    }

    /// Hands what the last command sent to other connections to their tasks; returns the
    /// bytes for `own` (the caller, if any), which go before its reply.
    fn route(&mut self, own: Option<u64>) -> Vec<u8> {
        let mut mine = Vec::new();
        for delivery in self.server.take_deliveries() {
            let Delivery {
                client,
                bytes,
                unblocks,
            } = delivery;
            if Some(client) == own {
                mine.extend(bytes);
            } else if let Some((writer, _)) = self.writers.get(&client) {
                // A connection that is ending no longer reads its queue.
                let _ = writer.send((bytes, unblocks));
            }
        }
        mine
    }

    /// Whether the reply to `client`'s command `args` is to be lost (and disarms it). A SET
    /// or a script queued in a transaction is not applied yet: its `+QUEUED` is not lost.
    fn loses_reply(&mut self, client: &str, args: &[Vec<u8>], queuing: bool) -> bool {
        let name = args.first().map(|a| a.to_ascii_lowercase());
        let op = match name.as_deref() {
            Some(b"set") if !queuing => "set",
            Some(b"eval" | b"evalsha") if !queuing => "eval",
            Some(b"exec") => "exec",
            _ => return false,
        };
        let armed = self.lose.iter().position(|(c, o)| c == client && o == op);
        armed.map(|index| self.lose.remove(index)).is_some()
    }
}

struct RedisSoftware(Shared);

impl ServerSoftware for RedisSoftware {
    fn start(&self) -> ServerFuture {
        Box::pin(serve(self.0.clone()))
    }

    fn apply(&mut self, fault: &Fault) {
        let mut state = self.0.borrow_mut();
        match fault {
            Fault::LoseReply { op, client, .. } => state.lose.push((client.clone(), op.clone())),
            Fault::Failover { .. } => state.fail_over(),
            _ => {}
        }
    }

    fn heal(&mut self) {
        self.0.borrow_mut().lose.clear();
    }

    /// Every wait of its is one the stepper sees (`Node::timer`, `turmoil::sleep`).
    fn lazy(&self) -> bool {
        true
    }
}

/// The host's software; turmoil calls it again on every restart.
async fn serve(state: Shared) -> turmoil::Result {
    let node = state.borrow().node.clone();
    let restarted = std::mem::replace(&mut state.borrow_mut().started, true);
    if restarted {
        let lost = state.borrow_mut().recover();
        node.record(Kind::Info, RedisEvent::Restarted { lost }.into());
        let delay = state.borrow().family.restart_delay_ms;
        node.timer().sleep(delay).await;
    }
    node.spawn(expire_cycle(state.clone()));
    node.spawn(replicate(state.clone()));
    if let Persistence::AofEverysec { fsync_every_ms } = state.borrow().family.persistence {
        node.spawn(fsync(state.clone(), fsync_every_ms));
    }
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        node.spawn(serve_conn(state.clone(), client, stream));
    }
}

async fn expire_cycle(state: Shared) {
    let timer = state.borrow().node.timer();
    loop {
        timer.sleep(EXPIRE_CYCLE_MS).await;
        let mut s = state.borrow_mut();
        let now = s.now();
        let dels = s.server.active_expire(now);
        for del in &dels {
            if let Some(key) = del.get(1) {
                let key = String::from_utf8_lossy(key).into_owned();
                s.node
                    .record(Kind::Info, RedisEvent::KeyExpired { key }.into());
            }
        }
        s.watch.expired(&dels);
        s.propagate(dels);
        // Redis's event loop, which `hz 10` wakes as often, answers blocked clients whose
        // timeout passed.
        s.server.expire_blocked(now);
        s.route(None);
    }
}

/// Delivers the stream to the replica, each command once its lag has passed.
async fn replicate(state: Shared) {
    let (timer, notify) = {
        let s = state.borrow();
        (s.node.timer(), s.replicated.clone())
    };
    loop {
        let due = state
            .borrow()
            .replica
            .as_ref()
            .and_then(|r| r.in_flight.front().map(|(due, _)| *due));
        let Some(due) = due else {
            notify.notified().await;
            continue;
        };
        timer.sleep_until(due).await;
        let mut s = state.borrow_mut();
        let now = s.now();
        if let Some(replica) = &mut s.replica
            && let Some((at, op)) = replica.in_flight.front().cloned()
            && at <= due
        {
            replica.in_flight.pop_front();
            replica.server.replicate(&mut replica.link, &op, now);
            replica.acked += 1;
            let acked = replica.acked;
            s.server.replica_acked(Some(acked));
            s.route(None);
        }
    }
}

async fn fsync(state: Shared, every_ms: u64) {
    let timer = state.borrow().node.timer();
    loop {
        timer.sleep(every_ms).await;
        let mut s = state.borrow_mut();
        let synced = std::mem::take(&mut s.unsynced);
        s.aof.extend(synced);
    }
}

/// One client connection until either side closes it; then its watches and subscriptions
/// go. A failover swaps the server under open connections, whose ids the new server may
/// hand out again: a writer is removed only by the task that registered it.
async fn serve_conn(state: Shared, client: String, stream: TcpStream) {
    let (writer, from_others) = mpsc::unbounded_channel();
    let mut conn = {
        let mut s = state.borrow_mut();
        let conn = s.server.connect();
        s.writers
            .insert(conn.id(), (writer.clone(), client.clone()));
        conn
    };
    converse(&state, &client, stream, &mut conn, from_others).await;
    let mut s = state.borrow_mut();
    if s.writers
        .get(&conn.id())
        .is_some_and(|(w, _)| w.same_channel(&writer))
    {
        s.writers.remove(&conn.id());
    }
    s.server.disconnect(&mut conn);
}

/// Requests in, replies out, until either side closes; what other connections send is
/// written between reads.
async fn converse(
    state: &Shared,
    client: &str,
    mut stream: TcpStream,
    conn: &mut Conn,
    mut from_others: mpsc::UnboundedReceiver<(Vec<u8>, bool)>,
) {
    let limits = Config::default().limits;
    let mut input = RequestReader::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let read = if may_receive(state, conn, &from_others) {
            tokio::select! {
                biased;
                Some((bytes, unblocks)) = from_others.recv() => {
                    if stream.write_all(&bytes).await.is_err() {
                        return;
                    }
                    if !unblocks {
                        continue;
                    }
                    // Answered: on with what it sent while blocked.
                    None
                }
                read = stream.read(&mut buf) => Some(read),
            }
        } else {
            Some(stream.read(&mut buf).await)
        };
        if let Some(read) = read {
            match read {
                Ok(n) if n > 0 => input.feed(&buf[..n]),
                _ => return,
            }
        }
        let mut out = Vec::new();
        let mut close = false;
        while !close && !state.borrow().server.is_blocked(conn.id()) {
            match input.next_request(&limits) {
                Ok(None) => break,
                Err(e) => {
                    resp::encode(
                        &crate::redis::replies::error(&e.message()),
                        conn.protocol(),
                        &mut out,
                    );
                    close = true;
                }
                Ok(Some(args)) => {
                    let mut s = state.borrow_mut();
                    let lost = s.loses_reply(client, &args, conn.queued.is_some());
                    let now = s.now();
                    let outcome = s.server.handle(conn, &args, now);
                    if !outcome.propagate.is_empty() {
                        s.record_changes(client, &args, &outcome, now);
                    }
                    s.propagate(outcome.propagate);
                    s.serve_blocked(now);
                    let before_reply = s.route(Some(conn.id()));
                    if lost || outcome.close == Some(Close::Now) {
                        return;
                    }
                    out.extend(before_reply);
                    if let Some(reply) = outcome.reply {
                        conn.encode_reply(&reply, &mut out);
                    }
                    close = outcome.close.is_some();
                }
            }
        }
        if stream.write_all(&out).await.is_err() || close {
            return;
        }
    }
}

/// Whether other connections may send `conn` anything while it waits for its next request:
/// something is queued already, or it is a subscriber (messages) or blocked (its answer),
/// which only its own commands make it. Otherwise its task awaits the socket alone, without
/// polling the empty queue on every read (most of what deliveries cost a plain client).
fn may_receive(
    state: &Shared,
    conn: &Conn,
    queue: &mpsc::UnboundedReceiver<(Vec<u8>, bool)>,
) -> bool {
    let s = state.borrow();
    !queue.is_empty() || s.server.is_blocked(conn.id()) || s.server.is_subscribed(conn.id())
}

#[cfg(test)]
mod tests;
