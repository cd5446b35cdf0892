//! A scripted server for the client tests: a connector over `tokio::io::duplex` that hands
//! each dialled connection's far end to the test, which plays the server with the codec.

use std::cell::Cell;
use std::future::{Future, pending};
use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc::{self, UnboundedReceiver};
use tokio::task::LocalSet;

use super::super::{ConnectFuture, Driver, ZkClient, ZkConfig};
use crate::zk::proto::{
    ConnectRequest, ConnectResponse, ErrorCode, EventType, KeeperState, ReplyHeader, Request,
    RequestHeader, Response, WatcherEvent, decode_connect_request, decode_request,
    encode_connect_response, encode_notification, encode_reply, split_frame,
};

pub(super) const SESSION_ID: i64 = 0x0100_0000_0000_0042;
pub(super) const PASSWD: [u8; 16] = [7; 16];
/// Negotiated timeout of the test sessions: read timeout 2 s, ping after 1 s idle.
pub(super) const TIMEOUT_MS: i32 = 3_000;
pub(super) const BACKOFF: Duration = Duration::from_millis(200);
pub(super) const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(3_000);

pub(super) fn config() -> ZkConfig {
    ZkConfig {
        session_timeout_ms: 3_000,
        connect_attempt_timeout_ms: 3_000,
        reconnect_backoff_ms: 200,
        initial_connect_attempts: 3,
        ..ZkConfig::default()
    }
}

/// Runs a test body on a LocalSet, where the driver can be spawned.
pub(super) async fn local<F: Future>(body: F) -> F::Output {
    LocalSet::new().run_until(body).await
}

/// The test's side of the network: connections the client dialled, and knobs on dialling.
pub(super) struct Network {
    accepted: UnboundedReceiver<DuplexStream>,
    /// How many of the next dials hang forever (a partitioned server).
    pub(super) hang_next: Rc<Cell<u32>>,
    pub(super) dials: Rc<Cell<u32>>,
}

impl Network {
    pub(super) fn new() -> (impl Fn() -> ConnectFuture<DuplexStream> + 'static, Network) {
        let (tx, accepted) = mpsc::unbounded_channel();
        let hang_next = Rc::new(Cell::new(0));
        let dials = Rc::new(Cell::new(0));
        let (hang, count) = (Rc::clone(&hang_next), Rc::clone(&dials));
        let connector = move || -> ConnectFuture<DuplexStream> {
            count.set(count.get() + 1);
            if hang.get() > 0 {
                hang.set(hang.get() - 1);
                return Box::pin(pending());
            }
            let (client, server) = tokio::io::duplex(1 << 16);
            tx.send(server).expect("test network gone");
            Box::pin(async move { Ok(client) })
        };
        let network = Network {
            accepted,
            hang_next,
            dials,
        };
        (connector, network)
    }

    pub(super) async fn accept(&mut self) -> Peer {
        Peer {
            stream: self.accept_stream().await,
            buf: Vec::new(),
        }
    }

    /// The server end of the next connection dialled; None once the client is gone.
    pub(super) async fn try_accept_stream(&mut self) -> Option<DuplexStream> {
        self.accepted.recv().await
    }

    async fn accept_stream(&mut self) -> DuplexStream {
        self.try_accept_stream().await.expect("connector gone")
    }
}

/// The server end of one connection.
pub(super) struct Peer {
    stream: DuplexStream,
    buf: Vec<u8>,
}

impl Peer {
    /// The next whole packet, length prefix included; None at EOF.
    pub(super) async fn read_packet(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some((_, consumed)) = split_frame(&self.buf).expect("bad frame") {
                return Some(self.buf.drain(..consumed).collect());
            }
            if self.stream.read_buf(&mut self.buf).await.expect("read") == 0 {
                return None;
            }
        }
    }

    async fn read_body(&mut self) -> Vec<u8> {
        let packet = self.read_packet().await.expect("EOF from client");
        packet[4..].to_vec()
    }

    pub(super) async fn read_connect(&mut self) -> ConnectRequest {
        decode_connect_request(&self.read_body().await).expect("connect request")
    }

    pub(super) async fn read_request(&mut self) -> (RequestHeader, Request) {
        decode_request(&self.read_body().await).expect("request")
    }

    pub(super) async fn respond_connect(&mut self, session_id: i64, timeout_ms: i32) {
        let response = ConnectResponse {
            protocol_version: 0,
            timeout_ms,
            session_id,
            passwd: PASSWD.to_vec(),
            read_only: false,
        };
        self.write(&encode_connect_response(&response)).await;
    }

    /// Reads the ConnectRequest and grants the test session.
    pub(super) async fn grant(&mut self) -> ConnectRequest {
        let request = self.read_connect().await;
        self.respond_connect(SESSION_ID, TIMEOUT_MS).await;
        request
    }

    pub(super) async fn reply(
        &mut self,
        xid: i32,
        zxid: i64,
        err: ErrorCode,
        body: Option<Response>,
    ) {
        let header = ReplyHeader { xid, zxid, err };
        self.write(&encode_reply(&header, body.as_ref())).await;
    }

    pub(super) async fn notify(&mut self, event_type: EventType, path: &str) {
        self.write(&encode_notification(&node_event(event_type, path)))
            .await;
    }

    pub(super) async fn write(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
    }
}

pub(super) fn node_event(event_type: EventType, path: &str) -> WatcherEvent {
    WatcherEvent {
        event_type,
        state: KeeperState::SyncConnected,
        path: path.into(),
    }
}

/// A connected client with its driver spawned, and the server end of its connection.
pub(super) async fn open() -> (ZkClient, Network, Peer) {
    let (connector, mut network) = Network::new();
    let (connected, peer) = tokio::join!(ZkClient::connect(connector, config()), async {
        let mut peer = network.accept().await;
        peer.grant().await;
        peer
    });
    let (client, driver): (ZkClient, Driver<DuplexStream>) = connected.expect("connect");
    tokio::task::spawn_local(driver.run());
    (client, network, peer)
}
