//! Requests on a healthy connection: bytes of the handshake, round trips, errors, watches.

use super::fake::{Network, SESSION_ID, TIMEOUT_MS, config, local, node_event, open};
use crate::zk::client::{ZkClient, ZkError};
use crate::zk::proto::{
    Acl, CreateMode, CreateRequest, CreateResponse, ErrorCode, EventType, OpCode, Request,
    Response, Stat,
};

#[tokio::test(start_paused = true)]
async fn handshake_bytes_and_granted_session() {
    local(async {
        let (connector, mut network) = Network::new();
        let (connected, ()) = tokio::join!(ZkClient::connect(connector, config()), async {
            let mut peer = network.accept().await;
            let packet = peer.read_packet().await.unwrap();
            let mut expected = vec![0, 0, 0, 45]; // length
            expected.extend([0, 0, 0, 0]); // protocolVersion
            expected.extend([0; 8]); // lastZxidSeen
            expected.extend(3_000i32.to_be_bytes()); // timeOut
            expected.extend([0; 8]); // sessionId
            expected.extend([0, 0, 0, 16]); // passwd length
            expected.extend([0; 16]); // passwd
            expected.push(0); // readOnly
            assert_eq!(packet, expected);
            peer.respond_connect(SESSION_ID, TIMEOUT_MS).await;
        });
        let (client, _driver) = connected.unwrap();
        assert_eq!(client.session_id(), SESSION_ID);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn initial_connect_gives_up_after_its_attempts() {
    local(async {
        let (connector, network) = Network::new();
        network.hang_next.set(3);
        let result = ZkClient::connect(connector, config()).await;
        assert_eq!(result.err(), Some(ZkError::ConnectionLoss));
        assert_eq!(network.dials.get(), 3);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn create_round_trip_and_error_reply() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let (created, ()) = tokio::join!(
            client.create("/lock/n-", b"x", CreateMode::EphemeralSequential),
            async {
                let (header, request) = peer.read_request().await;
                assert_eq!((header.xid, header.op), (1, OpCode::Create));
                assert_eq!(
                    request,
                    Request::Create(CreateRequest {
                        path: "/lock/n-".into(),
                        data: b"x".to_vec(),
                        acl: Acl::open_unsafe(),
                        mode: CreateMode::EphemeralSequential,
                    })
                );
                let body = Response::Create(CreateResponse {
                    path: "/lock/n-0000000007".into(),
                });
                peer.reply(1, 9, ErrorCode::Ok, Some(body)).await;
            }
        );
        assert_eq!(created, Ok("/lock/n-0000000007".to_string()));

        let (created, ()) =
            tokio::join!(client.create2("/a", b"", CreateMode::Persistent), async {
                let (header, _) = peer.read_request().await;
                assert_eq!((header.xid, header.op), (2, OpCode::Create2));
                peer.reply(2, 9, ErrorCode::NodeExists, None).await;
            });
        assert_eq!(created, Err(ZkError::Server(ErrorCode::NodeExists)));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn exists_on_missing_node_returns_none_and_registers_a_watch() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let (watched, ()) = tokio::join!(client.exists_watch("/pred"), async {
            let (header, request) = peer.read_request().await;
            assert_eq!(
                request,
                Request::Exists {
                    path: "/pred".into(),
                    watch: true
                }
            );
            peer.reply(header.xid, 4, ErrorCode::NoNode, None).await;
        });
        let (stat, mut watch) = watched.unwrap();
        assert_eq!(stat, None);
        peer.notify(EventType::NodeCreated, "/pred").await;
        assert_eq!(
            watch.next().await,
            Some(node_event(EventType::NodeCreated, "/pred"))
        );
        assert_eq!(watch.next().await, None, "a watch fires once");

        let (read, ()) = tokio::join!(client.get_data_watch("/pred2"), async {
            let (header, _) = peer.read_request().await;
            peer.reply(header.xid, 4, ErrorCode::NoNode, None).await;
        });
        assert_eq!(read.err(), Some(ZkError::Server(ErrorCode::NoNode)));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn watch_event_is_delivered_before_the_reply_after_it() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let stat = Stat {
            version: 1,
            ..Stat::default()
        };
        let (watched, ()) = tokio::join!(client.get_data_watch("/a"), async {
            let (header, _) = peer.read_request().await;
            let body = Response::GetData {
                data: b"v1".to_vec(),
                stat,
            };
            peer.reply(header.xid, 5, ErrorCode::Ok, Some(body)).await;
        });
        let (data, _, mut watch) = watched.unwrap();
        assert_eq!(data, b"v1");

        let (children, ()) = tokio::join!(client.get_children("/"), async {
            let (header, _) = peer.read_request().await;
            peer.notify(EventType::NodeDataChanged, "/a").await;
            let body = Response::GetChildren {
                children: vec!["a".into()],
            };
            peer.reply(header.xid, 6, ErrorCode::Ok, Some(body)).await;
        });
        assert_eq!(children, Ok(vec!["a".to_string()]));
        assert_eq!(
            watch.try_next(),
            Some(node_event(EventType::NodeDataChanged, "/a")),
            "the event preceding the reply on the stream is already delivered"
        );
        assert!(watch.is_finished());
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn close_sends_close_session_and_ends_the_client() {
    local(async {
        let (client, _network, mut peer) = open().await;
        let mut events = client.events();
        let ((), ()) = tokio::join!(client.close(), async {
            let (header, request) = peer.read_request().await;
            assert_eq!(request, Request::CloseSession);
            peer.reply(header.xid, 8, ErrorCode::Ok, Some(Response::CloseSession))
                .await;
        });
        assert_eq!(peer.read_packet().await, None, "the client hangs up");
        let closed = events.next().await.unwrap();
        assert_eq!(closed.state, crate::zk::proto::KeeperState::Closed);
        assert_eq!(events.next().await, None);
        assert_eq!(client.exists("/a").await, Err(ZkError::Closed));
        assert_eq!(ZkError::Closed.code(), ErrorCode::SessionExpired);
    })
    .await;
}
