//! The session across connections: pings, read timeout, reconnect, SetWatches, expiry.

use std::time::Duration;

use tokio::time::Instant;

use super::fake::{ATTEMPT_TIMEOUT, BACKOFF, PASSWD, SESSION_ID, local, node_event, open};
use crate::zk::client::ZkError;
use crate::zk::proto::{
    AUTH_XID, CreateMode, ErrorCode, EventType, KeeperState, OpCode, PING_XID, Request, Response,
    SET_WATCHES_XID, Stat, WatcherEvent,
};

fn session_event(state: KeeperState) -> WatcherEvent {
    WatcherEvent {
        event_type: EventType::None,
        state,
        path: String::new(),
    }
}

#[tokio::test(start_paused = true)]
async fn pings_after_half_the_read_timeout_idle() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let mut events = client.events();
        let start = Instant::now();
        for n in 1..=4 {
            let (header, request) = peer.read_request().await;
            assert_eq!(
                (header.xid, header.op, request),
                (PING_XID, OpCode::Ping, Request::Ping)
            );
            assert_eq!(start.elapsed(), Duration::from_millis(1_000 * n));
            peer.reply(PING_XID, 3, ErrorCode::Ok, None).await;
        }
        assert_eq!(
            events.try_next(),
            None,
            "answered pings keep the connection"
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn read_timeout_drops_fails_pending_and_resumes_with_set_watches() {
    local(async {
        let (client, mut network, mut peer) = open().await;
        let mut events = client.events();

        let (missing, data, child, ()) = tokio::join!(
            client.exists_watch("/missing"),
            client.get_data_watch("/d"),
            client.get_children_watch("/c"),
            async {
                let (h, _) = peer.read_request().await;
                peer.reply(h.xid, 3, ErrorCode::NoNode, None).await;
                let (h, _) = peer.read_request().await;
                let body = Response::GetData {
                    data: vec![],
                    stat: Stat::default(),
                };
                peer.reply(h.xid, 4, ErrorCode::Ok, Some(body)).await;
                let (h, _) = peer.read_request().await;
                let body = Response::GetChildren { children: vec![] };
                peer.reply(h.xid, 6, ErrorCode::Ok, Some(body)).await;
            }
        );
        let (None, mut missing) = missing.unwrap() else {
            panic!("/missing exists");
        };
        let (_, _, mut data) = data.unwrap();
        let (_, mut child) = child.unwrap();

        // The server goes silent: the create is never answered, nor are pings.
        let start = Instant::now();
        let created = client.create("/x", b"", CreateMode::Persistent).await;
        assert_eq!(created, Err(ZkError::ConnectionLoss));
        assert_eq!(start.elapsed(), Duration::from_millis(2_000), "2/3 of 3 s");
        let disconnected = session_event(KeeperState::Disconnected);
        assert_eq!(events.try_next(), Some(disconnected.clone()));
        for watch in [&mut missing, &mut data, &mut child] {
            assert_eq!(watch.try_next(), Some(disconnected.clone()));
        }

        let mut peer = network.accept().await;
        assert_eq!(start.elapsed(), Duration::from_millis(2_000) + BACKOFF);
        let resumed = peer.grant().await;
        assert_eq!(resumed.session_id, SESSION_ID);
        assert_eq!(resumed.passwd, PASSWD.to_vec());
        assert_eq!(resumed.last_zxid_seen, 6);
        let (header, request) = peer.read_request().await;
        assert_eq!(
            (header.xid, header.op),
            (SET_WATCHES_XID, OpCode::SetWatches)
        );
        assert_eq!(
            request,
            Request::SetWatches {
                relative_zxid: 6,
                data: vec!["/d".into()],
                exist: vec!["/missing".into()],
                child: vec!["/c".into()],
            }
        );
        peer.reply(SET_WATCHES_XID, 6, ErrorCode::Ok, None).await;
        peer.notify(EventType::NodeCreated, "/missing").await;

        let connected = session_event(KeeperState::SyncConnected);
        assert_eq!(events.next().await, Some(connected.clone()));
        assert_eq!(missing.next().await, Some(connected.clone()));
        assert_eq!(
            missing.next().await,
            Some(node_event(EventType::NodeCreated, "/missing"))
        );
        assert_eq!(data.try_next(), Some(connected));
        assert!(!data.is_finished(), "session events do not consume a watch");

        let (exists, ()) = tokio::join!(client.exists("/x"), async {
            let (header, _) = peer.read_request().await;
            assert_eq!(header.xid, 5, "xids keep increasing across connections");
            peer.reply(header.xid, 7, ErrorCode::NoNode, None).await;
        });
        assert_eq!(exists, Ok(None));
        assert_eq!(client.session_id(), SESSION_ID);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn hanging_attempt_is_abandoned_and_calls_fail_fast_meanwhile() {
    local(async {
        let (client, mut network, peer) = open().await;
        let mut events = client.events();
        network.hang_next.set(1);
        let start = Instant::now();
        drop(peer);
        assert_eq!(
            events.next().await,
            Some(session_event(KeeperState::Disconnected))
        );
        assert_eq!(client.get_data("/a").await, Err(ZkError::ConnectionLoss));
        assert_eq!(
            start.elapsed(),
            Duration::ZERO,
            "no waiting for the reconnect"
        );

        let mut peer = network.accept().await;
        assert_eq!(start.elapsed(), BACKOFF + ATTEMPT_TIMEOUT + BACKOFF);
        assert_eq!(network.dials.get(), 3, "initial dial, hung dial, this one");
        peer.grant().await;
        assert_eq!(
            events.next().await,
            Some(session_event(KeeperState::SyncConnected))
        );
        assert_eq!(events.try_next(), None, "Disconnected is announced once");
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn expired_on_reconnect_ends_the_client() {
    local(async {
        let (client, mut network, mut peer) = open().await;
        let mut events = client.events();
        let (watched, ()) = tokio::join!(client.exists_watch("/a"), async {
            let (header, _) = peer.read_request().await;
            peer.reply(header.xid, 3, ErrorCode::NoNode, None).await;
        });
        let (_, mut watch) = watched.unwrap();
        drop(peer);

        let mut peer = network.accept().await;
        let resumed = peer.read_connect().await;
        assert_eq!(resumed.session_id, SESSION_ID);
        peer.respond_connect(0, 0).await;

        let expected = [
            Some(session_event(KeeperState::Disconnected)),
            Some(session_event(KeeperState::Expired)),
            None,
        ];
        for event in &expected {
            assert_eq!(&events.next().await, event);
        }
        for event in &expected {
            assert_eq!(&watch.next().await, event);
        }
        assert_eq!(
            client.create("/b", b"", CreateMode::Persistent).await,
            Err(ZkError::SessionExpired)
        );
        assert_eq!(client.events().next().await, None);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn out_of_order_reply_drops_the_connection() {
    local(async {
        let (client, mut network, mut peer) = open().await;
        let mut events = client.events();
        let (read, ()) = tokio::join!(client.get_children("/"), async {
            let (header, _) = peer.read_request().await;
            peer.reply(header.xid + 1, 3, ErrorCode::Ok, None).await;
        });
        assert_eq!(read, Err(ZkError::ConnectionLoss));
        assert_eq!(
            events.next().await,
            Some(session_event(KeeperState::Disconnected))
        );
        let mut peer = network.accept().await;
        assert_eq!(
            peer.grant().await.last_zxid_seen,
            0,
            "a rejected reply is not seen"
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn dropping_every_handle_stops_the_driver_without_closing() {
    local(async {
        let (client, _network, mut peer) = open().await;
        drop(client);
        assert_eq!(peer.read_packet().await, None, "hung up, no CloseSession");
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn auths_are_sent_again_on_every_new_connection() {
    local(async {
        let (client, mut network, mut peer) = open().await;
        let auth = Request::Auth {
            kind: 0,
            scheme: "digest".into(),
            auth: b"u:p".to_vec(),
        };
        let (added, ()) = tokio::join!(client.add_auth("digest", b"u:p"), async {
            let (header, request) = peer.read_request().await;
            assert_eq!((header.xid, &request), (AUTH_XID, &auth));
            peer.reply(AUTH_XID, 0, ErrorCode::Ok, None).await;
        });
        assert_eq!(added, Ok(()));

        drop(peer);
        let mut peer = network.accept().await;
        peer.grant().await;
        let (header, request) = peer.read_request().await;
        assert_eq!(
            (header.xid, request),
            (AUTH_XID, auth),
            "first, before any call"
        );
        peer.reply(AUTH_XID, 0, ErrorCode::Ok, None).await;
        let (exists, ()) = tokio::join!(client.exists("/x"), async {
            let (header, _) = peer.read_request().await;
            assert_eq!(header.xid, 1, "an auth takes no xid of the sequence");
            peer.reply(header.xid, 7, ErrorCode::NoNode, None).await;
        });
        assert_eq!(exists, Ok(None));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_refused_auth_ends_the_client() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let mut events = client.events();
        let (added, ()) = tokio::join!(client.add_auth("sasl", b""), async {
            let (header, _) = peer.read_request().await;
            peer.reply(header.xid, 0, ErrorCode::AuthFailed, None).await;
        });
        assert_eq!(added, Err(ZkError::Server(ErrorCode::AuthFailed)));
        assert_eq!(
            events.next().await,
            Some(session_event(KeeperState::AuthFailed))
        );
        assert_eq!(
            client.exists("/x").await,
            Err(ZkError::Server(ErrorCode::AuthFailed))
        );
    })
    .await;
}
