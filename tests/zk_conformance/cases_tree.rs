//! Cases on the data tree: create modes, sequence numbers, error codes and their order,
//! versions, and the Stat fields each operation leaves.

use locksim::zk::proto::CreateMode::{
    Container, Ephemeral, EphemeralSequential, Persistent, PersistentSequential, PersistentWithTtl,
};
use locksim::zk::proto::{
    Acl, CreateRequest, CreateTtlRequest, DeleteRequest, MultiOp, Request, SetDataRequest,
};

use super::script::{Cx, LONG_SESSION_MS};
use super::transcript::Transcript;

/// Every create mode, with create and create2; the ephemerals go with their session.
pub async fn create_modes(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create2(s1, "", "base", Persistent).await;
    cx.create(s1, "p", "pd", Persistent).await;
    cx.create2(s1, "p2", "", Persistent).await;
    cx.create(s1, "e", "ed", Ephemeral).await;
    cx.create2(s1, "e2", "e2d", Ephemeral).await;
    cx.create(s1, "ps-", "psd", PersistentSequential).await;
    cx.create2(s1, "ps-", "", PersistentSequential).await;
    cx.create(s1, "es-", "esd", EphemeralSequential).await;
    cx.create2(s1, "es-", "", EphemeralSequential).await;
    for rel in ["p", "e", "ps-0000000005", "es-0000000007"] {
        cx.get_data(s2, rel).await;
    }
    cx.exists(s2, "e2").await;
    cx.get_children2(s2, "").await;
    cx.close(s1).await;
    cx.get_children2(s2, "").await;
    cx.exists(s2, "e").await;
    cx.finish().await
}

/// One counter per parent, shared by every prefix, advanced by every successful create
/// (sequential or not), never by a failed one, and not given back by deletes; what the
/// parent's cversion counts.
pub async fn sequence_numbers(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "read-", "", EphemeralSequential).await;
    cx.create(s1, "write-", "", EphemeralSequential).await;
    cx.create(s1, "plain", "", Persistent).await;
    cx.create(s1, "read-", "", PersistentSequential).await;
    cx.get_children2(s1, "").await;
    cx.delete(s1, "read-0000000000", -1).await;
    cx.delete(s1, "plain", -1).await;
    cx.get_children2(s1, "").await;
    cx.create(s1, "write-", "", EphemeralSequential).await;
    cx.create(s1, "write-0000000001", "", Persistent).await;
    cx.create(s1, "missing/x-", "", PersistentSequential).await;
    cx.create(s1, "read-", "", EphemeralSequential).await;
    // A hand-made node that the next sequential name collides with, again and again.
    cx.create(s1, "c-0000000007", "", Persistent).await;
    cx.create(s1, "c-", "", PersistentSequential).await;
    cx.create(s1, "c-", "", PersistentSequential).await;
    cx.create(s1, "d-", "", PersistentSequential).await;
    cx.get_children2(s1, "").await;
    // A trailing slash is allowed when the name is the sequence number alone.
    cx.create(s1, "sub", "", Persistent).await;
    cx.create(s1, "sub/", "", PersistentSequential).await;
    cx.create(s1, "sub/", "", EphemeralSequential).await;
    cx.get_children2(s1, "sub").await;
    cx.finish().await
}

/// Which error a create gets, and which check wins when several fail.
pub async fn create_errors(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "missing/x", "", Persistent).await;
    cx.create(s1, "missing/x-", "", EphemeralSequential).await;
    cx.create(s1, "eph", "", Ephemeral).await;
    cx.create(s1, "eph/c", "", Persistent).await;
    cx.create(s1, "eph/c-", "", EphemeralSequential).await;
    cx.create(s1, "eph/c", "", Ephemeral).await;
    cx.create(s1, "eph", "", Persistent).await;
    cx.create(s1, "eph", "", PersistentSequential).await;
    let base = cx.p("");
    for bad in [
        "relative".to_string(),
        String::new(),
        format!("{base}//x"),
        format!("{base}/x/"),
        format!("{base}/./x"),
        format!("{base}/../x"),
        format!("{base}/missing//x"),
        format!("{base}/"),
        format!("{base}/."),
        format!("{base}/.."),
        format!("{base}/eph/."),
        format!("{base}/x\0y"),
    ] {
        cx.create_abs(s1, &bad, Persistent).await;
    }
    // Reads and deletes of malformed paths.
    cx.exists_abs(s1, &format!("{base}/")).await;
    cx.exists_abs(s1, &format!("{base}/x\0y")).await;
    cx.get_data_abs(s1, "relative").await;
    cx.get_data_abs(s1, &format!("{base}/")).await;
    cx.get_children_abs(s1, &format!("{base}//")).await;
    cx.delete_abs(s1, &format!("{base}/"), -1).await;
    cx.delete_abs(s1, &format!("{base}/missing/"), -1).await;
    cx.get_children2(s1, "").await;
    cx.finish().await
}

/// delete: NoNode, then BadVersion, then NotEmpty; setData: NoNode, then BadVersion; the
/// versions and zxids each success leaves.
pub async fn versions(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "n", "v0", Persistent).await;
    cx.create(s1, "n/c", "", Persistent).await;
    cx.set_data(s1, "n", "v1", 0).await;
    cx.delete(s1, "n", 5).await;
    cx.delete(s1, "n", 1).await;
    cx.delete(s1, "n", -1).await;
    cx.delete(s1, "n/c", 3).await;
    cx.delete(s1, "n/c", 0).await;
    cx.delete(s1, "n/c", 0).await;
    cx.delete(s1, "n/c", -1).await;
    cx.get_children2(s1, "n").await;
    cx.set_data(s1, "n", "v2", 0).await;
    cx.set_data(s1, "n", "v2", 1).await;
    cx.set_data(s1, "n", "", -1).await;
    cx.set_data(s1, "missing", "x", 7).await;
    cx.set_data(s1, "missing", "x", -1).await;
    cx.get_data(s1, "n").await;
    cx.delete(s1, "n", 2).await;
    cx.delete(s1, "n", 3).await;
    cx.get_children2(s1, "").await;
    cx.exists(s1, "n").await;
    cx.finish().await
}

/// The create flags 3.8 accepts beyond the four kinds and those it refuses, on one raw
/// connection: a container flag in a create makes a plain node; the TTL kinds are refused
/// (Unimplemented, extended types being off) before the path is looked at; flags naming no
/// mode are BadArguments; each refusal takes a zxid, and the connection stays. Inside a
/// multi, a TTL create fails the whole multi to marshal.
pub async fn create_flags(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let (base, container) = (cx.p(""), cx.p("c"));
    cx.raw_create_flags(&mut raw, 1, &base, 0, false).await;
    cx.raw_create_flags(&mut raw, 2, &container, 4, false).await;
    cx.raw_create_flags(&mut raw, 3, &cx.p("c2"), 4, true).await;
    cx.raw_create_flags(&mut raw, 4, &cx.p("t"), 5, false).await;
    cx.raw_create_flags(&mut raw, 5, &cx.p("ts-"), 6, true)
        .await;
    cx.raw_create_flags(&mut raw, 6, "no slash", 5, false).await;
    cx.raw_create_flags(&mut raw, 7, &cx.p("x"), 7, false).await;
    cx.raw_create_flags(&mut raw, 8, &cx.p("y"), -1, true).await;
    cx.raw_create_flags(&mut raw, 9, "no slash", 9, false).await;
    let ttl_multi = Request::Multi {
        ops: vec![
            MultiOp::create(cx.p("m"), b"", Persistent),
            MultiOp::create(cx.p("mt"), b"", PersistentWithTtl),
        ],
    };
    cx.raw_call_zxid(&mut raw, "multi with a ttl create", 10, ttl_multi)
        .await;
    let exists = |path: String| Request::Exists { path, watch: false };
    for (xid, path) in (11..).zip([container, cx.p("t"), cx.p("x"), cx.p("m")]) {
        cx.raw_call_zxid(
            &mut raw,
            &format!("exists {path}"),
            xid,
            exists(path.clone()),
        )
        .await;
    }
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}

/// Containers and TTL nodes as 3.8 makes them with its extended types off: createContainer
/// makes a container of any known mode (numbered when sequential) and answers with its
/// Stat, an ephemeral owner of 0 included; a TTL mode is Unimplemented; createTTL with a
/// TTL for a mode without one is BadArguments; flags that name no mode are BadArguments.
/// Reaping is left out: the real server's first round comes a minute after it starts.
pub async fn containers_and_ttl(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let base = cx.p("");
    cx.raw_create_flags(&mut raw, 1, &base, 0, false).await;
    let container = |path: String, mode| {
        Request::CreateContainer(CreateRequest {
            path,
            data: b"d".to_vec(),
            acl: Acl::open_unsafe(),
            mode,
        })
    };
    let ttl = |path: String, mode, ttl_ms| {
        Request::CreateTtl(CreateTtlRequest {
            path,
            data: vec![],
            acl: Acl::open_unsafe(),
            mode,
            ttl_ms,
        })
    };
    let requests = [
        ("createContainer", container(cx.p("c"), Container)),
        (
            "createContainer persistent",
            container(cx.p("c0"), Persistent),
        ),
        (
            "createContainer sequential",
            container(cx.p("cs-"), PersistentSequential),
        ),
        (
            "createContainer ephemeral",
            container(cx.p("ce"), Ephemeral),
        ),
        (
            "createContainer ttl",
            container(cx.p("ct"), PersistentWithTtl),
        ),
        (
            "createContainer no parent",
            container(cx.p("no/c"), Container),
        ),
        ("createContainer again", container(cx.p("c"), Container)),
        ("createTTL", ttl(cx.p("t"), PersistentWithTtl, 1_000)),
        (
            "createTTL of a plain mode",
            ttl(cx.p("t0"), Persistent, 1_000),
        ),
    ];
    for (xid, (what, request)) in (2..).zip(requests) {
        cx.raw_call_zxid(&mut raw, what, xid, request).await;
    }
    let unknown = container(cx.p("c9"), Persistent);
    cx.raw_flags(&mut raw, 20, "createContainer", unknown, 9)
        .await;
    let exists = |path: String| Request::Exists { path, watch: false };
    for (xid, rel) in (21..).zip(["c", "c0", "cs-0000000002", "ce", "t", "t0"]) {
        let path = cx.p(rel);
        cx.raw_call_zxid(&mut raw, &format!("exists {rel}"), xid, exists(path))
            .await;
    }
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    // The ephemeral-mode container outlives its session.
    let Some((mut after, _, _)) = cx.raw_connect("after", None, 2_000).await else {
        return cx.finish().await;
    };
    cx.raw_call(&mut after, "exists ce", 1, exists(cx.p("ce")))
        .await;
    cx.raw_call(&mut after, "close", 2, Request::CloseSession)
        .await;
    cx.finish().await
}

/// The 3.6+ reads of the tree: getEphemerals (the session's own, matched by string prefix,
/// all of them for a blank or "/" prefix) and getAllChildrenNumber (every depth below an
/// existing node; "/" is left out: what earlier cases left behind counts there).
pub async fn ephemerals_and_counts(mut cx: Cx) -> Transcript {
    let Some((mut raw, mut other)) = cx.raw_pair("new", "other").await else {
        return cx.finish().await;
    };
    let base = cx.p("");
    let create = |path: String, mode| {
        Request::Create(CreateRequest {
            path,
            data: vec![],
            acl: Acl::open_unsafe(),
            mode,
        })
    };
    let mine = [
        (base.clone(), Persistent),
        (cx.p("e1"), Ephemeral),
        (cx.p("e2"), Ephemeral),
        (format!("{base}-sibling"), Ephemeral),
        (cx.p("p"), Persistent),
        (cx.p("p/q"), PersistentSequential),
    ];
    for (xid, (path, mode)) in (1..).zip(mine) {
        cx.raw_call(&mut raw, &format!("create {path}"), xid, create(path, mode))
            .await;
    }
    cx.raw_call(
        &mut other,
        "other's create",
        1,
        create(cx.p("theirs"), Ephemeral),
    )
    .await;
    let prefixes = [
        String::new(),
        "/".into(),
        " / ".into(),
        base.clone(),
        format!("{base}/"),
        "/zz".into(),
    ];
    for (xid, prefix) in (10..).zip(prefixes) {
        let request = Request::GetEphemerals {
            prefix: prefix.clone(),
        };
        cx.raw_call(&mut raw, &format!("getEphemerals {prefix:?}"), xid, request)
            .await;
    }
    let counted = [
        base.clone(),
        cx.p("p"),
        cx.p("e1"),
        cx.p("missing"),
        format!("{base}/"),
        "bad".into(),
        "/zookeeper".into(),
    ];
    for (xid, path) in (20..).zip(counted) {
        let request = Request::GetAllChildrenNumber { path: path.clone() };
        cx.raw_call_zxid(
            &mut raw,
            &format!("getAllChildrenNumber {path}"),
            xid,
            request,
        )
        .await;
    }
    cx.raw_close_pair((raw, other)).await
}

/// The `/zookeeper` subtree a 3.8 server starts with: its nodes' Stats (no creating txn, no
/// child create counted), the config node's read-only ACL and ACL version -1, the special
/// paths no client may delete, and a node a client may create inside it.
pub async fn zookeeper_subtree(mut cx: Cx) -> Transcript {
    let Some((mut raw, _, _)) = cx.raw_connect("new", None, 2_000).await else {
        return cx.finish().await;
    };
    let system = ["/zookeeper", "/zookeeper/quota", "/zookeeper/config"];
    let mut xid = 1..;
    let mut next = || xid.next().unwrap_or_default();
    let children = Request::GetChildren {
        path: "/zookeeper".into(),
        watch: false,
    };
    cx.raw_call(&mut raw, "children /zookeeper", next(), children)
        .await;
    for path in system {
        let exists = Request::Exists {
            path: path.into(),
            watch: false,
        };
        cx.raw_call(&mut raw, &format!("exists {path}"), next(), exists)
            .await;
        let acl = Request::GetAcl { path: path.into() };
        cx.raw_call(&mut raw, &format!("getACL {path}"), next(), acl)
            .await;
    }
    for path in system {
        let delete = Request::Delete(DeleteRequest {
            path: path.into(),
            version: -1,
        });
        cx.raw_call_zxid(&mut raw, &format!("delete {path}"), next(), delete)
            .await;
    }
    let set = |path: &str| {
        Request::SetData(SetDataRequest {
            path: path.into(),
            data: b"x".to_vec(),
            version: -1,
        })
    };
    cx.raw_call_zxid(&mut raw, "setData config", next(), set("/zookeeper/config"))
        .await;
    cx.raw_call_zxid(&mut raw, "setData quota", next(), set("/zookeeper/quota"))
        .await;
    let mine = cx.p("").replacen('/', "/zookeeper/", 1);
    let create = Request::Create(CreateRequest {
        path: mine.clone(),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode: Ephemeral,
    });
    cx.raw_call_zxid(&mut raw, "create inside", next(), create)
        .await;
    let count = Request::GetAllChildrenNumber {
        path: "/zookeeper".into(),
    };
    cx.raw_call_zxid(&mut raw, "count /zookeeper", next(), count)
        .await;
    cx.raw_call(&mut raw, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}
