//! Where a script's errors are caught: Redis 7.0's own `pcall` (which hands back an error table's
//! message), `xpcall` and `coroutine.resume` (which hand back the error as raised), and the
//! handler Redis runs every script under (`__redis__err__handler`), which notes where the error
//! happened.
//!
//! Each turns errors raised from Rust back into the value Redis's Lua would hold (see `raise`).
//! They call Lua's own `pcall`, `xpcall` and `resume` underneath, so the script's functions run
//! below a C function exactly as under Redis's, and error positions come out the same.

use mlua::{Function, Lua, LuaString, MultiValue, Table, Value};

use super::budget;
use super::convert;
use super::raise::{self, Args};

/// An error value as the script should see it.
fn catchable(lua: &Lua, error: Value) -> mlua::Result<Value> {
    match error {
        Value::Error(error) => raise::lua_value(lua, &error),
        other => Ok(other),
    }
}

/// Replaces a failed call's error object (the second result) with `fix(object)`.
fn fix_error(
    lua: &Lua,
    mut results: MultiValue,
    fix: impl FnOnce(&Lua, Value) -> mlua::Result<Value>,
) -> mlua::Result<MultiValue> {
    if let (Some(Value::Boolean(false)), Some(error)) = (results.front(), results.get(1)) {
        let error = fix(lua, error.clone())?;
        results = MultiValue::from_iter([Value::Boolean(false), error]);
    }
    Ok(results)
}

/// `pcall(f, ...)` as `luaRedisPcall`: an error table with a string (or number) `err` comes
/// back as that message.
pub(super) fn pcall(lua: &Lua, native: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    if args.is_empty() {
        // Redis calls its placeholder `true` then.
        let message = lua.create_string("attempt to call a boolean value")?;
        return Ok(MultiValue::from_iter([
            Value::Boolean(false),
            Value::String(message),
        ]));
    }
    let results: MultiValue = native.call(args)?;
    fix_error(lua, results, |lua, error| {
        let error = catchable(lua, error)?;
        if let Value::Table(table) = &error {
            let message: Value = table.get("err")?;
            if matches!(
                message,
                Value::String(_) | Value::Integer(_) | Value::Number(_)
            ) {
                return Ok(message);
            }
        }
        Ok(error)
    })
}

/// `xpcall(f, handler)`: the handler gets the error as Redis raised it.
pub(super) fn xpcall(lua: &Lua, native: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    let checked = Args(&args);
    let handler = checked.check_any(lua, 2)?;
    let function = checked.get(1).cloned().unwrap_or(Value::Nil);
    // Past the instruction limit the handler would run with hooks off, unbounded: skip it.
    let handler = match handler {
        Value::Function(handler) => Value::Function(lua.create_function(move |lua, error| {
            let error = catchable(lua, error)?;
            if budget::exceeded(lua) {
                return Ok(error);
            }
            handler.call::<Value>(error)
        })?),
        other => other,
    };
    let results: MultiValue = native.call((function, handler))?;
    fix_error(lua, results, catchable)
}

/// `coroutine.resume(co, ...)`: a failed coroutine's error as Redis raised it.
pub(super) fn resume(lua: &Lua, native: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    if !matches!(args.front(), Some(Value::Thread(_))) {
        return Err(raise::arg_error(lua, 1, "coroutine expected"));
    }
    let results: MultiValue = native.call(args)?;
    fix_error(lua, results, catchable)
}

/// Redis's `__redis__err__handler`: the error as a table `{err = …}` (a non-table becomes
/// `"ERR " .. tostring(error)`), with the `source` and `line` of the function that raised it, or
/// of its caller when that function is a C function.
pub(super) fn handler(lua: &Lua, tostring: &Function, error: Value) -> mlua::Result<Table> {
    let table = match catchable(lua, error)? {
        Value::Table(table) => table,
        other => {
            let text: LuaString = tostring.call(other)?;
            let err = [b"ERR ".as_slice(), &text.as_bytes()].concat();
            convert::error_table(lua, &err, false)?
        }
    };
    let where_from = |level| {
        lua.inspect_stack(level, |frame| {
            let source = frame.source();
            let line = frame.current_line().map_or(-1, |line| line as i64);
            (
                source.what == "C",
                source.source.map(|s| s.into_owned()),
                line,
            )
        })
    };
    let place = match where_from(1) {
        Some((true, ..)) => where_from(2),
        other => other,
    };
    if let Some((_, source, line)) = place {
        table.set("source", source)?;
        table.set("line", line)?;
    }
    Ok(table)
}
