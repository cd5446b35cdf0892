//! The server's registry of its connections (Redis's `server.clients`), which lets one
//! connection's command reach another: what each client subscribes to, what CLIENT LIST
//! shows of it, and the outbox of frames for clients other than the caller.
//!
//! Each driver owns its connections' [`Conn`]s and hands one in with each input, so the
//! registry keeps a copy of what other commands read about a client (its protocol, name,
//! transaction), taken as its commands run. A client is registered by
//! [`Server::connect`](crate::redis::server::Server::connect) and forgotten by
//! [`Server::disconnect`](crate::redis::server::Server::disconnect).

use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::{self, Frame, Protocol};
use std::collections::BTreeMap;
use subscriptions::{Kind, Subscriptions};

pub(crate) mod subscriptions;

/// Bytes for a connection other than the one whose command made them (a pub/sub message,
/// the late reply to a blocked command), encoded in that connection's protocol: the driver
/// writes them to it as they are, in the order
/// [`Server::take_deliveries`](crate::redis::server::Server::take_deliveries) gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The client id of the connection to write to.
    pub client: u64,
    /// What to write.
    pub bytes: Vec<u8>,
    /// The reply of the connection's blocked command: once it is written, the driver goes
    /// on with the requests that connection sent meanwhile
    /// ([`Server::handle_input`](crate::redis::server::Server::handle_input) with no new bytes).
    pub unblocks: bool,
}

/// What a blocked client waits for (Redis's `c->bpop`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blocked {
    /// The database of its keys.
    pub db: usize,
    /// The keys it waits on, in the order it named them.
    pub keys: Vec<Vec<u8>>,
    /// What it does to the first that gets an element.
    pub then: Then,
    /// When it gives up, ms on the wall clock (Redis's `mstime()`); None: never.
    pub deadline_ms: Option<i64>,
}

/// What a blocked client does once a key it waits on holds a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Then {
    /// BLPOP / BLRPOP: pops from the head (LPOP) or the tail (RPOP).
    Pop(&'static [u8]),
    /// BLMOVE: the LMOVE to run, its arguments after the source key.
    Move(Vec<Vec<u8>>),
    /// WAIT: for this many replicas to acknowledge the offset (it waits on no key).
    Acks {
        /// How many replicas it asked for.
        replicas: i64,
        /// The offset they must have acknowledged (the client's `woff`).
        offset: u64,
    },
}

/// Every connected client, and what waits to be written to them.
#[derive(Debug, Default)]
pub(crate) struct Clients {
    known: BTreeMap<u64, Client>,
    /// Who listens to which channels and patterns.
    pub subs: Subscriptions,
    /// Frames for clients, in the order Redis would write them; whether each answers a
    /// blocked command.
    outbox: Vec<(u64, Frame, bool)>,
    /// The blocked clients.
    blocked: BTreeMap<u64, Blocked>,
    /// Who waits on each key (database, key), in the order they blocked.
    waiting: BTreeMap<(usize, Vec<u8>), Vec<u64>>,
    /// Keys that became lists since the last serving, with someone waiting on them, in
    /// the order they did (Redis's `server.ready_keys`).
    ready: Vec<(usize, Vec<u8>)>,
}

/// What the registry knows of one client, as of its last command.
#[derive(Debug, Clone, Default)]
struct Client {
    proto: Protocol,
    name: Option<Vec<u8>>,
    /// Queued commands, when in MULTI.
    multi: Option<usize>,
    /// The database it selected.
    db: usize,
    /// The last command it sent, by its full name.
    cmd: &'static str,
    /// When its first command came (the core learns of time through commands), ms on the
    /// monotonic clock.
    since_ms: Option<u64>,
    /// When its last command came.
    last_ms: u64,
}

impl Clients {
    /// A new connection.
    pub fn add(&mut self, client: u64) {
        self.known.insert(client, Client::default());
    }

    /// A connection gone: it is forgotten, with its subscriptions and undelivered frames.
    pub fn remove(&mut self, client: u64) {
        self.known.remove(&client);
        self.subs.forget(client);
        self.unblock(client);
        self.outbox.retain(|(to, ..)| *to != client);
    }

    /// `client` blocks, waiting for `blocked`.
    pub fn block(&mut self, client: u64, blocked: Blocked) {
        for key in &blocked.keys {
            let waiting = self.waiting.entry((blocked.db, key.clone())).or_default();
            if !waiting.contains(&client) {
                waiting.push(client);
            }
        }
        self.blocked.insert(client, blocked);
    }

    /// `client` no longer waits: what it waited for.
    pub fn unblock(&mut self, client: u64) -> Option<Blocked> {
        let blocked = self.blocked.remove(&client)?;
        for key in &blocked.keys {
            let at = (blocked.db, key.clone());
            if let Some(waiting) = self.waiting.get_mut(&at) {
                waiting.retain(|&c| c != client);
                if waiting.is_empty() {
                    self.waiting.remove(&at);
                }
            }
        }
        Some(blocked)
    }

    /// Whether `client` waits for a key.
    pub fn is_blocked(&self, client: u64) -> bool {
        self.blocked.contains_key(&client)
    }

    /// `signalKeyAsReady`: `key` now holds a list; noted if someone waits on it.
    pub fn signal_ready(&mut self, db: usize, key: &[u8]) {
        let at = (db, key.to_vec());
        if self.waiting.contains_key(&at) && !self.ready.contains(&at) {
            self.ready.push(at);
        }
    }

    /// The next key signalled ready.
    pub fn next_ready(&mut self) -> Option<(usize, Vec<u8>)> {
        (!self.ready.is_empty()).then(|| self.ready.remove(0))
    }

    /// The client that blocked first on `key`.
    pub fn first_waiting(&self, db: usize, key: &[u8]) -> Option<u64> {
        let waiting = self.waiting.get(&(db, key.to_vec()))?;
        waiting.first().copied()
    }

    /// The earliest deadline of a blocked client, ms on the wall clock.
    pub fn next_deadline(&self) -> Option<i64> {
        self.blocked.values().filter_map(|b| b.deadline_ms).min()
    }

    /// The clients blocked in WAIT, in id order, with what they wait for.
    pub fn waiting_for_acks(&self) -> Vec<(u64, i64, u64)> {
        self.blocked
            .iter()
            .filter_map(|(&id, b)| match b.then {
                Then::Acks { replicas, offset } => Some((id, replicas, offset)),
                _ => None,
            })
            .collect()
    }

    /// The blocked clients whose deadline is before `wall_ms`, in id order.
    pub fn timed_out(&self, wall_ms: i64) -> Vec<u64> {
        let due = |b: &Blocked| b.deadline_ms.is_some_and(|d| d < wall_ms);
        self.blocked
            .iter()
            .filter(|(_, b)| due(b))
            .map(|(&id, _)| id)
            .collect()
    }

    /// Queues the late reply to `client`'s blocked command.
    pub fn answer(&mut self, client: u64, frame: Frame) {
        self.outbox.push((client, frame, true));
    }

    /// Takes a copy of what others read about `conn`; `cmd` is the command it is about to
    /// run (Redis's `c->cmd`, set as the command is looked up).
    pub fn sync(&mut self, conn: &Conn, cmd: Option<&'static str>, now: Now) {
        let Some(client) = self.known.get_mut(&conn.id) else {
            return;
        };
        client.proto = conn.proto;
        if client.name != conn.name {
            client.name.clone_from(&conn.name);
        }
        client.multi = conn.queued.as_ref().map(Vec::len);
        client.db = conn.db;
        if let Some(cmd) = cmd {
            client.cmd = cmd;
            client.since_ms.get_or_insert(now.mono_ms);
            client.last_ms = now.mono_ms;
        }
    }

    /// Queues `frame` for `client`.
    pub fn send(&mut self, client: u64, frame: Frame) {
        self.outbox.push((client, frame, false));
    }

    /// The frames queued for `client`, encoded in `proto`, taken out of the outbox.
    pub fn take_for(&mut self, client: u64, proto: Protocol, out: &mut Vec<u8>) {
        if self.outbox.iter().all(|(to, ..)| *to != client) {
            return;
        }
        for (to, frame, unblocks) in std::mem::take(&mut self.outbox) {
            if to == client {
                resp::encode(&frame, proto, out);
            } else {
                self.outbox.push((to, frame, unblocks));
            }
        }
    }

    /// The frames queued for `client`, taken out of the outbox as they are.
    pub fn take_frames(&mut self, client: u64) -> Vec<Frame> {
        if self.outbox.iter().all(|(to, ..)| *to != client) {
            return Vec::new();
        }
        let (mine, others) = std::mem::take(&mut self.outbox)
            .into_iter()
            .partition(|(to, ..)| *to == client);
        self.outbox = others;
        mine.into_iter().map(|(_, frame, _)| frame).collect()
    }

    /// Everything queued, each in its client's protocol.
    pub fn take_all(&mut self) -> Vec<Delivery> {
        // The driver asks after every command; most send nothing to anyone.
        if self.outbox.is_empty() {
            return Vec::new();
        }
        std::mem::take(&mut self.outbox)
            .into_iter()
            .map(|(client, frame, unblocks)| {
                let proto = self.known.get(&client).map_or(Protocol::Resp2, |c| c.proto);
                let mut bytes = Vec::new();
                resp::encode(&frame, proto, &mut bytes);
                Delivery {
                    client,
                    bytes,
                    unblocks,
                }
            })
            .collect()
    }

    /// Whether `client` is in pub/sub mode (Redis's CLIENT_PUBSUB flag).
    pub fn subscribed(&self, client: u64) -> bool {
        self.subs.count(client) > 0
    }

    /// The ids of the connected clients, in id order (Redis's list is in connection order).
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.known.keys().copied()
    }

    /// `catClientInfoString`: `client`'s line of CLIENT LIST, newline included. What the
    /// simulation has no meaning for is fixed at what an idle local client shows: addresses
    /// `0.0.0.0:0` and `0.0.0.0:6379`, `fd=8`, empty buffers, `events=r`, `user=default`.
    /// Ages count whole seconds of the monotonic clock from the client's first command.
    /// The flags shown are `P` (pub/sub), `x` (MULTI) and `b` (blocked), else `N`.
    pub fn line(&self, client: u64, now: Now) -> Option<String> {
        let c = self.known.get(&client)?;
        let secs = |from: u64| now.mono_ms.saturating_sub(from) / 1000;
        let mut flags = String::new();
        if self.subscribed(client) {
            flags.push('P');
        }
        if c.multi.is_some() {
            flags.push('x');
        }
        if self.is_blocked(client) {
            flags.push('b');
        }
        if flags.is_empty() {
            flags.push('N');
        }
        let name = c.name.as_deref().map(String::from_utf8_lossy);
        let multi = c.multi.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let resp = match c.proto {
            Protocol::Resp2 => 2,
            Protocol::Resp3 => 3,
        };
        Some(format!(
            "id={client} addr=0.0.0.0:0 laddr=0.0.0.0:6379 fd=8 name={name} age={age} \
             idle={idle} flags={flags} db={db} sub={sub} psub={psub} ssub=0 multi={multi} \
             qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 \
             tot-mem=0 events=r cmd={cmd} user=default redir=-1 resp={resp}\n",
            name = name.unwrap_or_default(),
            age = secs(c.since_ms.unwrap_or(now.mono_ms)),
            idle = secs(c.last_ms),
            db = c.db,
            sub = self.subs.count_of(Kind::Channel, client),
            psub = self.subs.count_of(Kind::Pattern, client),
            cmd = if c.cmd.is_empty() { "NULL" } else { c.cmd },
        ))
    }
}
