//! The commands, a file per family, each with its rows of the command table beside their
//! handlers, and what they share: what a row holds (`table`), the context one runs in and
//! Redis's key lookup with lazy expiry, typed (a command of one type meeting a key of another
//! answers WRONGTYPE). `run` only calls a row's handler. The table holds the rows of the
//! commands the server runs itself too, which `server/` declares beside their handlers.

mod blocking;
mod client;
mod connection;
mod expire;
mod hash;
mod hello;
mod introspection;
mod keys;
mod list;
mod pubsub;
mod replication;
mod set;
mod set_type;
mod strings;
pub(crate) mod table;
mod zset;

use crate::redis::clients::Clients;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::conn::Conn;
use crate::redis::keyspace::Keyspace;
use crate::redis::replies;
use crate::redis::resp::{Args, Frame};
use crate::redis::role::Role;
use crate::redis::server;
use crate::redis::value::{Typed, Value};
use table::{CommandSpec, Proc};

/// What an expired key means to a lookup, by who is asking (`expireIfNeeded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// A master: the key is deleted and a DEL propagated.
    Delete,
    /// A replica answering a client: missing, but kept until the master's DEL.
    Report,
    /// Applying the master's stream, or loading: keys are never expired.
    Never,
}

/// Everything one command may touch. Mirrors what Redis's `call()` tracks: `dirty` counts
/// changes, and if there were any the command's arguments (or `rewrite`, when the command
/// reworded itself, e.g. EX into PXAT) follow the `ops` its lookups produced.
pub(crate) struct Ctx<'a> {
    pub ks: &'a mut Keyspace,
    pub now: Now,
    pub clock: ExpiryClock,
    pub expiry: Expiry,
    pub role: Role,
    pub conn: &'a mut Conn,
    /// The other connections: subscriptions, and the outbox of frames for them.
    pub clients: &'a mut Clients,
    /// Commands to propagate ahead of this one: the DELs of keys found expired.
    pub ops: Vec<Args>,
    pub dirty: u64,
    pub rewrite: Option<Args>,
    /// QUIT: close once the reply is written.
    pub close: bool,
    /// FLUSHALL: the server empties every database once the command returns.
    pub flush_all: bool,
    /// proto-max-bulk-len: the longest string APPEND may make.
    pub max_string: usize,
    /// How many replicas have acknowledged the connection's last write (WAIT's answer).
    pub acked_replicas: i64,
}

impl Ctx<'_> {
    /// Redis's `lookupKey`: the value of a key that exists and, for whoever asks, has not
    /// expired.
    pub fn lookup(&mut self, key: &[u8]) -> Option<&Value> {
        self.expire_if_needed(key)
            .then(|| self.ks.get(key))
            .flatten()
    }

    /// [`Ctx::lookup`], for a command that may change the value in place (it then calls
    /// [`Ctx::modified`]).
    pub fn lookup_mut(&mut self, key: &[u8]) -> Option<&mut Value> {
        self.expire_if_needed(key)
            .then(|| self.ks.get_mut(key))
            .flatten()
    }

    /// The value at `key` if it is a `T`; WRONGTYPE's error if it is another type.
    pub fn lookup_as<T: Typed>(&mut self, key: &[u8]) -> Result<Option<&T>, Frame> {
        match self.lookup(key) {
            None => Ok(None),
            Some(value) => T::of(value).map(Some).ok_or_else(replies::wrong_type),
        }
    }

    /// [`Ctx::lookup_as`], to change in place.
    pub fn lookup_as_mut<T: Typed>(&mut self, key: &[u8]) -> Result<Option<&mut T>, Frame> {
        match self.lookup_mut(key) {
            None => Ok(None),
            Some(value) => T::of_mut(value).map(Some).ok_or_else(replies::wrong_type),
        }
    }

    /// The `T` at `key`, created empty (no deadline) when missing, to add to: what LPUSH,
    /// HSET, SADD and ZADD write into. WRONGTYPE's error for another type. Call it only once
    /// the arguments are checked and the command will add: a missing key is created.
    pub fn entry_as<T: Typed>(&mut self, key: &[u8]) -> Result<&mut T, Frame> {
        if self.lookup(key).is_none() {
            self.ks.insert(key, T::default().into_value(), false);
        }
        match self.ks.get_mut(key) {
            Some(value) => T::of_mut(value).ok_or_else(replies::wrong_type),
            None => Err(replies::wrong_type()),
        }
    }

    /// The string at `key`, WRONGTYPE's error for another type.
    pub fn lookup_string(&mut self, key: &[u8]) -> Result<Option<&[u8]>, Frame> {
        self.lookup_as::<Vec<u8>>(key)
            .map(|found| found.map(Vec::as_slice))
    }

    /// The command changed `key` (Redis's `signalModifiedKey` and `dirty++`); an aggregate it
    /// emptied is deleted.
    pub fn modified(&mut self, key: &[u8]) {
        self.dirty += 1;
        if !self.ks.remove_if_empty(key) {
            self.ks.modified(key);
        }
    }

    /// `expireIfNeeded`: false when the key is, for whoever asks, expired (and deleted,
    /// with its DEL to propagate, on a master).
    fn expire_if_needed(&mut self, key: &[u8]) -> bool {
        if self.expiry == Expiry::Never || !self.ks.is_expired(key, self.clock.now(self.now)) {
            return true;
        }
        if self.expiry == Expiry::Delete {
            self.ks.remove(key);
            self.ops.push(vec![b"DEL".to_vec(), key.to_vec()]);
        }
        false
    }

    /// Redis's `mstime()`, which relative expiry arguments are added to.
    pub fn wall(&self) -> i64 {
        self.now.wall_ms
    }
}

/// Every family's rows: the table [`crate::redis::command::lookup`] searches. No name is in
/// two rows, so the order decides nothing.
pub(crate) static TABLE: &[&[CommandSpec]] = &[
    keys::COMMANDS,
    set::COMMANDS,
    expire::COMMANDS,
    connection::COMMANDS,
    introspection::COMMANDS,
    hello::COMMANDS,
    server::TRANSACTION_COMMANDS,
    server::SCRIPTING_COMMANDS,
    server::CONNECTION_COMMANDS,
    strings::COMMANDS,
    replication::COMMANDS,
    zset::COMMANDS,
    hash::COMMANDS,
    set_type::COMMANDS,
    client::COMMANDS,
    pubsub::COMMANDS,
    list::COMMANDS,
    blocking::COMMANDS,
];

/// How many commands the table holds (subcommands not counted), for COMMAND COUNT.
pub(crate) fn count() -> usize {
    TABLE.iter().map(|rows| rows.len()).sum()
}

/// Runs an already looked-up command whose arity was checked: calls its handler.
pub(crate) fn run(ctx: &mut Ctx<'_>, spec: &CommandSpec, args: &[Vec<u8>]) -> Frame {
    match spec.proc {
        Proc::Run(handler) => handler(ctx, args),
        Proc::Container => {
            // Its arity demands a subcommand, which lookup resolves.
            let sub = args.get(1).map_or(&[][..], Vec::as_slice);
            let container = args.first().map_or(&[][..], Vec::as_slice);
            replies::unknown_subcommand(container, sub)
        }
        // The server runs its own commands before dispatch: a replication stream or AOF
        // carries a script's effects, never the script, and its MULTI/EXEC are the link's; a
        // script may not call any of them (NOSCRIPT).
        Proc::Server(_) => replies::error(b"ERR this command is run by the server"),
    }
}

/// The argument at `i`; commands only ask for those their arity guarantees.
fn arg(args: &[Vec<u8>], i: usize) -> &[u8] {
    args.get(i).map_or(&[][..], Vec::as_slice)
}
