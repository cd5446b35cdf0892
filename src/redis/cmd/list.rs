//! LPUSH, RPUSH, LPOP, RPOP, LLEN, LRANGE, LINDEX, LREM and LMOVE (Redis 7.0.15's
//! t_list.c), with its replies, its errors and the order it checks them in. A list key
//! that comes into being (Redis's `dbAdd` of a list) is signalled ready for the clients
//! blocked on it.

use super::table::{CommandSpec, FAST, Keys, ONE, OOM, R, W, keyed};
use super::{Ctx, arg};
use crate::redis::cstr::is;
use crate::redis::num::parse_i64;
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::value::list::List;

/// The list commands that never block.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("lpush", -3, W.and(OOM).and(FAST), ONE, |ctx, args| {
        push(ctx, args, End::Left)
    }),
    keyed("rpush", -3, W.and(OOM).and(FAST), ONE, |ctx, args| {
        push(ctx, args, End::Right)
    }),
    keyed("lpop", -2, W.and(FAST), ONE, |ctx, args| {
        pop_command(ctx, args, End::Left)
    }),
    keyed("rpop", -2, W.and(FAST), ONE, |ctx, args| {
        pop_command(ctx, args, End::Right)
    }),
    keyed("llen", 2, R.and(FAST), ONE, llen),
    keyed("lrange", 4, R, ONE, lrange),
    keyed("lindex", 3, R, ONE, lindex),
    keyed("lrem", 4, W, ONE, lrem),
    keyed("lmove", 5, W.and(OOM), Keys::Two, lmove),
];

/// Which end of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// The head (LEFT).
    Left,
    /// The tail (RIGHT).
    Right,
}

fn int(n: usize) -> Frame {
    Frame::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `getListPositionFromObjectOrReply`: LEFT or RIGHT, in any case.
pub(super) fn end(word: &[u8]) -> Result<End, Frame> {
    if is(word, "left") {
        Ok(End::Left)
    } else if is(word, "right") {
        Ok(End::Right)
    } else {
        Err(replies::syntax_error())
    }
}

/// The list at `key` to add to, created if missing (and then signalled ready).
fn list_to_add_to<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> Result<&'c mut List, Frame> {
    if ctx.lookup_as::<List>(key)?.is_none() {
        ctx.clients.signal_ready(ctx.conn.db, key);
    }
    ctx.entry_as::<List>(key)
}

/// LPUSH / RPUSH key element...: the length after.
fn push(ctx: &mut Ctx<'_>, args: &[Vec<u8>], at: End) -> Frame {
    let key = arg(args, 1);
    let list = match list_to_add_to(ctx, key) {
        Ok(list) => list,
        Err(e) => return e,
    };
    for item in args.iter().skip(2) {
        match at {
            End::Left => list.push_front(item.clone()),
            End::Right => list.push_back(item.clone()),
        }
    }
    let len = list.len();
    ctx.modified(key);
    ctx.dirty += (args.len() - 3) as u64;
    int(len)
}

/// One element off `list`'s end.
fn pop(list: &mut List, from: End) -> Option<Vec<u8>> {
    match from {
        End::Left => list.pop_front(),
        End::Right => list.pop_back(),
    }
}

/// LPOP / RPOP key [count]: the element, or with a count an array of up to that many (the
/// null array for a missing key).
fn pop_command(ctx: &mut Ctx<'_>, args: &[Vec<u8>], from: End) -> Frame {
    if args.len() > 3 {
        return replies::wrong_arity(if from == End::Left { "lpop" } else { "rpop" });
    }
    // `getPositiveLongFromObjectOrReply`: one error for anything but a count of 0 or more.
    let count = match args.get(2).map(|c| parse_i64(c)) {
        None => None,
        Some(Some(n)) if n >= 0 => Some(n),
        Some(_) => return replies::error(b"value is out of range, must be positive"),
    };
    let key = arg(args, 1);
    let list = match ctx.lookup_as_mut::<List>(key) {
        Ok(Some(list)) => list,
        Ok(None) if count.is_some() => return Frame::NullArray,
        Ok(None) => return Frame::Null,
        Err(e) => return e,
    };
    let reply = match count {
        Some(0) => return Frame::Array(Vec::new()),
        Some(n) => {
            let n = usize::try_from(n).unwrap_or(usize::MAX).min(list.len());
            let items = (0..n).filter_map(|_| pop(list, from)).map(Frame::Bulk);
            Frame::Array(items.collect())
        }
        None => pop(list, from).map_or(Frame::Null, Frame::Bulk),
    };
    ctx.modified(key);
    reply
}

/// LLEN key.
fn llen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<List>(arg(args, 1)) {
        Ok(list) => int(list.map_or(0, List::len)),
        Err(e) => e,
    }
}

/// LRANGE key start stop: the indexes are read before the key.
fn lrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let (Some(start), Some(stop)) = (parse_i64(arg(args, 2)), parse_i64(arg(args, 3))) else {
        return replies::not_an_integer();
    };
    match ctx.lookup_as::<List>(arg(args, 1)) {
        Ok(Some(list)) => Frame::Array(
            list.range(start, stop)
                .map(|i| Frame::Bulk(i.to_vec()))
                .collect(),
        ),
        Ok(None) => Frame::Array(Vec::new()),
        Err(e) => e,
    }
}

/// LINDEX key index: the key is looked up before the index is read.
fn lindex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let list = match ctx.lookup_as::<List>(arg(args, 1)) {
        Ok(Some(list)) => list,
        Ok(None) => return Frame::Null,
        Err(e) => return e,
    };
    match parse_i64(arg(args, 2)) {
        Some(index) => list
            .get(index)
            .map_or(Frame::Null, |i| Frame::Bulk(i.to_vec())),
        None => replies::not_an_integer(),
    }
}

/// LREM key count element: how many it removed.
fn lrem(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(count) = parse_i64(arg(args, 2)) else {
        return replies::not_an_integer();
    };
    let key = arg(args, 1);
    let removed = match ctx.lookup_as_mut::<List>(key) {
        Ok(Some(list)) => list.remove(count, arg(args, 3)),
        Ok(None) => 0,
        Err(e) => return e,
    };
    if removed > 0 {
        ctx.modified(key);
        ctx.dirty += removed as u64 - 1;
    }
    int(removed)
}

/// LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
fn lmove(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let ends = end(arg(args, 3)).and_then(|from| Ok((from, end(arg(args, 4))?)));
    match ends {
        Ok((from, to)) => move_one(ctx, arg(args, 1), arg(args, 2), from, to),
        Err(e) => e,
    }
}

/// `lmoveGenericCommand`: the element moved, or null when the source is missing.
pub(super) fn move_one(
    ctx: &mut Ctx<'_>,
    source: &[u8],
    destination: &[u8],
    from: End,
    to: End,
) -> Frame {
    match ctx.lookup_as::<List>(source) {
        Ok(Some(_)) => {}
        Ok(None) => return Frame::Null,
        Err(e) => return e,
    }
    if let Err(e) = ctx.lookup_as::<List>(destination) {
        return e;
    }
    let Ok(Some(list)) = ctx.lookup_as_mut::<List>(source) else {
        return Frame::Null;
    };
    let Some(item) = pop(list, from) else {
        return Frame::Null;
    };
    // The push comes before the source's emptiness is looked at: a one-element list
    // rotated onto itself stays.
    let list = match list_to_add_to(ctx, destination) {
        Ok(list) => list,
        Err(e) => return e,
    };
    match to {
        End::Left => list.push_front(item.clone()),
        End::Right => list.push_back(item.clone()),
    }
    ctx.modified(destination);
    if source != destination {
        ctx.modified(source);
        ctx.dirty -= 1;
    }
    Frame::Bulk(item)
}
