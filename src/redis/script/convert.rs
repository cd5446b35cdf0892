//! Values across the Lua ↔ RESP boundary, as Redis 7.0's `script_lua.c` converts them: the rules
//! for single values, and RESP → Lua (what `redis.call` returns), in the protocol the script
//! chose with `redis.setresp`, whatever the caller speaks.
//!
//! Both protocols: integer → number; bulk → string; array → table; status → `{ok = …}`; error
//! → `{err = …}` (raised by `redis.call`, returned by `redis.pcall`). RESP2 (every script's
//! start): null bulk and null array → false, and RESP3 types come as a RESP2 client sees them
//! (a map as a flat array, a double as its text, a boolean as 1 or 0). RESP3: null → nil; map →
//! `{map = {k = v …}}`; set → `{set = {member = true …}}`; double → `{double = n}`; boolean →
//! true / false; big number → `{big_number = "…"}`; verbatim → `{verbatim_string = {string =
//! …, format = …}}`. Attributes, which Redis's parser skips, have no `Frame`; push replies,
//! which its parser does not read, never reach a script (its client subscribes to nothing) and
//! would come as arrays. The other way (a script's return value) is `reply`.

use mlua::{Lua, Table, Value};

use crate::redis::resp::{Frame, Protocol};

/// C's `(long long)` cast of a double on x86-64: truncation, with the "integer indefinite"
/// value (i64::MIN) for NaN and anything out of range.
pub(super) fn to_integer(x: f64) -> i64 {
    if x.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        return i64::MIN;
    }
    x as i64
}

/// C's `(int)` cast of a double on x86-64, as [`to_integer`] for 32 bits.
pub(super) fn c_int(x: f64) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        return i32::MIN;
    }
    x as i32
}

/// `printf("%.17g")`, which Redis uses for numbers passed to `redis.call` and for doubles
/// (shared with the sorted sets' scores).
pub(super) use crate::redis::num::format_double as g17;

/// The bytes of a C string: Redis reads error and status texts with `strlen`.
pub(super) fn c_str(bytes: &[u8]) -> &[u8] {
    bytes
        .iter()
        .position(|&b| b == 0)
        .map_or(bytes, |nul| &bytes[..nul])
}

/// A status or error text as it reaches the wire: cut at the first NUL, CR and LF turned into
/// spaces (the server checked here strips them from every error and status reply).
pub(super) fn reply_text(bytes: &[u8]) -> Vec<u8> {
    c_str(bytes)
        .iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}

/// `luaPushErrorBuff`'s text: "-CODE message" keeps its code, anything else gets "ERR"; the
/// message loses leading and trailing CR/LF.
pub(super) fn error_text(buffer: &[u8]) -> Vec<u8> {
    let buffer = c_str(buffer);
    let (code, message): (&[u8], &[u8]) = match buffer.strip_prefix(b"-") {
        Some(rest) => match rest.iter().position(|&b| b == b' ') {
            Some(space) => (&rest[..space], &rest[space + 1..]),
            None => (b"ERR", rest),
        },
        None => (b"ERR", buffer),
    };
    let is_newline = |b: &u8| *b == b'\r' || *b == b'\n';
    let start = message
        .iter()
        .position(|b| !is_newline(b))
        .unwrap_or(message.len());
    let end = message
        .iter()
        .rposition(|b| !is_newline(b))
        .map_or(start, |last| last + 1);
    [code, b" ", &message[start..end]].concat()
}

/// The table `luaPushErrorBuff` pushes for an error text already in "CODE message" form.
pub(super) fn error_table(lua: &Lua, err: &[u8], from_command: bool) -> mlua::Result<Table> {
    let table = lua.create_table_with_capacity(0, 2)?;
    table.raw_set("err", lua.create_string(err)?)?;
    if from_command {
        table.raw_set("ignore_error_stats_update", true)?;
    }
    Ok(table)
}

/// About the most bytes of Lua values [`to_lua`] makes for `reply` when it is a flat one (a
/// number, a nil, a string, a status table); `None` for the others.
pub(super) fn flat_size(reply: &Frame) -> Option<usize> {
    match reply {
        Frame::Integer(_) | Frame::Null | Frame::NullArray | Frame::Boolean(_) => Some(0),
        Frame::Bulk(text) | Frame::Simple(text) => Some(text.len().saturating_add(256)),
        _ => None,
    }
}

/// A command's reply as `redis.call` hands it to the script, which chose `proto` with
/// `redis.setresp`. Tables are built as Redis's parser builds them (`lua_newtable`, then each
/// entry in order), so that `pairs` walks them in the same order.
pub(super) fn to_lua(lua: &Lua, reply: Frame, proto: Protocol) -> mlua::Result<Value> {
    let resp3 = proto == Protocol::Resp3;
    Ok(match reply {
        Frame::Integer(n) => Value::Number(n as f64),
        Frame::Bulk(bytes) => Value::String(lua.create_string(bytes)?),
        Frame::Null | Frame::NullArray if resp3 => Value::Nil,
        Frame::Null | Frame::NullArray => Value::Boolean(false),
        Frame::Simple(text) => single(lua, "ok", lua.create_string(text)?)?,
        Frame::Error(text) => {
            let buffer = [b"-".as_slice(), &text].concat();
            Value::Table(error_table(lua, &error_text(&buffer), true)?)
        }
        Frame::Array(items) | Frame::Push(items) => {
            let table = lua.create_table()?;
            for (i, item) in items.into_iter().enumerate() {
                table.raw_set(i + 1, to_lua(lua, item, proto)?)?;
            }
            Value::Table(table)
        }
        Frame::Map(pairs) if resp3 => {
            let map = lua.create_table()?;
            for (key, value) in pairs {
                map.raw_set(to_lua(lua, key, proto)?, to_lua(lua, value, proto)?)?;
            }
            single(lua, "map", map)?
        }
        Frame::Set(members) if resp3 => {
            let set = lua.create_table()?;
            for member in members {
                set.raw_set(to_lua(lua, member, proto)?, true)?;
            }
            single(lua, "set", set)?
        }
        Frame::Double(text) if resp3 => single(lua, "double", strtod(&text))?,
        Frame::Boolean(b) if resp3 => Value::Boolean(b),
        Frame::BigNumber(text) if resp3 => single(lua, "big_number", lua.create_string(text)?)?,
        Frame::Verbatim { format, text } if resp3 => {
            let verbatim = lua.create_table()?;
            verbatim.raw_set("string", lua.create_string(text)?)?;
            verbatim.raw_set("format", lua.create_string(format)?)?;
            single(lua, "verbatim_string", verbatim)?
        }
        other => to_lua(lua, other.into_resp2(), proto)?,
    })
}

/// `{field = value}`.
fn single(lua: &Lua, field: &str, value: impl mlua::IntoLua) -> mlua::Result<Value> {
    let table = lua.create_table()?;
    table.raw_set(field, value)?;
    Ok(Value::Table(table))
}

/// The number a double's text stands for, as the reply parser's `strtod` reads it (the server
/// printed it: `%.17g`, `inf`, `-inf`, `nan`).
fn strtod(text: &[u8]) -> f64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `%.17g` as glibc prints it (`redis.call('set', k, x)` on redis-server 7.0.15 stored
    /// these for the values Lua computes; x86's 0/0 is the negative NaN).
    #[test]
    fn g17_matches_printf() {
        for (x, text) in [
            (1.5, "1.5"),
            (0.1, "0.10000000000000001"),
            (1e20, "1e+20"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (-0.0, "-0"),
            (f64::NAN, "nan"),
            (-f64::NAN, "-nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (123456789012.0, "123456789012"),
            (1e-5, "1.0000000000000001e-05"),
            (0.0001, "0.0001"),
            (-2.5e-300, "-2.5e-300"),
            (9007199254740993.0, "9007199254740992"),
            (1500.0, "1500"),
            (-7.0, "-7"),
            (1e100, "1e+100"),
            (5e-324, "4.9406564584124654e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (123.456, "123.456"),
            (9.9999e-5, "9.9999000000000003e-05"),
        ] {
            assert_eq!(g17(x), text, "{x:e}");
        }
    }

    #[test]
    fn integers_truncate_like_c() {
        assert_eq!(to_integer(3.99), 3);
        assert_eq!(to_integer(-3.99), -3);
        assert_eq!(to_integer(-0.0), 0);
        for x in [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e19,
            -1e19,
            2f64.powi(63),
        ] {
            assert_eq!(to_integer(x), i64::MIN);
        }
        assert_eq!(to_integer(-(2f64.powi(63))), i64::MIN);
        assert_eq!(c_int(3.7), 3);
        assert_eq!(c_int(1e10), i32::MIN);
    }

    /// `luaPushErrorBuff`, as redis-server 7.0.15 shows it through `redis.error_reply`.
    #[test]
    fn error_text_keeps_or_adds_a_code() {
        for (buffer, text) in [
            (&b"-MY x\r\n"[..], &b"MY x"[..]),
            (b"-ERR", b"ERR ERR"),
            (b"-", b"ERR "),
            (b"-ERR  two", b"ERR  two"),
            (b"- lead", b" lead"),
            (b"plain words", b"ERR plain words"),
            (b"-A b\0c", b"A b"),
        ] {
            assert_eq!(error_text(buffer), text);
        }
    }
}
