//! The Redis host core: one server with what surrounds it in a host (the connections'
//! writers and their output limits, the append-only file, an asynchronous replica), served
//! over byte streams by the same tasks in the simulation (`sim_host`) and in
//! `locksim serve redis` (`serve`). What differs between the two (clocks, timers, what to
//! record, the simulation's lost replies) is the `Env`, as in `zk::host`.
//!
//! Each task sleeps until its part's next deadline on the `Env`'s monotonic clock: the
//! active expiry on Redis's cycle (`expire_keys`), the replica's next command of the stream
//! (`replicate`), the AOF's next fsync (`fsync`). Nothing here spawns tasks or reads a clock.
//!
//! What one connection's command sends to another (a pub/sub message) goes through that
//! connection's writer: a queue its task drains between reads, ahead of reading more. A
//! subscriber whose unwritten messages outgrow Redis's `client-output-buffer-limit` for its
//! class (`output_limit`) is dropped, as Redis drops it.

use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::Args;
use crate::redis::resp::Frame;
use crate::redis::role::Role;
use crate::redis::server::{Around, Config, Outcome, Output, Served, Server};
pub(crate) use conn::serve_conn;
use durability::Durability;
pub use durability::Persistence;
use replica::Replica;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use tokio::sync::Notify;
use writers::Writers;

mod conn;
mod durability;
mod replica;
#[cfg(test)]
mod tests;
mod writers;

/// The most one read takes: Redis's PROTO_IOBUF_LEN. The core checks its request limits
/// after each read, so handing it the same slices draws the line where Redis does.
pub const READ_LEN: usize = 16 * 1024;

/// How often the active expiry runs, ms: Redis's default `hz` of 10.
pub const EXPIRE_PERIOD_MS: u64 = 100;

/// What a host reports as it serves, for a log or a history.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent<'a> {
    Accepted {
        conn: u64,
        client: &'a str,
    },
    /// The connection ended; `by_server` when the core ended it (QUIT, a protocol error, a
    /// request that looks like HTTP, a lost reply, its output limit) rather than the client
    /// or the network.
    Closed {
        conn: u64,
        by_server: bool,
    },
    /// What the core sends to replicas and the AOF: a read's writes (`conn`), or the DELs of
    /// the active expiry (`None`).
    Propagated {
        conn: Option<u64>,
        commands: &'a [Args],
    },
    /// A subscriber's unwritten messages reached its output limit: the server drops it.
    OutputLimit {
        conn: u64,
        client: &'a str,
        unwritten: usize,
    },
}

/// Everything about the surroundings the host needs.
pub trait Env {
    /// The server's clocks now.
    fn now(&self) -> Now;

    /// Completes once the monotonic clock of [`Env::now`] reads `mono_ms` or later.
    fn sleep_until(&self, mono_ms: u64) -> impl Future<Output = ()> + 'static;

    fn observe(&mut self, event: HostEvent<'_>);

    /// Whether the reply to `client`'s request `args`, which ran (and did not block), is
    /// lost: the connection ends with nothing of its read written. `queuing`: the request
    /// came inside MULTI.
    fn loses_reply(&mut self, _client: &str, _args: &[Vec<u8>], _queuing: bool) -> bool {
        false
    }

    /// Whether the reply to the pop `args` that served `client`'s blocked command is lost:
    /// the pop is applied and the client's connection ends without its reply.
    fn loses_served_reply(&mut self, _client: &str, _args: &[Vec<u8>]) -> bool {
        false
    }

    /// `client`'s command `args` changed what `server` holds: it answered `reply` and
    /// propagated `ops` (not empty). A blocked client's pop counts as its own command.
    fn changed(
        &mut self,
        _server: &Server,
        _client: &str,
        _args: &[Vec<u8>],
        _reply: Option<&Frame>,
        _ops: &[Args],
        _now: Now,
    ) {
    }

    /// A restart or a failover replaced the server with `server`.
    fn replaced(&mut self, _server: &Server) {}
}

/// The core and what surrounds it.
pub struct Host<E> {
    pub env: E,
    /// How the server is set up (a master's), for the servers a restart or a failover makes.
    config: Config,
    server: Server,
    downstream: Downstream,
    writers: Writers,
    /// Read buffers of connections that ended, for the next ones: zeroing a fresh one costs
    /// more than many a request does.
    buffers: Vec<Vec<u8>>,
}

/// Where what the server propagates goes: the append-only file and the replica.
struct Downstream {
    durability: Durability,
    replica: Option<Replica>,
    /// Wakes the replication task when the stream has something new.
    replicated: Rc<Notify>,
}

impl Downstream {
    fn propagate(&mut self, ops: &[Args], now: Now) {
        if ops.is_empty() {
            return;
        }
        self.durability.append(ops);
        if let Some(replica) = &mut self.replica {
            replica.send(ops, now.mono_ms);
            self.replicated.notify_one();
        }
    }
}

pub type SharedHost<E> = Rc<RefCell<Host<E>>>;

impl<E: Env> Host<E> {
    /// A master of `config` with neither persistence nor replica.
    pub fn new(env: E, config: Config) -> Host<E> {
        Host {
            env,
            config,
            server: Server::new(config),
            downstream: Downstream {
                durability: Durability::new(Persistence::None),
                replica: None,
                replicated: Rc::new(Notify::new()),
            },
            writers: Writers::default(),
            buffers: Vec::new(),
        }
    }

    /// With what survives a crash.
    pub fn persisting(mut self, persistence: Persistence) -> Host<E> {
        self.downstream.durability = Durability::new(persistence);
        self
    }

    /// With an asynchronous replica `lag_ms` behind, in sync with the empty master.
    pub fn replicated(mut self, lag_ms: u64) -> Host<E> {
        self.server.replica_acked(Some(0));
        self.downstream.replica = Some(Replica::new(self.config, lag_ms));
        self
    }

    pub fn shared(self) -> SharedHost<E> {
        Rc::new(RefCell::new(self))
    }

    /// The server rebuilt after a crash from what persisted; returns the acknowledged
    /// writes lost.
    pub fn recover(&mut self) -> u64 {
        let now = self.env.now();
        let (server, lost) = self
            .downstream
            .durability
            .recover(&self.server, self.config, now);
        self.server = server;
        self.env.replaced(&self.server);
        self.resync_replica();
        lost
    }

    /// Promotes the replica with what it received, the rest of the stream lost; returns how
    /// many commands were lost, None without a replica.
    pub fn fail_over(&mut self) -> Option<u64> {
        let mut replica = self.downstream.replica.take()?;
        let lost = replica.in_flight();
        replica.server.set_role(Role::Master);
        self.server = replica.server;
        let now = self.env.now();
        self.downstream.durability.rewrite(&self.server, now);
        self.env.replaced(&self.server);
        self.downstream.replica = Some(Replica::new(self.config, replica.lag_ms));
        self.resync_replica();
        Some(lost)
    }

    /// A replica starts over from its master's data set (a full sync).
    fn resync_replica(&mut self) {
        let Some(lag_ms) = self.downstream.replica.as_ref().map(|r| r.lag_ms) else {
            return;
        };
        let now = self.env.now();
        let mut replica = Replica::new(self.config, lag_ms);
        replica.server.load(self.server.dump(now), now);
        replica.acked = self.server.repl_offset();
        self.server.replica_acked(Some(replica.acked));
        self.writers.route(&mut self.server, &mut self.env, now);
        self.downstream.replica = Some(replica);
    }

    /// Bytes read from `client`'s connection `conn`, handed to the core.
    fn handle_input(&mut self, client: &str, conn: &mut Conn, input: &[u8]) -> Output {
        let now = self.env.now();
        let Host {
            env,
            server,
            downstream,
            writers,
            ..
        } = self;
        let mut around = Serving {
            client,
            env,
            downstream,
            writers,
        };
        let output = server.handle_input_with(conn, input, now, &mut around);
        if !output.propagate.is_empty() {
            self.env.observe(HostEvent::Propagated {
                conn: Some(conn.id()),
                commands: &output.propagate,
            });
        }
        output
    }

    /// Whether other connections may send `conn` anything while it waits for its next
    /// request: it is a subscriber (messages) or blocked (its answer), which only its own
    /// commands make it.
    fn may_receive(&self, conn: u64) -> bool {
        self.server.is_blocked(conn) || self.server.is_subscribed(conn)
    }

    /// One active expiry cycle, and the blocked clients whose timeout passed answered
    /// (Redis's event loop, which `hz 10` wakes as often, does the same).
    fn expire_cycle(&mut self) {
        let now = self.env.now();
        let dels = self.server.active_expire(now);
        if !dels.is_empty() {
            self.env.observe(HostEvent::Propagated {
                conn: None,
                commands: &dels,
            });
        }
        self.downstream.propagate(&dels, now);
        self.server.expire_blocked(now);
        self.writers.route(&mut self.server, &mut self.env, now);
    }

    /// The replica applies the next command of the stream if it arrives by `due`.
    fn replicate_due(&mut self, due: u64) {
        let now = self.env.now();
        let Some(replica) = &mut self.downstream.replica else {
            return;
        };
        if let Some(acked) = replica.apply_next(due, now) {
            self.server.replica_acked(Some(acked));
            self.writers.route(&mut self.server, &mut self.env, now);
        }
    }
}

/// The host's work around each request of a read: what changed reported, propagated to the
/// AOF and the replica, and what went to other connections handed to their writers.
struct Serving<'a, E> {
    client: &'a str,
    env: &'a mut E,
    downstream: &'a mut Downstream,
    writers: &'a mut Writers,
}

impl<E: Env> Around for Serving<'_, E> {
    fn loses_reply(&mut self, args: &[Vec<u8>], queuing: bool) -> bool {
        self.env.loses_reply(self.client, args, queuing)
    }

    fn ran(&mut self, server: &Server, _: &Conn, args: &[Vec<u8>], outcome: &Outcome, now: Now) {
        if !outcome.propagate.is_empty() {
            let reply = outcome.reply.as_ref();
            let ops = &outcome.propagate;
            self.env.changed(server, self.client, args, reply, ops, now);
        }
        self.downstream.propagate(&outcome.propagate, now);
    }

    fn served(&mut self, server: &mut Server, served: &[Served], now: Now) {
        for served in served {
            if let Some(client) = self.writers.client(served.client) {
                let client = client.to_string();
                if !served.propagate.is_empty() {
                    let reply = Some(&served.reply);
                    let ops = &served.propagate;
                    self.env
                        .changed(server, &client, &served.args, reply, ops, now);
                }
                if self.env.loses_served_reply(&client, &served.args) {
                    self.writers.drop_conn(served.client);
                }
            }
            self.downstream.propagate(&served.propagate, now);
        }
        self.writers.route(server, self.env, now);
    }
}

/// Runs the active expiry every [`EXPIRE_PERIOD_MS`], as Redis's `serverCron` does.
pub async fn expire_keys<E: Env>(host: SharedHost<E>) {
    loop {
        let sleep = {
            let h = host.borrow();
            h.env.sleep_until(h.env.now().mono_ms + EXPIRE_PERIOD_MS)
        };
        sleep.await;
        host.borrow_mut().expire_cycle();
    }
}

/// Delivers the stream to the replica, each command once its lag has passed.
pub async fn replicate<E: Env>(host: SharedHost<E>) {
    let notify = host.borrow().downstream.replicated.clone();
    loop {
        let due = host
            .borrow()
            .downstream
            .replica
            .as_ref()
            .and_then(Replica::next_due);
        let Some(due) = due else {
            notify.notified().await;
            continue;
        };
        let sleep = host.borrow().env.sleep_until(due);
        sleep.await;
        host.borrow_mut().replicate_due(due);
    }
}

/// Syncs the append-only file as often as its persistence says (AOF everysec); returns at
/// once under any other.
pub async fn fsync<E: Env>(host: SharedHost<E>) {
    let Some(every_ms) = host.borrow().downstream.durability.fsync_every_ms() else {
        return;
    };
    loop {
        let sleep = {
            let h = host.borrow();
            h.env.sleep_until(h.env.now().mono_ms + every_ms)
        };
        sleep.await;
        host.borrow_mut().downstream.durability.fsync();
    }
}
