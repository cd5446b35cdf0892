//! The Lua 5.1 state scripts run in: the libraries Redis 7.0 loads, the locked globals each run
//! starts from, the instruction and memory bounds, and the run itself.
//!
//! Loaded: the base library (without `print`, `dofile`, `loadfile`, `getfenv`, `setfenv` and
//! `newproxy`, absent from the reference server too), `coroutine`, `table`, `string`, `math`
//! (with Redis's `math.random`) and the `redis` table. Not loaded: `os`, `io`, `debug`, `package`
//! (`require`, `module`), so no file, process or wall-clock access; and Redis's `cjson`,
//! `cmsgpack`, `struct` and `bit`, which this simulation leaves out (a script using them fails on
//! the missing global).
//!
//! Determinism: nothing here reads time or OS randomness, and Lua 5.1 hashes strings and numbers
//! without a seed. One caveat comes with Lua itself: tables and functions used as table keys
//! are placed by address, so `pairs()` over such a table, like `tostring()` of a table or
//! function, can differ between processes (as it does between real Redis servers).

use std::cell::{Cell, RefCell};

use mlua::{Function, Lua, LuaOptions, MultiValue, StdLib, Table, Value};

use super::ScriptHost;
use super::api;
use super::budget;
use super::catch;
use super::convert::{c_str, reply_text};
use super::load;
use super::protect::{self, Guard, Views};
use super::raise;
use super::rand48::{self, Rand48};
use super::reply::{self, Replies};
use crate::redis::resp::Frame;

/// The most memory one server's Lua state may hold. Redis sets no such limit; the simulation
/// does, so that a runaway script fails instead of exhausting the machine.
pub const MEMORY_LIMIT: usize = 64 << 20;
/// Runs between two garbage-collection steps (`LUA_GC_CYCLE_PERIOD`).
const GC_PERIOD: u32 = 50;
/// The chunk name Redis compiles scripts under.
const USER_SCRIPT: &[u8] = b"@user_script";

/// One server's Lua state.
pub(super) struct Sandbox {
    lua: Lua,
    /// The compiled scripts by SHA1, in a Lua table as Redis keeps them in the registry: mlua can
    /// hold only some thousands of Lua values from Rust at once.
    scripts: Table,
    guard: Guard,
    /// Globals every run starts with, besides the libraries, `redis`, `KEYS` and `ARGV`.
    base: Vec<(&'static str, Value)>,
    /// The library tables, shown to scripts through read-only proxies.
    libs: Vec<(&'static str, Table)>,
    /// The parts of `redis` shared by all runs.
    redis: Table,
    /// The metatable of each run's globals: unknown names are an error.
    globals_meta: Table,
    /// The state's own globals, emptied and locked: what a script is left with between runs.
    locked: Table,
    nonexistent: Function,
    /// Lua's own `xpcall`, which runs each script under `handler`.
    xpcall: Function,
    handler: Function,
    replies: Replies,
    compiler: load::Compiler,
    /// Runs since the last garbage-collection step.
    runs: Cell<u32>,
}

impl Sandbox {
    /// A fresh state whose `math.random` continues from `rand`.
    pub(super) fn new(rand: Rand48, instruction_limit: u64) -> Sandbox {
        Sandbox::build(rand, instruction_limit).expect("a new Lua state takes the sandbox's setup")
    }

    fn build(rand: Rand48, instruction_limit: u64) -> mlua::Result<Sandbox> {
        let lua = Lua::new_with(
            StdLib::TABLE | StdLib::STRING | StdLib::MATH,
            LuaOptions::default(),
        )?;
        lua.set_memory_limit(MEMORY_LIMIT)?;
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
            "unpack",
        ] {
            base.push((name, globals.raw_get(name)?));
        }
        for (name, function) in guard.base_functions(&lua, native("next")?)? {
            base.push((name, Value::Function(function)));
        }
        let native_pcall = native("pcall")?;
        let pcall = lua.create_function(move |lua, args| catch::pcall(lua, &native_pcall, args))?;
        let xpcall = native("xpcall")?;
        let native_xpcall = xpcall.clone();
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

        let libs = vec![
            ("string", globals.raw_get("string")?),
            ("table", globals.raw_get("table")?),
            ("math", math),
            ("coroutine", coroutine),
        ];
        let replies = Replies::new(&lua, (native("type")?, native("rawget")?, native("next")?))?;
        let nonexistent = protect::nonexistent_global(&lua)?;
        let globals_meta = lua.create_table_with_capacity(0, 1)?;
        globals_meta.raw_set("__index", &nonexistent)?;
        // Scripts only ever see their run's globals; the state's own are emptied and locked.
        let locked = lua.create_table()?;
        locked.set_metatable(Some(globals_meta.clone()))?;
        lua.set_globals(locked.clone())?;

        Ok(Sandbox {
            scripts: lua.create_table()?,
            redis: api::template(&lua)?,
            lua,
            guard,
            base,
            libs,
            globals_meta,
            locked,
            nonexistent,
            xpcall,
            handler,
            replies,
            compiler,
            runs: Cell::new(0),
        })
    }

    /// Where `math.random` is: carried over when `SCRIPT FLUSH` replaces the state.
    pub(super) fn rand(&self) -> Rand48 {
        self.lua
            .app_data_ref::<Rand48>()
            .map(|rand| *rand)
            .unwrap_or_default()
    }

    /// Compiles a script body as Redis does (`luaL_loadbuffer` under "@user_script") and keeps
    /// it under `sha`, or returns Lua's message.
    pub(super) fn compile(&self, sha: &str, body: &[u8]) -> Result<(), Vec<u8>> {
        let compiled = self
            .compiler
            .compile(&self.lua, body, USER_SCRIPT)
            .and_then(|compiled| match compiled {
                Ok(function) => self.scripts.raw_set(sha, function).map(Ok),
                Err(message) => Ok(Err(message)),
            });
        match compiled {
            Ok(compiled) => compiled,
            Err(error) if raise::is_memory(&error) => Err(b"not enough memory".to_vec()),
            Err(error) => Err(error.to_string().into_bytes()),
        }
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
        let host: api::Host<'_> = RefCell::new(host);
        let outcome = self.lua.scope(|scope| {
            let call =
                scope.create_function(|lua, args| api::call(lua, &host, read_only, true, args))?;
            let pcall =
                scope.create_function(|lua, args| api::call(lua, &host, read_only, false, args))?;
            let acl = scope.create_function(|_, args| api::acl_check_cmd(&host, args))?;
            let env = self.env(
                [("call", call), ("pcall", pcall), ("acl_check_cmd", acl)],
                keys,
                argv,
            )?;
            let script: Function = self.scripts.raw_get(sha)?;
            script.set_environment(env)?;
            let reply = self
                .xpcall
                .call::<MultiValue>((&script, &self.handler))
                .and_then(|results| self.outcome(sha, results));
            // Let the run's globals go: a cached script keeps only the empty, locked ones.
            script.set_environment(self.locked.clone())?;
            reply
        });
        self.lua.remove_app_data::<Views>();
        let reply = outcome.unwrap_or_else(|error| self.failure(sha, &error));
        self.collect_garbage();
        reply
    }

    /// Like Redis, a garbage-collection step every [`GC_PERIOD`] runs, which also restarts a
    /// collector a script stopped (`collectgarbage("stop")`).
    fn collect_garbage(&self) {
        let runs = self.runs.get() + 1;
        if runs < GC_PERIOD {
            self.runs.set(runs);
            return;
        }
        self.runs.set(0);
        // A failed step (no memory left to run it) leaves the next run to fail on memory.
        let _ = self.lua.gc_step();
    }

    /// A run's globals: the base functions, read-only views of the libraries and of `redis`
    /// (with this run's host functions), `KEYS` and `ARGV`, all behind a read-only `_G`.
    fn env(
        &self,
        host_functions: [(&str, Function); 3],
        keys: &[Vec<u8>],
        argv: &[Vec<u8>],
    ) -> mlua::Result<Table> {
        let lua = &self.lua;
        let globals = lua.create_table_with_capacity(0, 32)?;
        for (name, value) in &self.base {
            globals.raw_set(*name, value.clone())?;
        }
        for (name, lib) in &self.libs {
            globals.raw_set(*name, self.guard.protect(lua, lib)?)?;
        }
        let redis = lua.create_table_with_capacity(0, 24)?;
        for pair in self.redis.pairs::<Value, Value>() {
            let (name, value) = pair?;
            redis.raw_set(name, value)?;
        }
        for (name, function) in host_functions {
            redis.raw_set(name, function)?;
        }
        globals.raw_set("redis", self.guard.protect(lua, &redis)?)?;
        globals.raw_set("KEYS", strings(lua, keys)?)?;
        globals.raw_set("ARGV", strings(lua, argv)?)?;
        globals.set_metatable(Some(self.globals_meta.clone()))?;
        let env = self.guard.protect(lua, &globals)?;
        globals.raw_set("_G", &env)?;

        let env_meta = lua.create_table_with_capacity(0, 1)?;
        env_meta.raw_set("__index", &self.nonexistent)?;
        let string_meta = lua.create_table_with_capacity(0, 1)?;
        string_meta.raw_set("__index", globals.raw_get::<Table>("string")?)?;
        lua.set_app_data(Views {
            env: env.clone(),
            env_meta: self.guard.protect(lua, &env_meta)?,
            string_meta: self.guard.protect(lua, &string_meta)?,
        });
        Ok(env)
    }

    /// The reply for what `xpcall` returned: the script's first return value, or its error.
    fn outcome(&self, sha: &str, results: MultiValue) -> mlua::Result<Frame> {
        if self.budget_exceeded() {
            return Ok(self.budget_frame(sha));
        }
        let mut results = results.into_iter();
        let ok = matches!(results.next(), Some(Value::Boolean(true)));
        let value = results.next().unwrap_or(Value::Nil);
        if ok {
            return Ok(self.replies.reply(&self.lua, value)?.unwrap_or_else(|| {
                error_frame(format!(
                    "ERR Error running script {sha}: its reply exceeds the simulation's limit of {} values",
                    reply::REPLY_LIMIT
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
                return Ok(memory_frame(sha));
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
            return memory_frame(sha);
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

fn error_frame(text: String) -> Frame {
    Frame::Error(reply_text(text.as_bytes()))
}

fn memory_frame(sha: &str) -> Frame {
    error_frame(format!(
        "ERR Error running script {sha}: it ran past the simulation's Lua memory limit of {} MiB \
         (a real Redis sets none)",
        MEMORY_LIMIT >> 20
    ))
}

/// A Lua array of strings (`KEYS`, `ARGV`).
fn strings(lua: &Lua, items: &[Vec<u8>]) -> mlua::Result<Table> {
    let table = lua.create_table_with_capacity(items.len(), 0)?;
    for (i, item) in items.iter().enumerate() {
        table.raw_set(i + 1, lua.create_string(item)?)?;
    }
    Ok(table)
}
