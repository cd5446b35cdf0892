//! Cases on multi and sync: a multi that applies (one zxid, later ops seeing earlier ones),
//! multis that fail on their second op and change nothing (the per-op error layout), the
//! watches a multi fires, sync, the zxids each takes, and kazoo's `LockingQueue` sequence.

use locksim::zk::proto::CreateMode::{
    Container, Ephemeral, Persistent, PersistentSequential, PersistentWithTtl,
};
use locksim::zk::proto::{
    Acl, CreateRequest, CreateTtlRequest, DeleteRequest, MultiOp, ReadOp, Request, SetDataRequest,
};

use super::script::{Cx, LONG_SESSION_MS};
use super::transcript::Transcript;

/// Every kind of op in one multi that applies: the created nodes' czxid, the set node's
/// mzxid and the parent's pzxid are one zxid; later ops see what earlier ones did.
pub async fn multi_success(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "x", "0", Persistent).await;
    cx.create(s1, "gone", "", Persistent).await;
    let ops = vec![
        MultiOp::create("q-", b"1", PersistentSequential),
        MultiOp::create("e", b"eph", Ephemeral),
        MultiOp::create("d", b"", Persistent),
        MultiOp::create("d/c", b"", Persistent),
        MultiOp::create("q-", b"2", PersistentSequential),
        MultiOp::check("x", 0),
        MultiOp::set_data("x", b"1", 0),
        MultiOp::set_data("x", b"2", 1),
        MultiOp::check("x", -1),
        MultiOp::delete("gone", 0),
        MultiOp::delete("d/c", -1),
    ];
    cx.multi(s1, ops).await;
    cx.get_children2(s2, "").await;
    for rel in ["q-0000000002", "q-0000000005", "e", "d"] {
        cx.exists(s2, rel).await;
    }
    cx.get_data(s2, "x").await;
    cx.multi(s2, vec![]).await;
    cx.close(s1).await;
    cx.get_children2(s2, "").await;
    cx.finish().await
}

/// Multis whose second op fails: Ok for the first, the error for the second,
/// RuntimeInconsistency for the rest; nothing changes, no sequence number is used up.
pub async fn multi_failure(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "x", "0", Persistent).await;
    cx.create(s1, "dir", "", Persistent).await;
    cx.create(s1, "dir/c", "", Persistent).await;
    cx.get_children2(s1, "").await;
    let bad_version = vec![
        MultiOp::create("new", b"", Persistent),
        MultiOp::set_data("x", b"v", 7),
        MultiOp::delete("dir/c", -1),
        MultiOp::create("q-", b"", PersistentSequential),
    ];
    cx.multi(s1, bad_version).await;
    cx.get_children2(s1, "").await;
    cx.get_data(s1, "x").await;
    cx.exists(s1, "new").await;
    cx.get_children2(s1, "dir").await;
    let second_fails = [
        MultiOp::create("x", b"", Persistent),
        MultiOp::check("missing", -1),
        MultiOp::delete("dir", -1),
        MultiOp::create("x/", b"", Persistent),
        MultiOp::create("e/child", b"", Persistent),
        MultiOp::delete("x", 3),
    ];
    for (rel, second) in ["n1", "n2", "dir/d", "n3", "e", "n4"]
        .into_iter()
        .zip(second_fails)
    {
        let mode = if rel == "e" { Ephemeral } else { Persistent };
        cx.multi(s1, vec![MultiOp::create(rel, b"", mode), second])
            .await;
    }
    // Failing on the first op: everything after it is RuntimeInconsistency.
    let first_fails = vec![
        MultiOp::check("x", 9),
        MultiOp::create("n5", b"", Persistent),
        MultiOp::set_data("x", b"", -1),
    ];
    cx.multi(s1, first_fails).await;
    cx.create(s1, "q-", "", PersistentSequential).await;
    cx.get_children2(s1, "").await;
    cx.get_data(s1, "x").await;
    cx.finish().await
}

/// A failed multi fires nothing; one that applies fires each watch once, op by op, before
/// its reply.
pub async fn multi_watches(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s2, "", "", Persistent).await;
    cx.create(s2, "x", "0", Persistent).await;
    cx.create(s2, "gone", "", Persistent).await;
    cx.exists_watch(s1, "new", "exists-new").await;
    cx.get_data_watch(s1, "x", "data-x").await;
    cx.get_children_watch(s1, "", "children").await;
    cx.exists_watch(s1, "gone", "exists-gone").await;
    let failing = vec![
        MultiOp::create("new", b"", Persistent),
        MultiOp::set_data("x", b"1", -1),
        MultiOp::delete("gone", -1),
        MultiOp::check("missing", -1),
    ];
    cx.multi(s2, failing).await;
    cx.settle().await;
    for name in ["exists-new", "data-x", "children", "exists-gone"] {
        cx.watch(name);
    }
    let applying = vec![
        MultiOp::set_data("x", b"1", -1),
        MultiOp::create("new", b"", Persistent),
        MultiOp::delete("gone", -1),
        MultiOp::set_data("new", b"2", -1),
        MultiOp::delete("new", -1),
    ];
    cx.multi(s2, applying).await;
    cx.finish().await
}

/// sync answers with the path it was given, whether or not the node exists, in order with
/// the session's other requests.
pub async fn sync(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.sync(s1, "").await;
    cx.sync(s1, "missing").await;
    cx.create(s2, "x", "1", Persistent).await;
    cx.sync(s1, "x").await;
    cx.get_data(s1, "x").await;
    cx.finish().await
}

/// The zxid each request moves the server by, seen in its reply header: a multi takes one
/// whatever its size and outcome, sync and reads none.
pub async fn multi_zxids(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let p = |rel: &str| cx.p(rel);
    let (base, a, b, c, missing) = (p(""), p("a"), p("b"), p("c"), p("missing"));
    let create = |path: &str| {
        Request::Create(CreateRequest {
            path: path.to_string(),
            data: vec![],
            acl: locksim::zk::proto::Acl::open_unsafe(),
            mode: Persistent,
        })
    };
    let multi = |ops: Vec<MultiOp>| Request::Multi { ops };
    let steps = vec![
        ("create base", create(&base)),
        (
            "exists base",
            Request::Exists {
                path: base.clone(),
                watch: false,
            },
        ),
        (
            "multi of three",
            multi(vec![
                MultiOp::create(a.clone(), b"", Persistent),
                MultiOp::create(b.clone(), b"", Persistent),
                MultiOp::set_data(base.clone(), b"1", -1),
            ]),
        ),
        (
            "multi failing on its second",
            multi(vec![
                MultiOp::create(c.clone(), b"", Persistent),
                MultiOp::check(missing.clone(), -1),
            ]),
        ),
        ("empty multi", multi(vec![])),
        ("sync base", Request::Sync { path: base.clone() }),
        (
            "sync of a malformed path",
            Request::Sync {
                path: "not a path".into(),
            },
        ),
        ("create c", create(&c)),
        (
            "delete missing",
            Request::Delete(DeleteRequest {
                path: missing.clone(),
                version: -1,
            }),
        ),
    ];
    for (xid, (what, request)) in (1..).zip(steps) {
        cx.raw_call_zxid(&mut raw, what, xid, request).await;
    }
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}

/// kazoo's `LockingQueue`: `put_all` is one multi of sequential creates; `get` takes the
/// lowest free entry with an ephemeral lock node named after it and reads the entry;
/// `holds_lock` is sync then a read of the lock node; `consume` is one multi deleting the
/// entry and its lock. Then sync followed by a multi of a create and a delete, and a consume
/// of an entry that is already gone.
pub async fn kazoo_locking_queue(mut cx: Cx) -> Transcript {
    let producer = cx.session(LONG_SESSION_MS).await;
    let consumer = cx.session(LONG_SESSION_MS).await;
    let rival = cx.session(LONG_SESSION_MS).await;
    for rel in ["", "entries", "locks"] {
        cx.create(producer, rel, "", Persistent).await;
    }
    let put_all = vec![
        MultiOp::create("entries/entry-100-", b"a", PersistentSequential),
        MultiOp::create("entries/entry-100-", b"b", PersistentSequential),
    ];
    cx.multi(producer, put_all).await;
    cx.get_children(consumer, "entries").await;
    cx.get_children(consumer, "locks").await;
    let (entry0, entry1) = ("entry-100-0000000000", "entry-100-0000000001");
    let lock0 = format!("locks/{entry0}");
    cx.create(consumer, &lock0, "consumer-id", Ephemeral).await;
    cx.get_data(consumer, &format!("entries/{entry0}")).await;
    cx.create(rival, &lock0, "rival-id", Ephemeral).await;
    cx.sync(consumer, &lock0).await;
    cx.get_data(consumer, &lock0).await;
    let consume = vec![
        MultiOp::delete(format!("entries/{entry0}"), -1),
        MultiOp::delete(lock0.clone(), -1),
    ];
    cx.multi(consumer, consume.clone()).await;
    cx.sync(rival, "locks").await;
    let take_and_drop = vec![
        MultiOp::create(format!("locks/{entry1}"), b"rival-id", Ephemeral),
        MultiOp::delete(format!("entries/{entry1}"), -1),
    ];
    cx.multi(rival, take_and_drop).await;
    cx.multi(rival, consume).await;
    cx.get_children2(consumer, "entries").await;
    cx.get_children2(consumer, "locks").await;
    cx.finish().await
}

/// multiRead (3.6+): getChildren and getData answered one by one, a missing node an error
/// result that leaves the others standing, no watch left even when asked for; an entry that
/// is not a read makes the whole request a marshalling error, with the connection kept.
pub async fn multi_read(mut cx: Cx) -> Transcript {
    let Some((mut raw, mut other)) = cx.raw_pair("reader", "writer").await else {
        return cx.finish().await;
    };
    let (base, a, missing) = (cx.p(""), cx.p("a"), cx.p("missing"));
    let create = |path: &str| {
        Request::Create(CreateRequest {
            path: path.to_string(),
            data: b"d".to_vec(),
            acl: locksim::zk::proto::Acl::open_unsafe(),
            mode: Persistent,
        })
    };
    cx.raw_call(&mut raw, "create base", 1, create(&base)).await;
    cx.raw_call(&mut raw, "create a", 2, create(&a)).await;
    let children = |path: &str| ReadOp::GetChildren { path: path.into() };
    let data = |path: &str| ReadOp::GetData { path: path.into() };
    let reads = vec![
        children(&base),
        data(&base),
        data(&missing),
        children(&missing),
        data(&a),
        data("no slash"),
    ];
    cx.raw_call(&mut raw, "multiRead", 3, Request::MultiRead { ops: reads })
        .await;
    cx.raw_call(
        &mut raw,
        "empty multiRead",
        4,
        Request::MultiRead { ops: vec![] },
    )
    .await;
    // Nothing the multiRead read is watched: the writer's changes notify nobody.
    let set = Request::SetData(SetDataRequest {
        path: base.clone(),
        data: b"x".to_vec(),
        version: -1,
    });
    cx.raw_call(&mut other, "writer's setData", 1, set).await;
    cx.raw_call(&mut other, "writer's create", 2, create(&cx.p("b")))
        .await;
    let again = vec![children(&base), data(&base)];
    cx.raw_call(
        &mut raw,
        "multiRead after",
        5,
        Request::MultiRead { ops: again },
    )
    .await;
    cx.raw_multi_read_with_a_create(&mut raw, 6, &base).await;
    cx.raw_close_pair((raw, other)).await
}

/// The entries 3.8 takes in a multi: create, create2 and createContainer entries are read
/// alike, as a create of the mode their flags name (a container is answered with its Stat,
/// a plain node with its path only); a createTTL entry fails the multi with Unimplemented
/// while extended types are off; flags that name no mode fail it at that entry with
/// BadArguments; an entry of any other type (a read, deleteContainer, an unknown one) fails
/// the whole multi with MarshallingError after taking a zxid, and the connection stays.
pub async fn multi_entries(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let base = cx.p("");
    cx.raw_create_flags(&mut raw, 1, &base, 0, false).await;
    let create = |rel: &str, mode| MultiOp::create(format!("{base}/{rel}"), b"d", mode);
    let entries = [
        (create("a", Persistent), 15),
        (create("b", Ephemeral), 15),
        (create("c", Persistent), 19),
        (create("d", Container), 1),
        (create("e", Container), 19),
        (create("f-", PersistentSequential), 15),
        (create("a", Persistent), 15),
        (create("g", Persistent), 4),
        (create("h", Persistent), 20),
        (create("i", Persistent), 99),
    ];
    for (xid, (op, entry)) in (2..).zip(entries) {
        cx.raw_multi_entry(&mut raw, xid, op, entry).await;
    }
    let ttl = MultiOp::CreateTtl(CreateTtlRequest {
        path: cx.p("t"),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode: PersistentWithTtl,
        ttl_ms: 1_000,
    });
    let unknown = MultiOp::CreateUnknownMode {
        path: cx.p("u"),
        data: vec![],
        acl: Acl::open_unsafe(),
        flags: 9,
    };
    let multis = [
        ("a createTTL entry", vec![create("t0", Persistent), ttl]),
        (
            "flags that name no mode",
            vec![create("u0", Persistent), unknown, create("u1", Persistent)],
        ),
        ("nothing", vec![]),
    ];
    for (xid, (what, ops)) in (20..).zip(multis) {
        let what = format!("multi with {what}");
        cx.raw_call_zxid(&mut raw, &what, xid, Request::Multi { ops })
            .await;
    }
    let count = Request::GetAllChildrenNumber { path: base.clone() };
    cx.raw_call_zxid(&mut raw, "count", 30, count).await;
    let exists = |path: String| Request::Exists { path, watch: false };
    for (xid, rel) in (31..).zip(["b", "d", "e"]) {
        let path = cx.p(rel);
        cx.raw_call_zxid(&mut raw, &format!("exists {rel}"), xid, exists(path))
            .await;
    }
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}
