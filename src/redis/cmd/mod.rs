//! The commands, a file per family, and what they share: the context one runs in and
//! Redis's key lookup with lazy expiry, typed (a command of one type meeting a key of another
//! answers WRONGTYPE). `run` only dispatches.

mod blocking;
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
mod zset;

use crate::redis::clients::Clients;
use crate::redis::clients::subscriptions::Kind;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::command::{Args, Cmd, CommandSpec};
use crate::redis::conn::Conn;
use crate::redis::keyspace::Keyspace;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::role::Role;
use crate::redis::value::{Typed, Value};

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
        Cmd::Select => connection::select(ctx, args),
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
        // Strings beyond SET and GET.
        Cmd::Incr => strings::incr(ctx, args, strings::Step::Fixed(1)),
        Cmd::Decr => strings::incr(ctx, args, strings::Step::Fixed(-1)),
        Cmd::IncrBy => strings::incr(ctx, args, strings::Step::By),
        Cmd::DecrBy => strings::incr(ctx, args, strings::Step::DecrBy),
        Cmd::GetDel => strings::getdel(ctx, args),
        Cmd::GetEx => strings::getex(ctx, args),
        Cmd::GetSet => strings::getset(ctx, args),
        Cmd::SetNx => set::setnx(ctx, args),
        Cmd::SetEx => set::setex(ctx, args, "setex"),
        Cmd::PSetEx => set::setex(ctx, args, "psetex"),
        Cmd::MGet => strings::mget(ctx, args),
        Cmd::MSet => strings::mset(ctx, args, false),
        Cmd::MSetNx => strings::mset(ctx, args, true),
        Cmd::Append => strings::append(ctx, args, ctx.max_string),
        Cmd::StrLen => strings::strlen(ctx, args),
        // Keys of any type, and the databases.
        Cmd::Unlink => keys::del(ctx, args),
        Cmd::Touch => keys::touch(ctx, args),
        Cmd::Type => keys::type_of(ctx, args),
        Cmd::Persist => keys::persist(ctx, args),
        Cmd::Rename => keys::rename(ctx, args, false),
        Cmd::RenameNx => keys::rename(ctx, args, true),
        Cmd::Keys => keys::keys(ctx, args),
        Cmd::Scan => keys::scan(ctx, args),
        Cmd::DbSize => keys::dbsize(ctx),
        Cmd::FlushDb => keys::flush(ctx, args, false),
        Cmd::FlushAll => keys::flush(ctx, args, true),
        // Connection and server.
        Cmd::Auth => connection::auth(args),
        Cmd::Time => introspection::time(ctx),
        Cmd::ConfigGet => introspection::config_get(args),
        Cmd::Wait => replication::wait(ctx, args),
        // Sorted sets.
        Cmd::ZAdd => zset::zadd(ctx, args, false),
        Cmd::ZIncrBy => zset::zadd(ctx, args, true),
        Cmd::ZRem => zset::zrem(ctx, args),
        Cmd::ZScore => zset::zscore(ctx, args),
        Cmd::ZMScore => zset::zmscore(ctx, args),
        Cmd::ZCard => zset::zcard(ctx, args),
        Cmd::ZCount => zset::zcount(ctx, args, false),
        Cmd::ZLexCount => zset::zcount(ctx, args, true),
        Cmd::ZRank => zset::zrank(ctx, args, false),
        Cmd::ZRevRank => zset::zrank(ctx, args, true),
        Cmd::ZRange => zset::zrange(ctx, args, zset::By::Any, None),
        Cmd::ZRevRange => zset::zrange(ctx, args, zset::By::Rank, Some(true)),
        Cmd::ZRangeByScore => zset::zrange(ctx, args, zset::By::Score, Some(false)),
        Cmd::ZRevRangeByScore => zset::zrange(ctx, args, zset::By::Score, Some(true)),
        Cmd::ZRangeByLex => zset::zrange(ctx, args, zset::By::Lex, Some(false)),
        Cmd::ZRevRangeByLex => zset::zrange(ctx, args, zset::By::Lex, Some(true)),
        Cmd::ZRemRangeByScore => zset::zremrange(ctx, args, zset::RemoveBy::Score),
        Cmd::ZRemRangeByRank => zset::zremrange(ctx, args, zset::RemoveBy::Rank),
        Cmd::ZRemRangeByLex => zset::zremrange(ctx, args, zset::RemoveBy::Lex),
        Cmd::ZPopMin => zset::zpop(ctx, args, false),
        Cmd::ZPopMax => zset::zpop(ctx, args, true),
        // Hashes.
        Cmd::HSet => hash::hset(ctx, args, spec.fullname, hash::SetReply::Created),
        Cmd::HMSet => hash::hset(ctx, args, spec.fullname, hash::SetReply::Ok),
        Cmd::HSetNx => hash::hsetnx(ctx, args),
        Cmd::HGet => hash::hget(ctx, args),
        Cmd::HMGet => hash::hmget(ctx, args),
        Cmd::HDel => hash::hdel(ctx, args),
        Cmd::HExists => hash::hexists(ctx, args),
        Cmd::HLen => hash::hlen(ctx, args),
        Cmd::HStrLen => hash::hstrlen(ctx, args),
        Cmd::HIncrBy => hash::hincrby(ctx, args),
        Cmd::HIncrByFloat => hash::hincrbyfloat(ctx, args),
        Cmd::HKeys => hash::hgetall(ctx, args, hash::Parts::Fields),
        Cmd::HVals => hash::hgetall(ctx, args, hash::Parts::Values),
        Cmd::HGetAll => hash::hgetall(ctx, args, hash::Parts::Both),
        // Sets.
        Cmd::SAdd => set_type::sadd(ctx, args),
        Cmd::SRem => set_type::srem(ctx, args),
        Cmd::SIsMember => set_type::sismember(ctx, args),
        Cmd::SMIsMember => set_type::smismember(ctx, args),
        Cmd::SCard => set_type::scard(ctx, args),
        Cmd::SMembers => set_type::smembers(ctx, args),
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
        // Lists.
        Cmd::LPush => list::push(ctx, args, list::End::Left),
        Cmd::RPush => list::push(ctx, args, list::End::Right),
        Cmd::LPop => list::pop_command(ctx, args, list::End::Left),
        Cmd::RPop => list::pop_command(ctx, args, list::End::Right),
        Cmd::LLen => list::llen(ctx, args),
        Cmd::LRange => list::lrange(ctx, args),
        Cmd::LIndex => list::lindex(ctx, args),
        Cmd::LRem => list::lrem(ctx, args),
        Cmd::LMove => list::lmove(ctx, args),
        // Blocking pops.
        Cmd::BLPop => blocking::bpop(ctx, args, list::End::Left),
        Cmd::BRPop => blocking::bpop(ctx, args, list::End::Right),
        Cmd::BLMove => blocking::blmove(ctx, args),
    }
}

/// The argument at `i`; commands only ask for those their arity guarantees.
fn arg(args: &[Vec<u8>], i: usize) -> &[u8] {
    args.get(i).map_or(&[][..], Vec::as_slice)
}
