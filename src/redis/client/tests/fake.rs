//! A scripted server: the far end of a `tokio::io::duplex`, read with the server's request
//! decoder and answered with canned bytes.

use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use crate::redis::client::RedisClient;
use crate::redis::resp::{Decoded, Limits, decode_request};
use crate::sim::timer::Timer;

pub(super) const TIMEOUT_MS: u64 = 1_000;

/// A client and the server end of its connection. With `buffer` 1 every byte is a write of
/// its own, so the client reads each reply in one-byte pieces.
pub(super) fn connect(buffer: usize) -> (RedisClient<DuplexStream>, Peer) {
    let (near, far) = tokio::io::duplex(buffer);
    let client = RedisClient::new(near, Timer::tokio(), TIMEOUT_MS);
    let peer = Peer {
        stream: far,
        buf: Vec::new(),
    };
    (client, peer)
}

/// A roomy connection, for tests that are not about how bytes are split.
pub(super) fn open() -> (RedisClient<DuplexStream>, Peer) {
    connect(64 * 1024)
}

pub(super) struct Peer {
    stream: DuplexStream,
    buf: Vec<u8>,
}

impl Peer {
    /// The next request: its arguments and its exact bytes.
    pub(super) async fn request(&mut self) -> (Vec<Vec<u8>>, Vec<u8>) {
        loop {
            match decode_request(&self.buf, &Limits::default()) {
                Ok(Decoded::Request { args, consumed }) => {
                    let raw = self.buf.drain(..consumed).collect();
                    return (args, raw);
                }
                Ok(Decoded::Incomplete) => {}
                Err(err) => panic!("not a request: {err:?}"),
            }
            let read = self.stream.read_buf(&mut self.buf).await.unwrap();
            assert_ne!(read, 0, "the client closed the connection");
        }
    }

    /// Reads the next request, which must be `args`, and answers `reply`.
    pub(super) async fn answer(&mut self, args: &[&[u8]], reply: &[u8]) {
        let (got, _) = self.request().await;
        assert_eq!(got, args);
        self.send(reply).await;
    }

    pub(super) async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// Whether the client hung up with nothing more sent. Waits for one or the other.
    pub(super) async fn hung_up(&mut self) -> bool {
        self.buf.is_empty() && matches!(self.stream.read_buf(&mut self.buf).await, Ok(0))
    }
}
