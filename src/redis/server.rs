//! The sans-IO Redis server core: sixteen databases of typed keys with expiry, a master or
//! a replica. Inputs arrive with the time as an argument (`handle_input`, `handle`,
//! `replicate`, `active_expire`); replies, what to propagate and whether to close are
//! returned. No I/O, no clock reads, no randomness: the driver moves bytes and time.
//!
//! Modelled on Redis 7.0.15. A command is checked as `processCommand` checks it (the HTTP
//! guard, the name, the arity, READONLY on a replica) and run as `call()` runs it: the keys
//! it finds expired are deleted first and their DELs propagated ahead of it, and the whole
//! goes out wrapped in MULTI/EXEC when it is more than one command. A client's MULTI queues
//! its commands and EXEC runs them as one step (`transaction`).
//!
//! The scripting seam: [`crate::redis::command::lookup`] and [`Server::call`] (see there).

use crate::redis::clients::Clients;
pub use crate::redis::clients::Delivery;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::cmd::table::Proc;
use crate::redis::cmd::{self, Ctx, Expiry};
use crate::redis::command::{self, CommandSpec, Flags, Lookup};
pub use crate::redis::conn::Conn;
use crate::redis::cstr::is;
use crate::redis::keyspace::{DATABASES, Keyspace};
use crate::redis::replies;
use crate::redis::resp::Args;
use crate::redis::resp::{self, Frame, Limits, RequestReader};
use crate::redis::role::Role;
use crate::redis::script::{self, Scripts};
pub use blocking::Served;
pub(crate) use connection::COMMANDS as CONNECTION_COMMANDS;
pub(crate) use scripting::COMMANDS as SCRIPTING_COMMANDS;
pub use snapshot::Entry;
pub(crate) use snapshot::rewrite;
pub(crate) use transaction::COMMANDS as TRANSACTION_COMMANDS;

mod blocking;
mod connection;
mod scripting;
mod snapshot;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests_blocking;
#[cfg(test)]
mod tests_commands;
#[cfg(test)]
mod tests_expiry;
#[cfg(test)]
mod tests_hashes_sets;
#[cfg(test)]
mod tests_hello;
#[cfg(test)]
mod tests_pubsub;
#[cfg(test)]
mod tests_server;
#[cfg(test)]
mod tests_strings_keys;
#[cfg(test)]
mod tests_transaction;
#[cfg(test)]
mod tests_wait;
#[cfg(test)]
mod tests_zset;
mod transaction;

/// Keys per sample of the active expiry (ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP).
const ACTIVE_EXPIRE_KEYS_PER_LOOP: usize = 20;
/// The share of expired keys in a sample, in percent, above which the cycle samples again
/// (ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE).
const ACTIVE_EXPIRE_ACCEPTABLE_STALE: usize = 10;

/// How a server is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Master or replica (a master by default).
    pub role: Role,
    /// Which clock deadlines live on: Redis's wall clock, or the monotonic fix.
    pub expiry_clock: ExpiryClock,
    /// Request size limits (Redis's by default).
    pub limits: Limits,
    /// client-query-buffer-limit: a connection whose unprocessed input (the unparsed bytes
    /// and the argument being read, as Redis counts it) grows past this after a read is
    /// dropped, unanswered (1 GiB by default).
    pub max_query_buffer: usize,
    /// What one script may allocate in the Lua state (64 MiB by default; a real Redis sets no
    /// limit).
    pub lua_memory_limit: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            role: Role::default(),
            expiry_clock: ExpiryClock::default(),
            limits: Limits::default(),
            max_query_buffer: 1 << 30,
            lua_memory_limit: script::MEMORY_LIMIT,
        }
    }
}

/// What one command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The reply; `None` for an empty request or when the connection drops without one.
    pub reply: Option<Frame>,
    /// The commands to send to replicas and append to the AOF, in order, wrapped in
    /// MULTI/EXEC when there are several (Redis 7.0's `propagatePendingCommands`). The
    /// SELECT that starts a stream is the link's business.
    pub propagate: Vec<Args>,
    /// Whether and when the connection ends (None: it stays open).
    pub close: Option<Close>,
}

/// How a connection ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// Once the reply is written (QUIT, a protocol error).
    AfterReply,
    /// At once, replies of the same read unsent: a request that looks like HTTP (a line
    /// starting `POST` or `Host:`), Redis's guard against cross-protocol scripting.
    Now,
}

/// What one read did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The replies, encoded, in order.
    pub bytes: Vec<u8>,
    /// What the commands propagate, in order (see [`Outcome::propagate`]).
    pub propagate: Vec<Args>,
    /// Close the connection once `bytes` are written.
    pub close: bool,
}

/// A host's own work around each request of a read ([`Server::handle_input_with`]): the
/// simulation loses replies and records what changed; every host propagates and routes.
pub trait Around {
    /// After `args` ran (and did not block): whether its reply is lost. The connection
    /// ends with nothing of this read written (the simulation's lost reply). `queuing`:
    /// it came inside MULTI.
    fn loses_reply(&mut self, args: &[Vec<u8>], queuing: bool) -> bool;

    /// After `args` ran on `conn` and answered `outcome`, before it serves the clients
    /// blocked on what it pushed.
    fn ran(&mut self, server: &Server, conn: &Conn, args: &[Vec<u8>], outcome: &Outcome, now: Now);

    /// After the request served the blocked clients `served` (their pops ran, their
    /// replies wait in [`Server::take_deliveries`] with what the request sent other
    /// connections; the frames for its own connection are taken).
    fn served(&mut self, server: &mut Server, served: &[Served], now: Now);
}

/// No work around requests: [`Server::handle_input`].
struct Unobserved;

impl Around for Unobserved {
    fn loses_reply(&mut self, _: &[Vec<u8>], _: bool) -> bool {
        false
    }

    fn ran(&mut self, _: &Server, _: &Conn, _: &[Vec<u8>], _: &Outcome, _: Now) {}

    fn served(&mut self, _: &mut Server, _: &[Served], _: Now) {}
}

/// One Redis server.
#[derive(Debug)]
pub struct Server {
    config: Config,
    /// The databases, SELECT's index into them.
    dbs: Vec<Keyspace>,
    /// How many commands this server has propagated (Redis's `master_repl_offset`, counted
    /// in commands).
    repl_offset: u64,
    /// The offset its replica has acknowledged; None without a replica.
    replica_ack: Option<u64>,
    /// The database the propagated stream is in: a write elsewhere goes out after a SELECT
    /// (Redis's `slaveseldb`). A new stream's reader starts in database 0.
    stream_db: usize,
    /// The connected clients, which one client's command may reach (pub/sub).
    clients: Clients,
    next_client_id: u64,
    /// The client that runs scripts' commands (Redis's Lua client).
    script_client: Conn,
    /// The Lua state and script cache; out of its place only while a script runs.
    scripts: Option<Box<Scripts>>,
}

impl Server {
    /// A server with empty databases.
    pub fn new(config: Config) -> Server {
        Server {
            dbs: vec![Keyspace::default(); DATABASES],
            repl_offset: 0,
            replica_ack: None,
            stream_db: 0,
            clients: Clients::default(),
            next_client_id: 2,
            script_client: Conn::new(1),
            scripts: Some(Box::new(
                Scripts::new().with_memory_limit(config.lua_memory_limit),
            )),
            config,
        }
    }

    /// Whether it is a master or a replica.
    pub fn role(&self) -> Role {
        self.config.role
    }

    /// The clock deadlines are kept and judged on.
    pub fn expiry_clock(&self) -> ExpiryClock {
        self.config.expiry_clock
    }

    /// A failover promotes a replica (REPLICAOF NO ONE) or demotes a master.
    pub fn set_role(&mut self, role: Role) {
        self.config.role = role;
    }

    /// A new connection (a client, or the link from a master), with the next client id
    /// (from 2: the scripts' client is 1).
    pub fn connect(&mut self) -> Conn {
        let conn = Conn::new(self.next_client_id);
        self.next_client_id = self.next_client_id.saturating_add(1);
        self.clients.add(conn.id);
        conn
    }

    /// Bytes read from a connection: runs every whole request in them (and in what earlier
    /// reads left), as `processInputBuffer` does. Redis reads at most 16 KiB at a time; a
    /// driver that hands over the same slices meets its limits at the same bytes. A request
    /// that blocks (BLPOP) answers nothing: the requests after it wait in the connection's
    /// input until the delivery that answers it, after which the driver calls this again.
    pub fn handle_input(&mut self, conn: &mut Conn, input: &[u8], now: Now) -> Output {
        self.handle_input_with(conn, input, now, &mut Unobserved)
    }

    /// [`Server::handle_input`] with a host's own work around each request (`around`): it
    /// may lose a request's reply, and it hears each request that ran, with the blocked
    /// clients it served, before the next one runs.
    pub fn handle_input_with(
        &mut self,
        conn: &mut Conn,
        input: &[u8],
        now: Now,
        around: &mut impl Around,
    ) -> Output {
        let mut out = Output::default();
        if conn.closing {
            out.close = true;
            return out;
        }
        conn.input.feed(input);
        if conn.input.pending() > self.config.max_query_buffer {
            conn.closing = true;
            conn.input = RequestReader::default();
            out.close = true;
            return out;
        }
        while !conn.closing && !self.clients.is_blocked(conn.id) {
            match conn.input.next_request(&self.config.limits) {
                Ok(None) => break,
                Err(e) => {
                    resp::encode(&replies::error(&e.message()), conn.proto, &mut out.bytes);
                    conn.closing = true;
                }
                Ok(Some(args)) => {
                    let queuing = conn.queued.is_some();
                    let outcome = self.handle(conn, &args, now);
                    around.ran(self, conn, &args, &outcome, now);
                    let lost =
                        !self.clients.is_blocked(conn.id) && around.loses_reply(&args, queuing);
                    let served = self.serve_blocked(now);
                    if outcome.close == Some(Close::Now) {
                        out.bytes.clear();
                    }
                    self.clients.take_for(conn.id, conn.proto, &mut out.bytes);
                    around.served(self, &served, now);
                    out.propagate.extend(outcome.propagate);
                    for served in served {
                        out.propagate.extend(served.propagate);
                    }
                    if lost {
                        out.bytes.clear();
                        conn.closing = true;
                        continue;
                    }
                    if let Some(reply) = outcome.reply {
                        conn.encode_reply(&reply, &mut out.bytes);
                    }
                    conn.closing = outcome.close.is_some();
                }
            }
        }
        if conn.closing {
            conn.input = RequestReader::default();
        }
        out.close = conn.closing;
        out
    }

    /// One request from a client, checked and run. What it sends to other connections (and
    /// any frames for this one that come before its reply) waits in
    /// [`Server::take_deliveries`]; the frames an EXEC's commands sent it wait in `conn` for
    /// [`Conn::encode_reply`] to write inside the reply. A driver that calls this itself
    /// calls [`Server::serve_blocked`] after it, as `handle_input` does.
    pub fn handle(&mut self, conn: &mut Conn, args: &[Vec<u8>], now: Now) -> Outcome {
        // What a previous EXEC's reply would have carried, had it been written.
        conn.inside_reply.clear();
        let mut outcome = self.dispatch(conn, args, now);
        if !outcome.propagate.is_empty() {
            self.repl_offset += outcome.propagate.len() as u64;
            conn.woff = self.repl_offset;
        }
        self.clients.sync(conn, None, now);
        if self.clients.is_blocked(conn.id) {
            outcome.reply = None;
        }
        outcome
    }

    fn dispatch(&mut self, conn: &mut Conn, args: &[Vec<u8>], now: Now) -> Outcome {
        let silent = |close: Option<Close>| Outcome {
            reply: None,
            propagate: Vec::new(),
            close,
        };
        let Some(name) = args.first() else {
            // Redis skips an empty request: no reply.
            return silent(None);
        };
        if is(name, "host:") || is(name, "post") {
            return silent(Some(Close::Now));
        }
        let spec = match command::lookup(args) {
            Lookup::Found(spec) => spec,
            Lookup::UnknownCommand => {
                return self.refuse(conn, false, replies::unknown_command(args));
            }
            Lookup::UnknownSubcommand => {
                let sub = args.get(1).map_or(&[][..], Vec::as_slice);
                return self.refuse(conn, false, replies::unknown_subcommand(name, sub));
            }
        };
        let exec = spec.fullname == "exec";
        self.clients.sync(conn, Some(spec.fullname), now);
        if !spec.arity_ok(args.len()) {
            return self.refuse(conn, exec, replies::wrong_arity(spec.fullname));
        }
        if self.config.role == Role::Replica && spec.flags.contains(Flags::WRITE) {
            return self.refuse(conn, exec, replies::readonly());
        }
        if let Some(refusal) = self.outside_pubsub_context(conn, spec) {
            return self.refuse(conn, exec, refusal);
        }
        if conn.queued.is_some() && !transaction::runs_while_queuing(spec) {
            return self.queue(conn, args);
        }
        let mut ops = Vec::new();
        if let Proc::Server(run) = spec.proc {
            let frame = run(self, conn, args, now, &mut ops);
            return Outcome {
                reply: Some(frame),
                propagate: transaction(ops),
                close: None,
            };
        }
        let expiry = self.client_expiry();
        let (frame, close) = self.execute(conn, expiry, spec, args, now, &mut ops);
        Outcome {
            reply: Some(frame),
            propagate: transaction(ops),
            close: close.then_some(Close::AfterReply),
        }
    }

    /// The scripting seam: runs one command of a script's `redis.call` / `redis.pcall`.
    ///
    /// The caller has found `spec` with [`command::lookup`], checked the arity and refused,
    /// with the scripting engine's own texts, a NOSCRIPT command and a WRITE one on a
    /// replica or in a read-only script. `now` is frozen at the script's start for every
    /// call it makes. What the command propagates is appended to `ops`; at the script's end
    /// the caller propagates `transaction(ops)` (Redis 7.0 replicates scripts by effects).
    /// The commands run as Redis's Lua client, a connection of their own.
    pub fn call(
        &mut self,
        spec: &CommandSpec,
        args: &[Vec<u8>],
        now: Now,
        ops: &mut Vec<Args>,
    ) -> Frame {
        let expiry = self.client_expiry();
        let mut client = std::mem::replace(&mut self.script_client, Conn::new(0));
        client.deny_blocking = true;
        let (frame, _close) = self.execute(&mut client, expiry, spec, args, now, ops);
        self.script_client = client;
        frame
    }

    /// One command of the master's stream, on the replica's link from it (or of an AOF being
    /// loaded, which Redis runs by the same rules): no READONLY, no expiry, no reply.
    /// MULTI ... EXEC are applied together at EXEC; dropping the link drops them.
    pub fn replicate(&mut self, link: &mut Conn, args: &[Vec<u8>], now: Now) {
        link.deny_blocking = true;
        let Some(name) = args.first() else {
            return;
        };
        if is(name, "multi") {
            link.multi = Some(Vec::new());
            return;
        }
        if is(name, "exec") {
            for queued in link.multi.take().unwrap_or_default() {
                self.apply(link, &queued, now);
            }
            return;
        }
        if let Some(queued) = &mut link.multi {
            queued.push(args.to_vec());
            return;
        }
        self.apply(link, args, now);
    }

    fn apply(&mut self, link: &mut Conn, args: &[Vec<u8>], now: Now) {
        let Lookup::Found(spec) = command::lookup(args) else {
            return;
        };
        if spec.arity_ok(args.len()) {
            self.execute(link, Expiry::Never, spec, args, now, &mut Vec::new());
        }
    }

    /// One active expiry cycle (`activeExpireCycle`, which Redis runs ten times a second):
    /// in each database, samples keys with a deadline from where the last sample ended,
    /// deletes the expired ones, and samples again while more than 10% of a sample had
    /// expired. Returns the DELs to propagate, each on its own (Redis does not wrap these),
    /// after a SELECT where the database changes. A replica does nothing.
    pub fn active_expire(&mut self, now: Now) -> Vec<Args> {
        let mut dels = Vec::new();
        if self.config.role == Role::Replica {
            return dels;
        }
        let now = self.config.expiry_clock.now(now);
        for db in 0..self.dbs.len() {
            let mut expired_here = Vec::new();
            if let Some(ks) = self.dbs.get_mut(db) {
                expire_cycle(ks, now, &mut expired_here);
            }
            if !expired_here.is_empty() {
                self.select_stream(db, &mut dels);
                dels.append(&mut expired_here);
            }
        }
        self.repl_offset += dels.len() as u64;
        dels
    }

    /// Appends the SELECT that moves the propagated stream to `db`, if it is elsewhere.
    fn select_stream(&mut self, db: usize, ops: &mut Vec<Args>) {
        if db != self.stream_db {
            ops.push(vec![b"SELECT".to_vec(), db.to_string().into_bytes()]);
            self.stream_db = db;
        }
    }

    /// The database a connection's commands run in.
    fn db_mut(&mut self, db: usize) -> &mut Keyspace {
        let last = self.dbs.len() - 1;
        &mut self.dbs[db.min(last)]
    }

    /// Runs a checked command as Redis's `call()` does: the DELs of keys it found expired,
    /// then the command itself (or its rewording) if it changed anything, appended to `ops`.
    /// Also whether it asked to close the connection.
    fn execute(
        &mut self,
        conn: &mut Conn,
        expiry: Expiry,
        spec: &CommandSpec,
        args: &[Vec<u8>],
        now: Now,
        ops: &mut Vec<Args>,
    ) -> (Frame, bool) {
        let db = conn.db;
        let (clock, role) = (self.config.expiry_clock, self.config.role);
        let max_string = self.config.limits.max_bulk_len;
        let acked_replicas = self.acked_replicas(conn.woff);
        let mut ctx = Ctx {
            ks: &mut self.dbs[db.min(DATABASES - 1)],
            now,
            clock,
            expiry,
            role,
            conn,
            clients: &mut self.clients,
            ops: Vec::new(),
            dirty: 0,
            rewrite: None,
            close: false,
            flush_all: false,
            max_string,
            acked_replicas,
        };
        let frame = cmd::run(&mut ctx, spec, args);
        let mut done = std::mem::take(&mut ctx.ops);
        if ctx.dirty > 0 {
            done.push(ctx.rewrite.take().unwrap_or_else(|| args.to_vec()));
        }
        let (close, flush_all) = (ctx.close, ctx.flush_all);
        if flush_all {
            self.dbs.iter_mut().for_each(Keyspace::flush);
        }
        if !done.is_empty() {
            self.select_stream(db, ops);
            ops.append(&mut done);
        }
        (frame, close)
    }

    fn client_expiry(&self) -> Expiry {
        match self.config.role {
            Role::Master => Expiry::Delete,
            Role::Replica => Expiry::Report,
        }
    }
}

/// One database's part of an active expiry cycle: the DELs of the keys it deleted.
fn expire_cycle(ks: &mut Keyspace, now: i64, dels: &mut Vec<Args>) {
    loop {
        let sample = ks.sample_expires(ACTIVE_EXPIRE_KEYS_PER_LOOP);
        if sample.is_empty() {
            return;
        }
        let mut expired = 0;
        for (key, when) in &sample {
            if now > *when {
                ks.remove(key);
                dels.push(vec![b"DEL".to_vec(), key.clone()]);
                expired += 1;
            }
        }
        if expired * 100 / sample.len() <= ACTIVE_EXPIRE_ACCEPTABLE_STALE {
            return;
        }
    }
}

/// What Redis 7.0 propagates for one command or script: its commands as they are, or
/// wrapped in MULTI/EXEC when there are several, so replicas and the AOF apply them
/// atomically. A SELECT that moves the stream to the command's database goes ahead of the
/// MULTI, as Redis feeds it.
pub fn transaction(mut ops: Vec<Args>) -> Vec<Args> {
    let select = ops
        .first()
        .is_some_and(|op| op.first().is_some_and(|name| name == b"SELECT"));
    if ops.len() - usize::from(select) < 2 {
        // One command or none: it goes out as it is, without a copy.
        return ops;
    }
    let head: Vec<Args> = if select {
        ops.drain(..1).collect()
    } else {
        Vec::new()
    };
    let mut wrapped = Vec::with_capacity(head.len() + ops.len() + 2);
    wrapped.extend(head);
    wrapped.push(vec![b"MULTI".to_vec()]);
    wrapped.extend(ops);
    wrapped.push(vec![b"EXEC".to_vec()]);
    wrapped
}
