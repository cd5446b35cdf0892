//! Cases on sessions: close, expiry of a silent client, resuming after a dropped connection
//! (SetWatches), a wrong password, an expired session's reconnect, timeout negotiation.

use locksim::zk::proto::CreateMode::{Ephemeral, EphemeralSequential, Persistent};
use locksim::zk::proto::{Acl, CreateRequest, EventType, KeeperState, Request};

use super::script::{Cx, LONG_SESSION_MS};
use super::transcript::Transcript;

/// A session short enough to expire quickly, long enough not to by accident (6 ticks).
const SHORT_SESSION_MS: u32 = 600;
/// A raw session sends nothing unless told: it expires 4 to 5 ticks after its last packet.
const RAW_SESSION_MS: i32 = 400;

/// close() deletes the session's ephemerals at once and fires the watches on them, the
/// session's own included; afterwards its calls fail.
pub async fn close_session(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "p", "", Persistent).await;
    cx.create(s1, "e1", "", Ephemeral).await;
    cx.create(s1, "e2-", "", EphemeralSequential).await;
    cx.exists_watch(s1, "e1", "s1-own-e1").await;
    cx.exists_watch(s2, "e1", "s2-e1").await;
    cx.get_data_watch(s2, "e2-0000000002", "s2-e2").await;
    cx.get_children_watch(s2, "", "s2-children").await;
    cx.exists_watch(s2, "p", "s2-p").await;
    cx.close(s1).await;
    cx.get_children2(s2, "").await;
    cx.exists(s1, "p").await;
    cx.create(s1, "late", "", Persistent).await;
    cx.finish().await
}

/// A client that stops pinging: its session expires, its ephemerals go with the watches on
/// them fired; when it reaches the server again it learns of the expiry.
pub async fn session_expiry(mut cx: Cx) -> Transcript {
    let s1 = cx.session(SHORT_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    cx.create(s1, "e", "", Ephemeral).await;
    cx.create(s1, "q-", "", EphemeralSequential).await;
    cx.create(s1, "p", "", Persistent).await;
    cx.exists_watch(s2, "e", "s2-e").await;
    cx.get_children_watch(s2, "", "s2-children").await;
    cx.valve(s1).refuse(true);
    cx.valve(s1).freeze();
    cx.wait_state(s1, KeeperState::Disconnected).await;
    cx.wait_node_event(s2, EventType::NodeDeleted, "e").await;
    cx.get_children2(s2, "").await;
    cx.valve(s1).refuse(false);
    cx.wait_state(s1, KeeperState::Expired).await;
    cx.exists(s1, "p").await;
    cx.create(s2, "e", "", Ephemeral).await;
    cx.finish().await
}

/// A dropped connection within the session: on reconnect the client re-arms its watches
/// with SetWatches and the server fires at once what changed while it was away.
pub async fn reconnect_set_watches(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    for rel in ["changed", "deleted", "unchanged", "dir"] {
        cx.create(s2, rel, "0", Persistent).await;
    }
    cx.create(s1, "mine", "", Ephemeral).await;
    cx.get_data_watch(s1, "changed", "data-changed").await;
    cx.get_data_watch(s1, "deleted", "data-deleted").await;
    cx.get_data_watch(s1, "unchanged", "data-unchanged").await;
    cx.exists_watch(s1, "appears", "exists-appears").await;
    cx.exists_watch(s1, "later", "exists-later").await;
    cx.get_children_watch(s1, "dir", "children-dir").await;
    cx.get_children_watch(s1, "", "children-base").await;
    cx.valve(s1).refuse(true);
    cx.valve(s1).cut();
    cx.wait_state(s1, KeeperState::Disconnected).await;
    cx.exists(s1, "mine").await;
    cx.set_data(s2, "changed", "1", -1).await;
    cx.delete(s2, "deleted", -1).await;
    cx.create(s2, "appears", "", Persistent).await;
    cx.create(s2, "dir/child", "", Persistent).await;
    cx.valve(s1).refuse(false);
    cx.wait_state(s1, KeeperState::SyncConnected).await;
    cx.settle().await;
    cx.exists(s1, "mine").await;
    cx.set_data(s2, "unchanged", "1", -1).await;
    cx.create(s2, "later", "", Persistent).await;
    cx.create(s2, "other", "", Persistent).await;
    cx.finish().await
}

/// A connect with a live session's id and a wrong password is refused (timeout 0); the
/// server first closes the session's current connection, so its client reconnects.
pub async fn wrong_password(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "e", "", Ephemeral).await;
    let id = cx.session_id(s1);
    cx.raw_connect("s1's id, wrong password", Some((id, vec![1; 16])), 4_000)
        .await;
    cx.wait_state(s1, KeeperState::SyncConnected).await;
    cx.exists(s1, "e").await;
    cx.raw_connect("unknown id", Some((id ^ 0x7f7f, vec![1; 16])), 4_000)
        .await;
    cx.exists(s1, "e").await;
    cx.finish().await
}

/// Resuming a live session on a new connection keeps it (the old connection is closed);
/// once it expired, a resume is refused with timeout 0. Timeouts are clamped.
pub async fn expired_reconnect(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    let Some((mut first, id, passwd)) = cx.raw_connect("new", None, RAW_SESSION_MS).await else {
        return cx.finish().await;
    };
    let create = Request::Create(CreateRequest {
        path: cx.p("e"),
        data: Vec::new(),
        acl: Acl::open_unsafe(),
        mode: Ephemeral,
    });
    cx.raw_call(&mut first, "create e", 1, create).await;
    cx.exists_watch(s1, "e", "s1-e").await;
    let resumed = cx
        .raw_connect("resume r1", Some((id, passwd.clone())), RAW_SESSION_MS)
        .await;
    cx.raw_closed(&mut first, "first connection").await;
    drop(resumed);
    cx.wait_node_event(s1, EventType::NodeDeleted, "e").await;
    cx.raw_connect("resume expired r1", Some((id, passwd)), RAW_SESSION_MS)
        .await;
    for requested in [1, 199, 350, 4_000, 100_000] {
        if let Some((mut conn, _, _)) = cx.raw_connect("new", None, requested).await {
            cx.raw_call(&mut conn, "close", 1, Request::CloseSession)
                .await;
        }
    }
    cx.finish().await
}

/// Op codes 3.8 knows and refuses, the connection kept: reconfig (ReconfigDisabled, a zxid
/// used; MarshallingError, none used, when its body is not a ReconfigRequest) and
/// deleteContainer sent by a client (BadArguments whatever its body, a zxid used).
pub async fn refused_ops(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let base = cx.p("");
    let create = Request::Create(CreateRequest {
        path: base.clone(),
        data: vec![],
        acl: locksim::zk::proto::Acl::open_unsafe(),
        mode: locksim::zk::proto::CreateMode::Persistent,
    });
    cx.raw_call_zxid(&mut raw, "create base", 1, create).await;
    let reconfig = Request::Reconfig {
        joining_servers: String::new(),
        leaving_servers: String::new(),
        new_members: String::new(),
        config_id: -1,
    };
    cx.raw_call_zxid(&mut raw, "reconfig", 2, reconfig).await;
    for (xid, (what, op)) in (3..).zip([("reconfig of a path", 16), ("deleteContainer", 20)]) {
        let request = Request::Sync { path: base.clone() };
        cx.raw_op(&mut raw, what, xid, request, op).await;
    }
    let exists = Request::Exists {
        path: base,
        watch: false,
    };
    cx.raw_call_zxid(&mut raw, "exists, still connected", 9, exists)
        .await;
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}
