//! What a row of the command table holds (Redis's `struct redisCommand`): the name, arity,
//! flags and keys Redis 7.0's table gives (from src/commands/*.json at 7.0.15), and the proc
//! that runs the command. Each family file declares its own rows beside its handlers, so a
//! new command is a row and a function in one file; the commands the server runs itself
//! have theirs beside their handlers in `server/`.

use super::Ctx;
use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::{Args, Frame};
use crate::redis::server::Server;

/// Command flags as Redis 7.0's table sets them, those the core or a script acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// May change the keyspace: refused on a replica (READONLY) and in read-only scripts.
    pub const WRITE: Flags = Flags(1);
    /// Only reads the keyspace.
    pub const READONLY: Flags = Flags(1 << 1);
    /// May use more memory: refused under maxmemory (no maxmemory in the simulation).
    pub const DENYOOM: Flags = Flags(1 << 2);
    /// Not allowed from a script ("This Redis command is not allowed from script").
    pub const NOSCRIPT: Flags = Flags(1 << 3);
    /// Allowed on a replica whose link is down and `replica-serve-stale-data` is no.
    pub const STALE: Flags = Flags(1 << 4);
    /// O(1) or O(log N).
    pub const FAST: Flags = Flags(1 << 5);

    const NONE: Flags = Flags(0);

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of flags, for the rows.
    pub(crate) const fn and(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// Which of a command's arguments are keys (Redis's first key, last key and step, for the
/// shapes the table has). EVAL and EVALSHA count theirs with `numkeys`, which only the
/// scripting reads: here they name none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// No argument is a key (PING, ECHO, SELECT ...).
    None,
    /// The first argument after the name (GET, SET, EXPIRE ...).
    First,
    /// Every argument after the name (DEL, EXISTS).
    All,
    /// The first two arguments after the name (RENAME, LMOVE).
    Two,
    /// Every other argument from the first (MSET's keys between their values).
    Pairs,
    /// Every argument after the name but the last (BLPOP's keys before its timeout).
    AllButLast,
}

/// A command's handler: it runs over the command's context, which holds all it may touch.
pub(crate) type Handler = fn(&mut Ctx<'_>, &[Vec<u8>]) -> Frame;

/// A command the server runs itself: over the whole server and the client's connection,
/// appending what it changed to the ops the server then propagates (wrapped in MULTI/EXEC
/// when there are several). Each is declared in its row beside it, in `server/`.
pub(crate) type ServerRun = fn(&mut Server, &mut Conn, &[Vec<u8>], Now, &mut Vec<Args>) -> Frame;

/// What runs a command (Redis's `proc`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Proc {
    /// A handler of its family, which `cmd::run` calls.
    Run(Handler),
    /// Run by the server before any handler here: the transaction commands (they act on
    /// the connection and on other commands), the scripting commands (they lend the whole
    /// server to a script) and RESET (it clears the transaction too).
    Server(ServerRun),
    /// A container with no proc of its own (CLIENT): its arity already demands a subcommand.
    Container,
}

/// One row of the table.
#[derive(Debug)]
pub struct CommandSpec {
    /// The name replies use: `get`, or `client|setname` for a subcommand.
    pub fullname: &'static str,
    /// Redis's arity: N means exactly N arguments (the name counted), -N at least N.
    pub arity: i32,
    /// What the core and scripts check before running it (WRITE on a replica, NOSCRIPT ...).
    pub flags: Flags,
    /// Which of its arguments are keys.
    pub keys: Keys,
    /// What runs it.
    pub(crate) proc: Proc,
    /// A container's subcommands, which the lookup finds by the second argument.
    pub(crate) subcommands: &'static [CommandSpec],
}

impl CommandSpec {
    /// `commandCheckArity`.
    pub fn arity_ok(&self, argc: usize) -> bool {
        let argc = i64::try_from(argc).unwrap_or(i64::MAX);
        let arity = i64::from(self.arity);
        if arity >= 0 {
            argc == arity
        } else {
            argc >= -arity
        }
    }

    /// The keys `args` (a request for this command, its name first) names.
    pub fn keys<'a>(&self, args: &'a [Vec<u8>]) -> Vec<&'a Vec<u8>> {
        let keys = match self.keys {
            Keys::None => None,
            Keys::First => args.get(1..2),
            Keys::All => args.get(1..),
            Keys::Two => args.get(1..3),
            Keys::Pairs => return args.iter().skip(1).step_by(2).collect(),
            Keys::AllButLast => args.get(1..args.len().saturating_sub(1)),
        };
        keys.unwrap_or_default().iter().collect()
    }

    /// The name a client types: the part after `|` for a subcommand.
    pub(crate) fn name(&self) -> &'static str {
        self.fullname
            .rsplit_once('|')
            .map_or(self.fullname, |(_, sub)| sub)
    }

    /// This row with `subcommands` (COMMAND, which has a proc of its own too).
    pub(super) const fn with_subcommands(self, subcommands: &'static [CommandSpec]) -> Self {
        CommandSpec {
            subcommands,
            ..self
        }
    }
}

/// A row for a command that names no key.
pub(super) const fn spec(
    fullname: &'static str,
    arity: i32,
    flags: Flags,
    run: Handler,
) -> CommandSpec {
    keyed(fullname, arity, flags, Keys::None, run)
}

/// A row for a command whose handler is `run`.
pub(super) const fn keyed(
    fullname: &'static str,
    arity: i32,
    flags: Flags,
    keys: Keys,
    run: Handler,
) -> CommandSpec {
    by(fullname, arity, flags, keys, Proc::Run(run))
}

/// A row for a command whose proc is `proc` (the server's own commands use it).
pub(crate) const fn by(
    fullname: &'static str,
    arity: i32,
    flags: Flags,
    keys: Keys,
    proc: Proc,
) -> CommandSpec {
    CommandSpec {
        fullname,
        arity,
        flags,
        keys,
        proc,
        subcommands: &[],
    }
}

/// A container's row: no flags, no keys, no proc, only its subcommands.
pub(super) const fn container(
    fullname: &'static str,
    arity: i32,
    subcommands: &'static [CommandSpec],
) -> CommandSpec {
    by(fullname, arity, Flags::NONE, Keys::None, Proc::Container).with_subcommands(subcommands)
}

/// WRITE, as the rows spell it.
pub(super) const W: Flags = Flags::WRITE;
/// READONLY, as the rows spell it.
pub(super) const R: Flags = Flags::READONLY;
/// FAST, as the rows spell it.
pub(crate) const FAST: Flags = Flags::FAST;
/// DENYOOM, as the rows spell it.
pub(super) const OOM: Flags = Flags::DENYOOM;
/// STALE, as the rows spell it.
pub(crate) const STALE: Flags = Flags::STALE;
/// NOSCRIPT, as the rows spell it.
pub(crate) const NOSCRIPT: Flags = Flags::NOSCRIPT;
/// The first argument is the key, as the rows spell it.
pub(super) const ONE: Keys = Keys::First;
/// Every argument is a key, as the rows spell it.
pub(crate) const ALL: Keys = Keys::All;
