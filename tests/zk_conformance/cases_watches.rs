//! Cases on watches: what each kind of watch fires on, exists on a missing node, one-shot
//! behaviour, several watches of one session on one path, several sessions on one node.

use locksim::zk::proto::CreateMode::{Ephemeral, Persistent};
use locksim::zk::proto::WatcherType::{Any, Children, Data};
use locksim::zk::proto::{
    Acl, AddWatchMode, CreateRequest, DeleteRequest, Request, SetDataRequest, WatcherType,
};

use super::script::{Cx, LONG_SESSION_MS};
use super::transcript::Transcript;

/// Data and exists watches on existing nodes: setData and delete fire them, child changes
/// do not.
pub async fn data_watches(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    for rel in ["a", "b", "c", "d"] {
        cx.create(s2, rel, "0", Persistent).await;
    }
    cx.exists_watch(s1, "a", "exists-a").await;
    cx.get_data_watch(s1, "b", "data-b").await;
    cx.exists_watch(s1, "c", "exists-c").await;
    cx.get_data_watch(s1, "d", "data-d").await;
    cx.set_data(s2, "a", "1", -1).await;
    cx.delete(s2, "b", -1).await;
    cx.delete(s2, "c", -1).await;
    // A child's create and delete, and a child's setData, leave d's data watch armed.
    cx.create(s2, "d/child", "", Persistent).await;
    cx.set_data(s2, "d/child", "x", -1).await;
    cx.delete(s2, "d/child", -1).await;
    cx.settle().await;
    cx.watch("data-d");
    cx.set_data(s2, "d", "1", -1).await;
    cx.finish().await
}

/// exists on a missing node leaves a watch that fires on create; getData and getChildren
/// on a missing node leave none.
pub async fn missing_node_watches(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    cx.exists_watch(s1, "x", "exists-x").await;
    cx.get_data_watch(s1, "y", "data-y").await;
    cx.get_children_watch(s1, "y", "children-y").await;
    cx.exists_watch(s1, "z", "exists-z").await;
    cx.create(s2, "x", "", Persistent).await;
    cx.create(s2, "y", "", Persistent).await;
    // Created and deleted again: the exists watch fires once, on the create.
    cx.create(s2, "z", "", Ephemeral).await;
    cx.delete(s2, "z", -1).await;
    cx.settle().await;
    cx.watch("exists-z");
    cx.exists_watch(s1, "x", "exists-x-again").await;
    cx.delete(s2, "x", -1).await;
    cx.finish().await
}

/// Child watches: child create and delete fire NodeChildrenChanged, a child's setData or
/// the node's own setData nothing, the node's delete NodeDeleted.
pub async fn child_watches(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    cx.create(s2, "dir", "", Persistent).await;
    cx.get_children_watch(s1, "dir", "children-1").await;
    cx.create(s2, "dir/a", "", Persistent).await;
    cx.get_children_watch(s1, "dir", "children-2").await;
    cx.set_data(s2, "dir/a", "x", -1).await;
    cx.set_data(s2, "dir", "x", -1).await;
    cx.create(s2, "dir/a/grandchild", "", Persistent).await;
    cx.settle().await;
    cx.watch("children-2");
    cx.delete(s2, "dir/a/grandchild", -1).await;
    cx.delete(s2, "dir/a", -1).await;
    cx.get_children_watch(s1, "dir", "children-3").await;
    cx.delete(s2, "dir", -1).await;
    cx.get_children(s1, "").await;
    cx.get_children(s1, "dir").await;
    cx.finish().await
}

/// A watch fires once; a data, an exists and a child watch of one session on one path get
/// one NodeDeleted notification between them, and each registration hears of it.
pub async fn one_shot(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    cx.create(s2, "n", "", Persistent).await;
    cx.get_data_watch(s1, "n", "data-1").await;
    cx.set_data(s2, "n", "1", -1).await;
    cx.set_data(s2, "n", "2", -1).await;
    cx.settle().await;
    cx.watch("data-1");
    cx.get_data_watch(s1, "n", "data-2").await;
    cx.get_data_watch(s1, "n", "data-3").await;
    cx.exists_watch(s1, "n", "exists").await;
    cx.get_children_watch(s1, "n", "children").await;
    cx.delete(s2, "n", -1).await;
    cx.create(s2, "n", "", Persistent).await;
    cx.finish().await
}

/// Two sessions watching one node both hear of each change; a session's own write fires its
/// own watch before the write's reply.
pub async fn two_sessions(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    let s3 = cx.session(LONG_SESSION_MS).await;
    cx.create(s3, "", "", Persistent).await;
    cx.create(s3, "n", "", Persistent).await;
    cx.exists_watch(s1, "n", "s1-exists").await;
    cx.get_data_watch(s2, "n", "s2-data").await;
    cx.get_children_watch(s1, "n", "s1-children").await;
    cx.get_children_watch(s2, "n", "s2-children").await;
    cx.set_data(s3, "n", "1", -1).await;
    cx.create(s3, "n/c", "", Persistent).await;
    cx.get_data_watch(s1, "n", "s1-own").await;
    cx.set_data(s1, "n", "2", -1).await;
    cx.finish().await
}

/// A notification reaches its session before any reply the session gets afterwards, the
/// reply to the write that caused it included (seen on the wire of a raw session).
pub async fn events_before_replies(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, LONG_SESSION_MS as i32).await else {
        return cx.finish().await;
    };
    let n = cx.p("n");
    let exists = |watch| Request::Exists {
        path: n.clone(),
        watch,
    };
    let get_data = |watch| Request::GetData {
        path: n.clone(),
        watch,
    };
    cx.raw_call(&mut raw, "exists+watch n", 1, exists(true))
        .await;
    cx.create(s1, "n", "1", Persistent).await;
    cx.raw_call(&mut raw, "getData+watch n", 2, get_data(true))
        .await;
    let set_data = Request::SetData(SetDataRequest {
        path: n.clone(),
        data: b"2".to_vec(),
        version: -1,
    });
    cx.raw_call(&mut raw, "setData n", 3, set_data).await;
    cx.raw_call(&mut raw, "exists+watch n", 4, exists(true))
        .await;
    cx.delete(s1, "n", -1).await;
    cx.raw_call(&mut raw, "getData n", 5, get_data(false)).await;
    cx.raw_call(&mut raw, "close", 6, Request::CloseSession)
        .await;
    cx.finish().await
}

/// checkWatches and removeWatches (3.5+) on raw connections: NoWatcher when there is none;
/// a check finds another connection's watch too (3.8 looks for any watcher on the path); a
/// removal is the connection's own, and a removed watch never fires; Any covers both tables;
/// a type naming no kind is a marshalling error that keeps the connection.
pub async fn check_and_remove_watches(mut cx: Cx) -> Transcript {
    let Some((mut raw, mut other)) = cx.raw_pair("watcher", "other").await else {
        return cx.finish().await;
    };
    let w = cx.p("");
    let create = Request::Create(CreateRequest {
        path: w.clone(),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode: Persistent,
    });
    cx.raw_call(&mut raw, "create", 1, create).await;
    let check = |kind| Request::CheckWatches {
        path: w.clone(),
        kind,
    };
    let remove = |kind| Request::RemoveWatches {
        path: w.clone(),
        kind,
    };
    let get_data = Request::GetData {
        path: w.clone(),
        watch: true,
    };
    let get_children = Request::GetChildren {
        path: w.clone(),
        watch: true,
    };
    cx.raw_call(&mut raw, "check any, none set", 2, check(Any))
        .await;
    cx.raw_call(&mut raw, "getData watch", 3, get_data.clone())
        .await;
    cx.raw_call(&mut raw, "check children", 4, check(Children))
        .await;
    cx.raw_call(&mut raw, "check data", 5, check(Data)).await;
    cx.raw_call(&mut other, "other's check data", 1, check(Data))
        .await;
    cx.raw_call(&mut other, "other's remove data", 2, remove(Data))
        .await;
    cx.raw_call(&mut raw, "remove children", 6, remove(Children))
        .await;
    cx.raw_call(&mut raw, "remove data", 7, remove(Data)).await;
    cx.raw_call(&mut raw, "remove data again", 8, remove(Data))
        .await;
    let set = Request::SetData(SetDataRequest {
        path: w.clone(),
        data: b"1".to_vec(),
        version: -1,
    });
    cx.raw_call(&mut other, "other's setData", 3, set).await;
    cx.raw_call(&mut raw, "getChildren watch", 9, get_children)
        .await;
    cx.raw_call(&mut raw, "getData watch again", 10, get_data)
        .await;
    cx.raw_call(&mut raw, "remove any", 11, remove(Any)).await;
    cx.raw_call(&mut raw, "check any after", 12, check(Any))
        .await;
    cx.raw_check_watches_type(&mut raw, 13, &w, 0).await;
    cx.raw_call(&mut raw, "check any still served", 14, check(Any))
        .await;
    cx.raw_close_pair((raw, other)).await
}

/// setWatches2 (3.6+) on raw connections, as a client sends it after reconnecting: watches
/// whose path changed after the relative zxid fire at once (ahead of the reply), the others
/// are registered and fire later (persistent ones: `persistent_watches`).
pub async fn set_watches2(mut cx: Cx) -> Transcript {
    let Some((mut raw, mut other)) = cx.raw_pair("watcher", "other").await else {
        return cx.finish().await;
    };
    let (base, n, gone, later) = (cx.p(""), cx.p("n"), cx.p("gone"), cx.p("later"));
    let create = |path: &str| {
        Request::Create(CreateRequest {
            path: path.to_string(),
            data: vec![],
            acl: Acl::open_unsafe(),
            mode: Persistent,
        })
    };
    for (xid, path) in (1..).zip([&base, &n, &gone]) {
        cx.raw_call(&mut other, &format!("create {path}"), xid, create(path))
            .await;
    }
    let delete = Request::Delete(DeleteRequest {
        path: gone.clone(),
        version: -1,
    });
    cx.raw_call(&mut other, "delete gone", 4, delete).await;
    let set_watches = |relative_zxid| Request::SetWatches2 {
        relative_zxid,
        data: vec![n.clone()],
        exist: vec![later.clone()],
        child: vec![gone.clone(), base.clone()],
        persistent: vec![],
        persistent_recursive: vec![],
    };
    cx.raw_call(&mut raw, "setWatches2 from zxid 0", 1, set_watches(0))
        .await;
    cx.raw_call(
        &mut raw,
        "setWatches2 from now",
        2,
        set_watches(i64::MAX >> 1),
    )
    .await;
    let set = Request::SetData(SetDataRequest {
        path: n.clone(),
        data: b"1".to_vec(),
        version: -1,
    });
    cx.raw_call(&mut other, "setData n", 5, set).await;
    cx.raw_call(&mut other, "create later", 6, create(&later))
        .await;
    let exists = Request::Exists {
        path: base.clone(),
        watch: false,
    };
    cx.raw_call(&mut raw, "exists, after the changes", 3, exists)
        .await;
    cx.raw_close_pair((raw, other)).await
}

/// addWatch (3.6+): a persistent watch sees its path's data, creation, deletion and children
/// events and stays; a recursive one sees every event at or below its path but
/// NodeChildrenChanged, even on a path that does not exist yet; a mode that names none is a
/// MarshallingError; a getData watch on a persistently watched path makes it one-shot in the
/// data table (3.8.0 keeps one mode per path and table), the child table's staying
/// persistent; removeWatches drops them; setWatches2 registers persistent watches again.
pub async fn persistent_watches(mut cx: Cx) -> Transcript {
    let Some((mut raw, mut other)) = cx.raw_pair("watcher", "other").await else {
        return cx.finish().await;
    };
    let base = cx.p("");
    let create = |path: String| {
        Request::Create(CreateRequest {
            path,
            data: vec![],
            acl: Acl::open_unsafe(),
            mode: Persistent,
        })
    };
    let set = |path: String| {
        Request::SetData(SetDataRequest {
            path,
            data: b"x".to_vec(),
            version: -1,
        })
    };
    let add = |path: String, mode| Request::AddWatch { path, mode };
    let sync = Request::Sync { path: base.clone() };
    cx.raw_call(&mut other, "create base", 1, create(base.clone()))
        .await;
    let adds = [
        ("addWatch base", add(base.clone(), AddWatchMode::Persistent)),
        (
            "addWatch r, recursive, missing",
            add(cx.p("r"), AddWatchMode::PersistentRecursive),
        ),
        (
            "addWatch of no path",
            add("bad".into(), AddWatchMode::Persistent),
        ),
    ];
    for (xid, (what, request)) in (1..).zip(adds) {
        cx.raw_call(&mut raw, what, xid, request).await;
    }
    let unknown = add(base.clone(), AddWatchMode::Persistent);
    cx.raw_flags(&mut raw, 4, "addWatch base mode", unknown, 7)
        .await;
    let changes = [
        ("setData base", set(base.clone())),
        ("create a", create(cx.p("a"))),
        ("create r", create(cx.p("r"))),
        ("create r/x", create(cx.p("r/x"))),
        ("create r/x/y", create(cx.p("r/x/y"))),
        ("setData r/x/y", set(cx.p("r/x/y"))),
        (
            "delete r/x/y",
            Request::Delete(DeleteRequest {
                path: cx.p("r/x/y"),
                version: -1,
            }),
        ),
    ];
    for (xid, (what, request)) in (2..).zip(changes) {
        cx.raw_call(&mut other, what, xid, request).await;
    }
    cx.raw_call(&mut raw, "sync, after the changes", 5, sync.clone())
        .await;
    let check = Request::CheckWatches {
        path: base.clone(),
        kind: WatcherType::Any,
    };
    cx.raw_call(&mut raw, "checkWatches base", 6, check).await;
    let get = Request::GetData {
        path: base.clone(),
        watch: true,
    };
    cx.raw_call(&mut raw, "getData base, watching", 7, get)
        .await;
    let changes = [
        ("setData base", set(base.clone())),
        ("setData base again", set(base.clone())),
        ("create b", create(cx.p("b"))),
    ];
    for (xid, (what, request)) in (10..).zip(changes) {
        cx.raw_call(&mut other, what, xid, request).await;
    }
    cx.raw_call(&mut raw, "sync, after the one-shot", 8, sync.clone())
        .await;
    let remove = Request::RemoveWatches {
        path: cx.p("r"),
        kind: WatcherType::Any,
    };
    cx.raw_call(&mut raw, "removeWatches r", 9, remove).await;
    cx.raw_call(&mut other, "create r/z", 20, create(cx.p("r/z")))
        .await;
    cx.raw_call(&mut raw, "sync, after the removal", 10, sync.clone())
        .await;
    let Some((mut second, _, _)) = cx.raw_connect("second", None, 2_000).await else {
        return cx.raw_close_pair((raw, other)).await;
    };
    let set_watches = Request::SetWatches2 {
        relative_zxid: i64::MAX >> 1,
        data: vec![],
        exist: vec![],
        child: vec![],
        persistent: vec![base.clone()],
        persistent_recursive: vec![cx.p("r")],
    };
    cx.raw_call(
        &mut second,
        "setWatches2 of persistent watches",
        1,
        set_watches,
    )
    .await;
    let changes = [
        ("setData r/x", set(cx.p("r/x"))),
        ("create c", create(cx.p("c"))),
        ("setData base", set(base.clone())),
    ];
    for (xid, (what, request)) in (21..).zip(changes) {
        cx.raw_call(&mut other, what, xid, request).await;
    }
    cx.raw_call(&mut second, "sync, after setWatches2", 2, sync)
        .await;
    cx.raw_call(&mut second, "close the third", 99, Request::CloseSession)
        .await;
    cx.raw_close_pair((raw, other)).await
}
