//! RESP2 as Redis 7.0 speaks it: the value type, a pure encoder, the request decoder a
//! server uses and the reply decoder a client uses. Sans-IO: bytes in, values out.
//!
//! Layout: `request` holds the limits and error texts of client requests, `reader` parses
//! them (multibulk and inline) as bytes arrive, `inline` splits an inline line the way
//! `sdssplitargs` does, `reply` reads any value back (for clients), `encode` below writes one.

mod inline;
mod reader;
mod reply;
mod request;
#[cfg(test)]
mod tests;

pub use reader::RequestReader;
pub use reply::{ReplyError, ReplyLimits, decode_reply};
pub use request::{Decoded, Limits, ProtocolError, decode_request};

/// One RESP2 value. Strings are bytes: Redis keys, values and even error texts are binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// `+OK\r\n`
    Simple(Vec<u8>),
    /// `-ERR ...\r\n`
    Error(Vec<u8>),
    /// `:42\r\n`
    Integer(i64),
    /// `$3\r\nfoo\r\n`
    Bulk(Vec<u8>),
    /// `$-1\r\n`: the null bulk string (a missing key, Lua's false or nil).
    Null,
    /// `*2\r\n...`
    Array(Vec<Frame>),
    /// `*-1\r\n`
    NullArray,
}

/// Appends `frame` in RESP2 to `out`.
///
/// Writes what it is given, as Redis's `addReply*` do: a `Simple` or `Error` holding `\r\n`
/// would break the stream, so whoever builds one from outside text maps CR and LF to spaces
/// first (as Redis does for error replies and Lua status replies). Arrays are walked with a
/// stack of their own, so a deeply nested value cannot exhaust the call stack.
pub fn encode(frame: &Frame, out: &mut Vec<u8>) {
    let mut arrays: Vec<std::slice::Iter<'_, Frame>> = Vec::new();
    let mut next = frame;
    loop {
        match next {
            Frame::Simple(s) => line(out, b'+', s),
            Frame::Error(s) => line(out, b'-', s),
            Frame::Integer(n) => number_line(out, b':', *n),
            Frame::Bulk(data) => {
                number_line(out, b'$', data.len() as i64);
                out.extend_from_slice(data);
                out.extend_from_slice(b"\r\n");
            }
            Frame::Null => out.extend_from_slice(b"$-1\r\n"),
            Frame::Array(items) => {
                number_line(out, b'*', items.len() as i64);
                arrays.push(items.iter());
            }
            Frame::NullArray => out.extend_from_slice(b"*-1\r\n"),
        }
        next = loop {
            let Some(items) = arrays.last_mut() else {
                return;
            };
            match items.next() {
                Some(item) => break item,
                None => {
                    arrays.pop();
                }
            }
        };
    }
}

/// A command as clients send it, an array of bulk strings, encoded straight from its
/// arguments (the same bytes as `encode` of that array, without building it first).
pub fn encode_command(args: &[&[u8]], out: &mut Vec<u8>) {
    out.reserve(16 + args.iter().map(|arg| arg.len() + 16).sum::<usize>());
    number_line(out, b'*', args.len() as i64);
    for arg in args {
        number_line(out, b'$', arg.len() as i64);
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
}

fn line(out: &mut Vec<u8>, kind: u8, text: &[u8]) {
    out.push(kind);
    out.extend_from_slice(text);
    out.extend_from_slice(b"\r\n");
}

/// A line holding a decimal number, written without a `String` in between: every request
/// and reply has a few, and formatting them was a fair share of what encoding cost.
fn number_line(out: &mut Vec<u8>, kind: u8, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        digits[at] = b'-';
    }
    line(out, kind, &digits[at..]);
}
