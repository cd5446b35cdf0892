//! Replies as a client reads them: any RESP2 value, with limits so that a hostile or broken
//! server cannot make the reader recurse or allocate without bound.
//!
//! Lines end at the first `\r\n` (as hiredis reads them), so a simple string or error may
//! hold a lone `\r` or `\n`. Everything else is strict: integers and lengths in Redis's own
//! syntax, a bulk's data followed by exactly `\r\n`, no RESP3 types.

use super::Frame;
use crate::redis::num::parse_i64;

/// Bounds on one reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyLimits {
    /// How deep arrays may nest (the outermost array is depth 1).
    pub max_depth: usize,
    /// The longest bulk string, and the longest simple / error / integer line.
    pub max_bulk_len: usize,
    /// How many values one reply may hold, arrays and their elements all counted.
    pub max_frames: usize,
}

impl Default for ReplyLimits {
    /// Far above anything Redis sends for the supported commands; the bulk limit is
    /// Redis's own proto-max-bulk-len.
    fn default() -> Self {
        ReplyLimits {
            max_depth: 64,
            max_bulk_len: 512 * 1024 * 1024,
            max_frames: 1 << 20,
        }
    }
}

/// Why bytes are not a RESP2 reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyError {
    /// A value starting with a byte that is none of `+ - : $ *`.
    UnknownType(u8),
    /// A bulk string's data not followed by `\r\n`.
    BadLineEnd,
    /// An integer reply that is not an i64 in Redis's syntax.
    BadInteger,
    /// A bulk or array length that is not a number, or is below -1.
    BadLength,
    /// Arrays nested deeper than the limit.
    TooDeep,
    /// A string or line longer than the limit, or more values than the limit.
    TooLarge,
}

/// Decodes the reply at the start of `buf`: `Ok(None)` while it is incomplete (nothing
/// consumed), else the value and how many bytes it took.
pub fn decode_reply(
    buf: &[u8],
    limits: &ReplyLimits,
) -> Result<Option<(Frame, usize)>, ReplyError> {
    let mut pos = 0;
    let mut frames = 0usize;
    // Arrays still being filled, outermost first: their elements so far and how many are
    // missing. A loop, not recursion, so depth costs heap, not stack.
    let mut open: Vec<(Vec<Frame>, usize)> = Vec::new();
    loop {
        let Some((item, next)) = item(buf, pos, limits)? else {
            return Ok(None);
        };
        pos = next;
        frames += 1;
        if frames > limits.max_frames {
            return Err(ReplyError::TooLarge);
        }
        let mut done = match item {
            Item::Value(frame) => frame,
            Item::Array(_) if open.len() >= limits.max_depth => return Err(ReplyError::TooDeep),
            Item::Array(0) => Frame::Array(Vec::new()),
            Item::Array(n) => {
                if n > limits.max_frames {
                    return Err(ReplyError::TooLarge);
                }
                open.push((Vec::with_capacity(n.min(1024)), n));
                continue;
            }
        };
        // Hand the finished value to its array, closing every array it completes.
        loop {
            let Some((items, missing)) = open.last_mut() else {
                return Ok(Some((done, pos)));
            };
            items.push(done);
            *missing = missing.saturating_sub(1);
            if *missing > 0 {
                break;
            }
            let Some((items, _)) = open.pop() else {
                break;
            };
            done = Frame::Array(items);
        }
    }
}

/// One value's header: a whole scalar, or an array's element count.
enum Item {
    Value(Frame),
    Array(usize),
}

fn item(buf: &[u8], pos: usize, limits: &ReplyLimits) -> Result<Option<(Item, usize)>, ReplyError> {
    let Some(&kind) = buf.get(pos) else {
        return Ok(None);
    };
    if !matches!(kind, b'+' | b'-' | b':' | b'$' | b'*') {
        return Err(ReplyError::UnknownType(kind));
    }
    let Some((line, next)) = line(buf, pos + 1, limits)? else {
        return Ok(None);
    };
    let item = match kind {
        b'+' => Item::Value(Frame::Simple(line.to_vec())),
        b'-' => Item::Value(Frame::Error(line.to_vec())),
        b':' => Item::Value(Frame::Integer(
            parse_i64(line).ok_or(ReplyError::BadInteger)?,
        )),
        b'$' => match length(line)? {
            None => Item::Value(Frame::Null),
            Some(len) if len > limits.max_bulk_len => return Err(ReplyError::TooLarge),
            Some(len) => {
                let Some(data) = next.checked_add(len).and_then(|end| buf.get(next..end)) else {
                    return Ok(None);
                };
                let end = next + len;
                let tail = buf.get(end..).unwrap_or_default();
                return match tail.get(..2) {
                    Some(b"\r\n") => Ok(Some((Item::Value(Frame::Bulk(data.to_vec())), end + 2))),
                    None if b"\r\n".starts_with(tail) => Ok(None),
                    _ => Err(ReplyError::BadLineEnd),
                };
            }
        },
        _ => match length(line)? {
            None => Item::Value(Frame::NullArray),
            Some(n) => Item::Array(n),
        },
    };
    Ok(Some((item, next)))
}

/// The bytes from `start` to the first `\r\n`, and where the next line starts.
fn line<'a>(
    buf: &'a [u8],
    start: usize,
    limits: &ReplyLimits,
) -> Result<Option<(&'a [u8], usize)>, ReplyError> {
    let rest = buf.get(start..).unwrap_or_default();
    match rest.windows(2).position(|w| w == b"\r\n") {
        Some(end) if end > limits.max_bulk_len => Err(ReplyError::TooLarge),
        Some(end) => Ok(Some((&rest[..end], start + end + 2))),
        None if rest.len() > limits.max_bulk_len.saturating_add(1) => Err(ReplyError::TooLarge),
        None => Ok(None),
    }
}

/// A bulk or array length: `None` for -1 (the null value).
fn length(line: &[u8]) -> Result<Option<usize>, ReplyError> {
    match parse_i64(line) {
        Some(-1) => Ok(None),
        Some(n) => usize::try_from(n)
            .map(Some)
            .map_err(|_| ReplyError::BadLength),
        None => Err(ReplyError::BadLength),
    }
}
