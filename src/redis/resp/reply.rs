//! Replies as a client reads them: any RESP2 or RESP3 value Redis 7.0 sends, with limits so
//! that a hostile or broken server cannot make the reader recurse or allocate without bound.
//!
//! Lines end at the first `\r\n` (as hiredis reads them), so a simple string or error may
//! hold a lone `\r` or `\n`. Everything else is strict: integers and lengths in Redis's own
//! syntax, a bulk's data followed by exactly `\r\n`. RESP3's blob error comes back as an
//! error, its attributes and streamed strings (which Redis 7.0 never sends) are refused.

use super::Frame;
use crate::redis::num::parse_i64;

/// Bounds on one reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyLimits {
    /// How deep aggregates may nest (the outermost one is depth 1).
    pub max_depth: usize,
    /// The longest bulk string, and the longest simple / error / integer line.
    pub max_bulk_len: usize,
    /// How many values one reply may hold, aggregates and their elements all counted.
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

/// Why bytes are not a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyError {
    /// A value starting with a byte that is no type Redis sends.
    UnknownType(u8),
    /// A bulk string's data not followed by `\r\n`, or a boolean other than `t` / `f`, or
    /// a verbatim string without its `fmt:`.
    BadLineEnd,
    /// An integer reply that is not an i64 in Redis's syntax.
    BadInteger,
    /// A bulk or array length that is not a number, or is below -1.
    BadLength,
    /// Aggregates nested deeper than the limit.
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
    // Aggregates still being filled, outermost first: their kind, elements so far and how
    // many are missing. A loop, not recursion, so depth costs heap, not stack.
    let mut open: Vec<(Aggregate, Vec<Frame>, usize)> = Vec::new();
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
            Item::Open(..) if open.len() >= limits.max_depth => return Err(ReplyError::TooDeep),
            Item::Open(kind, n) => {
                let elements = if kind == Aggregate::Map {
                    n.checked_mul(2)
                } else {
                    Some(n)
                };
                match elements {
                    Some(0) => kind.close(Vec::new()),
                    Some(n) if n <= limits.max_frames => {
                        open.push((kind, Vec::with_capacity(n.min(1024)), n));
                        continue;
                    }
                    _ => return Err(ReplyError::TooLarge),
                }
            }
        };
        // Hand the finished value to its aggregate, closing every aggregate it completes.
        loop {
            let Some((_, items, missing)) = open.last_mut() else {
                return Ok(Some((done, pos)));
            };
            items.push(done);
            *missing = missing.saturating_sub(1);
            if *missing > 0 {
                break;
            }
            let Some((kind, items, _)) = open.pop() else {
                break;
            };
            done = kind.close(items);
        }
    }
}

/// The aggregate types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    Array,
    Map,
    Set,
    Push,
}

impl Aggregate {
    /// The value holding `items` (for a map, keys and values in turn).
    fn close(self, items: Vec<Frame>) -> Frame {
        match self {
            Aggregate::Array => Frame::Array(items),
            Aggregate::Set => Frame::Set(items),
            Aggregate::Push => Frame::Push(items),
            Aggregate::Map => {
                let mut pairs = Vec::with_capacity(items.len() / 2);
                let mut items = items.into_iter();
                while let (Some(k), Some(v)) = (items.next(), items.next()) {
                    pairs.push((k, v));
                }
                Frame::Map(pairs)
            }
        }
    }
}

/// One value's header: a whole scalar, or an aggregate's element count.
enum Item {
    Value(Frame),
    Open(Aggregate, usize),
}

fn item(buf: &[u8], pos: usize, limits: &ReplyLimits) -> Result<Option<(Item, usize)>, ReplyError> {
    let Some(&kind) = buf.get(pos) else {
        return Ok(None);
    };
    if !b"+-:$*_,#(=!%~>".contains(&kind) {
        return Err(ReplyError::UnknownType(kind));
    }
    let Some((line, next)) = line(buf, pos + 1, limits)? else {
        return Ok(None);
    };
    let value = |frame| Ok(Some((Item::Value(frame), next)));
    let open = |aggregate| match length(line)? {
        Some(n) => Ok(Some((Item::Open(aggregate, n), next))),
        None => Err(ReplyError::BadLength),
    };
    match kind {
        b'+' => value(Frame::Simple(line.to_vec())),
        b'-' => value(Frame::Error(line.to_vec())),
        b':' => value(Frame::Integer(
            parse_i64(line).ok_or(ReplyError::BadInteger)?,
        )),
        b'_' if line.is_empty() => value(Frame::Null),
        b'_' => Err(ReplyError::BadLineEnd),
        b',' => value(Frame::Double(line.to_vec())),
        b'(' => value(Frame::BigNumber(line.to_vec())),
        b'#' => match line {
            b"t" => value(Frame::Boolean(true)),
            b"f" => value(Frame::Boolean(false)),
            _ => Err(ReplyError::BadLineEnd),
        },
        b'$' | b'=' | b'!' => {
            let Some(len) = length(line)? else {
                return match kind {
                    b'$' => value(Frame::Null),
                    _ => Err(ReplyError::BadLength),
                };
            };
            let Some((data, end)) = blob(buf, next, len, limits)? else {
                return Ok(None);
            };
            let frame = match kind {
                b'$' => Frame::Bulk(data.to_vec()),
                b'!' => Frame::Error(data.to_vec()),
                _ => match data {
                    [a, b, c, b':', text @ ..] => Frame::Verbatim {
                        format: [*a, *b, *c],
                        text: text.to_vec(),
                    },
                    _ => return Err(ReplyError::BadLineEnd),
                },
            };
            Ok(Some((Item::Value(frame), end)))
        }
        b'*' => match length(line)? {
            None => value(Frame::NullArray),
            Some(n) => Ok(Some((Item::Open(Aggregate::Array, n), next))),
        },
        b'%' => open(Aggregate::Map),
        b'~' => open(Aggregate::Set),
        _ => open(Aggregate::Push),
    }
}

/// A blob's `len` bytes of data from `start`, followed by `\r\n`, and where the next value
/// starts; `None` while incomplete.
fn blob<'a>(
    buf: &'a [u8],
    start: usize,
    len: usize,
    limits: &ReplyLimits,
) -> Result<Option<(&'a [u8], usize)>, ReplyError> {
    if len > limits.max_bulk_len {
        return Err(ReplyError::TooLarge);
    }
    let Some(data) = start.checked_add(len).and_then(|end| buf.get(start..end)) else {
        return Ok(None);
    };
    let end = start + len;
    let tail = buf.get(end..).unwrap_or_default();
    match tail.get(..2) {
        Some(b"\r\n") => Ok(Some((data, end + 2))),
        None if b"\r\n".starts_with(tail) => Ok(None),
        _ => Err(ReplyError::BadLineEnd),
    }
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
