//! RESP2 as Redis 7.0 speaks it: the value type, a pure encoder, the request decoder a
//! server uses and the reply decoder a client uses. Sans-IO: bytes in, values out.
//!
//! Layout: `request` reads client requests (multibulk and inline, with Redis's limits and
//! error texts), `inline` splits an inline line the way `sdssplitargs` does, `reply` reads
//! any value back (for clients), `encode` below writes one.

mod inline;
mod reply;
mod request;
#[cfg(test)]
mod tests;

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
            Frame::Integer(n) => line(out, b':', n.to_string().as_bytes()),
            Frame::Bulk(data) => {
                line(out, b'$', data.len().to_string().as_bytes());
                out.extend_from_slice(data);
                out.extend_from_slice(b"\r\n");
            }
            Frame::Null => out.extend_from_slice(b"$-1\r\n"),
            Frame::Array(items) => {
                line(out, b'*', items.len().to_string().as_bytes());
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

fn line(out: &mut Vec<u8>, kind: u8, text: &[u8]) {
    out.push(kind);
    out.extend_from_slice(text);
    out.extend_from_slice(b"\r\n");
}
