//! The Lua 5.1 state scripts run in: the libraries Redis 7.0 loads, the locked globals each run
//! starts from, the instruction and memory bounds, and the run itself.
//!
//! Loaded: the base library (without `print`, `dofile`, `loadfile`, `getfenv`, `setfenv` and
//! `newproxy`, absent from the reference server too), `coroutine`, `table`, `string`, `math`
//! (with Redis's `math.random`), Redis's `cjson`, `struct`, `cmsgpack` and `bit` (its own C
//! sources, see `libs`) and the `redis` table, all read-only. Not loaded: `os`, `io`, `debug`,
//! `package` (`require`, `module`), so no file, process or wall-clock access.
//!
//! Where the four libraries answer differently from Redis 7.0.15: past the memory limit their
//! buffers fail with it (Redis would build the value, or abort); and they see a library table
//! or `_G` as the empty proxy it is here (`cjson.encode(string)` gives `{}` where Redis refuses
//! the functions inside). `vendor/redis-lua-libs/README.md` has the details.
//!
//! Determinism: nothing here reads time or OS randomness, and Lua 5.1 hashes strings and numbers
//! without a seed, so `pairs()`, `cjson.encode` and `cmsgpack.pack` walk a table with string
//! and number keys in the same order every time. One caveat comes with Lua itself: tables and
//! functions used as table keys are placed by address, so `pairs()` (or `cmsgpack.pack`) over
//! such a table, like `tostring()` of a table or function, can differ between processes (as it
//! does between real Redis servers).

use std::cell::Cell;
use std::rc::Rc;

use mlua::{BString, Function, Lua, LuaOptions, StdLib, Table, Value};

use super::ScriptHost;
use super::api;
use super::budget;
use super::catch;
use super::chunks;
use super::convert::{c_str, reply_text};
use super::guards;
use super::lent::Lent;
use super::libs;
use super::load;
use super::protect::{self, Guard, Views};
use super::raise;
use super::rand48::{self, Rand48};
use super::reply::{self, Replies};
use crate::redis::resp::Frame;

/// The most memory one script (or one compilation) may take in its server's Lua state, beyond
/// what the state held when it started, unless [`Scripts::with_memory_limit`](super::Scripts::with_memory_limit)
/// says otherwise (`serve redis --lua-memory-limit`). Redis sets no such limit; the simulation
/// does, so that a runaway script fails instead of exhausting the machine.
pub const MEMORY_LIMIT: usize = 64 << 20;
/// How much garbage the state may hold beyond what it keeps alive before a full collection.
const GARBAGE_LIMIT: usize = 16 << 20;
/// Runs between two garbage-collection steps (`LUA_GC_CYCLE_PERIOD`).
const GC_PERIOD: u32 = 50;
/// The chunk name Redis compiles scripts under.
const USER_SCRIPT: &[u8] = b"@user_script";

/// Runs a script under Redis's error handler in globals kept across runs, all in Lua: from
/// Rust, each table operation would be a protected call of its own.
///
/// The globals: the base functions, read-only views (proxies) of the libraries and of `redis`,
/// `KEYS` and `ARGV`, all behind a read-only `_G`; and the views `getmetatable` shows of `_G`
/// and of strings. Each run sets the run's `KEYS` and `ARGV`. A script can
/// change nothing else but the proxies' own (empty) tables, through the table library's raw
/// writes (`table.insert(string, x)`): then the next run gets everything afresh.
const RUNNER: &str = r#"
local base, libs, redis_template, on_host, readonly, globals_meta, nonexistent, scripts,
      set_views, setmetatable, setfenv, next, xpcall, handler, any_filled = ...

local function protect(target)
    return setmetatable({}, {__index = target, __newindex = readonly})
end

local globals, redis, proxies

local function build()
    globals, redis, proxies = {}, {}, {}
    for name, value in next, base do globals[name] = value end
    for name, lib in next, libs do
        globals[name] = protect(lib)
        proxies[#proxies + 1] = globals[name]
    end
    for name, value in next, redis_template do redis[name] = value end
    globals.redis = protect(redis)
    setmetatable(globals, globals_meta)
    local env = protect(globals)
    globals._G = env
    local env_meta = protect({__index = nonexistent})
    local string_meta = protect({__index = globals.string})
    proxies[#proxies + 1] = globals.redis
    proxies[#proxies + 1] = env
    proxies[#proxies + 1] = env_meta
    proxies[#proxies + 1] = string_meta
    set_views(env, env_meta, string_meta)
    redis.call, redis.pcall, redis.acl_check_cmd = on_host[1], on_host[2], on_host[3]
end

build()

return function(sha, keys, argv)
    if any_filled(proxies) then
        build()
    end
    globals.KEYS, globals.ARGV = keys, argv
    local script = scripts[sha]
    setfenv(script, globals._G)
    return xpcall(script, handler)
end
"#;

/// One server's Lua state.
pub(super) struct Sandbox {
    lua: Lua,
    /// The compiled scripts by SHA1, in a Lua table as Redis keeps them in the registry: mlua can
    /// hold only some thousands of Lua values from Rust at once.
    scripts: Table,
    runner: Function,
    /// Where the state's `redis.call`, `redis.pcall` and `redis.acl_check_cmd` find the host.
    lent: Rc<Lent>,
    replies: Replies,
    compiler: load::Compiler,
    /// Runs since the last garbage-collection step.
    runs: Cell<u32>,
    /// About what the state keeps alive: its size after the last full collection, plus what
    /// was compiled since.
    live: Cell<usize>,
    /// What one script or compilation may allocate beyond what the state held before it.
    memory_limit: usize,
}

impl Sandbox {
    /// A fresh state whose `math.random` continues from `rand`.
    pub(super) fn new(rand: Rand48, instruction_limit: u64, memory_limit: usize) -> Sandbox {
        Sandbox::build(rand, instruction_limit, memory_limit)
            .expect("a new Lua state takes the sandbox's setup")
    }

    fn build(rand: Rand48, instruction_limit: u64, memory_limit: usize) -> mlua::Result<Sandbox> {
        let lua = Lua::new_with(
            StdLib::TABLE | StdLib::STRING | StdLib::MATH,
            LuaOptions::default(),
        )?;
        lua.set_app_data(rand);
        budget::install(&lua, instruction_limit);
        let globals = lua.globals();
        let native = |name: &str| globals.raw_get::<Function>(name);
        let guard = Guard::new(&lua)?;
        let tostring = native("tostring")?;

        let coroutine: Table = globals.raw_get("coroutine")?;
        let native_resume: Function = coroutine.raw_get("resume")?;
        let resume =
            lua.create_function(move |lua, args| catch::resume(lua, &native_resume, args))?;
        coroutine.raw_set("resume", resume)?;
        let string: Table = globals.raw_get("string")?;
        let unpack = guards::install(&lua, &native("unpack")?, &string)?;
        let math: Table = globals.raw_get("math")?;
        math.raw_set("random", lua.create_function(rand48::random)?)?;
        math.raw_set("randomseed", lua.create_function(rand48::randomseed)?)?;

        let mut base: Vec<(&'static str, Value)> = Vec::new();
        for name in [
            "_VERSION",
            "assert",
            "collectgarbage",
            "error",
            "gcinfo",
            "ipairs",
            "rawequal",
            "select",
            "tonumber",
            "tostring",
            "type",
        ] {
            base.push((name, globals.raw_get(name)?));
        }
        base.push(("unpack", Value::Function(unpack)));
        for (name, function) in guard.base_functions(&lua, native("next")?)? {
            base.push((name, Value::Function(function)));
        }
        let native_pcall = native("pcall")?;
        let pcall = lua.create_function(move |lua, args| catch::pcall(lua, &native_pcall, args))?;
        let native_xpcall = native("xpcall")?;
        let user_xpcall =
            lua.create_function(move |lua, args| catch::xpcall(lua, &native_xpcall, args))?;
        let handler =
            lua.create_function(move |lua, error| catch::handler(lua, &tostring, error))?;
        base.push(("pcall", Value::Function(pcall)));
        base.push(("xpcall", Value::Function(user_xpcall)));
        let compiler = load::Compiler::new(native("loadstring")?);
        let loadstring = compiler.clone();
        let loadstring = lua.create_function(move |lua, args| loadstring.loadstring(lua, args))?;
        base.push(("loadstring", Value::Function(loadstring)));
        let native_load = native("load")?;
        let load = lua.create_function(move |lua, args| load::load(lua, &native_load, args))?;
        base.push(("load", Value::Function(load)));
        base.push(("__redis__err__handler", Value::Function(handler.clone())));

        let base = lua.create_table_from(base)?;
        let libs = lua.create_table_from([
            ("string", string),
            ("table", globals.raw_get("table")?),
            ("math", math),
            ("coroutine", coroutine),
        ])?;
        for (name, lib) in libs::open(&lua)? {
            libs.raw_set(name, lib)?;
        }
        let replies = Replies::new(&lua, (native("type")?, native("rawget")?, native("next")?))?;
        let nonexistent = protect::nonexistent_global(&lua)?;
        let globals_meta = lua.create_table_from([("__index", &nonexistent)])?;
        // Scripts only ever see their run's globals; the state's own are emptied and locked.
        let locked = lua.create_table()?;
        locked.set_metatable(Some(globals_meta.clone()))?;
        let set_views =
            lua.create_function(|lua, (env, env_meta, string_meta): (Table, Table, Table)| {
                lua.set_app_data(Views {
                    env,
                    env_meta,
                    string_meta,
                });
                Ok(())
            })?;
        let scripts = lua.create_table()?;
        let lent = Rc::new(Lent::default());
        let on_host = lua.create_sequence_from(api::host_functions(&lua, &lent)?)?;
        let runner: Function = chunks::own_chunk(&lua, "=runner", RUNNER)?.call((
            base,
            libs,
            api::template(&lua)?,
            on_host,
            guard.readonly(),
            globals_meta,
            nonexistent,
            &scripts,
            set_views,
            native("setmetatable")?,
            native("setfenv")?,
            native("next")?,
            native("xpcall")?,
            handler,
            protect::any_filled(&lua)?,
        ))?;
        lua.set_globals(locked)?;
        let live = Cell::new(lua.used_memory());

        Ok(Sandbox {
            lua,
            scripts,
            runner,
            lent,
            replies,
            compiler,
            runs: Cell::new(0),
            live,
            memory_limit,
        })
    }

    /// Runs `f` with the memory limit on: only Lua's own work is bounded. While it is off, an
    /// allocation cannot fail, so mlua builds tables and functions without a protected call
    /// around each; what Rust allocates between runs is small and bounded.
    ///
    /// The limit counts from what the state holds when `f` starts (the script cache, and
    /// garbage the collector has not reached yet), so each script and each compilation has the
    /// whole memory limit of its own, whatever the cache holds or earlier scripts left.
    fn limited<T>(&self, f: impl FnOnce() -> mlua::Result<T>) -> mlua::Result<T> {
        self.lua
            .set_memory_limit(self.lua.used_memory() + self.memory_limit)?;
        let result = f();
        self.lua.set_memory_limit(0)?;
        result
    }

    /// What the Lua state holds now, the libraries' buffers included.
    #[cfg(test)]
    pub(super) fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Where `math.random` is: carried over when `SCRIPT FLUSH` replaces the state.
    pub(super) fn rand(&self) -> Rand48 {
        self.lua
            .app_data_ref::<Rand48>()
            .map(|rand| *rand)
            .unwrap_or_default()
    }

    /// Compiles a script body as Redis does (`luaL_loadbuffer` under "@user_script") and keeps
    /// it under `sha`, or returns Lua's message. `Ok` carries about how many bytes the state
    /// grew by.
    pub(super) fn compile(&self, sha: &str, body: &[u8]) -> Result<usize, Vec<u8>> {
        let before = self.lua.used_memory();
        let compiled = self
            .limited(|| self.compiler.compile(&self.lua, body, USER_SCRIPT))
            .and_then(|compiled| match compiled {
                Ok(function) => self.scripts.raw_set(sha, function).map(Ok),
                Err(message) => Ok(Err(message)),
            });
        let grown = self.lua.used_memory().saturating_sub(before);
        self.live.set(self.live.get() + grown);
        match compiled {
            Ok(compiled) => compiled.map(|()| grown),
            Err(error) if raise::is_memory(&error) => Err(b"not enough memory".to_vec()),
            Err(error) => Err(error.to_string().into_bytes()),
        }
    }

    /// Drops the compiled script kept under `sha` (the cache evicted it); the collector frees
    /// it later.
    pub(super) fn forget(&self, sha: &str) {
        // Setting a key of an existing table to nil allocates nothing, so it cannot fail.
        let _ = self.scripts.raw_set(sha, Value::Nil);
    }

    /// Runs a compiled script with its keys and arguments, and returns its reply.
    pub(super) fn run(
        &self,
        sha: &str,
        host: &mut dyn ScriptHost,
        keys: &[Vec<u8>],
        argv: &[Vec<u8>],
        read_only: bool,
    ) -> Frame {
        if let Err(error) = budget::renew(&self.lua) {
            return self.failure(sha, &error);
        }
        api::start_run(&self.lua);
        let outcome = self.lent.lend(host, read_only, || {
            // Made before the memory limit is on: unlimited, mlua makes them without a
            // protected call each.
            let strings = |items: &[Vec<u8>]| {
                self.lua
                    .create_sequence_from(items.iter().map(|item| BString::from(item.as_slice())))
            };
            let args = (self.lua.create_string(sha)?, strings(keys)?, strings(argv)?);
            let (ok, value): (bool, Value) = self.limited(|| self.runner.call(args))?;
            self.outcome(sha, ok, value)
        });
        let reply = outcome.unwrap_or_else(|error| self.failure(sha, &error));
        self.collect_garbage();
        reply
    }

    /// Like Redis, a garbage-collection step every [`GC_PERIOD`] runs, which also restarts a
    /// collector a script stopped (`collectgarbage("stop")`). And garbage (a script's, or
    /// evicted scripts') is collected whole once it outgrows what the state keeps alive by
    /// [`GARBAGE_LIMIT`]: it never counts against a script (see `limited`), but it holds the
    /// process's memory.
    fn collect_garbage(&self) {
        if self.lua.used_memory() > self.live.get() + GARBAGE_LIMIT {
            // A failed collection (no memory left to run it) leaves the next run to fail on memory.
            let _ = self.lua.gc_collect();
            self.live.set(self.lua.used_memory());
        }
        let runs = self.runs.get() + 1;
        if runs < GC_PERIOD {
            self.runs.set(runs);
            return;
        }
        self.runs.set(0);
        let _ = self.lua.gc_step();
    }

    /// The reply for what `xpcall` returned: the script's first return value, or its error.
    fn outcome(&self, sha: &str, ok: bool, value: Value) -> mlua::Result<Frame> {
        if self.budget_exceeded() {
            return Ok(self.budget_frame(sha));
        }
        if ok {
            return Ok(self.replies.reply(&self.lua, value)?.unwrap_or_else(|| {
                error_frame(format!(
                    "ERR Error running script {sha}: its reply exceeds the simulation's limit of \
                     {} values or {} MiB (a real Redis sets none)",
                    reply::REPLY_LIMIT,
                    reply::REPLY_BYTES_LIMIT >> 20
                ))
            }));
        }
        self.script_error(sha, value)
    }

    /// `luaCallFunction`'s error reply: the message, then where it happened ("script: <sha>,
    /// on @user_script:<line>.") when the handler found out.
    fn script_error(&self, sha: &str, error: Value) -> mlua::Result<Frame> {
        let Value::Table(table) = error else {
            let text = match &error {
                Value::String(_) | Value::Integer(_) | Value::Number(_) => self
                    .lua
                    .coerce_string(error)?
                    .map(|text| text.as_bytes().to_vec())
                    .unwrap_or_default(),
                _ => b"execution failure".to_vec(),
            };
            if text == b"not enough memory" {
                return Ok(memory_frame(sha, self.memory_limit));
            }
            let text = c_str(&text);
            let text = &text[..text.len().min(100)];
            let prefix = format!("ERR Error running script {sha}, ");
            let message = [prefix.as_bytes(), text, b"\n"].concat();
            return Ok(Frame::Error(reply_text(&message)));
        };
        let field = |name: &str| -> mlua::Result<Option<Vec<u8>>> {
            let value: Value = table.get(name)?;
            Ok(match value {
                Value::String(_) | Value::Integer(_) | Value::Number(_) => self
                    .lua
                    .coerce_string(value)?
                    .map(|text| c_str(&text.as_bytes()).to_vec()),
                _ => None,
            })
        };
        // Redis would crash on an error table without a message; the simulation says so.
        let mut text =
            field("err")?.unwrap_or_else(|| b"ERR (error object is a table value)".to_vec());
        if let (Some(line), Some(source)) = (field("line")?, field("source")?) {
            text.extend_from_slice(format!(" script: {sha}, on ").as_bytes());
            text.extend_from_slice(&source);
            text.push(b':');
            text.extend_from_slice(&line);
            text.push(b'.');
        }
        Ok(Frame::Error(reply_text(&text)))
    }

    /// The reply when the run failed outside the script (the budget, memory, or the sandbox).
    fn failure(&self, sha: &str, error: &mlua::Error) -> Frame {
        if self.budget_exceeded() {
            return self.budget_frame(sha);
        }
        if raise::is_memory(error) {
            return memory_frame(sha, self.memory_limit);
        }
        error_frame(format!("ERR Error running script {sha}, {error}"))
    }

    fn budget_exceeded(&self) -> bool {
        budget::exceeded(&self.lua)
    }

    fn budget_frame(&self, sha: &str) -> Frame {
        let limit = budget::limit(&self.lua);
        error_frame(format!(
            "ERR Error running script {sha}: it ran past the simulation's limit of {limit} Lua \
             instructions (a real Redis would keep running it, answering BUSY to other clients)"
        ))
    }
}

/// Runs `f`, which makes at most `bytes` of Lua values, with the memory limit lifted if the
/// state has room to spare for them: no allocation of `f` could fail then (nor could the
/// collector's, which never asks for more than the state already holds), so the check would
/// change nothing, and without a limit mlua makes strings and tables without a protected call
/// around each. `None` (too much to tell): `f` runs under the limit.
pub(super) fn with_room<T>(
    lua: &Lua,
    bytes: Option<usize>,
    f: impl FnOnce() -> mlua::Result<T>,
) -> mlua::Result<T> {
    const SPARE: usize = 64 << 10;
    let Some(bytes) = bytes else {
        return f();
    };
    let limit = lua.set_memory_limit(0)?;
    let needed = lua
        .used_memory()
        .saturating_mul(2)
        .saturating_add(bytes)
        .saturating_add(SPARE);
    if limit != 0 && needed > limit {
        lua.set_memory_limit(limit)?;
        return f();
    }
    let result = f();
    lua.set_memory_limit(limit)?;
    result
}

fn error_frame(text: String) -> Frame {
    Frame::Error(reply_text(text.as_bytes()))
}

fn memory_frame(sha: &str, limit: usize) -> Frame {
    error_frame(format!(
        "ERR Error running script {sha}: it ran past the simulation's Lua memory limit of {} MiB \
         (a real Redis sets none)",
        limit >> 20
    ))
}
