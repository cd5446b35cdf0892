//! Requests read as bytes arrive. Redis keeps a half-parsed request in its `client` struct
//! between reads (`reqtype`, `multibulklen`, `argv`, `bulklen`); [`Parser`] keeps the same,
//! so each read resumes where the last one stopped and no byte is looked at twice: a request
//! costs time linear in its size however the network splits it. Memory follows the bytes
//! that arrived, never a declared count or length (Redis's first guess at argv is capped at
//! 1024 too).
//!
//! Redis reads at most 16 KiB (PROTO_IOBUF_LEN) at a time and checks the "too big" limits
//! after each read: a driver that feeds the same slices draws the line where Redis does.
//!
//! Quirks kept on purpose, each pinned by a test: line ends are found with C's `strchr`, so a
//! NUL byte before the `\r` (or the inline `\n`) leaves the request incomplete; the byte after
//! a length line's `\r`, and the two after a bulk's data, are skipped unread.

use super::inline::split_args;
use super::request::{Limits, ProtocolError};
use crate::redis::num::parse_i64;
use crate::redis::resp::Args;

/// How many arguments a multibulk count may reserve room for before they arrive (Redis's
/// `min(multibulklen, 1024)`).
const FIRST_ARGS: usize = 1024;

/// A request in progress: the pure core of [`RequestReader`], fed the input that follows
/// what it consumed so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Parser {
    state: State,
    /// Bytes looked at so far (searched for a line end, split, or copied into an argument).
    examined: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum State {
    /// Between requests: the next byte says which kind comes.
    #[default]
    Start,
    /// An inline line; its first `searched` bytes hold no `\n` (nor a NUL).
    Inline { searched: usize },
    /// The `*N` line; its first `searched` bytes hold no `\r` (nor a NUL).
    Count { searched: usize },
    /// The arguments of a multibulk request: `left` of them still to come.
    Args { left: usize, args: Args, bulk: Bulk },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Bulk {
    /// The `$len` line; its first `searched` bytes hold no `\r` (nor a NUL).
    Len { searched: usize },
    /// The data of an argument `len` bytes long, as much as arrived.
    Data { arg: Vec<u8>, len: usize },
}

impl Parser {
    /// Parses on through `input` (the bytes after those consumed by earlier calls): how many
    /// bytes it consumed, and the request if one was completed. A request may have no
    /// arguments (an empty inline line, `*0`, `*-1`): Redis runs nothing and replies nothing.
    /// After an error the parser is spent; Redis closes the connection.
    pub(super) fn advance(
        &mut self,
        input: &[u8],
        limits: &Limits,
    ) -> Result<(usize, Option<Args>), ProtocolError> {
        let mut used = 0;
        loop {
            let rest = input.get(used..).unwrap_or_default();
            match &mut self.state {
                State::Start => match rest.first() {
                    None => return Ok((used, None)),
                    Some(b'*') => self.state = State::Count { searched: 0 },
                    Some(_) => self.state = State::Inline { searched: 0 },
                },
                State::Inline { searched } => {
                    let Some(newline) = find(rest, searched, b'\n', &mut self.examined) else {
                        if rest.len() > limits.max_inline_len {
                            return Err(ProtocolError::TooBigInlineRequest);
                        }
                        return Ok((used, None));
                    };
                    let line = &rest[..newline];
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    self.examined += line.len() as u64;
                    let args = split_args(line).ok_or(ProtocolError::UnbalancedQuotes)?;
                    self.state = State::Start;
                    return Ok((used + newline + 1, Some(args)));
                }
                State::Count { searched } => {
                    let too_big = ProtocolError::TooBigMbulkCount;
                    let examined = &mut self.examined;
                    let Some(line) = length_line(rest, searched, limits, too_big, examined)? else {
                        return Ok((used, None));
                    };
                    used += line.len() + 2;
                    // The line starts with the `*` that chose this state.
                    let count = match parse_i64(line.get(1..).unwrap_or_default()) {
                        Some(n) if n <= 0 => {
                            self.state = State::Start;
                            return Ok((used, Some(Vec::new())));
                        }
                        Some(n) => usize::try_from(n)
                            .ok()
                            .filter(|&n| n <= limits.max_multibulk_len)
                            .ok_or(ProtocolError::InvalidMultibulkLength)?,
                        None => return Err(ProtocolError::InvalidMultibulkLength),
                    };
                    self.state = State::Args {
                        left: count,
                        args: Vec::with_capacity(count.min(FIRST_ARGS)),
                        bulk: Bulk::Len { searched: 0 },
                    };
                }
                State::Args { left, args, bulk } => match bulk {
                    Bulk::Len { searched } => {
                        let too_big = ProtocolError::TooBigBulkCount;
                        let examined = &mut self.examined;
                        let Some(line) = length_line(rest, searched, limits, too_big, examined)?
                        else {
                            return Ok((used, None));
                        };
                        used += line.len() + 2;
                        let len = bulk_len(line, limits)?;
                        *bulk = Bulk::Data {
                            arg: Vec::new(),
                            len,
                        };
                    }
                    Bulk::Data { arg, len } => {
                        let take = (*len - arg.len()).min(rest.len());
                        extend_within(arg, &rest[..take], *len);
                        self.examined += take as u64;
                        used += take;
                        // The two bytes after the data must be there; Redis skips them
                        // without a look.
                        if arg.len() < *len || rest.len() - take < 2 {
                            return Ok((used, None));
                        }
                        used += 2;
                        args.push(std::mem::take(arg));
                        *left -= 1;
                        *bulk = Bulk::Len { searched: 0 };
                        if *left == 0 {
                            let args = std::mem::take(args);
                            self.state = State::Start;
                            return Ok((used, Some(args)));
                        }
                    }
                },
            }
        }
    }

    /// The data of the argument being read: Redis still holds it in its query buffer.
    fn partial_len(&self) -> usize {
        match &self.state {
            State::Args {
                bulk: Bulk::Data { arg, .. },
                ..
            } => arg.len(),
            _ => 0,
        }
    }
}

/// C's `strchr(input, c)` resumed after the `searched` bytes already known to hold neither
/// `c` nor a NUL: where `c` is, or `None` while it has not arrived. Redis's query buffer is a
/// C string to `strchr`, so a NUL before `c` hides it for good; `searched` then stays on the
/// NUL.
fn find(input: &[u8], searched: &mut usize, c: u8, examined: &mut u64) -> Option<usize> {
    let from = (*searched).min(input.len());
    let rest = &input[from..];
    match rest.iter().position(|&b| b == c || b == 0) {
        Some(i) => {
            *examined += i as u64 + 1;
            *searched = from + i;
            (rest[i] == c).then_some(from + i)
        }
        None => {
            *examined += rest.len() as u64;
            *searched = input.len();
            None
        }
    }
}

/// A `*N` or `$len` line at the start of `input`, up to its `\r` (its `*` or `$` included),
/// once the byte after the `\r` has arrived too; `too_big` once more than the inline limit
/// waits without a `\r`.
fn length_line<'a>(
    input: &'a [u8],
    searched: &mut usize,
    limits: &Limits,
    too_big: ProtocolError,
    examined: &mut u64,
) -> Result<Option<&'a [u8]>, ProtocolError> {
    let Some(cr) = find(input, searched, b'\r', examined) else {
        return if input.len() > limits.max_inline_len {
            Err(too_big)
        } else {
            Ok(None)
        };
    };
    // "Buffer should also contain \n": one byte after the `\r`, whatever it is.
    if cr + 2 > input.len() {
        return Ok(None);
    }
    Ok(Some(&input[..cr]))
}

/// The length a `$len` line declares.
fn bulk_len(line: &[u8], limits: &Limits) -> Result<usize, ProtocolError> {
    let Some((&kind, digits)) = line.split_first() else {
        // A line starting with its own `\r`: Redis reports the `\r` as the byte it got.
        return Err(ProtocolError::ExpectedDollar(b'\r'));
    };
    if kind != b'$' {
        return Err(ProtocolError::ExpectedDollar(kind));
    }
    parse_i64(digits)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= limits.max_bulk_len)
        .ok_or(ProtocolError::InvalidBulkLength)
}

/// Appends `bytes` to an argument declared `len` bytes long. Its room grows with what
/// arrives, doubling for amortised linear time but never past `len`: a client that declares
/// 512 MB and sends nothing costs nothing.
fn extend_within(arg: &mut Vec<u8>, bytes: &[u8], len: usize) {
    let need = arg.len() + bytes.len();
    if need > arg.capacity() {
        let room = need.max(arg.capacity().saturating_mul(2)).min(len);
        arg.reserve_exact(room - arg.len());
    }
    arg.extend_from_slice(bytes);
}

/// One connection's requests, read as they arrive: [`feed`](Self::feed) each read, then take
/// [`next_request`](Self::next_request) until it has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestReader {
    /// Bytes read; those from `pos` on are not parsed yet.
    buf: Vec<u8>,
    pos: usize,
    parser: Parser,
}

impl RequestReader {
    /// Appends what one read brought. What was parsed is dropped first, so the buffer holds
    /// only the unfinished piece (a line, or the start of the next request) and the new bytes:
    /// each byte moves at most once.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole request (`Ok(None)`: feed more bytes), or the protocol error that ends
    /// the connection. Requests with no arguments come back empty: skip them.
    pub fn next_request(&mut self, limits: &Limits) -> Result<Option<Args>, ProtocolError> {
        let pending = self.buf.get(self.pos..).unwrap_or_default();
        let (used, request) = self.parser.advance(pending, limits)?;
        self.pos += used;
        Ok(request)
    }

    /// What Redis would hold in its query buffer now: the bytes not yet parsed plus the
    /// argument being read (the ones already read sit in argv, outside the buffer).
    /// client-query-buffer-limit applies to this.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.pos + self.parser.partial_len()
    }

    /// How many bytes the parser has looked at so far: at most a small multiple of the bytes
    /// fed, however they were split (tests pin it).
    pub fn examined(&self) -> u64 {
        self.parser.examined
    }
}

#[cfg(test)]
mod tests;
