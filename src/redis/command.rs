//! The command table: the supported commands with Redis 7.0's names, arities and flags (from
//! src/commands/*.json at 7.0.15), and the lookup `processCommand` does before running one.
//!
//! This and [`crate::redis::server::Server::call`] are the seam for scripting: a script's
//! `redis.call` looks the command up here, checks the arity and the flags (NOSCRIPT, WRITE
//! on a replica or in a read-only script) with its own error texts, then calls the server.

/// A command's arguments, its name first, as they came off the wire.
pub type Args = Vec<Vec<u8>>;

/// What runs a command (Redis's `proc`): which handler the server dispatches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmd {
    Get,
    Set,
    Del,
    Exists,
    Expire,
    PExpire,
    ExpireAt,
    PExpireAt,
    Ttl,
    PTtl,
    Ping,
    Echo,
    Select,
    Quit,
    Info,
    ClientId,
    ClientSetName,
    ClientGetName,
    Hello,
    Command,
    CommandCount,
    CommandDocs,
    /// EVAL, EVALSHA and SCRIPT run in the server's scripting (`server::scripting`), which
    /// checks their arguments with its own texts.
    Eval,
    EvalSha,
    Script,
    /// MULTI, EXEC, DISCARD, WATCH and UNWATCH run in the server's transactions
    /// (`server::transaction`): they act on the connection and on other commands.
    Multi,
    Exec,
    Discard,
    Watch,
    Unwatch,
    // Pub/sub and the connection commands that come with the server's registry of clients.
    Subscribe,
    Unsubscribe,
    PSubscribe,
    PUnsubscribe,
    Publish,
    PubsubChannels,
    PubsubNumsub,
    PubsubNumpat,
    /// RESET runs in the server (`server::connection`): it clears the transaction too.
    Reset,
    ClientInfo,
    ClientList,
    // Lists.
    LPush,
    RPush,
    LPop,
    RPop,
    LLen,
    LRange,
    LIndex,
    LRem,
    LMove,
    // Blocking pops.
    BLPop,
    BRPop,
    BLMove,
    // Strings beyond SET and GET.
    Incr,
    IncrBy,
    Decr,
    DecrBy,
    GetDel,
    GetEx,
    GetSet,
    SetNx,
    SetEx,
    PSetEx,
    MGet,
    MSet,
    MSetNx,
    Append,
    StrLen,
    // Keys of any type, and the databases.
    Unlink,
    Touch,
    Type,
    Persist,
    Rename,
    RenameNx,
    Keys,
    Scan,
    DbSize,
    FlushDb,
    FlushAll,
    // Connection and server.
    Auth,
    Time,
    ConfigGet,
    Wait,
    // Sorted sets (cmd/zset.rs).
    ZAdd,
    ZIncrBy,
    ZRem,
    ZScore,
    ZMScore,
    ZCard,
    ZCount,
    ZLexCount,
    ZRank,
    ZRevRank,
    ZRange,
    ZRevRange,
    ZRangeByScore,
    ZRevRangeByScore,
    ZRangeByLex,
    ZRevRangeByLex,
    ZRemRangeByScore,
    ZRemRangeByRank,
    ZRemRangeByLex,
    ZPopMin,
    ZPopMax,
    // Hashes (t_hash.c).
    HSet,
    HMSet,
    HSetNx,
    HGet,
    HMGet,
    HDel,
    HExists,
    HLen,
    HStrLen,
    HIncrBy,
    HIncrByFloat,
    HKeys,
    HVals,
    HGetAll,
    // Sets (t_set.c).
    SAdd,
    SRem,
    SIsMember,
    SMIsMember,
    SCard,
    SMembers,
}

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

    const fn and(self, other: Flags) -> Flags {
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

/// One entry of the table.
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
    /// `None` for a container with no proc of its own (CLIENT): its arity already demands a
    /// subcommand.
    pub(crate) cmd: Option<Cmd>,
    subcommands: &'static [CommandSpec],
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
    fn name(&self) -> &'static str {
        self.fullname
            .rsplit_once('|')
            .map_or(self.fullname, |(_, sub)| sub)
    }
}

/// What the table says about a request.
#[derive(Debug)]
pub enum Lookup {
    /// The command's (or the subcommand's) entry.
    Found(&'static CommandSpec),
    /// No such command.
    UnknownCommand,
    /// A container (CLIENT, COMMAND) given a subcommand it does not have.
    UnknownSubcommand,
}

/// `lookupCommand`: the command named by `args[0]` (any case, all bytes), or for a container
/// given more than its name, its subcommand named by `args[1]`.
pub fn lookup(args: &[Vec<u8>]) -> Lookup {
    let find = |table: &'static [CommandSpec], name: &[u8]| {
        table
            .iter()
            .find(|spec| spec.name().as_bytes().eq_ignore_ascii_case(name))
    };
    let Some(base) = args.first().and_then(|name| find(COMMANDS, name)) else {
        return Lookup::UnknownCommand;
    };
    match args.get(1) {
        Some(sub) if !base.subcommands.is_empty() => match find(base.subcommands, sub) {
            Some(spec) => Lookup::Found(spec),
            None => Lookup::UnknownSubcommand,
        },
        _ => Lookup::Found(base),
    }
}

/// How many commands the table holds (subcommands not counted), for COMMAND COUNT.
pub fn count() -> usize {
    COMMANDS.len()
}

const fn spec(fullname: &'static str, arity: i32, flags: Flags, cmd: Cmd) -> CommandSpec {
    keyed(fullname, arity, flags, Keys::None, cmd)
}

const fn keyed(
    fullname: &'static str,
    arity: i32,
    flags: Flags,
    keys: Keys,
    cmd: Cmd,
) -> CommandSpec {
    CommandSpec {
        fullname,
        arity,
        flags,
        keys,
        cmd: Some(cmd),
        subcommands: &[],
    }
}

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const FAST: Flags = Flags::FAST;
const OOM: Flags = Flags::DENYOOM;
const STALE: Flags = Flags::STALE;
const ONE: Keys = Keys::First;
const ALL: Keys = Keys::All;

static COMMANDS: &[CommandSpec] = &[
    keyed("get", 2, R.and(FAST), ONE, Cmd::Get),
    keyed("set", -3, W.and(Flags::DENYOOM), ONE, Cmd::Set),
    keyed("del", -2, W, ALL, Cmd::Del),
    keyed("exists", -2, R.and(FAST), ALL, Cmd::Exists),
    keyed("expire", -3, W.and(FAST), ONE, Cmd::Expire),
    keyed("pexpire", -3, W.and(FAST), ONE, Cmd::PExpire),
    keyed("expireat", -3, W.and(FAST), ONE, Cmd::ExpireAt),
    keyed("pexpireat", -3, W.and(FAST), ONE, Cmd::PExpireAt),
    keyed("ttl", 2, R.and(FAST), ONE, Cmd::Ttl),
    keyed("pttl", 2, R.and(FAST), ONE, Cmd::PTtl),
    spec("ping", -1, FAST, Cmd::Ping),
    spec("echo", 2, STALE.and(FAST), Cmd::Echo),
    spec("select", 2, STALE.and(FAST), Cmd::Select),
    spec("quit", -1, Flags::NOSCRIPT.and(STALE).and(FAST), Cmd::Quit),
    spec("info", -1, STALE, Cmd::Info),
    spec(
        "hello",
        -1,
        Flags::NOSCRIPT.and(STALE).and(FAST),
        Cmd::Hello,
    ),
    spec("eval", -3, Flags::NOSCRIPT.and(STALE), Cmd::Eval),
    spec("evalsha", -3, Flags::NOSCRIPT.and(STALE), Cmd::EvalSha),
    spec("script", -2, Flags::NOSCRIPT, Cmd::Script),
    spec("multi", 1, Flags::NOSCRIPT.and(STALE).and(FAST), Cmd::Multi),
    spec("exec", 1, Flags::NOSCRIPT.and(STALE), Cmd::Exec),
    spec(
        "discard",
        1,
        Flags::NOSCRIPT.and(STALE).and(FAST),
        Cmd::Discard,
    ),
    keyed(
        "watch",
        -2,
        Flags::NOSCRIPT.and(STALE).and(FAST),
        ALL,
        Cmd::Watch,
    ),
    spec(
        "unwatch",
        1,
        Flags::NOSCRIPT.and(STALE).and(FAST),
        Cmd::Unwatch,
    ),
    // Strings beyond SET and GET.
    keyed("incr", 2, W.and(OOM).and(FAST), ONE, Cmd::Incr),
    keyed("incrby", 3, W.and(OOM).and(FAST), ONE, Cmd::IncrBy),
    keyed("decr", 2, W.and(OOM).and(FAST), ONE, Cmd::Decr),
    keyed("decrby", 3, W.and(OOM).and(FAST), ONE, Cmd::DecrBy),
    keyed("getdel", 2, W.and(FAST), ONE, Cmd::GetDel),
    keyed("getex", -2, W.and(FAST), ONE, Cmd::GetEx),
    keyed("getset", 3, W.and(OOM).and(FAST), ONE, Cmd::GetSet),
    keyed("setnx", 3, W.and(OOM).and(FAST), ONE, Cmd::SetNx),
    keyed("setex", 4, W.and(OOM), ONE, Cmd::SetEx),
    keyed("psetex", 4, W.and(OOM), ONE, Cmd::PSetEx),
    keyed("mget", -2, R.and(FAST), ALL, Cmd::MGet),
    keyed("mset", -3, W.and(OOM), Keys::Pairs, Cmd::MSet),
    keyed("msetnx", -3, W.and(OOM), Keys::Pairs, Cmd::MSetNx),
    keyed("append", 3, W.and(OOM).and(FAST), ONE, Cmd::Append),
    keyed("strlen", 2, R.and(FAST), ONE, Cmd::StrLen),
    // Keys of any type, and the databases.
    keyed("unlink", -2, W.and(FAST), ALL, Cmd::Unlink),
    keyed("touch", -2, R.and(FAST), ALL, Cmd::Touch),
    keyed("type", 2, R.and(FAST), ONE, Cmd::Type),
    keyed("persist", 2, W.and(FAST), ONE, Cmd::Persist),
    keyed("rename", 3, W, Keys::Two, Cmd::Rename),
    keyed("renamenx", 3, W.and(FAST), Keys::Two, Cmd::RenameNx),
    spec("keys", 2, R, Cmd::Keys),
    spec("scan", -2, R, Cmd::Scan),
    spec("dbsize", 1, R.and(FAST), Cmd::DbSize),
    spec("flushdb", -1, W, Cmd::FlushDb),
    spec("flushall", -1, W, Cmd::FlushAll),
    // Connection and server.
    spec("auth", -2, Flags::NOSCRIPT.and(STALE).and(FAST), Cmd::Auth),
    spec("time", 1, STALE.and(FAST), Cmd::Time),
    spec("wait", 3, Flags::NOSCRIPT, Cmd::Wait),
    CommandSpec {
        fullname: "config",
        arity: -2,
        flags: Flags::NONE,
        keys: Keys::None,
        cmd: None,
        subcommands: &[spec(
            "config|get",
            -3,
            Flags::NOSCRIPT.and(STALE),
            Cmd::ConfigGet,
        )],
    },
    // Sorted sets (cmd/zset.rs).
    keyed("zadd", -4, W.and(Flags::DENYOOM).and(FAST), ONE, Cmd::ZAdd),
    keyed(
        "zincrby",
        4,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::ZIncrBy,
    ),
    keyed("zrem", -3, W.and(FAST), ONE, Cmd::ZRem),
    keyed("zscore", 3, R.and(FAST), ONE, Cmd::ZScore),
    keyed("zmscore", -3, R.and(FAST), ONE, Cmd::ZMScore),
    keyed("zcard", 2, R.and(FAST), ONE, Cmd::ZCard),
    keyed("zcount", 4, R.and(FAST), ONE, Cmd::ZCount),
    keyed("zlexcount", 4, R.and(FAST), ONE, Cmd::ZLexCount),
    keyed("zrank", 3, R.and(FAST), ONE, Cmd::ZRank),
    keyed("zrevrank", 3, R.and(FAST), ONE, Cmd::ZRevRank),
    keyed("zrange", -4, R, ONE, Cmd::ZRange),
    keyed("zrevrange", -4, R, ONE, Cmd::ZRevRange),
    keyed("zrangebyscore", -4, R, ONE, Cmd::ZRangeByScore),
    keyed("zrevrangebyscore", -4, R, ONE, Cmd::ZRevRangeByScore),
    keyed("zrangebylex", -4, R, ONE, Cmd::ZRangeByLex),
    keyed("zrevrangebylex", -4, R, ONE, Cmd::ZRevRangeByLex),
    keyed("zremrangebyscore", 4, W, ONE, Cmd::ZRemRangeByScore),
    keyed("zremrangebyrank", 4, W, ONE, Cmd::ZRemRangeByRank),
    keyed("zremrangebylex", 4, W, ONE, Cmd::ZRemRangeByLex),
    keyed("zpopmin", -2, W.and(FAST), ONE, Cmd::ZPopMin),
    keyed("zpopmax", -2, W.and(FAST), ONE, Cmd::ZPopMax),
    // Hashes (t_hash.c).
    keyed("hset", -4, W.and(Flags::DENYOOM).and(FAST), ONE, Cmd::HSet),
    keyed(
        "hmset",
        -4,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::HMSet,
    ),
    keyed(
        "hsetnx",
        4,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::HSetNx,
    ),
    keyed("hget", 3, R.and(FAST), ONE, Cmd::HGet),
    keyed("hmget", -3, R.and(FAST), ONE, Cmd::HMGet),
    keyed("hdel", -3, W.and(FAST), ONE, Cmd::HDel),
    keyed("hexists", 3, R.and(FAST), ONE, Cmd::HExists),
    keyed("hlen", 2, R.and(FAST), ONE, Cmd::HLen),
    keyed("hstrlen", 3, R.and(FAST), ONE, Cmd::HStrLen),
    keyed(
        "hincrby",
        4,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::HIncrBy,
    ),
    keyed(
        "hincrbyfloat",
        4,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::HIncrByFloat,
    ),
    keyed("hkeys", 2, R, ONE, Cmd::HKeys),
    keyed("hvals", 2, R, ONE, Cmd::HVals),
    keyed("hgetall", 2, R, ONE, Cmd::HGetAll),
    // Sets (t_set.c).
    keyed("sadd", -3, W.and(Flags::DENYOOM).and(FAST), ONE, Cmd::SAdd),
    keyed("srem", -3, W.and(FAST), ONE, Cmd::SRem),
    keyed("sismember", 3, R.and(FAST), ONE, Cmd::SIsMember),
    keyed("smismember", -3, R.and(FAST), ONE, Cmd::SMIsMember),
    keyed("scard", 2, R.and(FAST), ONE, Cmd::SCard),
    keyed("smembers", 2, R, ONE, Cmd::SMembers),
    CommandSpec {
        fullname: "client",
        arity: -2,
        flags: Flags::NONE,
        keys: Keys::None,
        cmd: None,
        subcommands: &[
            spec("client|id", 2, Flags::NOSCRIPT.and(STALE), Cmd::ClientId),
            spec(
                "client|setname",
                3,
                Flags::NOSCRIPT.and(STALE),
                Cmd::ClientSetName,
            ),
            spec(
                "client|getname",
                2,
                Flags::NOSCRIPT.and(STALE),
                Cmd::ClientGetName,
            ),
            spec(
                "client|info",
                2,
                Flags::NOSCRIPT.and(STALE),
                Cmd::ClientInfo,
            ),
            spec(
                "client|list",
                -2,
                Flags::NOSCRIPT.and(STALE),
                Cmd::ClientList,
            ),
        ],
    },
    CommandSpec {
        fullname: "command",
        arity: -1,
        flags: STALE,
        keys: Keys::None,
        cmd: Some(Cmd::Command),
        subcommands: &[
            spec("command|count", 2, STALE, Cmd::CommandCount),
            spec("command|docs", -2, STALE, Cmd::CommandDocs),
        ],
    },
    // Pub/sub, and RESET.
    spec("subscribe", -2, Flags::NOSCRIPT.and(STALE), Cmd::Subscribe),
    spec(
        "unsubscribe",
        -1,
        Flags::NOSCRIPT.and(STALE),
        Cmd::Unsubscribe,
    ),
    spec(
        "psubscribe",
        -2,
        Flags::NOSCRIPT.and(STALE),
        Cmd::PSubscribe,
    ),
    spec(
        "punsubscribe",
        -1,
        Flags::NOSCRIPT.and(STALE),
        Cmd::PUnsubscribe,
    ),
    spec("publish", 3, STALE.and(FAST), Cmd::Publish),
    CommandSpec {
        fullname: "pubsub",
        arity: -2,
        flags: Flags::NONE,
        keys: Keys::None,
        cmd: None,
        subcommands: &[
            spec("pubsub|channels", -2, STALE, Cmd::PubsubChannels),
            spec("pubsub|numsub", -2, STALE, Cmd::PubsubNumsub),
            spec("pubsub|numpat", 2, STALE, Cmd::PubsubNumpat),
        ],
    },
    spec("reset", 1, Flags::NOSCRIPT.and(STALE).and(FAST), Cmd::Reset),
    // Lists.
    keyed(
        "lpush",
        -3,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::LPush,
    ),
    keyed(
        "rpush",
        -3,
        W.and(Flags::DENYOOM).and(FAST),
        ONE,
        Cmd::RPush,
    ),
    keyed("lpop", -2, W.and(FAST), ONE, Cmd::LPop),
    keyed("rpop", -2, W.and(FAST), ONE, Cmd::RPop),
    keyed("llen", 2, R.and(FAST), ONE, Cmd::LLen),
    keyed("lrange", 4, R, ONE, Cmd::LRange),
    keyed("lindex", 3, R, ONE, Cmd::LIndex),
    keyed("lrem", 4, W, ONE, Cmd::LRem),
    keyed("lmove", 5, W.and(Flags::DENYOOM), Keys::Two, Cmd::LMove),
    // Blocking pops (their keys are listed for the history, which reads propagated
    // commands: the pops they did, or an immediate BLMOVE).
    keyed(
        "blpop",
        -3,
        W.and(Flags::NOSCRIPT),
        Keys::AllButLast,
        Cmd::BLPop,
    ),
    keyed(
        "brpop",
        -3,
        W.and(Flags::NOSCRIPT),
        Keys::AllButLast,
        Cmd::BRPop,
    ),
    keyed(
        "blmove",
        6,
        W.and(Flags::DENYOOM).and(Flags::NOSCRIPT),
        Keys::Two,
        Cmd::BLMove,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Args {
        list.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    fn found(list: &[&str]) -> &'static CommandSpec {
        match lookup(&args(list)) {
            Lookup::Found(spec) => spec,
            other => panic!("{list:?}: {other:?}"),
        }
    }

    #[test]
    fn names_in_any_case_subcommands_by_second_argument() {
        assert_eq!(found(&["gEt", "k"]).fullname, "get");
        assert_eq!(
            found(&["client", "SetName", "x"]).fullname,
            "client|setname"
        );
        assert_eq!(found(&["CLIENT"]).fullname, "client");
        assert_eq!(found(&["command"]).fullname, "command");
        assert!(matches!(lookup(&args(&["get\0"])), Lookup::UnknownCommand));
        assert!(matches!(lookup(&args(&["foo"])), Lookup::UnknownCommand));
        assert!(matches!(lookup(&[]), Lookup::UnknownCommand));
        assert!(matches!(
            lookup(&args(&["client", "setinfo"])),
            Lookup::UnknownSubcommand
        ));
        // A command without subcommands ignores what follows its name.
        assert_eq!(found(&["ping", "client"]).fullname, "ping");
    }

    #[test]
    fn arity() {
        let get = found(&["get"]);
        assert!(!get.arity_ok(1) && get.arity_ok(2) && !get.arity_ok(3));
        let set = found(&["set"]);
        assert!(!set.arity_ok(2) && set.arity_ok(3) && set.arity_ok(9));
        assert!(found(&["ping"]).arity_ok(1));
    }

    #[test]
    fn flags_scripts_and_replicas_act_on() {
        for write in ["set", "del", "expire", "pexpire", "expireat", "pexpireat"] {
            assert!(found(&[write]).flags.contains(Flags::WRITE), "{write}");
        }
        for read in ["get", "exists", "ttl", "pttl", "ping", "echo", "info"] {
            assert!(!found(&[read]).flags.contains(Flags::WRITE), "{read}");
        }
        assert!(
            found(&["get"])
                .flags
                .contains(Flags::READONLY.and(Flags::FAST))
        );
        assert!(found(&["set"]).flags.contains(Flags::DENYOOM));
        assert!(found(&["quit"]).flags.contains(Flags::NOSCRIPT));
        assert!(found(&["client", "id"]).flags.contains(Flags::NOSCRIPT));
        assert!(!found(&["ping"]).flags.contains(Flags::NOSCRIPT));
        assert!(found(&["info"]).flags.contains(Flags::STALE));
        for scripting in [
            "eval", "evalsha", "script", "multi", "exec", "discard", "watch", "unwatch",
        ] {
            assert!(
                found(&[scripting]).flags.contains(Flags::NOSCRIPT),
                "{scripting}"
            );
        }
        assert_eq!(count(), 116);
    }

    #[test]
    fn keys_by_position() {
        let keys = |list: &[&str]| {
            let args = args(list);
            found(list)
                .keys(&args)
                .into_iter()
                .cloned()
                .collect::<Args>()
        };
        assert_eq!(keys(&["SET", "k", "v", "PX", "5"]), args(&["k"]));
        assert_eq!(keys(&["del", "a", "b"]), args(&["a", "b"]));
        assert_eq!(keys(&["PEXPIREAT", "k", "7"]), args(&["k"]));
        assert_eq!(keys(&["RENAME", "a", "b"]), args(&["a", "b"]));
        assert_eq!(keys(&["MSET", "a", "1", "b", "2"]), args(&["a", "b"]));
        assert!(keys(&["EVALSHA", "abc", "1", "k"]).is_empty());
        assert!(keys(&["ping"]).is_empty());
        assert!(keys(&["client", "id"]).is_empty());
    }
}
