//! Client requests as Redis 7.0 reads them (networking.c `processInputBuffer`,
//! `processMultibulkBuffer`, `processInlineBuffer`): a multibulk `*N\r\n$len\r\n...` when the
//! first byte is `*`, otherwise one inline line.
//!
//! Redis keeps a half-parsed request in the client between reads; this decoder instead
//! re-reads the buffer from its start and consumes nothing until a request is whole. Both
//! reach the same verdicts at the same points, so feed it the buffer after every read. Redis
//! reads at most 16 KiB (PROTO_IOBUF_LEN) at a time and checks the "too big" limits after
//! each read: a driver that feeds the same slices reproduces where it draws the line.
//!
//! Quirks kept on purpose, each pinned by a test: line ends are found with C's `strchr`, so a
//! NUL byte before the `\r` (or the inline `\n`) leaves the request incomplete; the byte after
//! a length line's `\r`, and the two after a bulk's data, are skipped unread.

use super::inline::split_args;
use crate::redis::num::parse_i64;

/// The size limits Redis applies to requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// proto-max-bulk-len: the longest bulk argument (512 MB by default).
    pub max_bulk_len: usize,
    /// PROTO_INLINE_MAX_SIZE: how many bytes may wait without the end of an inline line or
    /// of a `*N` / `$len` line (64 KiB in Redis 7.0; a compile-time constant there).
    pub max_inline_len: usize,
    /// The largest multibulk count (INT_MAX in Redis 7.0).
    pub max_multibulk_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bulk_len: 512 * 1024 * 1024,
            max_inline_len: 64 * 1024,
            max_multibulk_len: i32::MAX as usize,
        }
    }
}

/// A decoded request, or the need for more bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// No whole request yet: consume nothing, read more, decode again.
    Incomplete,
    /// One request and how many bytes it took. `args` is empty for an empty inline line or
    /// a `*0` / `*-1` count: Redis consumes those and runs nothing, replies nothing.
    Request {
        /// The arguments, the command's name first.
        args: Vec<Vec<u8>>,
        /// How many bytes of the input the request took.
        consumed: usize,
    },
}

/// A protocol error: Redis replies with [`ProtocolError::message`] as an `-ERR` error and
/// closes the connection once the reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolError {
    /// `*` followed by something that is not a count up to the limit.
    InvalidMultibulkLength,
    /// An argument of a multibulk request that does not start with `$`: the byte it did.
    ExpectedDollar(u8),
    /// A `$` length that is not a number from 0 to the bulk limit.
    InvalidBulkLength,
    /// An inline line longer than the limit, still without its `\n`.
    TooBigInlineRequest,
    /// An inline line with unbalanced quotes.
    UnbalancedQuotes,
    /// A `*` count line longer than the limit, still without its `\r`.
    TooBigMbulkCount,
    /// A `$` length line longer than the limit, still without its `\r`.
    TooBigBulkCount,
}

impl ProtocolError {
    /// The error text, word for word as Redis 7.0 replies it (without `ERR `).
    pub fn message(&self) -> Vec<u8> {
        let text: &[u8] = match self {
            ProtocolError::InvalidMultibulkLength => b"invalid multibulk length",
            ProtocolError::ExpectedDollar(got) => {
                // addReplyErrorFormat turns CR and LF into spaces.
                let got = match got {
                    b'\r' | b'\n' => b' ',
                    other => *other,
                };
                let mut m = b"Protocol error: expected '$', got '".to_vec();
                m.push(got);
                m.push(b'\'');
                return m;
            }
            ProtocolError::InvalidBulkLength => b"invalid bulk length",
            ProtocolError::TooBigInlineRequest => b"too big inline request",
            ProtocolError::UnbalancedQuotes => b"unbalanced quotes in request",
            ProtocolError::TooBigMbulkCount => b"too big mbulk count string",
            ProtocolError::TooBigBulkCount => b"too big bulk count string",
        };
        [&b"Protocol error: "[..], text].concat()
    }
}

/// Decodes the request at the start of `buf`.
pub fn decode_request(buf: &[u8], limits: &Limits) -> Result<Decoded, ProtocolError> {
    match buf.first() {
        None => Ok(Decoded::Incomplete),
        Some(b'*') => multibulk(buf, limits),
        Some(_) => inline(buf, limits),
    }
}

fn inline(buf: &[u8], limits: &Limits) -> Result<Decoded, ProtocolError> {
    let Some(newline) = c_strchr(buf, b'\n') else {
        return if buf.len() > limits.max_inline_len {
            Err(ProtocolError::TooBigInlineRequest)
        } else {
            Ok(Decoded::Incomplete)
        };
    };
    let line = &buf[..newline];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let args = split_args(line).ok_or(ProtocolError::UnbalancedQuotes)?;
    Ok(Decoded::Request {
        args,
        consumed: newline + 1,
    })
}

fn multibulk(buf: &[u8], limits: &Limits) -> Result<Decoded, ProtocolError> {
    let Some((count, mut pos)) = length_line(buf, 0, limits, ProtocolError::TooBigMbulkCount)?
    else {
        return Ok(Decoded::Incomplete);
    };
    // The count line starts with the `*` that chose this decoder.
    let count = match parse_i64(count.get(1..).unwrap_or_default()) {
        Some(n) if n <= 0 => {
            return Ok(Decoded::Request {
                args: Vec::new(),
                consumed: pos,
            });
        }
        Some(n) => match usize::try_from(n) {
            Ok(n) if n <= limits.max_multibulk_len => n,
            _ => return Err(ProtocolError::InvalidMultibulkLength),
        },
        None => return Err(ProtocolError::InvalidMultibulkLength),
    };
    // Never trust the count for an allocation: Redis caps its first guess at 1024 too.
    let mut args = Vec::with_capacity(count.min(1024));
    while args.len() < count {
        let Some((len, data)) = length_line(buf, pos, limits, ProtocolError::TooBigBulkCount)?
        else {
            return Ok(Decoded::Incomplete);
        };
        let Some((&kind, len)) = len.split_first() else {
            // A line starting with its own `\r`: Redis reports the `\r` as the byte it got.
            return Err(ProtocolError::ExpectedDollar(b'\r'));
        };
        if kind != b'$' {
            return Err(ProtocolError::ExpectedDollar(kind));
        }
        let len = parse_i64(len)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= limits.max_bulk_len)
            .ok_or(ProtocolError::InvalidBulkLength)?;
        let Some(arg) = data.checked_add(len).and_then(|end| buf.get(data..end)) else {
            return Ok(Decoded::Incomplete);
        };
        // The two bytes after the data must be there; Redis skips them without a look.
        if buf.len() - data - len < 2 {
            return Ok(Decoded::Incomplete);
        }
        args.push(arg.to_vec());
        pos = data + len + 2;
    }
    Ok(Decoded::Request {
        args,
        consumed: pos,
    })
}

/// The line from `start` up to its `\r` (its `*` or `$` included) and where the next one
/// starts, two bytes after the `\r`; `None` while that is not all in `buf`.
fn length_line<'a>(
    buf: &'a [u8],
    start: usize,
    limits: &Limits,
    too_big: ProtocolError,
) -> Result<Option<(&'a [u8], usize)>, ProtocolError> {
    let rest = buf.get(start..).unwrap_or_default();
    let Some(cr) = c_strchr(rest, b'\r') else {
        return if rest.len() > limits.max_inline_len {
            Err(too_big)
        } else {
            Ok(None)
        };
    };
    // "Buffer should also contain \n": one byte after the `\r`, whatever it is.
    if cr + 2 > rest.len() {
        return Ok(None);
    }
    Ok(Some((&rest[..cr], start + cr + 2)))
}

/// C's `strchr` on a buffer that sds keeps NUL-terminated: the first `c`, unless a NUL comes
/// first.
fn c_strchr(buf: &[u8], c: u8) -> Option<usize> {
    buf.iter()
        .position(|&b| b == c || b == 0)
        .filter(|&i| buf.get(i) == Some(&c))
}
