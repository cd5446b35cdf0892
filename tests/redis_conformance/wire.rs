//! One client connection in raw RESP: bytes out, one reply's bytes back exactly as the server
//! sent them (cut with locksim's reply decoder), or what happened instead. What happened
//! instead is written in parentheses, which no RESP reply starts with.

use locksim::redis::resp::{ReplyLimits, decode_reply};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a reply may take. Both servers answer in well under a millisecond; this only
/// bounds a server that does not answer at all.
const REPLY_LIMIT: Duration = Duration::from_secs(2);

pub struct Conn {
    stream: TcpStream,
    /// Read but not yet handed out.
    buf: Vec<u8>,
}

impl Conn {
    /// A new connection, or what stopped it (a server that crashed refuses connections).
    pub fn open(addr: SocketAddr) -> Result<Conn, Vec<u8>> {
        let refused = |e: std::io::Error| format!("(cannot connect: {e})").into_bytes();
        let stream = TcpStream::connect(addr).map_err(refused)?;
        stream.set_nodelay(true).map_err(refused)?;
        stream
            .set_read_timeout(Some(REPLY_LIMIT))
            .map_err(refused)?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    /// Writes `bytes`; a server that closed the connection shows in the next read.
    pub fn send(&mut self, bytes: &[u8]) {
        let _ = self.stream.write_all(bytes);
    }

    /// The next reply's bytes, or what came instead.
    pub fn reply(&mut self) -> Vec<u8> {
        loop {
            match decode_reply(&self.buf, &ReplyLimits::default()) {
                Ok(Some((_, len))) => return self.buf.drain(..len).collect(),
                Ok(None) => {}
                Err(e) => {
                    let bytes = std::mem::take(&mut self.buf);
                    return format!("(not RESP: {e:?} in {})", escape(&bytes)).into_bytes();
                }
            }
            match self.read() {
                Got::Data => {}
                Got::Closed if self.buf.is_empty() => return b"(closed)".to_vec(),
                Got::Closed => {
                    let bytes = std::mem::take(&mut self.buf);
                    return format!("(closed after {})", escape(&bytes)).into_bytes();
                }
                Got::Silent => return b"(no reply)".to_vec(),
            }
        }
    }

    /// Whether the server has closed the connection, with nothing sent before.
    pub fn closed(&mut self) -> Vec<u8> {
        if !self.buf.is_empty() {
            let bytes = std::mem::take(&mut self.buf);
            return format!("(open: sent {})", escape(&bytes)).into_bytes();
        }
        match self.read() {
            Got::Closed => b"(closed)".to_vec(),
            Got::Silent => b"(open)".to_vec(),
            Got::Data => {
                let bytes = std::mem::take(&mut self.buf);
                format!("(open: sent {})", escape(&bytes)).into_bytes()
            }
        }
    }

    fn read(&mut self) -> Got {
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Got::Closed,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Got::Data
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Got::Silent
            }
            // A reset is the server closing with our bytes unread.
            Err(_) => Got::Closed,
        }
    }
}

enum Got {
    Data,
    Closed,
    /// Nothing within the reply limit.
    Silent,
}

/// Bytes as a quoted string: printable ASCII as it is, `\r`, `\n`, `\t`, `\\`, `\"`, and
/// `\xNN` for the rest.
pub fn escape(bytes: &[u8]) -> String {
    let mut text = String::from("\"");
    for &b in bytes {
        match b {
            b'\r' => text.push_str("\\r"),
            b'\n' => text.push_str("\\n"),
            b'\t' => text.push_str("\\t"),
            b'\\' => text.push_str("\\\\"),
            b'"' => text.push_str("\\\""),
            b' '..=b'~' => text.push(char::from(b)),
            _ => text.push_str(&format!("\\x{b:02x}")),
        }
    }
    text.push('"');
    text
}
