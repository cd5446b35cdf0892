//! Async Redis client over any `AsyncRead + AsyncWrite + Unpin` stream: a turmoil TCP stream
//! in the simulation, a tokio one against a real Redis 7. One request at a time, no
//! pipelining, no reconnect: a recipe owns one `RedisClient` per connection and makes a new
//! one when it wants to try again.
//!
//! A connection serves requests only while request and reply stay in step. Once a request
//! times out, or the connection fails or brings malformed bytes, a reply may still be on its
//! way, and it would be read as the answer to the next request. So the client drops the
//! stream at the first error and every later call fails at once with `CallError::Closed`.
//! The same goes for a `call` future dropped before it completes (the caller's own timeout
//! or `select!`): the stream is dropped with it.

mod error;

#[cfg(test)]
mod tests;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub use error::CallError;

use crate::redis::resp::{Frame, ReplyLimits, decode_reply, encode};
use crate::sim::timer::Timer;

/// How much room each read asks for: small replies arrive in one read.
const READ_CHUNK: usize = 4096;

/// One connection to a Redis server, used for one request at a time.
pub struct RedisClient<S> {
    /// `None` once the connection is dead, and while a request is in flight.
    stream: Option<S>,
    timer: Timer,
    timeout_ms: u64,
}

impl<S: AsyncRead + AsyncWrite + Unpin> RedisClient<S> {
    /// A client on an open connection. Each request waits at most `timeout_ms` on `timer`
    /// (the node's monotonic clock in the simulation, `Timer::tokio()` on a real socket).
    pub fn new(stream: S, timer: Timer, timeout_ms: u64) -> RedisClient<S> {
        RedisClient {
            stream: Some(stream),
            timer,
            timeout_ms,
        }
    }

    /// Sends `args` (the command name first) as a RESP array of bulk strings and returns
    /// the one reply. An error reply is a reply: `Ok(Frame::Error(_))`. Any `Err` leaves the
    /// connection dead (see the module doc). Only for commands that answer exactly once
    /// (not SUBSCRIBE or MONITOR); an empty `args` gets no answer and times out.
    pub async fn call(&mut self, args: &[&[u8]]) -> Result<Frame, CallError> {
        // Out of `self` while the request is in flight, so that an error or a dropped
        // future takes the connection with it.
        let Some(mut stream) = self.stream.take() else {
            return Err(CallError::Closed);
        };
        let mut request = Vec::new();
        let bulks = args.iter().map(|arg| Frame::Bulk(arg.to_vec())).collect();
        encode(&Frame::Array(bulks), &mut request);
        let reply = self
            .timer
            .timeout(self.timeout_ms, exchange(&mut stream, &request))
            .await
            .unwrap_or(Err(CallError::Timeout));
        if reply.is_ok() {
            self.stream = Some(stream);
        }
        reply
    }
}

/// Writes the request, then reads until one whole reply is buffered.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    request: &[u8],
) -> Result<Frame, CallError> {
    let sent = async {
        stream.write_all(request).await?;
        stream.flush().await
    };
    sent.await.map_err(|_| CallError::Closed)?;
    let limits = ReplyLimits::default();
    let mut buf = Vec::new();
    loop {
        if let Some((reply, used)) = decode_reply(&buf, &limits).map_err(CallError::Protocol)? {
            return if used == buf.len() {
                Ok(reply)
            } else {
                Err(CallError::Unsolicited)
            };
        }
        buf.reserve(READ_CHUNK);
        match stream.read_buf(&mut buf).await {
            Ok(0) | Err(_) => return Err(CallError::Closed),
            Ok(_) => {}
        }
    }
}
