//! Compiling Lua text: script bodies, and the `loadstring` and `load` scripts may call.
//!
//! Redis's Lua has no bytecode loader (bytecode would let a script corrupt memory), so a chunk
//! starting with ESC is read as text and fails as text does. Chunks loaded by a script run in
//! that script's globals.

use std::borrow::Cow;

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, MultiValue, Value};

use super::convert::c_str;
use super::protect::Views;
use super::raise::{self, Args};

/// Compiles Lua text under `name`.
pub(super) fn text(lua: &Lua, source: &[u8], name: &str) -> mlua::Result<Function> {
    let source: Cow<'_, [u8]> = if source.first() == Some(&0x1b) {
        Cow::Owned([b" ".as_slice(), source].concat())
    } else {
        Cow::Borrowed(source)
    };
    lua.load(&*source)
        .set_name(name)
        .set_mode(ChunkMode::Text)
        .into_function()
}

/// Lua's message for a chunk that did not compile.
pub(super) fn compile_error(error: &mlua::Error) -> Vec<u8> {
    match error {
        mlua::Error::SyntaxError { message, .. } => message.clone().into_bytes(),
        error if raise::is_memory(error) => b"not enough memory".to_vec(),
        error => error.to_string().into_bytes(),
    }
}

/// Compiles a chunk for `loadstring` / `load`: the function in the run's globals, or
/// `nil, message`.
fn load_chunk(lua: &Lua, source: &[u8], name: &[u8]) -> mlua::Result<MultiValue> {
    let name = String::from_utf8_lossy(c_str(name)).into_owned();
    // Interned while Lua parses; see `sandbox::Sandbox::_user_script`.
    let _anchor = lua.create_string(&name)?;
    match text(lua, source, &name) {
        Ok(function) => {
            if let Some(views) = lua.app_data_ref::<Views>() {
                function.set_environment(views.env.clone())?;
            }
            Ok(MultiValue::from_iter([Value::Function(function)]))
        }
        Err(error @ (mlua::Error::SyntaxError { .. } | mlua::Error::MemoryError(_))) => {
            let message = lua.create_string(compile_error(&error))?;
            Ok(MultiValue::from_iter([Value::Nil, Value::String(message)]))
        }
        Err(error) => Err(error),
    }
}

/// `loadstring(s [, chunkname])`.
pub(super) fn loadstring(lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
    let checked = Args(&args);
    let source = checked.check_string(lua, 1)?;
    let name = match checked.get(2) {
        None | Some(Value::Nil) => source.clone(),
        Some(_) => checked.check_string(lua, 2)?,
    };
    load_chunk(lua, &source, &name)
}

/// `load(reader [, chunkname])`, through Lua's own `load` (which parses as the pieces come),
/// with the reader's first piece kept from starting a bytecode chunk.
///
/// Unlike Redis, which runs errors raised while reading through its error handler, the error
/// comes back as the plain message.
pub(super) fn load(lua: &Lua, native: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    let checked = Args(&args);
    let reader = match checked.get(1) {
        Some(Value::Function(reader)) => reader.clone(),
        other => return Err(checked.type_error(lua, 1, "function", other)),
    };
    // Interned while Lua parses; see `sandbox::Sandbox::_user_script`.
    let name = match checked.get(2) {
        None | Some(Value::Nil) => lua.create_string("=(load)")?,
        Some(_) => lua.create_string(checked.check_string(lua, 2)?)?,
    };
    let mut first = true;
    let guarded = lua.create_function_mut(move |lua, ()| {
        let piece: Value = reader.call(())?;
        if let (true, Value::String(text)) = (first, &piece) {
            if text.as_bytes().is_empty() {
                return Ok(piece);
            }
            first = false;
            if text.as_bytes().first() == Some(&0x1b) {
                let text = [b" ".as_slice(), &text.as_bytes()].concat();
                return Ok(Value::String(lua.create_string(text)?));
            }
        }
        first = false;
        Ok(piece)
    })?;
    let mut results: MultiValue = native.call((guarded, name))?;
    match results.front() {
        Some(Value::Function(function)) => {
            if let Some(views) = lua.app_data_ref::<Views>() {
                function.set_environment(views.env.clone())?;
            }
        }
        _ => {
            if let Some(error) = results.get_mut(1) {
                let text = match &*error {
                    Value::Error(raised) => raise::lua_value(lua, raised)?,
                    other => other.clone(),
                };
                *error = match text {
                    Value::String(text) => {
                        let text = text.as_bytes();
                        Value::String(lua.create_string(raise::without_traceback(&text))?)
                    }
                    other => other,
                };
            }
        }
    }
    Ok(results)
}
