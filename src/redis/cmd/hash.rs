//! The hash commands (t_hash.c): HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HEXISTS, HLEN,
//! HSTRLEN, HINCRBY, HINCRBYFLOAT (its long doubles in `long_double`), HKEYS, HVALS,
//! HGETALL. A write that changes nothing (HSETNX on a set
//! field, HDEL of missing fields) neither touches watchers nor propagates; HSET always
//! does, even when every value stays the same, as Redis's does.

mod long_double;

use super::table::{CommandSpec, FAST, ONE, OOM, R, W, keyed};
use super::{Ctx, arg};
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::value::Hash;
use long_double::LongDouble;

/// The hash commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("hset", -4, W.and(OOM).and(FAST), ONE, |ctx, args| {
        hset(ctx, args, "hset", SetReply::Created)
    }),
    keyed("hmset", -4, W.and(OOM).and(FAST), ONE, |ctx, args| {
        hset(ctx, args, "hmset", SetReply::Ok)
    }),
    keyed("hsetnx", 4, W.and(OOM).and(FAST), ONE, hsetnx),
    keyed("hget", 3, R.and(FAST), ONE, hget),
    keyed("hmget", -3, R.and(FAST), ONE, hmget),
    keyed("hdel", -3, W.and(FAST), ONE, hdel),
    keyed("hexists", 3, R.and(FAST), ONE, hexists),
    keyed("hlen", 2, R.and(FAST), ONE, hlen),
    keyed("hstrlen", 3, R.and(FAST), ONE, hstrlen),
    keyed("hincrby", 4, W.and(OOM).and(FAST), ONE, hincrby),
    keyed("hincrbyfloat", 4, W.and(OOM).and(FAST), ONE, hincrbyfloat),
    keyed("hkeys", 2, R, ONE, |ctx, args| {
        hgetall(ctx, args, Parts::Fields)
    }),
    keyed("hvals", 2, R, ONE, |ctx, args| {
        hgetall(ctx, args, Parts::Values)
    }),
    keyed("hgetall", 2, R, ONE, |ctx, args| {
        hgetall(ctx, args, Parts::Both)
    }),
];

/// What HSET and HMSET answer: the count of new fields, or `+OK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetReply {
    /// HSET.
    Created,
    /// HMSET (deprecated).
    Ok,
}

/// HSET / HMSET key field value [field value ...]: an arity error for a field without its
/// value (checked before the key's type), else every pair set, new fields last.
fn hset(ctx: &mut Ctx<'_>, args: &[Vec<u8>], fullname: &str, reply: SetReply) -> Frame {
    if args.len() % 2 == 1 {
        return replies::wrong_arity(fullname);
    }
    let key = arg(args, 1);
    let hash = match ctx.entry_as::<Hash>(key) {
        Ok(hash) => hash,
        Err(wrong_type) => return wrong_type,
    };
    let mut created = 0;
    for pair in args.get(2..).unwrap_or_default().chunks_exact(2) {
        if let [field, value] = pair {
            created += i64::from(hash.insert(field.clone(), value.clone()));
        }
    }
    ctx.modified(key);
    match reply {
        SetReply::Created => Frame::Integer(created),
        SetReply::Ok => replies::ok(),
    }
}

/// HSETNX key field value: 1 if the field was new and is now set, 0 if it was there.
fn hsetnx(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let (key, field, value) = (arg(args, 1), arg(args, 2), arg(args, 3));
    let hash = match ctx.entry_as::<Hash>(key) {
        Ok(hash) => hash,
        Err(wrong_type) => return wrong_type,
    };
    if hash.get(field).is_some() {
        return Frame::Integer(0);
    }
    hash.insert(field.to_vec(), value.to_vec());
    ctx.modified(key);
    Frame::Integer(1)
}

/// HGET key field: the value, or null for a missing key or field.
fn hget(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => field_reply(hash, arg(args, 2)),
        Err(wrong_type) => wrong_type,
    }
}

/// HMGET key field [field ...]: each field's value or null; a missing key is an empty hash.
fn hmget(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => Frame::Array(
            args.iter()
                .skip(2)
                .map(|field| field_reply(hash, field))
                .collect(),
        ),
        Err(wrong_type) => wrong_type,
    }
}

/// `addHashFieldToReply`.
fn field_reply(hash: Option<&Hash>, field: &[u8]) -> Frame {
    match hash.and_then(|h| h.get(field)) {
        Some(value) => Frame::Bulk(value.to_vec()),
        None => Frame::Null,
    }
}

/// HDEL key field [field ...]: how many fields were deleted; the key goes with its last.
fn hdel(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    let hash = match ctx.lookup_as_mut::<Hash>(key) {
        Ok(Some(hash)) => hash,
        Ok(None) => return Frame::Integer(0),
        Err(wrong_type) => return wrong_type,
    };
    let deleted = args
        .iter()
        .skip(2)
        .filter(|field| hash.remove(field))
        .count();
    if deleted > 0 {
        ctx.modified(key);
    }
    replies::count(deleted)
}

/// HEXISTS key field: 1 or 0.
fn hexists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => Frame::Integer(i64::from(
            hash.is_some_and(|h| h.get(arg(args, 2)).is_some()),
        )),
        Err(wrong_type) => wrong_type,
    }
}

/// HLEN key: how many fields (0 for a missing key).
fn hlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => replies::count(hash.map_or(0, Hash::len)),
        Err(wrong_type) => wrong_type,
    }
}

/// HSTRLEN key field: the length of the field's value (0 if there is none).
fn hstrlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => replies::count(
            hash.and_then(|h| h.get(arg(args, 2)))
                .map_or(0, <[u8]>::len),
        ),
        Err(wrong_type) => wrong_type,
    }
}

/// HINCRBY key field increment: the new value. The increment is checked first, then the
/// key's type (a missing key is created), then the field's value, which must be an integer
/// as Redis spells one, and the sum, which must fit in 64 bits.
fn hincrby(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(incr) = parse_i64(arg(args, 3)) else {
        return replies::not_an_integer();
    };
    let (key, field) = (arg(args, 1), arg(args, 2));
    let hash = match ctx.entry_as::<Hash>(key) {
        Ok(hash) => hash,
        Err(wrong_type) => return wrong_type,
    };
    let old = match hash.get(field) {
        None => 0,
        Some(value) => match parse_i64(value) {
            Some(n) => n,
            None => return replies::error(b"hash value is not an integer"),
        },
    };
    let Some(new) = old.checked_add(incr) else {
        return replies::error(b"increment or decrement would overflow");
    };
    hash.insert(field.to_vec(), new.to_string().into_bytes());
    ctx.modified(key);
    Frame::Integer(new)
}

/// HINCRBYFLOAT key field increment: the new value as Redis prints a long double. The
/// increment is checked first (a valid float, then a finite one), then the key's type (a
/// missing key is created), then the field's value (a float) and the sum (finite).
/// Propagated as the HSET of the result, as Redis does, so that replicas need not redo the
/// arithmetic.
fn hincrbyfloat(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let incr = match long_double::parse(arg(args, 3)) {
        None => return replies::error(b"value is not a valid float"),
        Some(LongDouble::Infinite { .. }) => {
            return replies::error(b"value is NaN or Infinity");
        }
        Some(finite) => finite,
    };
    let (key, field) = (arg(args, 1), arg(args, 2));
    let hash = match ctx.entry_as::<Hash>(key) {
        Ok(hash) => hash,
        Err(wrong_type) => return wrong_type,
    };
    let old = match hash.get(field) {
        None => LongDouble::Finite {
            neg: false,
            mant: 0,
            exp: 0,
        },
        Some(value) => match long_double::parse(value) {
            Some(old) => old,
            None => return replies::error(b"hash value is not a float"),
        },
    };
    let Some(LongDouble::Finite { neg, mant, exp }) = long_double::add(old, incr) else {
        return replies::error(b"increment would produce NaN or Infinity");
    };
    let new = long_double::human(neg, mant, exp);
    hash.insert(field.to_vec(), new.clone());
    ctx.modified(key);
    ctx.rewrite = Some(vec![
        b"HSET".to_vec(),
        key.to_vec(),
        field.to_vec(),
        new.clone(),
    ]);
    Frame::Bulk(new)
}

/// Which parts of each field HKEYS, HVALS and HGETALL answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parts {
    /// HKEYS: an array of fields.
    Fields,
    /// HVALS: an array of values.
    Values,
    /// HGETALL: a map of fields to values (RESP2: the flat array).
    Both,
}

/// `genericHgetallCommand`: the fields in the hash's order; a missing key is an empty map
/// (HGETALL) or array.
fn hgetall(ctx: &mut Ctx<'_>, args: &[Vec<u8>], parts: Parts) -> Frame {
    let hash = match ctx.lookup_as::<Hash>(arg(args, 1)) {
        Ok(hash) => hash,
        Err(wrong_type) => return wrong_type,
    };
    let pairs = hash.into_iter().flat_map(Hash::iter);
    let bulk = |b: &[u8]| Frame::Bulk(b.to_vec());
    match parts {
        Parts::Fields => Frame::Array(pairs.map(|(f, _)| bulk(f)).collect()),
        Parts::Values => Frame::Array(pairs.map(|(_, v)| bulk(v)).collect()),
        Parts::Both => Frame::Map(pairs.map(|(f, v)| (bulk(f), bulk(v))).collect()),
    }
}
