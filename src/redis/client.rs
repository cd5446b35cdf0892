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
//! or a race it lost): the stream is dropped with it.

mod error;

#[cfg(test)]
mod tests;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub use error::{CallError, CommandError, ErrorKind, ServerError};

use crate::redis::resp::{Frame, Protocol, ReplyLimits, decode_reply, encode_command};
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
        encode_command(args, &mut request);
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

    /// `HELLO 2` or `HELLO 3`: switches the connection's protocol and returns the server's
    /// map about itself (version, client id, role ...). The typed helpers read the replies
    /// of either protocol (a missing key is `_` in RESP3, `$-1` in RESP2: `Frame::Null`
    /// both).
    pub async fn hello(&mut self, proto: Protocol) -> Result<Frame, CommandError> {
        let version: &[u8] = match proto {
            Protocol::Resp2 => b"2",
            Protocol::Resp3 => b"3",
        };
        self.command(&[b"HELLO", version]).await
    }

    /// `SET key value NX PX ttl_ms`: true if this call created the key, false if it existed.
    pub async fn set_nx_px(
        &mut self,
        key: &[u8],
        value: &[u8],
        ttl_ms: u64,
    ) -> Result<bool, CommandError> {
        let ttl = ttl_ms.to_string();
        let args: [&[u8]; 6] = [b"SET", key, value, b"NX", b"PX", ttl.as_bytes()];
        match self.command(&args).await? {
            Frame::Simple(ok) if ok == b"OK" => Ok(true),
            Frame::Null => Ok(false),
            other => Err(CommandError::Unexpected(other)),
        }
    }

    /// `GET key`: the value, or None when the key does not exist.
    pub async fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CommandError> {
        match self.command(&[b"GET", key]).await? {
            Frame::Bulk(value) => Ok(Some(value)),
            Frame::Null => Ok(None),
            other => Err(CommandError::Unexpected(other)),
        }
    }

    /// `DEL key`: true if the key existed.
    pub async fn del(&mut self, key: &[u8]) -> Result<bool, CommandError> {
        match self.command(&[b"DEL", key]).await? {
            Frame::Integer(n) => Ok(n > 0),
            other => Err(CommandError::Unexpected(other)),
        }
    }

    /// `EVAL script numkeys key... arg...`: the script's value. An error the script raises
    /// or returns is `CommandError::Server`.
    pub async fn eval(
        &mut self,
        script: &[u8],
        keys: &[&[u8]],
        args: &[&[u8]],
    ) -> Result<Frame, CommandError> {
        self.script(b"EVAL", script, keys, args).await
    }

    /// `EVALSHA sha1 numkeys key... arg...`, and `EVAL` of `script` when the server answers
    /// NOSCRIPT (its cache is empty after a restart or failover), as real clients do:
    /// NOSCRIPT means nothing ran, so running the script then runs it once. `sha1` is the
    /// lowercase hex SHA1 of `script`. Each of the two requests has its own timeout.
    pub async fn evalsha(
        &mut self,
        sha1: &str,
        script: &[u8],
        keys: &[&[u8]],
        args: &[&[u8]],
    ) -> Result<Frame, CommandError> {
        match self.script(b"EVALSHA", sha1.as_bytes(), keys, args).await {
            Err(CommandError::Server(err)) if err.kind() == ErrorKind::NoScript => {
                self.eval(script, keys, args).await
            }
            reply => reply,
        }
    }

    /// `name body numkeys key... arg...`: EVAL or EVALSHA.
    async fn script(
        &mut self,
        name: &[u8],
        body: &[u8],
        keys: &[&[u8]],
        args: &[&[u8]],
    ) -> Result<Frame, CommandError> {
        let numkeys = keys.len().to_string();
        let mut request = vec![name, body, numkeys.as_bytes()];
        request.extend_from_slice(keys);
        request.extend_from_slice(args);
        self.command(&request).await
    }

    /// `call`, with an error reply as `CommandError::Server`.
    async fn command(&mut self, args: &[&[u8]]) -> Result<Frame, CommandError> {
        match self.call(args).await? {
            Frame::Error(text) => Err(CommandError::Server(ServerError::new(text))),
            reply => Ok(reply),
        }
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
