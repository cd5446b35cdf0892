//! The client against H2's server core: what a lock recipe relies on, end to end.

use std::time::Duration;

use tokio::time::{Instant, sleep};

use super::core_server::CoreServer;
use crate::zk::client::ZkError;
use crate::zk::proto::{CreateMode, CreateResponse, EventType, KeeperState};

#[tokio::test(start_paused = true)]
async fn partitioned_holder_learns_of_expiry_only_after_the_waiter_saw_its_node_go() {
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (holder, holder_link) = server.client().await;
        let (waiter, _waiter_link) = server.client().await;
        assert_ne!(holder.session_id(), waiter.session_id());

        holder
            .create("/lock", b"", CreateMode::Persistent)
            .await
            .unwrap();
        let node = holder
            .create("/lock/n-", b"", CreateMode::EphemeralSequential)
            .await
            .unwrap();
        assert_eq!(node, "/lock/n-0000000000");
        let (stat, mut watch) = waiter.exists_watch(&node).await.unwrap();
        assert_eq!(stat.unwrap().ephemeral_owner, holder.session_id());

        let mut holder_events = holder.events();
        let start = Instant::now();
        holder_link.cut();
        let deleted = watch.next().await.unwrap();
        assert_eq!(
            (deleted.event_type, deleted.path.as_str()),
            (EventType::NodeDeleted, node.as_str())
        );
        let expired_at = start.elapsed();
        assert!(
            expired_at >= Duration::from_millis(3_000)
                && expired_at <= Duration::from_millis(4_100),
            "the server expires the holder after its 3 s timeout, got {expired_at:?}"
        );
        assert_eq!(waiter.get_children("/lock").await, Ok(vec![]));

        // The holder only knows it is disconnected; it still has no idea the node is gone.
        let disconnected = holder_events.try_next().unwrap();
        assert_eq!(disconnected.state, KeeperState::Disconnected);
        assert_eq!(holder_events.try_next(), None);

        sleep(Duration::from_secs(5)).await;
        holder_link.heal();
        let expired = holder_events.next().await.unwrap();
        assert_eq!(expired.state, KeeperState::Expired);
        assert_eq!(holder.exists(&node).await, Err(ZkError::SessionExpired));
        assert_eq!(
            waiter.exists(&node).await,
            Ok(None),
            "the waiter's session lives on"
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn short_partition_resumes_the_session_and_rearms_the_watch() {
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (holder, _holder_link) = server.client().await;
        let (waiter, waiter_link) = server.client().await;
        let node = holder
            .create("/n", b"", CreateMode::Ephemeral)
            .await
            .unwrap();
        let (_, mut watch) = waiter.exists_watch(&node).await.unwrap();

        waiter_link.cut();
        sleep(Duration::from_millis(2_100)).await;
        holder.delete(&node, -1).await.unwrap();
        waiter_link.heal();

        let mut seen = Vec::new();
        while let Some(event) = watch.next().await {
            seen.push((event.event_type, event.state));
        }
        assert_eq!(
            seen,
            [
                (EventType::None, KeeperState::Disconnected),
                (EventType::None, KeeperState::SyncConnected),
                (EventType::NodeDeleted, KeeperState::SyncConnected),
            ],
            "SetWatches makes the server fire the delete missed while away"
        );
        assert_eq!(waiter.exists(&node).await, Ok(None));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn all_events_carries_every_notification_once_in_order_with_session_events() {
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (watcher, link) = server.client().await;
        let (writer, _writer_link) = server.client().await;
        writer
            .create("/a", b"", CreateMode::Persistent)
            .await
            .unwrap();
        let mut all = watcher.all_events();
        // A data and an exists watch on one path: the server sends one notification.
        let (_, _, mut data) = watcher.get_data_watch("/a").await.unwrap();
        let (_, mut exists) = watcher.exists_watch("/a").await.unwrap();
        let (_, mut created) = watcher.exists_watch("/b").await.unwrap();
        writer.set_data("/a", b"x", -1).await.unwrap();
        writer
            .create("/b", b"", CreateMode::Persistent)
            .await
            .unwrap();
        watcher.exists("/a").await.unwrap();
        link.cut();
        sleep(Duration::from_millis(2_100)).await;
        link.heal();

        let mut seen = Vec::new();
        while seen.len() < 4 {
            let next = tokio::time::timeout(Duration::from_secs(10), all.next());
            let event = next.await.unwrap().unwrap();
            seen.push((event.event_type, event.state, event.path));
        }
        let connected = KeeperState::SyncConnected;
        assert_eq!(
            seen,
            [
                (EventType::NodeDataChanged, connected, "/a".to_string()),
                (EventType::NodeCreated, connected, "/b".to_string()),
                (EventType::None, KeeperState::Disconnected, String::new()),
                (EventType::None, connected, String::new()),
            ]
        );
        for watch in [&mut data, &mut exists] {
            assert_eq!(
                watch.next().await.map(|e| e.event_type),
                Some(EventType::NodeDataChanged)
            );
        }
        assert_eq!(
            created.next().await.map(|e| e.event_type),
            Some(EventType::NodeCreated)
        );
        watcher.close().await;
        assert_eq!(all.next().await.map(|e| e.state), Some(KeeperState::Closed));
        assert_eq!(all.next().await, None);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn multi_and_sync_through_the_client() {
    use crate::zk::proto::{ErrorCode, MultiOp, OpResult, multi_error};
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (client, _link) = server.client().await;
        let (watcher, _watcher_link) = server.client().await;
        client
            .create("/q", b"", CreateMode::Persistent)
            .await
            .unwrap();
        let (_, mut watch) = watcher.exists_watch("/q/lock").await.unwrap();
        assert_eq!(client.sync("/q").await, Ok("/q".to_string()));
        let results = client
            .multi(vec![
                MultiOp::create("/q/entry-", b"v", CreateMode::PersistentSequential),
                MultiOp::create("/q/lock", b"", CreateMode::Ephemeral),
            ])
            .await
            .unwrap();
        assert_eq!(
            results,
            vec![
                OpResult::Create(CreateResponse {
                    path: "/q/entry-0000000000".into()
                }),
                OpResult::Create(CreateResponse {
                    path: "/q/lock".into()
                }),
            ]
        );
        let created = watch.next().await.unwrap();
        assert_eq!(
            (created.event_type, created.path.as_str()),
            (EventType::NodeCreated, "/q/lock")
        );
        let failed = client
            .multi(vec![
                MultiOp::delete("/q/lock", -1),
                MultiOp::delete("/q/entry-0000000000", 5),
            ])
            .await
            .unwrap();
        assert_eq!(multi_error(&failed), Some(ErrorCode::BadVersion));
        assert!(client.exists("/q/lock").await.unwrap().is_some());
        let mut children = watcher.get_children("/q").await.unwrap();
        children.sort();
        assert_eq!(children, vec!["entry-0000000000", "lock"]);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_3_6_reads_of_ephemerals_and_counts_through_the_client() {
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (client, _link) = server.client().await;
        client
            .create("/q", b"", CreateMode::Persistent)
            .await
            .unwrap();
        client
            .create("/q/e", b"", CreateMode::Ephemeral)
            .await
            .unwrap();
        client
            .create("/q/p", b"", CreateMode::Persistent)
            .await
            .unwrap();
        assert_eq!(client.get_ephemerals("/q").await, Ok(vec!["/q/e".into()]));
        assert_eq!(client.get_ephemerals("/z").await, Ok(vec![]));
        assert_eq!(client.get_all_children_number("/q").await, Ok(2));
        assert_eq!(
            client.get_all_children_number("/missing").await,
            Err(ZkError::Server(crate::zk::proto::ErrorCode::NoNode))
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_container_made_by_the_client_goes_in_the_round_after_its_last_child() {
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (client, _link) = server.client().await;
        let (path, stat) = client.create_container("/locks", b"", false).await.unwrap();
        assert_eq!((path.as_str(), stat.ephemeral_owner), ("/locks", 0));
        let (_, mut watch) = client.exists_watch("/locks").await.unwrap();
        let child = client
            .create("/locks/n-", b"", CreateMode::EphemeralSequential)
            .await
            .unwrap();
        client.delete(&child, -1).await.unwrap();
        let start = Instant::now();
        let deleted = watch.next().await.unwrap();
        assert_eq!(deleted.event_type, EventType::NodeDeleted);
        let waited = start.elapsed();
        assert!(
            waited <= Duration::from_secs(61),
            "the first round comes 60 s after the server started, got {waited:?}"
        );
        assert_eq!(
            client.create_ttl("/lease", b"", false, 1_000).await,
            Err(ZkError::Server(crate::zk::proto::ErrorCode::Unimplemented)),
            "extended types are off by default"
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn persistent_watches_stay_across_events_and_go_when_removed() {
    use crate::zk::proto::{AddWatchMode, WatcherType};
    super::fake::local(async {
        let server = CoreServer::start(1_000);
        let (watcher, _watcher_link) = server.client().await;
        let (writer, _writer_link) = server.client().await;
        let mut tree = watcher
            .add_watch("/app", AddWatchMode::PersistentRecursive)
            .await
            .unwrap();
        // Another path: on one path 3.8.0 keeps the last mode added.
        let mut node = watcher
            .add_watch("/app/a", AddWatchMode::Persistent)
            .await
            .unwrap();
        for path in ["/app", "/app/a", "/app/a/b"] {
            writer
                .create(path, b"", CreateMode::Persistent)
                .await
                .unwrap();
        }
        writer.set_data("/app/a/b", b"x", -1).await.unwrap();
        let seen = |events: &mut crate::zk::client::Watch| {
            std::iter::from_fn(|| events.try_next())
                .map(|e| (e.event_type, e.path))
                .collect::<Vec<_>>()
        };
        watcher.sync("/app").await.unwrap();
        assert_eq!(
            seen(&mut tree),
            [
                (EventType::NodeCreated, "/app".to_string()),
                (EventType::NodeCreated, "/app/a".into()),
                (EventType::NodeCreated, "/app/a/b".into()),
                (EventType::NodeDataChanged, "/app/a/b".into()),
            ]
        );
        assert_eq!(
            seen(&mut node),
            [
                (EventType::NodeCreated, "/app/a".to_string()),
                (EventType::NodeChildrenChanged, "/app/a".into()),
            ]
        );
        for path in ["/app", "/app/a"] {
            watcher
                .remove_watches(path, WatcherType::Any)
                .await
                .unwrap();
        }
        assert!(tree.is_finished() && node.is_finished());
        assert_eq!(
            watcher.remove_watches("/app", WatcherType::Any).await,
            Err(ZkError::Server(crate::zk::proto::ErrorCode::NoWatcher))
        );
    })
    .await;
}
