//! The set commands (t_set.c): SADD, SREM, SISMEMBER, SMISMEMBER, SCARD, SMEMBERS. A write
//! that changes nothing (SADD of members already there, SREM of missing ones) neither
//! touches watchers nor propagates.
//!
//! SPOP and SRANDMEMBER are left out: Redis picks their members at random, and no seeded
//! source reaches the commands yet.

use super::table::{CommandSpec, FAST, ONE, OOM, R, W, keyed};
use super::{Ctx, arg};
use crate::redis::replies;
use crate::redis::resp::Frame;
use crate::redis::value::Set;

/// The set commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    keyed("sadd", -3, W.and(OOM).and(FAST), ONE, sadd),
    keyed("srem", -3, W.and(FAST), ONE, srem),
    keyed("sismember", 3, R.and(FAST), ONE, sismember),
    keyed("smismember", -3, R.and(FAST), ONE, smismember),
    keyed("scard", 2, R.and(FAST), ONE, scard),
    keyed("smembers", 2, R, ONE, smembers),
];

/// SADD key member [member ...]: how many members were new.
fn sadd(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    let set = match ctx.entry_as::<Set>(key) {
        Ok(set) => set,
        Err(wrong_type) => return wrong_type,
    };
    let added = args
        .iter()
        .skip(2)
        .filter(|member| set.insert(member.to_vec()))
        .count();
    if added > 0 {
        ctx.modified(key);
    }
    replies::count(added)
}

/// SREM key member [member ...]: how many members were removed; the key goes with its last.
fn srem(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = arg(args, 1);
    let set = match ctx.lookup_as_mut::<Set>(key) {
        Ok(Some(set)) => set,
        Ok(None) => return Frame::Integer(0),
        Err(wrong_type) => return wrong_type,
    };
    let removed = args
        .iter()
        .skip(2)
        .filter(|member| set.remove(member))
        .count();
    if removed > 0 {
        ctx.modified(key);
    }
    replies::count(removed)
}

/// SISMEMBER key member: 1 or 0.
fn sismember(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Set>(arg(args, 1)) {
        Ok(set) => Frame::Integer(i64::from(is_member(set, arg(args, 2)))),
        Err(wrong_type) => wrong_type,
    }
}

/// SMISMEMBER key member [member ...]: 1 or 0 for each; a missing key is an empty set.
fn smismember(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Set>(arg(args, 1)) {
        Ok(set) => Frame::Array(
            args.iter()
                .skip(2)
                .map(|member| Frame::Integer(i64::from(is_member(set, member))))
                .collect(),
        ),
        Err(wrong_type) => wrong_type,
    }
}

fn is_member(set: Option<&Set>, member: &[u8]) -> bool {
    set.is_some_and(|s| s.contains(member))
}

/// SCARD key: how many members (0 for a missing key).
fn scard(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Set>(arg(args, 1)) {
        Ok(set) => replies::count(set.map_or(0, Set::len)),
        Err(wrong_type) => wrong_type,
    }
}

/// SMEMBERS key: the members as a RESP3 set (RESP2: an array), in [`Set::iter`]'s order;
/// a missing key is the empty set. Redis runs it as a one-key SINTER.
fn smembers(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_as::<Set>(arg(args, 1)) {
        Ok(set) => Frame::Set(
            set.into_iter()
                .flat_map(Set::iter)
                .map(|m| Frame::Bulk(m.to_vec()))
                .collect(),
        ),
        Err(wrong_type) => wrong_type,
    }
}
