//! Cases on ACLs and identities: getACL and setACL (the ACL's own version, the fixups and
//! refusals), the checks each operation makes against the `ip` and `digest` schemes, auth
//! packets (answered at once with zxid 0; a scheme without a provider ends the connection),
//! and whoAmI.

use locksim::zk::proto::CreateMode::Persistent;
use locksim::zk::proto::{AUTH_XID, Acl, CreateRequest, MultiOp, ReadOp, Request, SetDataRequest};

use super::script::Cx;
use super::transcript::Transcript;

fn entry(perms: i32, scheme: &str, id: &str) -> Acl {
    Acl {
        perms,
        scheme: scheme.into(),
        id: id.into(),
    }
}

fn create(path: String, acl: Vec<Acl>) -> Request {
    Request::Create(CreateRequest {
        path,
        data: b"d".to_vec(),
        acl,
        mode: Persistent,
    })
}

fn set_acl(path: String, acl: Vec<Acl>, version: i32) -> Request {
    Request::SetAcl { path, acl, version }
}

fn set_data(path: String) -> Request {
    Request::SetData(SetDataRequest {
        path,
        data: b"x".to_vec(),
        version: -1,
    })
}

fn auth(scheme: &str, credentials: &str) -> Request {
    Request::Auth {
        kind: 0,
        scheme: scheme.into(),
        auth: credentials.as_bytes().to_vec(),
    }
}

/// Every step on two connections from 127.0.0.1, the owner authenticating as `u:p` halfway.
pub async fn acls_and_auth(mut cx: Cx) -> Transcript {
    let Some((mut owner, mut other)) = cx.raw_pair("owner", "other").await else {
        return cx.finish().await;
    };
    let (base, open) = (cx.p(""), Acl::open_unsafe());
    // A create of `rel` whose ACL grants everything to `scheme:id`.
    let by = |rel: &str, scheme: &str, id: &str| create(cx.p(rel), vec![entry(31, scheme, id)]);
    let steps = [
        ("create base", create(base.clone(), open.clone())),
        ("getACL base", Request::GetAcl { path: base.clone() }),
        ("getACL of no path", Request::GetAcl { path: "x".into() }),
        ("setACL base", set_acl(base.clone(), open.clone(), -1)),
        ("setACL base at 0", set_acl(base.clone(), open.clone(), 0)),
        ("setACL base empty", set_acl(base.clone(), vec![], -1)),
        (
            "setACL base world:bob",
            set_acl(base.clone(), vec![entry(31, "world", "bob")], -1),
        ),
        ("setACL missing", set_acl(cx.p("nope"), open.clone(), -1)),
        ("getACL base again", Request::GetAcl { path: base.clone() }),
        ("create by ip", by("ip", "ip", "127.0.0.0/8")),
        ("create by a bad ip", by("bad", "ip", "300.0.0.1")),
        (
            "create by ip past its bits",
            by("bad", "ip", "127.0.0.1/33"),
        ),
        ("create by an ip elsewhere", by("far", "ip", "10.0.0.0/8")),
        ("create by auth, none held", by("d", "auth", "")),
        (
            "create by a digest missing its hash",
            by("bad", "digest", "u:"),
        ),
        ("create by an unknown scheme", by("bad", "sasl", "u")),
        ("getACL by ip", Request::GetAcl { path: cx.p("ip") }),
        ("setData by ip", set_data(cx.p("ip"))),
        ("setData elsewhere", set_data(cx.p("far"))),
        ("getData elsewhere", get_data(cx.p("far"))),
        ("exists elsewhere", exists(cx.p("far"))),
        (
            "create under elsewhere",
            create(cx.p("far/c"), open.clone()),
        ),
        ("whoAmI", Request::WhoAmI),
    ];
    for (xid, (what, request)) in (1..).zip(steps) {
        cx.raw_call_zxid(&mut owner, what, xid, request).await;
    }
    cx.raw_call(&mut owner, "auth digest", AUTH_XID, auth("digest", "u:p"))
        .await;
    let mine = vec![entry(31, "auth", ""), entry(1, "world", "anyone")];
    let steps = [
        ("create by auth", create(cx.p("d"), mine)),
        ("getACL by auth", Request::GetAcl { path: cx.p("d") }),
        ("whoAmI after auth", Request::WhoAmI),
        (
            "setACL read-only",
            set_acl(cx.p("ip"), vec![entry(1, "world", "anyone")], -1),
        ),
        ("setData read-only", set_data(cx.p("ip"))),
        (
            "setACL read-only back",
            set_acl(cx.p("ip"), open.clone(), -1),
        ),
    ];
    for (xid, (what, request)) in (40..).zip(steps) {
        cx.raw_call_zxid(&mut owner, what, xid, request).await;
    }
    let d = cx.p("d");
    let reads = vec![
        ReadOp::GetData { path: d.clone() },
        ReadOp::GetData { path: cx.p("far") },
    ];
    let steps = [
        ("other's getACL", Request::GetAcl { path: d.clone() }),
        ("other's getData", get_data(d.clone())),
        ("other's setData", set_data(d.clone())),
        (
            "other's create under",
            create(cx.p("d/c"), Acl::open_unsafe()),
        ),
        (
            "other's multi check",
            Request::Multi {
                ops: vec![MultiOp::check(cx.p("far"), -1)],
            },
        ),
        ("other's multiRead", Request::MultiRead { ops: reads }),
        ("other's whoAmI", Request::WhoAmI),
    ];
    for (xid, (what, request)) in (1..).zip(steps) {
        cx.raw_call_zxid(&mut other, what, xid, request).await;
    }
    let sasl = Request::Sasl {
        token: b"n,,n=u,r=nonce".to_vec(),
    };
    cx.raw_call(&mut other, "other's sasl", 30, sasl).await;
    cx.raw_call_zxid(&mut other, "other's whoAmI after sasl", 31, Request::WhoAmI)
        .await;
    cx.raw_call(&mut other, "other's auth", AUTH_XID, auth("digest", "u:p"))
        .await;
    cx.raw_call_zxid(&mut other, "other's setData after auth", 20, set_data(d))
        .await;
    cx.raw_call(&mut owner, "auth of no scheme", AUTH_XID, auth("sasl", "x"))
        .await;
    cx.raw_closed(&mut owner, "after the refused auth").await;
    cx.raw_call(&mut other, "close", 99, Request::CloseSession)
        .await;
    cx.finish().await
}

fn get_data(path: String) -> Request {
    Request::GetData { path, watch: false }
}

fn exists(path: String) -> Request {
    Request::Exists { path, watch: false }
}
