//! GET (t_string.c) and the commands on keys of any type (db.c, expire.c): DEL, UNLINK,
//! EXISTS, TOUCH, TYPE, PERSIST, RENAME, RENAMENX, KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL.

use super::table::{ALL, CommandSpec, FAST, Keys, ONE, R, W, keyed, spec};
use super::{Ctx, Expiry, arg};
use crate::redis::cstr::is;
use crate::redis::glob;
use crate::redis::replies;
use crate::redis::resp::Frame;

/// GET, and the commands on keys of any type and on the databases.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("get", 2, R.and(FAST), ONE, get),
    keyed("del", -2, W, ALL, del),
    keyed("exists", -2, R.and(FAST), ALL, exists),
    keyed("unlink", -2, W.and(FAST), ALL, del),
    keyed("touch", -2, R.and(FAST), ALL, touch),
    keyed("type", 2, R.and(FAST), ONE, type_of),
    keyed("persist", 2, W.and(FAST), ONE, persist),
    keyed("rename", 3, W, Keys::Two, |ctx, args| {
        rename(ctx, args, false)
    }),
    keyed("renamenx", 3, W.and(FAST), Keys::Two, |ctx, args| {
        rename(ctx, args, true)
    }),
    spec("keys", 2, R, keys),
    spec("scan", -2, R, scan),
    spec("dbsize", 1, R.and(FAST), |ctx, _| dbsize(ctx)),
    spec("flushdb", -1, W, |ctx, args| flush(ctx, args, false)),
    spec("flushall", -1, W, |ctx, args| flush(ctx, args, true)),
];

/// SCAN's COUNT when none is given.
const SCAN_COUNT: usize = 10;

/// GET key: the value, or the null bulk for a missing or expired key.
fn get(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_string(arg(args, 1)) {
        Ok(Some(value)) => Frame::Bulk(value.to_vec()),
        Ok(None) => Frame::Null,
        Err(wrong_type) => wrong_type,
    }
}

/// DEL key...: how many were deleted. An expired key is expired first (its own DEL
/// propagated), so it counts 0; the command itself propagates only if it deleted something.
fn del(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut deleted = 0;
    for key in args.iter().skip(1) {
        ctx.lookup(key);
        if ctx.ks.remove(key) {
            ctx.dirty += 1;
            deleted += 1;
        }
    }
    Frame::Integer(deleted)
}

/// EXISTS key...: how many of the keys exist, a key named twice counted twice.
fn exists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut found = 0;
    for key in args.iter().skip(1) {
        if ctx.lookup(key).is_some() {
            found += 1;
        }
    }
    Frame::Integer(found)
}

/// TOUCH key...: how many of the keys exist.
fn touch(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    exists(ctx, args)
}

/// TYPE key: the type's name as a status, `none` for a missing key.
fn type_of(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let name = ctx.lookup(arg(args, 1)).map_or("none", |v| v.type_name());
    Frame::Simple(name.as_bytes().to_vec())
}

/// PERSIST key: 1 if it dropped the key's deadline, 0 for a missing key or none.
fn persist(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    if ctx.lookup(key).is_some() && ctx.ks.persist(key) {
        ctx.dirty += 1;
        return Frame::Integer(1);
    }
    Frame::Integer(0)
}

/// RENAME key newkey (`OK`) and RENAMENX (1, or 0 when newkey exists): the value moves
/// with its deadline, replacing what newkey held.
fn rename(ctx: &mut Ctx<'_>, args: &[Vec<u8>], nx: bool) -> Frame {
    let (from, to) = (arg(args, 1), arg(args, 2));
    let done = || {
        if nx { Frame::Integer(1) } else { replies::ok() }
    };
    if ctx.lookup(from).is_none() {
        return replies::error(b"no such key");
    }
    if from == to {
        return if nx { Frame::Integer(0) } else { done() };
    }
    if ctx.lookup(to).is_some() {
        if nx {
            return Frame::Integer(0);
        }
        ctx.ks.remove(to);
    }
    if let Some((value, when)) = ctx.ks.take(from) {
        ctx.ks.insert(to, value, false);
        if let Some(when) = when {
            ctx.ks.set_expire(to, when);
        }
    }
    ctx.dirty += 1;
    done()
}

/// KEYS pattern: the keys that match and have not expired (none is deleted), in key order
/// (Redis's is its hash table's).
fn keys(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let pattern = arg(args, 1);
    let all = pattern == b"*";
    let now = ctx.clock.now(ctx.now);
    let check_expiry = ctx.expiry != Expiry::Never;
    let found = ctx
        .ks
        .iter()
        .filter(|(key, _, _)| all || glob::matches(pattern, key, false))
        .filter(|(key, _, _)| !(check_expiry && ctx.ks.is_expired(key, now)))
        .map(|(key, _, _)| Frame::Bulk(key.to_vec()));
    Frame::Array(found.collect())
}

/// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: the next cursor and a batch of
/// keys. The walk goes in the order of a fixed 64-bit hash of the keys (FNV-1a) and the
/// cursor is the hash to go on from, so a key there from the first call to the last is
/// returned at least once, as Redis promises; 0 starts and ends a walk. Keys found expired
/// are deleted on the way, as Redis's SCAN does. Each call reads every key's hash (Redis's
/// reads about COUNT).
fn scan(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(cursor) = parse_cursor(arg(args, 1)) else {
        return replies::error(b"invalid cursor");
    };
    let mut count = SCAN_COUNT;
    let (mut pattern, mut type_name): (Option<&[u8]>, Option<&[u8]>) = (None, None);
    let mut i = 2;
    while let Some(option) = args.get(i) {
        let Some(value) = args.get(i + 1) else {
            return replies::syntax_error();
        };
        if is(option, "count") {
            match crate::redis::num::parse_i64(value) {
                None => return replies::not_an_integer(),
                Some(n) if n < 1 => return replies::syntax_error(),
                Some(n) => count = usize::try_from(n).unwrap_or(usize::MAX),
            }
        } else if is(option, "match") {
            pattern = (value.as_slice() != b"*").then_some(value.as_slice());
        } else if is(option, "type") {
            type_name = Some(value);
        } else {
            return replies::syntax_error();
        }
        i += 2;
    }
    let mut walk: Vec<(u64, Vec<u8>)> = ctx
        .ks
        .iter()
        .map(|(key, _, _)| (scan_hash(key), key.to_vec()))
        .filter(|(hash, _)| *hash >= cursor)
        .collect();
    walk.sort_unstable();
    // A batch never splits keys that share a hash: the next cursor is a hash not yet seen.
    let mut end = count.min(walk.len());
    while end > 0 && walk.get(end).map(|(h, _)| h) == walk.get(end - 1).map(|(h, _)| h) {
        end += 1;
    }
    let next = walk.get(end).map_or(0, |(hash, _)| *hash);
    walk.truncate(end);
    let batch = walk;
    let mut keys = Vec::new();
    for (_, key) in batch {
        if pattern.is_some_and(|p| !glob::matches(p, &key, false)) {
            continue;
        }
        let Some(value) = ctx.lookup(&key) else {
            continue;
        };
        if type_name.is_some_and(|t| !t.eq_ignore_ascii_case(value.type_name().as_bytes())) {
            continue;
        }
        keys.push(Frame::Bulk(key));
    }
    Frame::Array(vec![
        Frame::Bulk(next.to_string().into_bytes()),
        Frame::Array(keys),
    ])
}

/// `parseScanCursorOrReply`: an unsigned decimal as `strtoul` reads it (a sign allowed, a
/// negative one wrapping around, an empty text 0), no leading space, nothing after.
fn parse_cursor(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return Some(0);
    }
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some(if negative { n.wrapping_neg() } else { n })
}

/// Where a key is in SCAN's walk: FNV-1a, never 0 (the cursor that starts and ends a walk).
fn scan_hash(key: &[u8]) -> u64 {
    let hash = key.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash.max(1)
}

/// DBSIZE: how many keys the database holds, expired ones not yet deleted included.
fn dbsize(ctx: &mut Ctx<'_>) -> Frame {
    Frame::Integer(i64::try_from(ctx.ks.len()).unwrap_or(i64::MAX))
}

/// FLUSHDB [ASYNC | SYNC] and FLUSHALL (`all`): empties the database, or every one; always
/// propagated, even when there was nothing to delete.
fn flush(ctx: &mut Ctx<'_>, args: &[Vec<u8>], all: bool) -> Frame {
    match args {
        [_] => {}
        [_, mode] if is(mode, "sync") || is(mode, "async") => {}
        _ => return replies::syntax_error(),
    }
    if all {
        ctx.flush_all = true;
    } else {
        ctx.ks.flush();
    }
    ctx.dirty += 1;
    replies::ok()
}
