//! H2's sans-IO server core behind the duplex network, for end-to-end tests: one reader task
//! per connection feeds it, one writer task per connection sends its outputs, a ticker
//! expires sessions. A client's link can be cut (bytes dropped both ways, dials hang).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::task::spawn_local;
use tokio::time::{Instant, sleep};

use super::fake::{Network, config};
use crate::zk::client::ZkClient;
use crate::zk::proto::{decode_connect_request, decode_request, split_frame};
use crate::zk::server::{ConnId, Now, Output, Server, ServerConfig};

/// How often the ticker offers the server the time.
const TICK: Duration = Duration::from_millis(50);

/// One client's link to the server.
pub(super) struct Link {
    cut: Rc<Cell<bool>>,
    hang: Rc<Cell<u32>>,
}

impl Link {
    pub(super) fn cut(&self) {
        self.cut.set(true);
        self.hang.set(u32::MAX);
    }

    pub(super) fn heal(&self) {
        self.cut.set(false);
        self.hang.set(0);
    }
}

#[derive(Clone)]
pub(super) struct CoreServer {
    inner: Rc<Inner>,
}

struct Inner {
    server: RefCell<Server>,
    outboxes: RefCell<BTreeMap<ConnId, UnboundedSender<Vec<u8>>>>,
    next_conn: Cell<ConnId>,
    start: Instant,
}

impl CoreServer {
    /// Starts the server and its ticker (on the current LocalSet).
    pub(super) fn start(tick_ms: u64) -> Self {
        let core = CoreServer {
            inner: Rc::new(Inner {
                server: RefCell::new(Server::new(ServerConfig::with_tick(tick_ms, 1))),
                outboxes: RefCell::new(BTreeMap::new()),
                next_conn: Cell::new(1),
                start: Instant::now(),
            }),
        };
        let ticker = core.clone();
        spawn_local(async move {
            loop {
                sleep(TICK).await;
                let outputs = ticker
                    .inner
                    .server
                    .borrow_mut()
                    .handle_timeout(ticker.now());
                ticker.dispatch(outputs);
            }
        });
        core
    }

    /// A client connected to this server through a link of its own.
    pub(super) async fn client(&self) -> (ZkClient, Link) {
        let (connector, mut network) = Network::new();
        let link = Link {
            cut: Rc::new(Cell::new(false)),
            hang: Rc::clone(&network.hang_next),
        };
        let (core, cut) = (self.clone(), Rc::clone(&link.cut));
        spawn_local(async move {
            while let Some(stream) = network.try_accept_stream().await {
                spawn_local(core.clone().serve(stream, Rc::clone(&cut)));
            }
        });
        let (client, driver) = ZkClient::connect(connector, config()).await.unwrap();
        spawn_local(driver.run());
        (client, link)
    }

    fn now(&self) -> Now {
        let mono_ms = u64::try_from(self.inner.start.elapsed().as_millis()).unwrap();
        Now {
            mono_ms,
            wall_ms: 1_700_000_000_000 + i64::try_from(mono_ms).unwrap(),
        }
    }

    async fn serve(self, stream: DuplexStream, cut: Rc<Cell<bool>>) {
        let conn = self.inner.next_conn.get();
        self.inner.next_conn.set(conn + 1);
        let (mut reader, mut writer) = tokio::io::split(stream);
        let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
        self.inner.outboxes.borrow_mut().insert(conn, tx);
        let writer_cut = Rc::clone(&cut);
        spawn_local(async move {
            while let Some(bytes) = rx.recv().await {
                if !writer_cut.get() && writer.write_all(&bytes).await.is_err() {
                    return;
                }
            }
            let _ = writer.shutdown().await;
        });
        let mut buf = Vec::new();
        let mut handshaken = false;
        loop {
            match reader.read_buf(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) if cut.get() => buf.clear(),
                Ok(_) => {}
            }
            while let Some((body, consumed)) = split_frame(&buf).unwrap() {
                let outputs = {
                    let mut server = self.inner.server.borrow_mut();
                    if handshaken {
                        let (header, request) = decode_request(body).unwrap();
                        server.handle_request(self.now(), conn, header.xid, request)
                    } else {
                        handshaken = true;
                        let request = decode_connect_request(body).unwrap();
                        server.handle_connect(self.now(), conn, &request)
                    }
                };
                buf.drain(..consumed);
                self.dispatch(outputs);
            }
        }
        let outputs = self
            .inner
            .server
            .borrow_mut()
            .handle_disconnect(self.now(), conn);
        self.dispatch(outputs);
        self.inner.outboxes.borrow_mut().remove(&conn);
    }

    fn dispatch(&self, outputs: Vec<Output>) {
        let mut outboxes = self.inner.outboxes.borrow_mut();
        for output in outputs {
            if let Some((conn, bytes)) = output.packet()
                && let Some(outbox) = outboxes.get(&conn)
            {
                let _ = outbox.send(bytes);
            }
            if let Output::Connected {
                conn, close: true, ..
            }
            | Output::Close { conn } = output
            {
                outboxes.remove(&conn);
            }
        }
    }
}
