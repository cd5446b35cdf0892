//! RESP2 and RESP3 as Redis 7.0 speaks them: the value type, a pure encoder for either
//! protocol, the request decoder a server uses and the reply decoder a client uses.
//! Sans-IO: bytes in, values out.
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

/// A command's arguments, its name first, as they came off the wire.
pub type Args = Vec<Vec<u8>>;

/// Which protocol a connection speaks: RESP2 until `HELLO 3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// RESP2, every connection's start.
    #[default]
    Resp2,
    /// RESP3, after `HELLO 3`.
    Resp3,
}

/// One reply value, as Redis's reply API builds it (`addReplyBulk`, `addReplyMapLen`,
/// `addReplyNull` ...): the RESP3 types are values of their own, and the encoder writes
/// each in the connection's protocol, downgrading them for RESP2 as Redis does. Strings are
/// bytes: Redis keys, values and even error texts are binary.
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
    /// The null bulk string (a missing key, Lua's false or nil): `$-1\r\n`, RESP3 `_\r\n`.
    Null,
    /// `*2\r\n...`
    Array(Vec<Frame>),
    /// The null array: `*-1\r\n`, RESP3 `_\r\n`.
    NullArray,
    /// `%1\r\n` and the pairs; RESP2 a flat array of keys and values.
    Map(Vec<(Frame, Frame)>),
    /// `~2\r\n...`; RESP2 an array.
    Set(Vec<Frame>),
    /// `>2\r\n...`, out of band (pub/sub messages); RESP2 an array.
    Push(Vec<Frame>),
    /// `,1.5\r\n`, holding the text Redis prints (`%.17g`, `inf`, `-inf`); RESP2 a bulk
    /// string of that text.
    Double(Vec<u8>),
    /// `#t\r\n` / `#f\r\n`; RESP2 the integer 1 or 0.
    Boolean(bool),
    /// `(123\r\n`, the digits as given; RESP2 a bulk string.
    BigNumber(Vec<u8>),
    /// `=7\r\ntxt:abc\r\n`: text with its three-letter format; RESP2 a bulk string of
    /// the text alone.
    Verbatim {
        /// `txt` or `mkd`.
        format: [u8; 3],
        /// The text.
        text: Vec<u8>,
    },
}

impl Frame {
    /// The value as a RESP2 connection receives it (a map as a flat array, a double as its
    /// text ...): what Redis's RESP2 clients see, and scripts' `redis.call` unless the script
    /// chose RESP3 with `redis.setresp(3)`.
    pub fn into_resp2(self) -> Frame {
        let all =
            |items: Vec<Frame>| Frame::Array(items.into_iter().map(Frame::into_resp2).collect());
        match self {
            Frame::Array(items) | Frame::Set(items) | Frame::Push(items) => all(items),
            Frame::Map(pairs) => all(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect()),
            Frame::Double(text) | Frame::BigNumber(text) | Frame::Verbatim { text, .. } => {
                Frame::Bulk(text)
            }
            Frame::Boolean(b) => Frame::Integer(i64::from(b)),
            other => other,
        }
    }
}

/// Where the encoder is in an aggregate: the rest of its elements, or of its pairs.
enum Pending<'a> {
    Items(std::slice::Iter<'a, Frame>),
    Pairs(std::slice::Iter<'a, (Frame, Frame)>, Option<&'a Frame>),
}

impl<'a> Iterator for Pending<'a> {
    type Item = &'a Frame;

    fn next(&mut self) -> Option<&'a Frame> {
        match self {
            Pending::Items(items) => items.next(),
            Pending::Pairs(pairs, value) => value.take().or_else(|| {
                let (k, v) = pairs.next()?;
                *value = Some(v);
                Some(k)
            }),
        }
    }
}

/// Appends `frame` to `out` as Redis 7.0 writes it to a connection speaking `proto`.
///
/// Writes what it is given, as Redis's `addReply*` do: a `Simple` or `Error` holding `\r\n`
/// would break the stream, so whoever builds one from outside text maps CR and LF to spaces
/// first (as Redis does for error replies and Lua status replies). Aggregates are walked with
/// a stack of their own, so a deeply nested value cannot exhaust the call stack.
pub fn encode(frame: &Frame, proto: Protocol, out: &mut Vec<u8>) {
    let resp3 = proto == Protocol::Resp3;
    let mut open: Vec<Pending<'_>> = Vec::new();
    let mut next = frame;
    loop {
        match next {
            Frame::Simple(s) => line(out, b'+', s),
            Frame::Error(s) => line(out, b'-', s),
            Frame::Integer(n) => number_line(out, b':', *n),
            Frame::Bulk(data) => bulk(out, data),
            Frame::Null | Frame::NullArray if resp3 => out.extend_from_slice(b"_\r\n"),
            Frame::Null => out.extend_from_slice(b"$-1\r\n"),
            Frame::NullArray => out.extend_from_slice(b"*-1\r\n"),
            Frame::Set(items) if resp3 => open.push(header(out, b'~', items)),
            Frame::Push(items) if resp3 => open.push(header(out, b'>', items)),
            Frame::Array(items) | Frame::Set(items) | Frame::Push(items) => {
                open.push(header(out, b'*', items));
            }
            Frame::Map(pairs) if resp3 => {
                number_line(out, b'%', pairs.len() as i64);
                open.push(Pending::Pairs(pairs.iter(), None));
            }
            Frame::Map(pairs) => {
                number_line(out, b'*', 2 * pairs.len() as i64);
                open.push(Pending::Pairs(pairs.iter(), None));
            }
            Frame::Double(text) if resp3 => line(out, b',', text),
            Frame::BigNumber(text) if resp3 => line(out, b'(', text),
            Frame::Double(text) | Frame::BigNumber(text) => bulk(out, text),
            Frame::Boolean(b) if resp3 => line(out, b'#', if *b { b"t" } else { b"f" }),
            Frame::Boolean(b) => number_line(out, b':', i64::from(*b)),
            Frame::Verbatim { format, text } if resp3 => {
                number_line(out, b'=', text.len() as i64 + 4);
                out.extend_from_slice(format);
                out.push(b':');
                out.extend_from_slice(text);
                out.extend_from_slice(b"\r\n");
            }
            Frame::Verbatim { text, .. } => bulk(out, text),
        }
        next = loop {
            let Some(items) = open.last_mut() else {
                return;
            };
            match items.next() {
                Some(item) => break item,
                None => {
                    open.pop();
                }
            }
        };
    }
}

/// The header of an array of `len` items (`*2\r\n`), in either protocol: for a reply whose
/// items are written one by one (`Conn::encode_reply`).
pub fn encode_array_header(len: usize, out: &mut Vec<u8>) {
    number_line(out, b'*', len as i64);
}

/// An aggregate's header; its elements follow.
fn header<'a>(out: &mut Vec<u8>, kind: u8, items: &'a [Frame]) -> Pending<'a> {
    number_line(out, kind, items.len() as i64);
    Pending::Items(items.iter())
}

fn bulk(out: &mut Vec<u8>, data: &[u8]) {
    number_line(out, b'$', data.len() as i64);
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
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
