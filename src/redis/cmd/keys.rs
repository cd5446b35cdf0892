//! GET, DEL, EXISTS (t_string.c, db.c).

use super::{Ctx, arg};
use crate::redis::resp::Frame;

/// GET key: the value, or the null bulk for a missing or expired key.
pub(super) fn get(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.lookup_string(arg(args, 1)) {
        Ok(Some(value)) => Frame::Bulk(value.to_vec()),
        Ok(None) => Frame::Null,
        Err(wrong_type) => wrong_type,
    }
}

/// DEL key...: how many were deleted. An expired key is expired first (its own DEL
/// propagated), so it counts 0; the command itself propagates only if it deleted something.
pub(super) fn del(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
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
pub(super) fn exists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut found = 0;
    for key in args.iter().skip(1) {
        if ctx.lookup(key).is_some() {
            found += 1;
        }
    }
    Frame::Integer(found)
}
