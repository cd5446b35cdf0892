//! One TCP connection to the server: buffered, cancel-safe reads and writes of frames, and
//! the connect handshake that opens it.

use crate::sim::timer::Timer;
use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadHalf, WriteHalf};

use super::config::Connector;
use super::error::{ProtocolError, ZkError};
use crate::zk::proto::{
    ConnectRequest, ConnectResponse, decode_connect_response, encode_connect_request, split_frame,
};

/// What one step of connection I/O did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IoEvent {
    /// Bytes arrived; frames may be ready.
    Received,
    /// Queued bytes went out (or were flushed).
    Sent,
    /// The server closed the connection.
    Eof,
    Failed(io::ErrorKind),
}

pub(super) struct Connection<S> {
    reader: ReadHalf<S>,
    writer: WriteHalf<S>,
    inbuf: Vec<u8>,
    outbuf: Vec<u8>,
    needs_flush: bool,
}

impl<S: AsyncRead + AsyncWrite> Connection<S> {
    fn new(stream: S) -> Self {
        let (reader, writer) = tokio::io::split(stream);
        Connection {
            reader,
            writer,
            inbuf: Vec::new(),
            outbuf: Vec::new(),
            needs_flush: false,
        }
    }

    /// Queues an encoded packet; `io` writes it out.
    pub(super) fn queue(&mut self, packet: &[u8]) {
        self.outbuf.extend_from_slice(packet);
    }

    /// The body of the next complete frame received, if any.
    pub(super) fn next_frame(&mut self) -> Result<Option<Vec<u8>>, ProtocolError> {
        let Some((body, consumed)) = split_frame(&self.inbuf)? else {
            return Ok(None);
        };
        let body = body.to_vec();
        self.inbuf.drain(..consumed);
        Ok(Some(body))
    }

    /// Reads or writes whatever can progress first. Cancel-safe: every branch is, so the
    /// driver can select on it against commands and timers.
    pub(super) async fn io(&mut self) -> IoEvent {
        let writing = !self.outbuf.is_empty();
        let flushing = !writing && self.needs_flush;
        tokio::select! {
            biased;
            read = self.reader.read_buf(&mut self.inbuf) => match read {
                Ok(0) => IoEvent::Eof,
                Ok(_) => IoEvent::Received,
                Err(err) => IoEvent::Failed(err.kind()),
            },
            progress = write_or_flush(&mut self.writer, &self.outbuf), if writing || flushing => {
                match progress {
                    Ok(0) if writing => IoEvent::Failed(io::ErrorKind::WriteZero),
                    Ok(n) => {
                        self.outbuf.drain(..n);
                        self.needs_flush = writing;
                        IoEvent::Sent
                    }
                    Err(err) => IoEvent::Failed(err.kind()),
                }
            }
        }
    }

    /// Reads until one whole frame is buffered and returns its body.
    async fn read_frame(&mut self) -> Result<Vec<u8>, ZkError> {
        loop {
            if let Some(body) = self.next_frame().map_err(ZkError::Protocol)? {
                return Ok(body);
            }
            match self.reader.read_buf(&mut self.inbuf).await {
                Ok(0) => return Err(ZkError::ConnectionLoss),
                Ok(_) => {}
                Err(err) => return Err(ZkError::Io(err.kind())),
            }
        }
    }
}

/// Writes some of `outbuf` (how much: the count), or flushes when it is empty (count 0).
async fn write_or_flush<W: AsyncWrite>(
    writer: &mut WriteHalf<W>,
    outbuf: &[u8],
) -> io::Result<usize> {
    if outbuf.is_empty() {
        writer.flush().await.map(|()| 0)
    } else {
        writer.write(outbuf).await
    }
}

/// One connect attempt: dial, send the ConnectRequest, read the ConnectResponse, all within
/// `limit` (a partitioned server makes either step hang). Bytes the server sent after the
/// response stay buffered in the returned connection.
pub(super) async fn attempt<S: AsyncRead + AsyncWrite>(
    connector: &Connector<S>,
    request: &ConnectRequest,
    limit_ms: u64,
    timer: &Timer,
) -> Result<(Connection<S>, ConnectResponse), ZkError> {
    let handshake = async {
        let stream = connector().await.map_err(|err| ZkError::Io(err.kind()))?;
        let mut conn = Connection::new(stream);
        let packet = encode_connect_request(request);
        let sent = async {
            conn.writer.write_all(&packet).await?;
            conn.writer.flush().await
        };
        sent.await.map_err(|err| ZkError::Io(err.kind()))?;
        let body = conn.read_frame().await?;
        let response = decode_connect_response(&body)
            .map_err(|err| ZkError::Protocol(ProtocolError::Decode(err)))?;
        Ok((conn, response))
    };
    timer
        .timeout(limit_ms, handshake)
        .await
        .unwrap_or(Err(ZkError::ConnectionLoss))
}
