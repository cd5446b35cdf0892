//! Errors that the simulator's own Lua functions raise, worded and shaped as Redis's.
//!
//! Redis raises two kinds of Lua errors from C: a `{err = "CODE message"}` table
//! (`luaPushError` + `lua_error`, e.g. from `redis.call`) and a plain message with the caller's
//! position (`luaL_error`, e.g. from `math.random`). mlua lets a Rust function raise only a Rust
//! value, which Lua code sees as an opaque userdata, so [`Raised`] records which of the two Redis
//! would have raised and [`lua_value`] rebuilds it wherever a script can catch an error
//! (`pcall`, `xpcall`, `coroutine.resume`) and in the top-level error handler.

use std::fmt;

use mlua::{Lua, MultiValue, Table, Value};

use super::convert;

/// An error raised from Rust into a running script.
#[derive(Debug, Clone)]
pub(super) enum Raised {
    /// Redis's error table: `err` is "CODE message"; `from_command` adds the
    /// `ignore_error_stats_update = true` field Redis sets on the errors of `redis.call` itself.
    Reply { err: Vec<u8>, from_command: bool },
    /// A Lua error message, position included, as `luaL_error` writes it.
    Message(Vec<u8>),
    /// The script ran past the simulation's instruction limit.
    Budget,
}

impl fmt::Display for Raised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Raised::Reply { err, .. } => f.write_str(&String::from_utf8_lossy(err)),
            Raised::Message(text) => f.write_str(&String::from_utf8_lossy(text)),
            Raised::Budget => f.write_str(BUDGET_MESSAGE),
        }
    }
}

impl std::error::Error for Raised {}

/// What a script that catches the budget error sees (it cannot go on: see `sandbox`).
const BUDGET_MESSAGE: &str = "script killed: it ran past the simulation's instruction limit";

/// Raises a Redis error table `{err = err}`.
pub(super) fn reply(err: Vec<u8>, from_command: bool) -> mlua::Error {
    mlua::Error::external(Raised::Reply { err, from_command })
}

/// `luaL_error`: `text` after the position of the function `level` frames up.
pub(super) fn message(lua: &Lua, level: usize, text: impl AsRef<[u8]>) -> mlua::Error {
    let mut message = position(lua, level);
    message.extend_from_slice(text.as_ref());
    mlua::Error::external(Raised::Message(message))
}

/// An error Lua raises from a C function with `luaG_runerror`: no position.
pub(super) fn bare(text: impl AsRef<[u8]>) -> mlua::Error {
    mlua::Error::external(Raised::Message(text.as_ref().to_vec()))
}

/// `luaL_where`: "chunk:line: " of the function `level` frames up, or nothing for C functions.
pub(super) fn position(lua: &Lua, level: usize) -> Vec<u8> {
    lua.inspect_stack(level, |frame| match frame.current_line() {
        Some(line) if line > 0 => {
            let source = frame.source();
            format!("{}:{line}: ", source.short_src.unwrap_or_default()).into_bytes()
        }
        _ => Vec::new(),
    })
    .unwrap_or_default()
}

/// `luaL_argerror`: names the function as its caller called it ('?' when called from C).
pub(super) fn arg_error(lua: &Lua, narg: usize, extra: &str) -> mlua::Error {
    let (name, method) = lua
        .inspect_stack(0, |frame| {
            let names = frame.names();
            let method = names.name_what == Some("method");
            (names.name.map(|name| name.into_owned()), method)
        })
        .unwrap_or((None, false));
    let name = name.unwrap_or_else(|| "?".to_owned());
    if method {
        if narg == 1 {
            return message(lua, 1, format!("calling '{name}' on bad self ({extra})"));
        }
        return message(
            lua,
            1,
            format!("bad argument #{} to '{name}' ({extra})", narg - 1),
        );
    }
    message(
        lua,
        1,
        format!("bad argument #{narg} to '{name}' ({extra})"),
    )
}

/// What a script sees for an error raised from Rust: the table or string Redis would raise.
pub(super) fn lua_value(lua: &Lua, error: &mlua::Error) -> mlua::Result<Value> {
    let text = match error.downcast_ref::<Raised>() {
        Some(Raised::Reply { err, from_command }) => {
            return Ok(Value::Table(convert::error_table(lua, err, *from_command)?));
        }
        Some(Raised::Message(text)) => text.clone(),
        Some(Raised::Budget) => BUDGET_MESSAGE.as_bytes().to_vec(),
        None if is_memory(error) => b"not enough memory".to_vec(),
        None => error.to_string().into_bytes(),
    };
    Ok(Value::String(lua.create_string(text)?))
}

/// A Lua error message without the traceback that mlua's message handler appends when Rust
/// calls back into Lua.
pub(super) fn without_traceback(text: &[u8]) -> &[u8] {
    const MARK: &[u8] = b"\nstack traceback:";
    text.windows(MARK.len())
        .position(|window| window == MARK)
        .map_or(text, |at| &text[..at])
}

/// Whether an mlua error is, or wraps, an allocation failure.
pub(super) fn is_memory(error: &mlua::Error) -> bool {
    match error {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            is_memory(cause)
        }
        _ => false,
    }
}

/// The arguments of a call, checked the way `lauxlib` checks them.
pub(super) struct Args<'a>(pub(super) &'a MultiValue);

impl Args<'_> {
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Argument `n` (from 1), or `None` past the last one ("no value").
    pub(super) fn get(&self, n: usize) -> Option<&Value> {
        self.0.get(n - 1)
    }

    /// `luaL_checkany`.
    pub(super) fn check_any(&self, lua: &Lua, n: usize) -> mlua::Result<Value> {
        self.get(n)
            .cloned()
            .ok_or_else(|| arg_error(lua, n, "value expected"))
    }

    /// `luaL_checktype(L, n, LUA_TTABLE)`.
    pub(super) fn check_table(&self, lua: &Lua, n: usize) -> mlua::Result<Table> {
        match self.get(n) {
            Some(Value::Table(table)) => Ok(table.clone()),
            other => Err(self.type_error(lua, n, "table", other)),
        }
    }

    /// `luaL_checkint`: a number or numeric string, through `lua_Integer` to C's `int`.
    pub(super) fn check_int(&self, lua: &Lua, n: usize) -> mlua::Result<i32> {
        let value = self.get(n);
        match value.and_then(|value| lua.coerce_number(value.clone()).ok().flatten()) {
            Some(number) => Ok(convert::to_integer(number) as i32),
            None => Err(self.type_error(lua, n, "number", value)),
        }
    }

    /// `luaL_checklstring` and `luaL_optstring`: a string or number (converted as Lua does).
    pub(super) fn check_string(&self, lua: &Lua, n: usize) -> mlua::Result<Vec<u8>> {
        let value = self.get(n);
        match value.and_then(|value| lua.coerce_string(value.clone()).ok().flatten()) {
            Some(text) => Ok(text.as_bytes().to_vec()),
            None => Err(self.type_error(lua, n, "string", value)),
        }
    }

    /// `luaL_typerror`.
    pub(super) fn type_error(
        &self,
        lua: &Lua,
        n: usize,
        expected: &str,
        got: Option<&Value>,
    ) -> mlua::Error {
        arg_error(
            lua,
            n,
            &format!("{expected} expected, got {}", type_name(got)),
        )
    }
}

/// `luaL_typename`, with "no value" for a missing argument.
pub(super) fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "no value",
        Some(Value::Nil) => "nil",
        Some(Value::Boolean(_)) => "boolean",
        Some(Value::Integer(_) | Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Table(_)) => "table",
        Some(Value::Function(_)) => "function",
        Some(Value::Thread(_)) => "thread",
        Some(_) => "userdata",
    }
}
