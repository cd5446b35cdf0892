//! Serving the sans-IO core over byte streams: one core for every connection, each read
//! handed to it as it comes, the active expiry on Redis's cycle. What differs between
//! drivers (clocks, what to log) is the `Env`, as in `zk::host`. `locksim serve redis` is
//! its driver; the simulation's host (`sim_host`) runs the same core through a loop of its
//! own, which records the history, loses replies and fails over, and does not bound a
//! subscriber's output. Nothing here spawns tasks or reads a clock.
//!
//! What one connection's command sends to another (a pub/sub message) goes through that
//! connection's writer: a queue its task drains between reads, ahead of reading more. A
//! subscriber whose unwritten messages outgrow Redis's `client-output-buffer-limit` for its
//! class (`output_limit`) is dropped, as Redis drops it.

use crate::redis::clock::Now;
use crate::redis::command::Args;
use crate::redis::output_limit;
use crate::redis::server::Server;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, mpsc};

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
    /// A subscriber's unwritten messages reached its output limit: the server drops it.
    OutputLimit {
        conn: u64,
        unwritten: usize,
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
    /// The queue of bytes from other connections of each connection being served, by
    /// client id; a subscriber dropped for its output limit leaves at once.
    writers: BTreeMap<u64, Writer>,
}

/// A connection's queue of bytes from other connections, each with whether it answers the
/// connection's blocked command.
struct Writer {
    queue: mpsc::UnboundedSender<(Vec<u8>, bool)>,
    state: Rc<Queued>,
    /// Since when its unwritten bytes have been at the soft output limit.
    soft_since: Option<u64>,
}

/// What the host and a connection's task share about its queue.
#[derive(Default)]
struct Queued {
    /// Bytes queued and not yet written.
    unwritten: Cell<usize>,
    /// Told when the host drops the connection for its output limit.
    dropped: Notify,
}

pub type SharedHost<E> = Rc<RefCell<Host<E>>>;

impl<E: Env> Host<E> {
    pub fn new(env: E, server: Server) -> SharedHost<E> {
        Rc::new(RefCell::new(Host {
            env,
            server,
            writers: BTreeMap::new(),
        }))
    }

    /// Hands what the last commands sent to other connections to their writers, and drops
    /// a subscriber whose unwritten messages reach its output limit.
    fn route(&mut self) {
        let deliveries = self.server.take_deliveries();
        if deliveries.is_empty() {
            return;
        }
        let now_ms = self.env.now().mono_ms;
        for delivery in deliveries {
            let client = delivery.client;
            let Some(writer) = self.writers.get_mut(&client) else {
                continue;
            };
            let unwritten = writer.state.unwritten.get() + delivery.bytes.len();
            writer.state.unwritten.set(unwritten);
            // A connection that is ending no longer reads its queue.
            let _ = writer.queue.send((delivery.bytes, delivery.unblocks));
            if !self.server.is_subscribed(client) {
                // A normal client's output has no limit, and its soft time starts again.
                writer.soft_since = None;
                continue;
            }
            if output_limit::PUBSUB.reached(unwritten, &mut writer.soft_since, now_ms) {
                writer.state.dropped.notify_one();
                self.writers.remove(&client);
                self.env.observe(HostEvent::OutputLimit {
                    conn: client,
                    unwritten,
                });
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
    let (queue, mut from_others) = mpsc::unbounded_channel();
    let queued = Rc::new(Queued::default());
    let mut conn = {
        let mut h = host.borrow_mut();
        let conn = h.server.connect();
        let writer = Writer {
            queue,
            state: queued.clone(),
            soft_since: None,
        };
        h.writers.insert(conn.id(), writer);
        h.env.observe(HostEvent::Accepted {
            conn: conn.id(),
            client: &client,
        });
        conn
    };
    let mut buf = vec![0; READ_LEN];
    // Every wait, a write to a client that does not read included, ends when the host
    // drops the connection.
    let by_server = loop {
        let read = tokio::select! {
            biased;
            () = queued.dropped.notified() => break true,
            Some((bytes, unblocks)) = from_others.recv() => {
                let written = tokio::select! {
                    biased;
                    () = queued.dropped.notified() => break true,
                    written = stream.write_all(&bytes) => written,
                };
                if written.is_err() {
                    break false;
                }
                queued.unwritten.set(queued.unwritten.get() - bytes.len());
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
        let written = tokio::select! {
            biased;
            () = queued.dropped.notified() => break true,
            written = stream.write_all(&output.bytes) => written,
        };
        if written.is_err() {
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

    /// A RESP2 command of bulk strings.
    fn command(args: &[&[u8]]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            out.extend(format!("${}\r\n", arg.len()).into_bytes());
            out.extend(*arg);
            out.extend(b"\r\n");
        }
        out
    }

    #[tokio::test]
    async fn a_subscriber_that_does_not_read_is_dropped_at_the_hard_output_limit() {
        let host = Host::new(
            Recorder { events: Vec::new() },
            Server::new(Config::default()),
        );
        let (mut subscriber, subscriber_side) = tokio::io::duplex(64);
        let (mut publisher, publisher_side) = tokio::io::duplex(64);
        let message = vec![b'm'; 1 << 20];
        let local = tokio::task::LocalSet::new();
        let counts = local
            .run_until(async {
                tokio::task::spawn_local(serve_conn(host.clone(), "s".into(), subscriber_side));
                tokio::task::spawn_local(serve_conn(host.clone(), "p".into(), publisher_side));
                subscriber
                    .write_all(&command(&[b"SUBSCRIBE", b"ch"]))
                    .await
                    .unwrap();
                let mut confirmation = [0; 31];
                subscriber.read_exact(&mut confirmation).await.unwrap();
                assert_eq!(
                    &confirmation,
                    b"*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
                );
                // The subscriber reads nothing more; each PUBLISH's count, until it is 0.
                let mut counts = Vec::new();
                while counts.last() != Some(&b":0\r\n".to_vec()) && counts.len() < 40 {
                    publisher
                        .write_all(&command(&[b"PUBLISH", b"ch", &message]))
                        .await
                        .unwrap();
                    let mut count = vec![0; 4];
                    publisher.read_exact(&mut count).await.unwrap();
                    counts.push(count);
                }
                counts
            })
            .await;
        // 32 messages of 1 MiB and their framing reach 32 MiB: the 32nd drops it.
        let heard = counts.iter().filter(|c| c.as_slice() == b":1\r\n").count();
        assert_eq!((heard, counts.len()), (32, 33), "{counts:?}");
        let events = &host.borrow().env.events;
        let subscriber_id = 2;
        // Each message is 37 bytes of framing around its 1 MiB.
        let unwritten = 32 * ((1 << 20) + 37);
        assert!(
            events.contains(&format!(
                "OutputLimit {{ conn: {subscriber_id}, unwritten: {unwritten} }}"
            )),
            "{events:?}"
        );
        assert!(
            events.contains(&format!(
                "Closed {{ conn: {subscriber_id}, by_server: true }}"
            )),
            "{events:?}"
        );
    }
}
