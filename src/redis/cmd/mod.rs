//! The commands, a file per family, and what they share: the context one runs in and
//! Redis's key lookup with lazy expiry. `run` only dispatches.
//!
//! Only strings exist here, so WRONGTYPE, which Redis answers when a string command meets a
//! list or a hash, cannot arise.

mod connection;
mod expire;
mod hello;
mod introspection;
mod keys;
mod pubsub;
mod set;

use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::command::{Args, Cmd, CommandSpec};
use crate::redis::conn::Conn;
use crate::redis::keyspace::Keyspace;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::server::Role;
use crate::redis::server::clients::Clients;
use crate::redis::server::subscriptions::Kind;

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
}

impl Ctx<'_> {
    /// Redis's `lookupKey`: the value of a key that exists and, for whoever asks, has not
    /// expired.
    pub fn lookup(&mut self, key: &[u8]) -> Option<&[u8]> {
        if self.expiry != Expiry::Never && self.ks.is_expired(key, self.clock.now(self.now)) {
            if self.expiry == Expiry::Report {
                return None;
            }
            self.ks.remove(key);
            self.ops.push(vec![b"DEL".to_vec(), key.to_vec()]);
            return None;
        }
        self.ks.get(key)
    }

    /// Redis's `mstime()`, which relative expiry arguments are added to.
    pub fn wall(&self) -> i64 {
        self.now.wall_ms
    }
}

/// Runs an already looked-up command whose arity was checked.
pub(crate) fn run(ctx: &mut Ctx<'_>, spec: &CommandSpec, args: &[Vec<u8>]) -> Frame {
    let Some(cmd) = spec.cmd else {
        // A container without a proc: its arity demands a subcommand, which lookup resolves.
        let sub = args.get(1).map_or(&[][..], Vec::as_slice);
        let container = args.first().map_or(&[][..], Vec::as_slice);
        return replies::unknown_subcommand(container, sub);
    };
    match cmd {
        Cmd::Get => keys::get(ctx, args),
        Cmd::Set => set::set(ctx, args),
        Cmd::Del => keys::del(ctx, args),
        Cmd::Exists => keys::exists(ctx, args),
        Cmd::Expire => expire::expire(ctx, args, expire::Kind::EXPIRE),
        Cmd::PExpire => expire::expire(ctx, args, expire::Kind::PEXPIRE),
        Cmd::ExpireAt => expire::expire(ctx, args, expire::Kind::EXPIREAT),
        Cmd::PExpireAt => expire::expire(ctx, args, expire::Kind::PEXPIREAT),
        Cmd::Ttl => expire::ttl(ctx, args, false),
        Cmd::PTtl => expire::ttl(ctx, args, true),
        Cmd::Ping => pubsub::subscribed_ping(ctx, args).unwrap_or_else(|| connection::ping(args)),
        Cmd::Echo => connection::echo(args),
        Cmd::Select => connection::select(args),
        Cmd::Quit => connection::quit(ctx),
        Cmd::ClientId => connection::client_id(ctx),
        Cmd::ClientSetName => connection::client_setname(ctx, args),
        Cmd::ClientGetName => connection::client_getname(ctx),
        Cmd::Hello => hello::hello(ctx, args),
        Cmd::Info => introspection::info(ctx, args),
        Cmd::Command => introspection::no_commands(),
        Cmd::CommandDocs => introspection::no_docs(),
        Cmd::CommandCount => introspection::command_count(),
        // A client's script runs in the server's scripting before dispatch; a replication
        // stream or AOF carries a script's effects, never the script.
        Cmd::Eval | Cmd::EvalSha | Cmd::Script => replies::error(b"ERR scripts are not replicated"),
        // A client's transaction commands run in the server's transactions before dispatch;
        // a script may not call them (NOSCRIPT), and a stream's MULTI/EXEC are the link's.
        Cmd::Multi | Cmd::Exec | Cmd::Discard | Cmd::Watch | Cmd::Unwatch => {
            replies::error(b"transactions are run by the server")
        }
        // Pub/sub and the registry of clients.
        Cmd::Subscribe => pubsub::subscribe(ctx, args, Kind::Channel),
        Cmd::PSubscribe => pubsub::subscribe(ctx, args, Kind::Pattern),
        Cmd::Unsubscribe => pubsub::unsubscribe(ctx, args, Kind::Channel),
        Cmd::PUnsubscribe => pubsub::unsubscribe(ctx, args, Kind::Pattern),
        Cmd::Publish => pubsub::publish(ctx, args),
        Cmd::PubsubChannels => pubsub::channels(ctx, args),
        Cmd::PubsubNumsub => pubsub::numsub(ctx, args),
        Cmd::PubsubNumpat => pubsub::numpat(ctx),
        Cmd::ClientInfo => pubsub::client_info(ctx),
        Cmd::ClientList => pubsub::client_list(ctx, args),
        // RESET runs in the server, which knows the connection's transaction; NOSCRIPT.
        Cmd::Reset => replies::error(b"RESET is run by the server"),
    }
}

/// The argument at `i`; commands only ask for those their arity guarantees.
fn arg(args: &[Vec<u8>], i: usize) -> &[u8] {
    args.get(i).map_or(&[][..], Vec::as_slice)
}
