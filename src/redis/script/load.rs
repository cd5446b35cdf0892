//! Compiling Lua text: script bodies, and the `loadstring` and `load` scripts may call, all
//! through Lua's own `loadstring` and `load`, so that messages and chunk names keep their bytes,
//! and the chunk name sits on Lua's stack while Lua parses (stock Lua 5.1's parser does not
//! anchor it, so a collection during the parse could free it: Redis fixed this as
//! CVE-2025-49844).
//!
//! Redis's Lua has no bytecode loader (bytecode would let a script corrupt memory), so a chunk
//! starting with ESC is read as text and fails as text does. Chunks loaded by a script run in
//! that script's globals.

use std::borrow::Cow;

use mlua::{Function, Lua, MultiValue, Value};

use super::protect::Views;
use super::raise::{self, Args};

/// Lua text that cannot be taken for bytecode: a leading ESC gets a space before it.
fn as_text(source: &[u8]) -> Cow<'_, [u8]> {
    if source.first() == Some(&0x1b) {
        Cow::Owned([b" ".as_slice(), source].concat())
    } else {
        Cow::Borrowed(source)
    }
}

/// Lua's own `loadstring`, which compiles everything here.
#[derive(Clone)]
pub(super) struct Compiler {
    loadstring: Function,
}

impl Compiler {
    pub(super) fn new(loadstring: Function) -> Compiler {
        Compiler { loadstring }
    }

    /// Compiles `source` under the chunk name `name`: the function, or Lua's message.
    pub(super) fn compile(
        &self,
        lua: &Lua,
        source: &[u8],
        name: &[u8],
    ) -> mlua::Result<Result<Function, Vec<u8>>> {
        let source = lua.create_string(as_text(source))?;
        let name = lua.create_string(name)?;
        let (function, message): (Value, Value) = self.loadstring.call((source, name))?;
        Ok(match (function, message) {
            (Value::Function(function), _) => Ok(function),
            (_, Value::String(message)) => Err(message.as_bytes().to_vec()),
            (_, other) => Err(format!("{other:?}").into_bytes()),
        })
    }

    /// `loadstring(s [, chunkname])`: the chunk in the run's globals, or `nil, message`.
    pub(super) fn loadstring(&self, lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
        let checked = Args(&args);
        let source = checked.check_string(lua, 1)?;
        let name = match checked.get(2) {
            None | Some(Value::Nil) => source.clone(),
            Some(_) => checked.check_string(lua, 2)?,
        };
        match self.compile(lua, &source, &name)? {
            Ok(function) => {
                in_run_globals(lua, &function)?;
                Ok(MultiValue::from_iter([Value::Function(function)]))
            }
            Err(message) => Ok(MultiValue::from_iter([
                Value::Nil,
                Value::String(lua.create_string(message)?),
            ])),
        }
    }
}

/// Gives a chunk a script loaded the globals of the script's run.
fn in_run_globals(lua: &Lua, function: &Function) -> mlua::Result<()> {
    if let Some(views) = lua.app_data_ref::<Views>() {
        function.set_environment(views.env.clone())?;
    }
    Ok(())
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
        Some(Value::Function(function)) => in_run_globals(lua, function)?,
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
