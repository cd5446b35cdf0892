//! Client requests as Redis 7.0 reads them (networking.c `processInputBuffer`,
//! `processMultibulkBuffer`, `processInlineBuffer`): a multibulk `*N\r\n$len\r\n...` when the
//! first byte is `*`, otherwise one inline line.
//!
//! This file holds the limits, the errors and a one-shot decoder; `reader` parses as bytes
//! arrive.

use super::reader::Parser;

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

/// Decodes the request at the start of `buf`, a buffer read whole (tests, tools, a fake
/// server). A connection reads with [`RequestReader`](super::RequestReader) instead: this
/// parses `buf` from its start on every call.
pub fn decode_request(buf: &[u8], limits: &Limits) -> Result<Decoded, ProtocolError> {
    match Parser::default().advance(buf, limits)? {
        (consumed, Some(args)) => Ok(Decoded::Request { args, consumed }),
        (_, None) => Ok(Decoded::Incomplete),
    }
}
