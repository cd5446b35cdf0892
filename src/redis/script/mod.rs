//! Redis 7.0 scripting: `EVAL`, `EVALSHA` and `SCRIPT`, running real Lua 5.1 (through mlua) the
//! way Redis 7.0 runs it, so that the lock scripts real clients send (redis-py's `Lock`,
//! Redisson, node-redlock, redsync) run unchanged, with Redis's replies and errors word for word.
//!
//! The reference is redis-server 7.0.15 as Debian ships it (with its security fixes, which strip
//! CR and LF from a failed script's error and drop `getfenv`, `setfenv` and `newproxy`), and the
//! `script_lua.c`, `eval.c` and `script.c` of the 7.0.15 sources.
//!
//! - `sandbox`: the Lua state, its libraries, the bounds, one run; `libs`: Redis's `cjson`,
//!   `struct`, `cmsgpack` and `bit`, from its C sources; `load`: compiling Lua text;
//! - `protect`: the read-only globals; `catch`: pcall, xpcall, the error handler;
//! - `api`: the `redis` table; `lent`: the host a run lends it; `convert`, `reply`: RESP2 and
//!   RESP3 → Lua and back; `raise`: Redis-shaped Lua errors;
//! - `rand48`: Redis's `math.random`; `shebang`: `#!lua flags=…`; `budget`: the instruction limit.
//!
//! Time is the host's business: a script sees the server with its clock frozen at the script's
//! start, because every command it runs goes through [`ScriptHost::call`], which uses that frozen
//! time. A script cannot hang the simulation: it is stopped after an instruction limit (Redis
//! would keep running it and answer BUSY to everyone else meanwhile), and its Lua state has a
//! memory limit (Redis has none).

mod api;
mod budget;
mod catch;
mod chunks;
mod convert;
mod guards;
mod lent;
mod libs;
mod load;
mod protect;
mod raise;
mod rand48;
mod reply;
mod sandbox;
mod shebang;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use crate::redis::resp::{Frame, Protocol};
use rand48::Rand48;
use sandbox::Sandbox;

pub use sandbox::MEMORY_LIMIT;

/// The seam between scripting and the server core: what a script reaches through `redis.call`
/// and `redis.pcall`, the server core with its clock frozen at the script's start.
///
/// Scripts check the command's existence, arity and script permission through [`command`]
/// before they [`call`] it; the host runs blocking commands without blocking, as Redis does for
/// scripts, and refuses writes on a read-only replica in its reply. For a container command
/// (`CONFIG GET`, `CLIENT …`) the facts are the container's: checking the subcommand is the
/// host's, in `call`.
///
/// [`command`]: ScriptHost::command
/// [`call`]: ScriptHost::call
pub trait ScriptHost {
    /// Redis's command-table facts for the command `argv` names (the name in any case), found as
    /// `lookupCommand` finds it: a container command (CLIENT, COMMAND) given more than its name
    /// is its subcommand named by `argv[1]`, whose own arity and flags apply; `None` for an
    /// unknown command or subcommand.
    fn command(&self, argv: &[Vec<u8>]) -> Option<CommandSpec>;
    /// Runs one command (already checked for arity and script permission) and returns its reply,
    /// built for a client speaking `proto`, the protocol the script chose with `redis.setresp`
    /// (RESP2 unless it did): a few commands shape their reply by the client's protocol, beyond
    /// how it is encoded (Redis's Lua client takes the script's protocol).
    fn call(&mut self, args: &[Vec<u8>], proto: Protocol) -> Frame;
}

/// A command's entry in Redis's command table, as far as scripts care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    /// The number of arguments including the name; negative: at least `-arity`.
    pub arity: i32,
    /// Flagged `noscript` (MULTI, EVAL, SUBSCRIBE, …): refused from scripts.
    pub noscript: bool,
    /// Flagged `write` or `may-replicate`: refused from a `#!lua flags=no-writes` script.
    pub write: bool,
}

/// The default for [`Scripts::with_instruction_limit`]: about a second of Lua, thousands of
/// times what a lock script needs.
pub const INSTRUCTION_LIMIT: u64 = 100_000_000;

/// One server's scripting: its Lua state and its script cache (SHA1 of the body → compiled
/// script; Redis 7.0's has no bound, this one evicts past [`CACHE_LIMIT`]). A new `Scripts` is empty, as a restarted Redis is:
/// `EVALSHA` answers `NOSCRIPT` until the script is sent again.
pub struct Scripts {
    sandbox: Sandbox,
    cache: BTreeMap<String, Cached>,
    instruction_limit: u64,
    /// What one script may allocate in the Lua state beyond what it held before the run.
    memory_limit: usize,
    /// What the cached scripts hold, the sum of their `bytes`.
    cache_bytes: usize,
    /// Uses of the cache so far: the clock of `Cached::used`.
    uses: u64,
    /// The last body `EVAL` hashed and its SHA1: clients send the same few scripts over and
    /// over, and hashing each again cost more than the run of a small script.
    last_hashed: Option<(Vec<u8>, String)>,
}

/// What the cache knows of a script besides its compiled function (which the sandbox keeps).
struct Cached {
    /// `#!lua flags=no-writes`.
    read_only: bool,
    /// About what its compiled function holds in the Lua state.
    bytes: usize,
    /// When it was last loaded or run, on the cache's own count of uses.
    used: u64,
}

/// The most the script cache may hold (in compiled functions) before it evicts the scripts
/// used least recently. Redis 7.0 keeps every script until `SCRIPT FLUSH`; the simulation
/// evicts (an evicted script's `EVALSHA` gets `NOSCRIPT`, as after a restart, and clients send
/// it again with `EVAL`) so that a client loading thousands of scripts cannot exhaust the
/// process, nor keep another client's script out of the cache.
pub const CACHE_LIMIT: usize = 64 << 20;

impl Default for Scripts {
    fn default() -> Self {
        Scripts::new()
    }
}

impl fmt::Debug for Scripts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scripts")
            .field("cached", &self.cache.keys().collect::<Vec<_>>())
            .field("instruction_limit", &self.instruction_limit)
            .finish_non_exhaustive()
    }
}

impl Scripts {
    /// Scripts stopped after [`INSTRUCTION_LIMIT`] Lua instructions, an empty cache.
    pub fn new() -> Scripts {
        Scripts::with_instruction_limit(INSTRUCTION_LIMIT)
    }

    /// Scripts stopped after `limit` Lua instructions (counted in steps of a thousand).
    pub fn with_instruction_limit(limit: u64) -> Scripts {
        Scripts {
            sandbox: Sandbox::new(Rand48::default(), limit, MEMORY_LIMIT),
            cache: BTreeMap::new(),
            instruction_limit: limit,
            memory_limit: MEMORY_LIMIT,
            cache_bytes: 0,
            uses: 0,
            last_hashed: None,
        }
    }

    /// The same scripts with `bytes` of Lua memory for each script instead of [`MEMORY_LIMIT`]
    /// (`serve redis --lua-memory-limit`): a real Redis sets no such limit, so a server that
    /// must run scripts building large values can raise it.
    pub fn with_memory_limit(mut self, bytes: usize) -> Scripts {
        if bytes != self.memory_limit {
            self.memory_limit = bytes;
            self.sandbox = Sandbox::new(self.sandbox.rand(), self.instruction_limit, bytes);
        }
        self
    }

    /// `EVAL script numkeys key... arg...`; `args` are the arguments after the command name.
    /// The script is cached, so `EVALSHA` finds it afterwards.
    pub fn eval(&mut self, host: &mut dyn ScriptHost, args: &[Vec<u8>]) -> Frame {
        let [body, numkeys, rest @ ..] = args else {
            return arity_error("eval");
        };
        let numkeys = match parse_numkeys(numkeys, rest.len()) {
            Ok(numkeys) => numkeys,
            Err(reply) => return reply,
        };
        match self.load(body) {
            Ok(sha) => self.run(host, &sha, rest, numkeys),
            Err(reply) => reply,
        }
    }

    /// `EVALSHA sha1 numkeys key... arg...`; `args` are the arguments after the command name.
    pub fn evalsha(&mut self, host: &mut dyn ScriptHost, args: &[Vec<u8>]) -> Frame {
        let [sha, numkeys, rest @ ..] = args else {
            return arity_error("evalsha");
        };
        if sha.len() != 40 {
            return noscript();
        }
        let numkeys = match parse_numkeys(numkeys, rest.len()) {
            Ok(numkeys) => numkeys,
            Err(reply) => return reply,
        };
        let sha = String::from_utf8_lossy(&sha.to_ascii_lowercase()).into_owned();
        self.run(host, &sha, rest, numkeys)
    }

    /// `SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP|DEBUG ...`; `args` are the arguments after `SCRIPT`.
    ///
    /// `SCRIPT KILL` always answers NOTBUSY: a simulated script never runs while commands
    /// arrive. `SCRIPT DEBUG YES|SYNC` is refused (no debugger here); `NO` is accepted.
    pub fn script(&mut self, args: &[Vec<u8>]) -> Frame {
        let Some(subcommand) = args.first() else {
            return arity_error("script");
        };
        let lowered = subcommand.to_ascii_lowercase();
        let Some(&(name, arity)) = SUBCOMMANDS
            .iter()
            .find(|(name, _)| name.as_bytes() == lowered)
        else {
            let shown = convert::c_str(subcommand);
            let shown = &shown[..shown.len().min(128)];
            let text = [b"ERR unknown subcommand '", shown, b"'. Try SCRIPT HELP."].concat();
            return Frame::Error(convert::reply_text(&text));
        };
        let argc = args.len() as i64 + 1;
        if (arity > 0 && argc != arity) || argc < -arity {
            return arity_error(&format!("script|{name}"));
        }
        match name {
            "load" => match self.load(&args[1]) {
                Ok(sha) => Frame::Bulk(sha.into_bytes()),
                Err(reply) => reply,
            },
            "exists" => Frame::Array(
                args[1..]
                    .iter()
                    .map(|sha| {
                        let sha = convert::c_str(sha).to_ascii_lowercase();
                        let known = self.cache.contains_key(&*String::from_utf8_lossy(&sha));
                        Frame::Integer(i64::from(known))
                    })
                    .collect(),
            ),
            "flush" => self.flush(&args[1..]),
            "kill" => Frame::Error(b"NOTBUSY No scripts in execution right now.".to_vec()),
            "help" => Frame::Array(
                HELP.iter()
                    .map(|line| Frame::Simple(line.as_bytes().to_vec()))
                    .collect(),
            ),
            _ => match args[1].to_ascii_lowercase().as_slice() {
                b"no" => Frame::Simple(b"OK".to_vec()),
                b"yes" | b"sync" => Frame::Error(
                    b"ERR SCRIPT DEBUG is not supported by the simulated Redis".to_vec(),
                ),
                _ => Frame::Error(b"ERR Use SCRIPT DEBUG YES/SYNC/NO".to_vec()),
            },
        }
    }

    /// `SCRIPT FLUSH [ASYNC|SYNC]`: a new Lua state and an empty cache; `math.random` goes on
    /// where it was, as in Redis (its generator is not part of the Lua state).
    fn flush(&mut self, mode: &[Vec<u8>]) -> Frame {
        let valid = match mode {
            [] => true,
            [mode] => matches!(mode.to_ascii_lowercase().as_slice(), b"sync" | b"async"),
            _ => false,
        };
        if !valid {
            return Frame::Error(b"ERR SCRIPT FLUSH only support SYNC|ASYNC option".to_vec());
        }
        self.cache.clear();
        self.cache_bytes = 0;
        self.sandbox = Sandbox::new(
            self.sandbox.rand(),
            self.instruction_limit,
            self.memory_limit,
        );
        Frame::Simple(b"OK".to_vec())
    }

    /// Compiles and caches a body (`luaCreateFunction`), or returns Redis's error reply.
    fn load(&mut self, body: &[u8]) -> Result<String, Frame> {
        let sha = match &self.last_hashed {
            Some((last, sha)) if last.as_slice() == body => sha.clone(),
            _ => {
                let sha = sha1_hex(body);
                self.last_hashed = Some((body.to_vec(), sha.clone()));
                sha
            }
        };
        self.uses += 1;
        if let Some(cached) = self.cache.get_mut(&sha) {
            cached.used = self.uses;
            return Ok(sha);
        }
        // Sent as is: the reference server does not strip CR and LF from this one.
        let shebang = shebang::parse(body)
            .map_err(|message| Frame::Error([b"ERR ", &message[..]].concat()))?;
        let bytes = self
            .sandbox
            .compile(&sha, &body[shebang.len..])
            .map_err(|message| {
                let text = [b"ERR Error compiling script (new function): ", &message[..]].concat();
                Frame::Error(convert::reply_text(&text))
            })?;
        let read_only = shebang.read_only;
        self.evict(CACHE_LIMIT.saturating_sub(bytes));
        self.cache_bytes += bytes;
        let used = self.uses;
        self.cache.insert(
            sha.clone(),
            Cached {
                read_only,
                bytes,
                used,
            },
        );
        Ok(sha)
    }

    /// Evicts the scripts used least recently until the cache holds at most `room` bytes.
    fn evict(&mut self, room: usize) {
        while self.cache_bytes > room {
            let Some(oldest) = self
                .cache
                .iter()
                .min_by_key(|(_, cached)| cached.used)
                .map(|(sha, _)| sha.clone())
            else {
                return;
            };
            if let Some(cached) = self.cache.remove(&oldest) {
                self.cache_bytes -= cached.bytes;
            }
            self.sandbox.forget(&oldest);
        }
    }

    fn run(
        &mut self,
        host: &mut dyn ScriptHost,
        sha: &str,
        rest: &[Vec<u8>],
        numkeys: usize,
    ) -> Frame {
        self.uses += 1;
        let Some(cached) = self.cache.get_mut(sha) else {
            return noscript();
        };
        cached.used = self.uses;
        let (keys, argv) = rest.split_at(numkeys);
        self.sandbox.run(sha, host, keys, argv, cached.read_only)
    }
}

/// SCRIPT's subcommands and their arities (counting `SCRIPT` and the subcommand).
const SUBCOMMANDS: [(&str, i64); 6] = [
    ("debug", 3),
    ("exists", -3),
    ("flush", -2),
    ("help", 2),
    ("kill", 2),
    ("load", 3),
];

const HELP: [&str; 17] = [
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
];

/// Lowercase hex SHA1, the script cache's key and `redis.sha1hex`'s result. SHA1 comes from
/// `sha1_smol`: small, dependency-free and widely used, rather than a hand-rolled copy.
fn sha1_hex(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

fn noscript() -> Frame {
    Frame::Error(b"NOSCRIPT No matching script. Please use EVAL.".to_vec())
}

/// The server core checks arity before dispatching; this answers the same if it did not.
fn arity_error(name: &str) -> Frame {
    Frame::Error(format!("ERR wrong number of arguments for '{name}' command").into_bytes())
}

/// `numkeys` as `evalGenericCommand` checks it against the `available` keys and arguments.
fn parse_numkeys(arg: &[u8], available: usize) -> Result<usize, Frame> {
    let error = |text: &str| Frame::Error(text.as_bytes().to_vec());
    let numkeys =
        parse_i64(arg).ok_or_else(|| error("ERR value is not an integer or out of range"))?;
    if numkeys > available as i64 {
        return Err(error(
            "ERR Number of keys can't be greater than number of args",
        ));
    }
    usize::try_from(numkeys).map_err(|_| error("ERR Number of keys can't be negative"))
}

/// Redis's `string2ll`: an optional '-', then digits with no leading zero (just "0" for zero),
/// nothing else, within i64.
fn parse_i64(text: &[u8]) -> Option<i64> {
    if text == b"0" {
        return Some(0);
    }
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut value: u64 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        value = value
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    if negative {
        0i64.checked_sub_unsigned(value)
    } else {
        i64::try_from(value).ok()
    }
}
