//! One connection served: each read (at most [`READ_LEN`]) goes to the core at once and its
//! replies are written before the next read, so a client that sends without reading slows
//! only itself. What other connections send it is written between reads, before the next
//! one.

use super::writers::{Queue, Queued};
use super::{Env, HostEvent, READ_LEN, SharedHost};
use crate::redis::conn::Conn;
use std::rc::Rc;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Serves `client`'s connection `stream` until either side closes it; then its watches and
/// subscriptions go, and the stream is handed back for its driver to close as its sockets
/// close.
pub(crate) async fn serve_conn<E: Env, S: AsyncRead + AsyncWrite + Unpin>(
    host: SharedHost<E>,
    client: String,
    mut stream: S,
) -> S {
    let (mut conn, mut from_others, queued, mut buf) = {
        let mut h = host.borrow_mut();
        let conn = h.server.connect();
        let (from_others, queued) = h.writers.open(conn.id(), &client);
        h.env.observe(HostEvent::Accepted {
            conn: conn.id(),
            client: &client,
        });
        // A buffer a connection that ended left, or a fresh one.
        let buf = h.buffers.pop().unwrap_or_else(|| vec![0; READ_LEN]);
        (conn, from_others, queued, buf)
    };
    let by_server = converse(
        &host,
        &client,
        &mut stream,
        &mut conn,
        &mut from_others,
        &queued,
        &mut buf,
    )
    .await;
    let mut h = host.borrow_mut();
    h.buffers.push(buf);
    h.writers.close(conn.id(), &queued);
    h.server.disconnect(&mut conn);
    h.env.observe(HostEvent::Closed {
        conn: conn.id(),
        by_server,
    });
    stream
}

/// Requests in, replies out, until either side closes; returns whether the server closed
/// it. Every wait, a write to a client that does not read included, ends when the host
/// drops the connection for its output limit.
async fn converse<E: Env, S: AsyncRead + AsyncWrite + Unpin>(
    host: &SharedHost<E>,
    client: &str,
    stream: &mut S,
    conn: &mut Conn,
    from_others: &mut Queue,
    queued: &Rc<Queued>,
    buf: &mut [u8],
) -> bool {
    loop {
        // Only a connection that may hear from others waits on its queue as well: a plain
        // client's task awaits the socket alone, without polling the empty queue on every
        // read (most of what deliveries would cost it).
        let may_receive = !from_others.is_empty() || host.borrow().may_receive(conn.id());
        let read = if may_receive {
            tokio::select! {
                biased;
                () = queued.dropped.notified() => return true,
                Some((bytes, unblocks)) = from_others.recv() => {
                    let written = tokio::select! {
                        biased;
                        () = queued.dropped.notified() => return true,
                        written = stream.write_all(&bytes) => written,
                    };
                    if written.is_err() {
                        return false;
                    }
                    queued.unwritten.set(queued.unwritten.get() - bytes.len());
                    if !unblocks {
                        continue;
                    }
                    // Answered: on with what it sent while blocked.
                    0
                }
                read = stream.read(buf) => match read {
                    Ok(n) if n > 0 => n,
                    _ => return false,
                },
            }
        } else {
            match stream.read(buf).await {
                Ok(n) if n > 0 => n,
                _ => return false,
            }
        };
        let output = host.borrow_mut().handle_input(client, conn, &buf[..read]);
        let written = tokio::select! {
            biased;
            () = queued.dropped.notified() => return true,
            written = stream.write_all(&output.bytes) => written,
        };
        if written.is_err() {
            return false;
        }
        if output.close {
            return true;
        }
    }
}
