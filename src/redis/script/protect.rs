//! Redis 7.0's locked globals, rebuilt on stock Lua 5.1.
//!
//! Redis patches its Lua with read-only tables: a script can neither create nor overwrite a
//! global, nor change `string`, `redis` and the other library tables ("Attempt to modify a
//! readonly table"), and reading an unknown global is an error ("Script attempted to access
//! nonexistent global variable 'x'"). Stock Lua has no read-only tables, so each run gets empty
//! proxies whose `__index` is the real table and whose `__newindex` refuses, and the base
//! functions that bypass metamethods (`rawget`, `rawset`, `next`, `pairs`, `getmetatable`,
//! `setmetatable`) see through or refuse proxies as Redis's would the locked tables.
//!
//! Where this differs from Redis: functions of the table library write raw, so
//! `table.insert(string, x)` fills the proxy instead of failing. The next run then gets all
//! proxies afresh (see `sandbox`), so nothing a script does to them reaches the next script.

use std::ffi::c_int;

use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua, MultiValue, Table, Value};

use super::convert;
use super::raise::{self, Args};

/// The tables `getmetatable` shows for the locked globals and for strings.
pub(super) struct Views {
    /// The `_G` proxy.
    pub(super) env: Table,
    /// What `getmetatable(_G)` returns: a locked `{__index = <function>}`, as in Redis.
    pub(super) env_meta: Table,
    /// What `getmetatable("")` returns: a locked `{__index = string}`.
    pub(super) string_meta: Table,
}

/// Makes and recognizes the read-only proxies.
#[derive(Clone)]
pub(super) struct Guard {
    /// The `__newindex` of every proxy, and so the mark of one: scripts cannot reach a proxy's
    /// metatable to copy it.
    readonly: Function,
}

impl Guard {
    pub(super) fn new(lua: &Lua) -> mlua::Result<Guard> {
        let readonly = lua.create_function(|lua, _: MultiValue| -> mlua::Result<()> {
            Err(raise::message(lua, 1, "Attempt to modify a readonly table"))
        })?;
        Ok(Guard { readonly })
    }

    /// The `__newindex` a read-only proxy needs: `{__index = target, __newindex = readonly}`.
    pub(super) fn readonly(&self) -> &Function {
        &self.readonly
    }

    /// The table behind a proxy, or `None` for an ordinary table.
    fn target(&self, table: &Table) -> mlua::Result<Option<Table>> {
        let Some(meta) = table.metatable() else {
            return Ok(None);
        };
        match meta.raw_get::<Value>("__newindex")? {
            Value::Function(newindex) if newindex == self.readonly => meta.raw_get("__index"),
            _ => Ok(None),
        }
    }

    /// `rawget`, `rawset`, `next`, `pairs`, `getmetatable` and `setmetatable` for the run's
    /// globals, given Lua's own `next`.
    pub(super) fn base_functions(
        &self,
        lua: &Lua,
        native_next: Function,
    ) -> mlua::Result<Vec<(&'static str, Function)>> {
        let guard = self.clone();
        let rawget = lua.create_function(move |lua, args: MultiValue| {
            let args = Args(&args);
            let table = args.check_table(lua, 1)?;
            let key = args.check_any(lua, 2)?;
            guard.target(&table)?.unwrap_or(table).raw_get::<Value>(key)
        })?;

        let guard = self.clone();
        let rawset = lua.create_function(move |lua, args: MultiValue| {
            let checked = Args(&args);
            let table = checked.check_table(lua, 1)?;
            let key = checked.check_any(lua, 2)?;
            let value = checked.check_any(lua, 3)?;
            if guard.target(&table)?.is_some() {
                return Err(raise::bare("Attempt to modify a readonly table"));
            }
            match key {
                Value::Nil => return Err(raise::bare("table index is nil")),
                Value::Number(n) if n.is_nan() => return Err(raise::bare("table index is NaN")),
                _ => {}
            }
            table.raw_set(key, value)?;
            Ok(table)
        })?;

        let guard = self.clone();
        let lua_next = native_next.clone();
        let next = lua.create_function(move |lua, args: MultiValue| {
            let checked = Args(&args);
            let table = checked.check_table(lua, 1)?;
            let key = checked.get(2).cloned().unwrap_or(Value::Nil);
            let table = guard.target(&table)?.unwrap_or(table);
            lua_next
                .call::<MultiValue>((table, key))
                .map_err(|error| match error {
                    // Lua's own complaint ("invalid key to 'next'"), without mlua's traceback.
                    mlua::Error::RuntimeError(text) => {
                        raise::bare(raise::without_traceback(text.as_bytes()))
                    }
                    other => other,
                })
        })?;

        let guard = self.clone();
        let see_through_next = next.clone();
        let pairs = lua.create_function(move |lua, args: MultiValue| {
            let table = Args(&args).check_table(lua, 1)?;
            let step = if guard.target(&table)?.is_some() {
                see_through_next.clone()
            } else {
                native_next.clone()
            };
            Ok((step, table, Value::Nil))
        })?;

        let guard = self.clone();
        let getmetatable = lua.create_function(move |lua, args: MultiValue| {
            let value = Args(&args).check_any(lua, 1)?;
            let views = lua.app_data_ref::<Views>();
            Ok(match value {
                Value::String(_) => {
                    views.map_or(Value::Nil, |v| Value::Table(v.string_meta.clone()))
                }
                Value::Table(table) if guard.target(&table)?.is_some() => match views {
                    Some(views) if views.env == table => Value::Table(views.env_meta.clone()),
                    _ => Value::Nil,
                },
                Value::Table(table) => match table.metatable() {
                    Some(meta) => match meta.raw_get::<Value>("__metatable")? {
                        Value::Nil => Value::Table(meta),
                        shown => shown,
                    },
                    None => Value::Nil,
                },
                _ => Value::Nil,
            })
        })?;

        let guard = self.clone();
        let setmetatable = lua.create_function(move |lua, args: MultiValue| {
            let checked = Args(&args);
            let table = checked.check_table(lua, 1)?;
            let meta = match checked.get(2) {
                Some(Value::Nil) => None,
                Some(Value::Table(meta)) => Some(meta.clone()),
                _ => return Err(raise::arg_error(lua, 2, "nil or table expected")),
            };
            if let Some(current) = table.metatable()
                && !current.raw_get::<Value>("__metatable")?.is_nil()
            {
                return Err(raise::message(
                    lua,
                    1,
                    "cannot change a protected metatable",
                ));
            }
            if guard.target(&table)?.is_some() {
                return Err(raise::bare("Attempt to modify a readonly table"));
            }
            table.set_metatable(meta)?;
            Ok(table)
        })?;

        Ok(vec![
            ("rawget", rawget),
            ("rawset", rawset),
            ("next", next),
            ("pairs", pairs),
            ("getmetatable", getmetatable),
            ("setmetatable", setmetatable),
        ])
    }
}

/// `any_filled(list)`: whether any of the tables in the sequence `list` holds a key. A run asks
/// it of the proxies before it starts; in C, one call instead of a `next` call per proxy.
pub(super) fn any_filled(lua: &Lua) -> mlua::Result<Function> {
    // SAFETY: `filled` checks its argument with Lua's own checks and uses three stack slots.
    unsafe { lua.create_c_function(filled) }
}

unsafe extern "C-unwind" fn filled(state: *mut lua_State) -> c_int {
    // SAFETY: a C function has LUA_MINSTACK (20) free slots; `luaL_checktype` raises a Lua
    // error on a list that is no table, and a non-table entry is skipped before `lua_next`.
    unsafe {
        ffi::luaL_checktype(state, 1, ffi::LUA_TTABLE);
        let mut filled = false;
        for i in 1..=ffi::lua_objlen(state, 1) {
            if ffi::lua_rawgeti(state, 1, i as ffi::lua_Integer) == ffi::LUA_TTABLE {
                ffi::lua_pushnil(state);
                if ffi::lua_next(state, -2) != 0 {
                    filled = true;
                }
            }
            ffi::lua_settop(state, 1);
            if filled {
                break;
            }
        }
        ffi::lua_pushboolean(state, c_int::from(filled));
        1
    }
}

/// The `__index` of the globals: reading an unknown global is an error, worded as Redis's
/// `luaProtectedTableError`.
pub(super) fn nonexistent_global(lua: &Lua) -> mlua::Result<Function> {
    lua.create_function(|lua, args: MultiValue| -> mlua::Result<()> {
        let name = match args.get(1) {
            Some(key @ (Value::String(_) | Value::Integer(_) | Value::Number(_))) => {
                lua.coerce_string(key.clone())?
            }
            _ => None,
        };
        Err(match name {
            Some(name) => {
                let name = name.as_bytes();
                raise::message(
                    lua,
                    1,
                    [
                        b"Script attempted to access nonexistent global variable '".as_slice(),
                        convert::c_str(&name),
                        b"'",
                    ]
                    .concat(),
                )
            }
            None => raise::message(
                lua,
                1,
                "Second argument to luaProtectedTableError must be a string or number",
            ),
        })
    })
}
