//! Cases on an ensemble of three, members named as `serve zk --servers 3` orders them: `f1`,
//! `f2` (the followers, in id order) and `leader`. Sessions on each member, a session that
//! moves between members (reading its own writes; SetWatches on the new one), a write on the
//! connection it left (SessionMoved), and sync on a follower.
//!
//! A follower applies a write some time after the leader committed it, so a read recorded
//! here is one the protocol makes exact: of the session's own writes (a reconnect carries the
//! last zxid the session saw, and a member behind it refuses), or after a sync.

use std::net::SocketAddr;

use locksim::zk::proto::CreateMode::{Ephemeral, Persistent};
use locksim::zk::proto::{Acl, CreateRequest, EventType, KeeperState, Request};

use super::raw::{RawConn, RawError};
use super::script::{Cx, LONG_SESSION_MS, S};
use super::transcript::{Item, Transcript};

/// A member of the ensemble, an index into `Cx::members`.
type M = usize;
const F1: M = 0;
const F2: M = 1;
const LEADER: M = 2;

fn name(m: M) -> &'static str {
    ["f1", "f2", "leader"][m]
}

impl Cx {
    /// A session on member `m`.
    async fn session_on(&mut self, m: M) -> S {
        let s = self.session_at(self.members[m], LONG_SESSION_MS).await;
        let step = self.step(s, format!("connected to {}", name(m)));
        self.t.push(step, vec![Item::Text("ok".into())]);
        s
    }

    /// Drops session `s`'s connection, its next dials going to member `m` but refused until
    /// `arrive`; returns what `arrive` takes.
    async fn leave_for(&mut self, s: S, m: M) -> usize {
        let step = self.step(s, format!("leaves its server for {}", name(m)));
        self.t.push(step, vec![Item::Text("ok".into())]);
        self.redirect(s, self.members[m]);
        self.valve(s).refuse(true);
        let since = self.seen(s);
        self.valve(s).cut();
        self.wait_since(s, since, "Disconnected", |e| {
            e.event_type == EventType::None && e.state == KeeperState::Disconnected
        })
        .await;
        since
    }

    /// Lets session `s` reconnect where `leave_for` sent it, and waits until it has.
    async fn arrive(&mut self, s: S, since: usize) {
        self.valve(s).refuse(false);
        self.wait_since(s, since, "SyncConnected", |e| {
            e.event_type == EventType::None && e.state == KeeperState::SyncConnected
        })
        .await;
    }

    /// Moves session `s` to member `m` (the same id, password and last zxid).
    async fn move_to(&mut self, s: S, m: M) {
        let since = self.leave_for(s, m).await;
        self.arrive(s, since).await;
    }

    /// Whether `conn` still answers `request` at once, or was closed by the server (a
    /// connection the server closed may read as EOF or as reset, depending on when the
    /// request reached it: both are `closed`).
    async fn raw_still_open(&mut self, conn: &mut RawConn, what: &str, xid: i32, request: Request) {
        let answer = match conn.call(xid, &request).await {
            Ok(reply) => format!("answers {:?}", reply.header.err),
            Err(RawError::Closed | RawError::Io(_)) => "closed".to_string(),
            Err(err) => format!("{err:?}"),
        };
        self.t
            .push(format!("raw {what} still open"), vec![Item::Text(answer)]);
    }

    /// A raw connection to member `m` (see `raw_connect`).
    async fn raw_on(
        &mut self,
        m: M,
        what: &str,
        session: Option<(i64, Vec<u8>)>,
    ) -> Option<(RawConn, i64, Vec<u8>)> {
        let home: SocketAddr = self.addr;
        self.addr = self.members[m];
        let what = format!("{what} at {}", name(m));
        let opened = self.raw_connect(&what, session, 2_000).await;
        self.addr = home;
        opened
    }
}

/// A session on each member creates and reads on it; after a sync each sees the others'
/// nodes; an ephemeral made through a follower goes when its session closes, and a watch
/// on another follower fires.
pub async fn each_member(mut cx: Cx) -> Transcript {
    let s1 = cx.session_on(F1).await;
    let s2 = cx.session_on(F2).await;
    let s3 = cx.session_on(LEADER).await;
    cx.create(s1, "", "", Persistent).await;
    for (s, rel) in [(s1, "n1"), (s2, "n2"), (s3, "n3")] {
        cx.create(s, rel, rel, Persistent).await;
        cx.get_data(s, rel).await;
        cx.exists(s, "").await;
    }
    for s in [s1, s2, s3] {
        cx.sync(s, "").await;
        cx.get_children2(s, "").await;
    }
    cx.create(s1, "e", "", Ephemeral).await;
    cx.sync(s2, "").await;
    cx.exists_watch(s2, "e", "s2-e").await;
    cx.get_children_watch(s3, "", "s3-children").await;
    cx.close(s1).await;
    cx.wait_node_event(s2, EventType::NodeDeleted, "e").await;
    cx.wait_node_event(s3, EventType::NodeChildrenChanged, "")
        .await;
    cx.get_children2(s2, "").await;
    cx.finish().await
}

/// A session made on one follower moves to the other, then to the leader: it keeps its id
/// and ephemerals, and reads its own writes wherever it is (a member that has not applied
/// them yet refuses the reconnect until it has).
pub async fn session_moves(mut cx: Cx) -> Transcript {
    let s1 = cx.session_on(F1).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "a", "1", Persistent).await;
    cx.create(s1, "e", "", Ephemeral).await;
    cx.move_to(s1, F2).await;
    cx.get_data(s1, "a").await;
    cx.exists(s1, "e").await;
    cx.set_data(s1, "a", "2", 0).await;
    cx.move_to(s1, LEADER).await;
    cx.get_data(s1, "a").await;
    cx.create(s1, "b", "", Persistent).await;
    cx.move_to(s1, F1).await;
    cx.get_children2(s1, "").await;
    cx.get_data(s1, "a").await;
    cx.exists(s1, "e").await;
    let s2 = cx.session_on(F2).await;
    cx.sync(s2, "").await;
    cx.get_children2(s2, "").await;
    cx.finish().await
}

fn create(path: String) -> Request {
    Request::Create(CreateRequest {
        path,
        data: Vec::new(),
        acl: Acl::open_unsafe(),
        mode: Persistent,
    })
}

fn exists(path: String) -> Request {
    Request::Exists { path, watch: false }
}

/// A session resumed on another member while its first connection stays open: a read on
/// the old connection, then a write on it (which the leader refuses, as the session's
/// owner is now the other member, taking a zxid); then whether the old connection still
/// answers, and what the session sees on its new one.
pub async fn session_moved(mut cx: Cx) -> Transcript {
    let Some((mut old, id, passwd)) = cx.raw_on(F1, "new", None).await else {
        return cx.finish().await;
    };
    cx.raw_call_zxid(&mut old, "create base", 1, create(cx.p("")))
        .await;
    cx.raw_call_zxid(&mut old, "create x", 2, create(cx.p("x")))
        .await;
    let Some((mut new, _, _)) = cx.raw_on(F2, "resume r1", Some((id, passwd))).await else {
        return cx.finish().await;
    };
    cx.raw_call_zxid(&mut new, "exists x", 1, exists(cx.p("x")))
        .await;
    cx.raw_call(
        &mut old,
        "exists x on the old connection",
        3,
        exists(cx.p("x")),
    )
    .await;
    cx.raw_call(
        &mut old,
        "create y on the old connection",
        4,
        create(cx.p("y")),
    )
    .await;
    cx.raw_still_open(&mut old, "old connection", 5, exists(cx.p("x")))
        .await;
    let sync = Request::Sync { path: cx.p("") };
    cx.raw_call_zxid(&mut new, "sync", 2, sync).await;
    cx.raw_call_zxid(&mut new, "exists y", 3, exists(cx.p("y")))
        .await;
    cx.raw_call_zxid(&mut new, "create z", 4, create(cx.p("z")))
        .await;
    cx.raw_call(&mut new, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}

/// Watches set on one follower come along when the session moves to the other (SetWatches
/// with the last zxid it saw): what changed while it moved fires on arrival, what changes
/// later fires there too.
pub async fn set_watches_after_move(mut cx: Cx) -> Transcript {
    let s1 = cx.session_on(F1).await;
    let s2 = cx.session_on(LEADER).await;
    cx.create(s2, "", "", Persistent).await;
    for rel in ["changed", "deleted", "later", "dir"] {
        cx.create(s2, rel, "0", Persistent).await;
    }
    cx.sync(s1, "").await;
    cx.get_data_watch(s1, "changed", "data-changed").await;
    cx.get_data_watch(s1, "deleted", "data-deleted").await;
    cx.get_data_watch(s1, "later", "data-later").await;
    cx.exists_watch(s1, "appears", "exists-appears").await;
    cx.get_children_watch(s1, "dir", "children-dir").await;
    let since = cx.leave_for(s1, F2).await;
    cx.set_data(s2, "changed", "1", -1).await;
    cx.delete(s2, "deleted", -1).await;
    cx.create(s2, "appears", "", Persistent).await;
    cx.arrive(s1, since).await;
    cx.wait_node_event(s1, EventType::NodeDataChanged, "changed")
        .await;
    cx.wait_node_event(s1, EventType::NodeDeleted, "deleted")
        .await;
    cx.wait_node_event(s1, EventType::NodeCreated, "appears")
        .await;
    cx.set_data(s2, "later", "1", -1).await;
    cx.create(s2, "dir/child", "", Persistent).await;
    cx.wait_node_event(s1, EventType::NodeDataChanged, "later")
        .await;
    cx.wait_node_event(s1, EventType::NodeChildrenChanged, "dir")
        .await;
    cx.finish().await
}

/// A sync on a follower brings it up to the leader: the read after it sees writes made
/// through the other follower and through the leader. Sync names any path, even one that
/// does not exist.
pub async fn sync_on_a_follower(mut cx: Cx) -> Transcript {
    let s1 = cx.session_on(F1).await;
    let s2 = cx.session_on(F2).await;
    let s3 = cx.session_on(LEADER).await;
    cx.create(s3, "", "", Persistent).await;
    cx.create(s3, "a", "0", Persistent).await;
    cx.sync(s1, "a").await;
    cx.get_data(s1, "a").await;
    cx.set_data(s2, "a", "1", -1).await;
    cx.sync(s1, "a").await;
    cx.get_data(s1, "a").await;
    cx.set_data(s3, "a", "2", -1).await;
    cx.create(s3, "b", "", Persistent).await;
    cx.sync(s1, "missing").await;
    cx.get_data(s1, "a").await;
    cx.get_children2(s1, "").await;
    cx.finish().await
}
