//! Serving the sans-IO core over byte streams: one core for every connection, each read
//! handed to it as it comes, the active expiry on Redis's cycle. What differs between
//! drivers (clocks, what to log or record) is the `Env`, as in `zk::host`: `locksim serve
//! redis` is the first driver, and a turmoil host can serve through the same code, so the
//! two never diverge. Nothing here spawns tasks or reads a clock.
//!
//! What one connection's command sends to another (a pub/sub message) goes through that
//! connection's writer: an unbounded queue its task drains between reads, ahead of reading
//! more. Redis would drop a subscriber whose output outgrows `client-output-buffer-limit`;
//! nothing here bounds it.

use crate::redis::clock::Now;
use crate::redis::command::Args;
use crate::redis::server::Server;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The most one read takes: Redis's PROTO_IOBUF_LEN. The core checks its request limits
/// after each read, so handing it the same slices draws the line where Redis does.
pub const READ_LEN: usize = 16 * 1024;

/// How often the active expiry runs: Redis's default `hz` of 10.
pub const EXPIRE_PERIOD: Duration = Duration::from_millis(100);

/// What a host reports as it serves, for a log or a history.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent<'a> {
    Accepted {
        conn: u64,
        client: &'a str,
    },
    /// The connection ended; `by_server` when the core ended it (QUIT, a protocol error, a
    /// request that looks like HTTP) rather than the client or the network.
    Closed {
        conn: u64,
        by_server: bool,
    },
    /// What the core would send to replicas and the AOF: a client's writes (`conn`), or the
    /// DELs of the active expiry (`None`).
    Propagated {
        conn: Option<u64>,
        commands: &'a [Args],
    },
}

/// Everything about the surroundings the core's driver needs.
pub trait Env {
    /// The server's clocks now.
    fn now(&self) -> Now;
    fn observe(&mut self, event: HostEvent<'_>);
}

/// The core and what surrounds it.
pub struct Host<E> {
    pub env: E,
    server: Server,
    /// Each open connection's queue of bytes from other connections, by client id.
    writers: BTreeMap<u64, Writer>,
}

/// A connection's queue: bytes, and whether they answer its blocked command.
type Writer = mpsc::UnboundedSender<(Vec<u8>, bool)>;

pub type SharedHost<E> = Rc<RefCell<Host<E>>>;

impl<E: Env> Host<E> {
    pub fn new(env: E, server: Server) -> SharedHost<E> {
        Rc::new(RefCell::new(Host {
            env,
            server,
            writers: BTreeMap::new(),
        }))
    }

    /// Hands what the last commands sent to other connections to their writers.
    fn route(&mut self) {
        for delivery in self.server.take_deliveries() {
            if let Some(writer) = self.writers.get(&delivery.client) {
                // A connection that is ending no longer reads its queue.
                let _ = writer.send((delivery.bytes, delivery.unblocks));
            }
        }
    }

    fn propagated(&mut self, conn: Option<u64>, commands: &[Args]) {
        if !commands.is_empty() {
            self.env.observe(HostEvent::Propagated { conn, commands });
        }
    }
}

/// Runs the active expiry every [`EXPIRE_PERIOD`], as Redis's `serverCron` does, and
/// answers the blocked clients whose timeout passed (Redis's event loop, which `hz 10`
/// wakes as often, does the same).
pub async fn expire_keys<E: Env>(host: SharedHost<E>) {
    loop {
        tokio::time::sleep(EXPIRE_PERIOD).await;
        let mut h = host.borrow_mut();
        let now = h.env.now();
        let dels = h.server.active_expire(now);
        h.propagated(None, &dels);
        h.server.expire_blocked(now);
        h.route();
    }
}

/// Serves one connection from `client` until either side closes it. Each read (at most
/// [`READ_LEN`]) goes to the core at once and its replies are written before the next read,
/// so a client that sends without reading slows only itself. What other connections send
/// it is written between reads, before the next one.
pub async fn serve_conn<E: Env, S: AsyncRead + AsyncWrite>(
    host: SharedHost<E>,
    client: String,
    stream: S,
) {
    tokio::pin!(stream);
    let (writer, mut from_others) = mpsc::unbounded_channel();
    let mut conn = {
        let mut h = host.borrow_mut();
        let conn = h.server.connect();
        h.writers.insert(conn.id(), writer);
        h.env.observe(HostEvent::Accepted {
            conn: conn.id(),
            client: &client,
        });
        conn
    };
    let mut buf = vec![0; READ_LEN];
    let by_server = loop {
        let read = tokio::select! {
            biased;
            Some((bytes, unblocks)) = from_others.recv() => {
                if stream.write_all(&bytes).await.is_err() {
                    break false;
                }
                if !unblocks {
                    continue;
                }
                // Answered: on with what it sent while blocked.
                0
            }
            read = stream.read(&mut buf) => match read {
                Ok(n) if n > 0 => n,
                _ => break false,
            },
        };
        let output = {
            let mut h = host.borrow_mut();
            let now = h.env.now();
            let output = h.server.handle_input(&mut conn, &buf[..read], now);
            h.propagated(Some(conn.id()), &output.propagate);
            h.route();
            output
        };
        if stream.write_all(&output.bytes).await.is_err() {
            break false;
        }
        if output.close {
            break true;
        }
    };
    let _ = stream.shutdown().await;
    host.borrow_mut().writers.remove(&conn.id());
    host.borrow_mut().server.disconnect(&mut conn);
    host.borrow_mut().env.observe(HostEvent::Closed {
        conn: conn.id(),
        by_server,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::server::Config;

    /// A stopped clock that writes down what it is told.
    struct Recorder {
        events: Vec<String>,
    }

    impl Env for Recorder {
        fn now(&self) -> Now {
            Now {
                wall_ms: 1_700_000_000_000,
                mono_ms: 0,
            }
        }

        fn observe(&mut self, event: HostEvent<'_>) {
            self.events.push(format!("{event:?}"));
        }
    }

    #[tokio::test]
    async fn writes_are_reported_and_a_protocol_error_ends_the_connection_from_the_server() {
        let host = Host::new(
            Recorder { events: Vec::new() },
            Server::new(Config::default()),
        );
        let (mut client, server_side) = tokio::io::duplex(64);
        let local = tokio::task::LocalSet::new();
        let served = local.run_until(async {
            let serving =
                tokio::task::spawn_local(serve_conn(host.clone(), "c".into(), server_side));
            client
                .write_all(b"SET k v\r\nGET k\r\n*x\r\n")
                .await
                .unwrap();
            let mut replies = Vec::new();
            client.read_to_end(&mut replies).await.unwrap();
            serving.await.unwrap();
            replies
        });
        let replies = served.await;
        assert_eq!(
            replies,
            b"+OK\r\n$1\r\nv\r\n-ERR Protocol error: invalid multibulk length\r\n"
        );
        let events = &host.borrow().env.events;
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(events[0].starts_with("Accepted { conn: 2"), "{events:?}");
        assert!(
            events[1].starts_with("Propagated { conn: Some(2)"),
            "{events:?}"
        );
        assert_eq!(events[2], "Closed { conn: 2, by_server: true }");
    }
}
