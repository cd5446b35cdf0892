//! The `redis` table scripts see: `redis.call` and `redis.pcall` with the checks of Redis 7.0's
//! `luaRedisGenericCommand` and `scriptCall`, and the helpers (`error_reply`, `status_reply`,
//! `sha1hex`, `log`, `setresp`, …) with their messages word for word; and what a run keeps
//! between them (the protocol it asked for, the bytes it wrote).

use std::rc::Rc;

use mlua::{Function, Lua, LuaString, MultiValue, Table, Value};

use super::ScriptHost;
use super::convert::{self, c_int};
use super::lent::Lent;
use super::raise;
use super::sandbox;
use crate::redis::resp::{Frame, Protocol};

/// `REDIS_VERSION` and `REDIS_VERSION_NUM` of the server the simulation reproduces.
const VERSION: &str = "7.0.15";
const VERSION_NUM: i64 = 0x00_07_00_0f;

/// The parts of the `redis` table that do not reach the host.
pub(super) fn template(lua: &Lua) -> mlua::Result<Table> {
    let redis = lua.create_table()?;
    for (name, value) in [
        ("LOG_DEBUG", 0),
        ("LOG_VERBOSE", 1),
        ("LOG_NOTICE", 2),
        ("LOG_WARNING", 3),
        ("REPL_NONE", 0),
        ("REPL_AOF", 1),
        ("REPL_SLAVE", 2),
        ("REPL_REPLICA", 2),
        ("REPL_ALL", 3),
    ] {
        redis.raw_set(name, value)?;
    }
    redis.raw_set("REDIS_VERSION", VERSION)?;
    redis.raw_set("REDIS_VERSION_NUM", VERSION_NUM)?;
    redis.raw_set("error_reply", lua.create_function(error_reply)?)?;
    redis.raw_set("status_reply", lua.create_function(status_reply)?)?;
    redis.raw_set("sha1hex", lua.create_function(sha1hex)?)?;
    redis.raw_set("log", lua.create_function(log)?)?;
    redis.raw_set("setresp", lua.create_function(setresp)?)?;
    redis.raw_set("set_repl", lua.create_function(set_repl)?)?;
    redis.raw_set(
        "replicate_commands",
        lua.create_function(|_, _: MultiValue| Ok(true))?,
    )?;
    // No debugger in the simulation: `breakpoint` reports none, `debug` logs nowhere, as with
    // LDB off.
    redis.raw_set(
        "breakpoint",
        lua.create_function(|_, _: MultiValue| Ok(false))?,
    )?;
    redis.raw_set("debug", lua.create_function(|_, _: MultiValue| Ok(()))?)?;
    Ok(redis)
}

/// `redis.call`, `redis.pcall` and `redis.acl_check_cmd`, in that order: the functions that
/// reach the host `lent` holds for the run under way.
pub(super) fn host_functions(lua: &Lua, lent: &Rc<Lent>) -> mlua::Result<[Function; 3]> {
    let on_host = |raise: bool| {
        let lent = Rc::clone(lent);
        lua.create_function(move |lua, args| {
            lent.with(|host, read_only| call(lua, host, read_only, raise, args))
                .unwrap_or_else(|| Err(refusal(NOT_RUNNING)))
        })
    };
    let acl_lent = Rc::clone(lent);
    let acl = lua.create_function(move |_, args| {
        acl_lent
            .with(|host, _| acl_check_cmd(host, args))
            .unwrap_or_else(|| Err(refusal(NOT_RUNNING)))
    })?;
    Ok([on_host(true)?, on_host(false)?, acl])
}

/// What a host function says when it finds no host: called past the run that lent it, or from
/// within a call on the host. Neither can happen from a script (no command it may run starts
/// another script), so this only guards the lending.
const NOT_RUNNING: &str = "This Redis function can be called only from a running script.";

/// `redis.call` (`raise`) and `redis.pcall`: run one command on the host.
fn call(
    lua: &Lua,
    host: &mut dyn ScriptHost,
    read_only: bool,
    raise: bool,
    args: MultiValue,
) -> mlua::Result<Value> {
    let (text, from_command) = match command_args(&args) {
        Err(text) => (text, false),
        Ok(argv) => {
            let size = argv.iter().map(Vec::len).sum();
            let checked = check(host, &argv, read_only);
            match checked {
                Err(text) => (text, true),
                Ok(true) if !written(lua, size) => (WRITES_TOO_LARGE, false),
                Ok(_) => {
                    let proto = resp(lua);
                    let reply = host.call(&argv, proto);
                    return match (raise, reply) {
                        (true, Frame::Error(text)) => {
                            let buffer = [b"-".as_slice(), &text].concat();
                            Err(raise::reply(convert::error_text(&buffer), true))
                        }
                        (_, reply) => sandbox::with_room(lua, convert::flat_size(&reply), || {
                            convert::to_lua(lua, reply, proto)
                        }),
                    };
                }
            }
        }
    };
    let err = convert::error_text(text.as_bytes());
    if raise {
        return Err(raise::reply(err, from_command));
    }
    Ok(Value::Table(convert::error_table(lua, &err, from_command)?))
}

/// `redis.acl_check_cmd`: with no ACLs in the simulation, every known command is allowed.
fn acl_check_cmd(host: &dyn ScriptHost, args: MultiValue) -> mlua::Result<bool> {
    let refuse = |text: &str| raise::reply(convert::error_text(text.as_bytes()), false);
    let argv = command_args(&args).map_err(refuse)?;
    let known = host.command(&argv).is_some();
    if !known {
        return Err(refuse("Invalid command passed to redis.acl_check_cmd()"));
    }
    Ok(true)
}

/// The most bytes of arguments one command from a script may carry, and all the write commands
/// of one run together: what they carry is copied into the keyspace and into what the server
/// propagates, outside the Lua state's memory limit. Redis sets no such bound (it would run out
/// of memory).
pub(super) const ARGS_LIMIT: usize = 256 << 20;

const ARGS_TOO_LARGE: &str = "the command's arguments exceed the simulation's limit of \
     256 MiB for a command called from a script (a real Redis sets none)";
const WRITES_TOO_LARGE: &str = "the script's write commands exceed the simulation's limit \
     of 256 MiB of arguments in one script (a real Redis sets none)";

/// The bytes of arguments a run's write commands have carried so far, in the Lua state's
/// app data.
struct Written(usize);

/// The protocol of the run's `redis.setresp`, in the Lua state's app data: the one its
/// commands reply in, and the one its booleans are returned for (see `reply`).
struct Resp(Protocol);

/// A run's fresh start: nothing written yet, and RESP2, as Redis's `scriptPrepareForRun`
/// resets its Lua client for each script.
pub(super) fn start_run(lua: &Lua) {
    match lua.app_data_mut::<Written>() {
        Some(mut written) => written.0 = 0,
        None => drop(lua.set_app_data(Written(0))),
    }
    match lua.app_data_mut::<Resp>() {
        Some(mut resp) => resp.0 = Protocol::Resp2,
        None => drop(lua.set_app_data(Resp(Protocol::Resp2))),
    }
}

/// The protocol the running script asked for with `redis.setresp` (RESP2 unless it did).
pub(super) fn resp(lua: &Lua) -> Protocol {
    lua.app_data_ref::<Resp>()
        .map_or(Protocol::Resp2, |resp| resp.0)
}

/// Counts `size` more bytes of writes for this run: false past [`ARGS_LIMIT`].
fn written(lua: &Lua, size: usize) -> bool {
    let Some(mut written) = lua.app_data_mut::<Written>() else {
        return true;
    };
    written.0 = written.0.saturating_add(size);
    written.0 <= ARGS_LIMIT
}

/// About how many bytes `args` become as a command (numbers are short either way).
fn args_size(args: &MultiValue) -> usize {
    args.iter()
        .map(|arg| match arg {
            Value::String(s) => s.as_bytes().len(),
            _ => 24,
        })
        .fold(0, usize::saturating_add)
}

/// `luaArgsToRedisArgv`: strings as they are, numbers as `%.17g`, anything else refused; and
/// no more than [`ARGS_LIMIT`] bytes in all, checked before anything is copied.
fn command_args(args: &MultiValue) -> Result<Vec<Vec<u8>>, &'static str> {
    if args.is_empty() {
        return Err("Please specify at least one argument for this redis lib call");
    }
    if args_size(args) > ARGS_LIMIT {
        return Err(ARGS_TOO_LARGE);
    }
    args.iter()
        .map(|arg| match arg {
            Value::String(s) => Ok(s.as_bytes().to_vec()),
            Value::Integer(n) => Ok(convert::g17(*n as f64).into_bytes()),
            Value::Number(n) => Ok(convert::g17(*n).into_bytes()),
            _ => Err("Lua redis lib command arguments must be strings or integers"),
        })
        .collect()
}

/// `scriptCall`'s checks before the command runs, in Redis's order.
/// `Ok` tells whether the command writes.
fn check(host: &dyn ScriptHost, argv: &[Vec<u8>], read_only: bool) -> Result<bool, &'static str> {
    let spec = host
        .command(argv)
        .ok_or("Unknown Redis command called from script")?;
    let argc = argv.len() as i64;
    let arity = i64::from(spec.arity);
    if (arity > 0 && arity != argc) || argc < -arity {
        return Err("Wrong number of args calling Redis command from script");
    }
    if spec.noscript {
        return Err("This Redis command is not allowed from script");
    }
    if read_only && spec.write {
        return Err("Write commands are not allowed from read-only scripts.");
    }
    Ok(spec.write)
}

/// The argument of a function that takes exactly one.
fn only(args: &MultiValue) -> Option<&Value> {
    if args.len() == 1 { args.front() } else { None }
}

/// The one string argument of `error_reply` and `status_reply`.
fn single_string(args: &MultiValue) -> Option<LuaString> {
    match only(args) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Not raised: `error_reply` and `status_reply` return the error table.
fn wrong_arguments(lua: &Lua) -> mlua::Result<Table> {
    convert::error_table(lua, b"ERR wrong number or type of arguments", false)
}

/// `redis.error_reply(text)`: `{err = text}`, with "ERR" added when it names no code.
fn error_reply(lua: &Lua, args: MultiValue) -> mlua::Result<Table> {
    let Some(text) = single_string(&args) else {
        return wrong_arguments(lua);
    };
    let text = text.as_bytes();
    let text = convert::c_str(&text);
    let buffer = if text.starts_with(b"-") {
        text.to_vec()
    } else {
        [b"-".as_slice(), text].concat()
    };
    convert::error_table(lua, &convert::error_text(&buffer), false)
}

/// `redis.status_reply(text)`: `{ok = text}`.
fn status_reply(lua: &Lua, args: MultiValue) -> mlua::Result<Table> {
    let Some(text) = single_string(&args) else {
        return wrong_arguments(lua);
    };
    let table = lua.create_table_with_capacity(0, 1)?;
    table.raw_set("ok", text)?;
    Ok(table)
}

/// `redis.sha1hex(s)`: numbers hash as Lua prints them; other non-strings as the empty string.
fn sha1hex(lua: &Lua, args: MultiValue) -> mlua::Result<String> {
    let Some(value) = only(&args) else {
        return Err(raise::reply(
            b"ERR wrong number of arguments".to_vec(),
            false,
        ));
    };
    let bytes = match value {
        Value::String(_) | Value::Integer(_) | Value::Number(_) => lua
            .coerce_string(value.clone())?
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Ok(super::sha1_hex(&bytes))
}

/// `redis.log(level, ...)`: checked as Redis checks it, then dropped (nothing to log to).
fn log(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    if args.len() < 2 {
        return Err(refusal("redis.log() requires two arguments or more."));
    }
    let Some(level) = lua.coerce_number(args[0].clone())? else {
        return Err(refusal("First argument must be a number (log level)."));
    };
    if !(0..=3).contains(&c_int(level)) {
        return Err(refusal("Invalid debug level."));
    }
    Ok(())
}

/// `redis.setresp(2|3)` (`luaSetResp`): the protocol the script's commands reply in from now
/// on, until the script ends. The argument goes through `lua_tonumber` and C's `(int)`: `'3'`
/// and `3.9` are 3, anything not a number 0.
fn setresp(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    let Some(value) = only(&args) else {
        return Err(refusal("redis.setresp() requires one argument."));
    };
    let proto = match c_int(lua.coerce_number(value.clone())?.unwrap_or(0.0)) {
        2 => Protocol::Resp2,
        3 => Protocol::Resp3,
        _ => return Err(refusal("RESP version must be 2 or 3.")),
    };
    lua.set_app_data(Resp(proto));
    Ok(())
}

/// `redis.set_repl(flags)`: checked as Redis checks it. The host replicates what it replicates:
/// the flags have no effect here.
fn set_repl(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    let Some(value) = only(&args) else {
        return Err(refusal("redis.set_repl() requires two arguments."));
    };
    let flags = c_int(lua.coerce_number(value.clone())?.unwrap_or(0.0));
    if flags & !3 != 0 {
        return Err(refusal(
            "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
        ));
    }
    Ok(())
}

/// `luaPushError` + `luaError`: a raised `{err = "ERR text"}`.
fn refusal(text: &str) -> mlua::Error {
    raise::reply(convert::error_text(text.as_bytes()), false)
}
