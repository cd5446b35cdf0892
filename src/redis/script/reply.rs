//! A script's return value as the reply Redis 7.0 sends (`luaReplyToRedisReply`): `Frame`s
//! of RESP3's types, which the connection's encoder writes in RESP3 or downgrades for a RESP2
//! caller as Redis does.
//!
//! String → bulk; number → integer, truncated toward zero (C's `(long long)` cast: NaN, ±inf and
//! out-of-range give i64::MIN); a boolean, if the script chose RESP3 with `redis.setresp(3)`, a
//! boolean (1 or 0 for a RESP2 caller), else true → 1 and false → null; nil and other types →
//! null; a table is checked, in this order, for a string `err` (error reply), a string `ok`
//! (status), a number `double`, a string `big_number`, a `verbatim_string` table with string
//! `format` and `string`, a `map` and a `set` table (their entries in `next` order, as Redis's
//! `lua_next` walks them), and is else an array of `t[1], t[2], …` up to the first nil. Fields
//! are read raw (no metamethods).

use mlua::{Function, Lua, Value};

use super::convert::{c_str, g17, reply_text, to_integer};
use super::{api, budget};
use crate::redis::resp::{Frame, Protocol};

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
    if t == 'boolean' then return emit(11, v) end
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
    if type(f) == 'table' then
        local format = rawget(f, 'format')
        if type(format) == 'string' then
            local text = rawget(f, 'string')
            if type(text) == 'string' then return emit(12, text, format) end
        end
    end
    f = rawget(v, 'map')
    if type(f) == 'table' then
        emit(13)
        for key, value in next, f do
            convert(key, slot + 4)
            convert(value, slot + 3)
        end
        return emit(9)
    end
    f = rawget(v, 'set')
    if type(f) == 'table' then
        emit(14)
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

/// The aggregates the walker opens (and closes with kind 9).
enum Aggregate {
    Array,
    Map,
    Set,
}

/// The frames the walker has emitted: finished ones, and open aggregates.
struct Emitted {
    /// The protocol the script chose with `redis.setresp`: how its booleans are sent.
    resp: Protocol,
    open: Vec<(Aggregate, Vec<Frame>)>,
    done: Vec<Frame>,
    values: usize,
    bytes: usize,
}

impl Emitted {
    fn new(resp: Protocol) -> Emitted {
        Emitted {
            resp,
            open: Vec::new(),
            done: Vec::new(),
            values: 0,
            bytes: 0,
        }
    }

    fn push(&mut self, frame: Frame) {
        match self.open.last_mut() {
            Some((_, items)) => items.push(frame),
            None => self.done.push(frame),
        }
    }

    /// The innermost open aggregate, closed.
    fn close(&mut self) -> Frame {
        let Some((aggregate, items)) = self.open.pop() else {
            return Frame::Null;
        };
        match aggregate {
            Aggregate::Array => Frame::Array(items),
            Aggregate::Set => Frame::Set(items),
            Aggregate::Map => {
                // The walker emits each key, then its value.
                let mut items = items.into_iter();
                let mut pairs = Vec::with_capacity(items.len() / 2);
                while let (Some(key), Some(value)) = (items.next(), items.next()) {
                    pairs.push((key, value));
                }
                Frame::Map(pairs)
            }
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
        let resp = api::resp(lua);
        let table = match value {
            Value::String(s) => return Ok(Some(Frame::Bulk(s.as_bytes().to_vec()))),
            Value::Boolean(b) => return Ok(Some(boolean(b, resp))),
            Value::Integer(n) => return Ok(Some(Frame::Integer(to_integer(n as f64)))),
            Value::Number(n) => return Ok(Some(Frame::Integer(to_integer(n)))),
            Value::Table(table) => table,
            _ => return Ok(Some(Frame::Null)),
        };
        lua.set_app_data(Emitted::new(resp));
        budget::count(lua, false);
        let walked = self.walker.call::<()>(table);
        budget::count(lua, true);
        let emitted = lua
            .remove_app_data::<Emitted>()
            .unwrap_or_else(|| Emitted::new(resp));
        match walked {
            Ok(()) => Ok(emitted.done.into_iter().next()),
            Err(_) if emitted.values > REPLY_LIMIT || emitted.bytes > REPLY_BYTES_LIMIT => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A boolean as `luaReplyToRedisReply` sends it: by the script's own protocol, a RESP3
/// boolean (which a RESP2 caller gets as 1 or 0), or RESP2's 1 and null.
fn boolean(b: bool, resp: Protocol) -> Frame {
    match (resp, b) {
        (Protocol::Resp3, b) => Frame::Boolean(b),
        (Protocol::Resp2, true) => Frame::Integer(1),
        (Protocol::Resp2, false) => Frame::Null,
    }
}

/// `addReplyVerbatim`'s format: the first three bytes of the C string, padded with spaces.
fn verbatim_format(format: &[u8]) -> [u8; 3] {
    let format = c_str(format);
    let mut padded = *b"   ";
    for (slot, &b) in padded.iter_mut().zip(format) {
        *slot = b;
    }
    padded
}

/// CR and LF as spaces, as Redis's `sdsmapchars` writes a big number.
fn no_newlines(bytes: Vec<u8>) -> Vec<u8> {
    bytes
        .into_iter()
        .map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}

/// One piece of a reply from the walker: `kind`, and its values. Kinds: 1 string, 2 number, 3
/// null, 4 error, 5 status, 6 double, 7 big number, 8 array (opened), 9 the open aggregate
/// closed, 10 the stack limit error, 11 boolean, 12 verbatim string (its text, then its format),
/// 13 map (opened), 14 set (opened).
fn emit(lua: &Lua, (kind, value, extra): (u8, Value, Value)) -> mlua::Result<()> {
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
    let open = |aggregate| Some((aggregate, Vec::new()));
    let opened = match kind {
        8 => open(Aggregate::Array),
        13 => open(Aggregate::Map),
        14 => open(Aggregate::Set),
        _ => None,
    };
    if let Some(opened) = opened {
        emitted.open.push(opened);
        return Ok(());
    }
    let frame = match kind {
        1 => Frame::Bulk(bytes(&value)),
        2 => Frame::Integer(to_integer(number(&value))),
        4 => Frame::Error(reply_text(&bytes(&value))),
        5 => Frame::Simple(reply_text(&bytes(&value))),
        6 => Frame::Double(g17(number(&value)).into_bytes()),
        7 => Frame::BigNumber(no_newlines(bytes(&value))),
        9 => emitted.close(),
        10 => Frame::Error(b"ERR reached lua stack limit".to_vec()),
        11 => boolean(matches!(value, Value::Boolean(true)), emitted.resp),
        12 => Frame::Verbatim {
            format: match &extra {
                Value::String(format) => verbatim_format(&format.as_bytes()),
                _ => *b"   ",
            },
            text: bytes(&value),
        },
        _ => Frame::Null,
    };
    emitted.values += 1;
    if emitted.values > REPLY_LIMIT {
        return Err(mlua::Error::runtime("reply too large"));
    }
    emitted.push(frame);
    Ok(())
}
