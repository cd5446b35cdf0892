//! A script's return value as the reply Redis 7.0 sends (`luaReplyToRedisReply`, RESP2).
//!
//! String → bulk; number → integer, truncated toward zero (C's `(long long)` cast: NaN, ±inf and
//! out-of-range give i64::MIN); true → 1; false, nil and other types → null bulk; a table is
//! checked, in this order, for a string `err` (error reply), a string `ok` (status), a number
//! `double`, a string `big_number`, a `verbatim_string` table, a `map` and a `set` table (RESP2
//! sends those four as bulk strings or flat arrays), and is else an array of `t[1], t[2], …` up
//! to the first nil. Fields are read raw (no metamethods).

use mlua::{Function, Lua, Value};

use super::budget;
use super::convert::{g17, reply_text, to_integer};
use crate::redis::resp::Frame;

/// The most values one reply may hold. Redis has no bound, but a table that refers to itself
/// several times would make it emit an astronomically large reply; the simulation refuses instead.
pub(super) const REPLY_LIMIT: usize = 1_000_000;
/// The most bytes of strings one reply may hold: a table that holds one large string many times
/// is small in Lua but would be copied whole into the reply. Redis has no bound (it would run
/// out of memory); the simulation refuses instead.
pub(super) const REPLY_BYTES_LIMIT: usize = 256 << 20;

/// Redis's `luaReplyToRedisReply`, in Lua: it walks the value and hands each piece to `emit`,
/// so Rust never holds more than one Lua value at a time (mlua's references to Lua values are
/// few on Lua 5.1) and deep replies need no deep Rust stack. `slot` follows the Lua stack depth
/// Redis's recursive C is at (the top value at 2, above Redis's error handler; map keys four
/// slots up, map values and set members three, array items one), and Redis gives up when four
/// more would pass Lua's `LUAI_MAXCSTACK` (8000), so a reply nested too deep (or a table that
/// contains itself) ends in "reached lua stack limit" at the same place.
const WALKER: &str = r#"
local type, rawget, next, emit = ...
local convert
convert = function(v, slot)
    if slot + 4 > 8000 then return emit(10) end
    local t = type(v)
    if t == 'string' then return emit(1, v) end
    if t == 'number' then return emit(2, v) end
    if t == 'boolean' then
        if v then return emit(2, 1) end
        return emit(3)
    end
    if t ~= 'table' then return emit(3) end
    local f = rawget(v, 'err')
    if type(f) == 'string' then return emit(4, f) end
    f = rawget(v, 'ok')
    if type(f) == 'string' then return emit(5, f) end
    f = rawget(v, 'double')
    if type(f) == 'number' then return emit(6, f) end
    f = rawget(v, 'big_number')
    if type(f) == 'string' then return emit(7, f) end
    f = rawget(v, 'verbatim_string')
    if type(f) == 'table' and type(rawget(f, 'format')) == 'string' then
        local text = rawget(f, 'string')
        if type(text) == 'string' then return emit(1, text) end
    end
    f = rawget(v, 'map')
    if type(f) == 'table' then
        emit(8)
        for key, value in next, f do
            convert(key, slot + 4)
            convert(value, slot + 3)
        end
        return emit(9)
    end
    f = rawget(v, 'set')
    if type(f) == 'table' then
        emit(8)
        for member in next, f do convert(member, slot + 3) end
        return emit(9)
    end
    emit(8)
    local i = 1
    while true do
        local item = rawget(v, i)
        if item == nil then break end
        convert(item, slot + 1)
        i = i + 1
    end
    return emit(9)
end
return function(v) convert(v, 2) end
"#;

/// The frames the walker has emitted: finished ones, and open arrays.
#[derive(Default)]
struct Emitted {
    open: Vec<Vec<Frame>>,
    done: Vec<Frame>,
    values: usize,
    bytes: usize,
}

impl Emitted {
    fn push(&mut self, frame: Frame) {
        match self.open.last_mut() {
            Some(array) => array.push(frame),
            None => self.done.push(frame),
        }
    }
}

/// Converts a script's return value into its reply.
pub(super) struct Replies {
    walker: Function,
}

impl Replies {
    /// Compiles the walker with the sandbox's own `type`, `rawget` and `next`.
    pub(super) fn new(lua: &Lua, natives: (Function, Function, Function)) -> mlua::Result<Replies> {
        let emit = lua.create_function(emit)?;
        let walker = super::chunks::own_chunk(lua, "=reply", WALKER)?
            .call::<Function>((natives.0, natives.1, natives.2, emit))?;
        Ok(Replies { walker })
    }

    /// The reply for a script's return value, or `None` past [`REPLY_LIMIT`] values or
    /// [`REPLY_BYTES_LIMIT`] bytes.
    pub(super) fn reply(&self, lua: &Lua, value: Value) -> mlua::Result<Option<Frame>> {
        let table = match value {
            Value::String(s) => return Ok(Some(Frame::Bulk(s.as_bytes().to_vec()))),
            Value::Boolean(true) => return Ok(Some(Frame::Integer(1))),
            Value::Integer(n) => return Ok(Some(Frame::Integer(to_integer(n as f64)))),
            Value::Number(n) => return Ok(Some(Frame::Integer(to_integer(n)))),
            Value::Table(table) => table,
            _ => return Ok(Some(Frame::Null)),
        };
        lua.set_app_data(Emitted::default());
        budget::count(lua, false);
        let walked = self.walker.call::<()>(table);
        budget::count(lua, true);
        let emitted = lua.remove_app_data::<Emitted>().unwrap_or_default();
        match walked {
            Ok(()) => Ok(emitted.done.into_iter().next()),
            Err(_) if emitted.values > REPLY_LIMIT || emitted.bytes > REPLY_BYTES_LIMIT => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// One piece of a reply from the walker: `kind` and, for strings and numbers, its value.
fn emit(lua: &Lua, (kind, value): (u8, Value)) -> mlua::Result<()> {
    let mut emitted = lua
        .app_data_mut::<Emitted>()
        .ok_or_else(|| mlua::Error::runtime("no reply is being converted"))?;
    if let Value::String(s) = &value {
        emitted.bytes += s.as_bytes().len();
        if emitted.bytes > REPLY_BYTES_LIMIT {
            return Err(mlua::Error::runtime("reply too large"));
        }
    }
    let bytes = |value: &Value| match value {
        Value::String(s) => s.as_bytes().to_vec(),
        _ => Vec::new(),
    };
    let number = |value: &Value| match value {
        Value::Integer(n) => *n as f64,
        Value::Number(n) => *n,
        _ => 0.0,
    };
    let frame = match kind {
        1 => Frame::Bulk(bytes(&value)),
        2 => Frame::Integer(to_integer(number(&value))),
        4 => Frame::Error(reply_text(&bytes(&value))),
        5 => Frame::Simple(reply_text(&bytes(&value))),
        6 => Frame::Bulk(g17(number(&value)).into_bytes()),
        7 => Frame::Bulk(
            bytes(&value)
                .into_iter()
                .map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b })
                .collect(),
        ),
        8 => {
            emitted.open.push(Vec::new());
            return Ok(());
        }
        9 => Frame::Array(emitted.open.pop().unwrap_or_default()),
        10 => Frame::Error(b"ERR reached lua stack limit".to_vec()),
        _ => Frame::Null,
    };
    emitted.values += 1;
    if emitted.values > REPLY_LIMIT {
        return Err(mlua::Error::runtime("reply too large"));
    }
    emitted.push(frame);
    Ok(())
}
