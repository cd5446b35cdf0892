//! ACLs as 3.8 keeps and enforces them: stored as `fixupACL` leaves them, read back by
//! getACL, replaced by setACL (its own version), checked per operation against the
//! connection's identities (its address, and the digests its auth packets added).

use super::test_support::*;
use super::{Output, Server};
use crate::zk::acl::digest;
use crate::zk::proto::{
    Acl, ClientInfo, CreateMode::*, CreateRequest, ErrorCode, MultiOp, OpResult, ReadOp,
    ReadResult, Request, Response,
};

fn entry(perms: i32, scheme: &str, id: &str) -> Acl {
    Acl {
        perms,
        scheme: scheme.into(),
        id: id.into(),
    }
}

/// `two_clients`, A at 10.0.0.1 and B at 192.168.0.2.
fn addressed() -> Server {
    let mut s = two_clients();
    s.handle_accept(A, "10.0.0.1".parse().unwrap());
    s.handle_accept(B, "192.168.0.2".parse().unwrap());
    s
}

fn create_with(s: &mut Server, conn: u64, path: &str, acl: Vec<Acl>) -> ErrorCode {
    let req = Request::Create(CreateRequest {
        path: path.into(),
        data: b"d".to_vec(),
        acl,
        mode: Persistent,
    });
    reply(&send(s, at(2), conn, req)).0
}

fn get_acl(s: &mut Server, conn: u64, path: &str) -> Result<(Vec<Acl>, i32), ErrorCode> {
    match reply(&send(s, at(3), conn, Request::GetAcl { path: path.into() })) {
        (ErrorCode::Ok, Some(Response::GetAcl { acl, stat })) => Ok((acl, stat.aversion)),
        (err, _) => Err(err),
    }
}

fn set_acl(s: &mut Server, conn: u64, path: &str, acl: Vec<Acl>, version: i32) -> ErrorCode {
    let req = Request::SetAcl {
        path: path.into(),
        acl,
        version,
    };
    reply(&send(s, at(3), conn, req)).0
}

fn auth(s: &mut Server, conn: u64, scheme: &str, credentials: &str) -> Vec<Output> {
    let req = Request::Auth {
        kind: 0,
        scheme: scheme.into(),
        auth: credentials.as_bytes().to_vec(),
    };
    s.handle_request(at(4), conn, -4, req)
}

#[test]
fn set_acl_has_its_own_version_and_takes_a_zxid() {
    let mut s = addressed();
    assert_eq!(get_acl(&mut s, B, "/p"), Ok((Acl::open_unsafe(), 0)));
    let zxid = s.last_zxid();
    assert_eq!(
        set_acl(&mut s, A, "/p", Acl::open_unsafe(), 1),
        ErrorCode::BadVersion
    );
    assert_eq!(
        set_acl(&mut s, A, "/p", Acl::open_unsafe(), 0),
        ErrorCode::Ok
    );
    assert_eq!(set_acl(&mut s, A, "/p", vec![], -1), ErrorCode::InvalidAcl);
    assert_eq!(
        set_acl(&mut s, A, "/nope", Acl::open_unsafe(), -1),
        ErrorCode::NoNode
    );
    assert_eq!(s.last_zxid(), zxid + 4, "each setACL, failed or not");
    assert_eq!(get_acl(&mut s, B, "/p"), Ok((Acl::open_unsafe(), 1)));
    assert_eq!(s.stat("/p").unwrap().version, 0, "the data version stays");
    assert_eq!(get_acl(&mut s, B, "no slash"), Err(ErrorCode::NoNode));
}

#[test]
fn a_read_only_node_refuses_writes_children_and_acl_changes() {
    let mut s = addressed();
    assert_eq!(
        set_acl(&mut s, A, "/p", vec![entry(1, "world", "anyone")], -1),
        ErrorCode::Ok
    );
    assert_eq!(
        reply(&set_data(&mut s, at(4), A, "/p")).0,
        ErrorCode::NoAuth
    );
    assert_eq!(
        create(&mut s, at(4), A, "/p/c", Persistent),
        Err(ErrorCode::NoAuth)
    );
    assert_eq!(get_data(&mut s, at(4), B, "/p", false), ErrorCode::Ok);
    assert_eq!(
        set_acl(&mut s, A, "/p", Acl::open_unsafe(), -1),
        ErrorCode::NoAuth
    );
    // The missing parent is found before the permission is checked.
    assert_eq!(
        create(&mut s, at(4), A, "/p/c/d", Persistent),
        Err(ErrorCode::NoNode)
    );
}

#[test]
fn deletes_need_delete_on_the_parent() {
    let mut s = addressed();
    create(&mut s, at(2), A, "/p/c", Persistent).unwrap();
    set_acl(&mut s, A, "/p", vec![entry(31 & !8, "world", "anyone")], -1);
    assert_eq!(delete(&mut s, at(4), A, "/p/c"), ErrorCode::NoAuth);
    assert_eq!(
        delete(&mut s, at(4), A, "/p/missing"),
        ErrorCode::NoAuth,
        "before NoNode"
    );
    assert_eq!(delete(&mut s, at(4), A, "/nope/x"), ErrorCode::NoNode);
}

#[test]
fn identities_come_from_the_address_and_digest_auth() {
    let mut s = addressed();
    let by_ip = vec![entry(31, "ip", "10.0.0.0/8")];
    assert_eq!(create_with(&mut s, A, "/p/ip", by_ip), ErrorCode::Ok);
    assert_eq!(reply(&set_data(&mut s, at(4), A, "/p/ip")).0, ErrorCode::Ok);
    assert_eq!(
        reply(&set_data(&mut s, at(4), B, "/p/ip")).0,
        ErrorCode::NoAuth
    );
    assert_eq!(
        get_data(&mut s, at(4), B, "/p/ip", false),
        ErrorCode::NoAuth
    );
    assert_eq!(
        get_children(&mut s, at(4), B, "/p/ip", false),
        ErrorCode::NoAuth
    );
    assert_eq!(
        exists(&mut s, at(4), B, "/p/ip", false),
        ErrorCode::Ok,
        "no check"
    );

    // `auth` needs a digest identity; after an auth it stands for it.
    let mine = vec![entry(31, "auth", ""), entry(1, "world", "anyone")];
    assert_eq!(
        create_with(&mut s, A, "/p/d", mine.clone()),
        ErrorCode::InvalidAcl
    );
    let out = auth(&mut s, A, "digest", "u:p");
    assert!(
        matches!(
            out[..],
            [Output::Reply {
                xid: -4,
                zxid: 0,
                err: ErrorCode::Ok,
                body: None,
                ..
            }]
        ),
        "{out:?}"
    );
    assert_eq!(create_with(&mut s, A, "/p/d", mine), ErrorCode::Ok);
    let stored = vec![
        entry(31, "digest", &digest("u:p")),
        entry(1, "world", "anyone"),
    ];
    assert_eq!(get_acl(&mut s, A, "/p/d"), Ok((stored, 0)));
    let shown = vec![entry(31, "digest", "u:x"), entry(1, "world", "anyone")];
    assert_eq!(
        get_acl(&mut s, B, "/p/d"),
        Ok((shown, 0)),
        "no ADMIN: no hash"
    );
    assert_eq!(
        reply(&set_data(&mut s, at(4), B, "/p/d")).0,
        ErrorCode::NoAuth
    );
    auth(&mut s, B, "digest", "u:p");
    assert_eq!(reply(&set_data(&mut s, at(4), B, "/p/d")).0, ErrorCode::Ok);

    let out = send(&mut s, at(5), A, Request::WhoAmI);
    let info = |scheme: &str, user: &str| ClientInfo {
        auth_scheme: scheme.into(),
        user: user.into(),
    };
    assert_eq!(
        reply(&out).1,
        Some(Response::WhoAmI {
            clients: vec![info("ip", "10.0.0.1"), info("digest", "u")]
        })
    );
}

#[test]
fn an_auth_of_no_known_scheme_ends_the_connection_not_the_session() {
    let mut s = addressed();
    let out = auth(&mut s, A, "sasl", "x");
    assert!(
        matches!(
            out[..],
            [
                Output::Reply {
                    err: ErrorCode::AuthFailed,
                    zxid: 0,
                    ..
                },
                Output::Close { conn: A }
            ]
        ),
        "{out:?}"
    );
    assert_eq!(exists(&mut s, at(6), B, "/p", false), ErrorCode::Ok);
    assert_eq!(closes(&send(&mut s, at(6), A, Request::Ping)), [A]);
}

#[test]
fn multi_checks_and_reads_are_refused_entry_by_entry() {
    let mut s = addressed();
    create_with(&mut s, A, "/p/s", vec![entry(31, "ip", "10.0.0.1")]);
    let out = send(
        &mut s,
        at(5),
        B,
        Request::Multi {
            ops: vec![MultiOp::check("/p/s", -1)],
        },
    );
    assert_eq!(
        reply(&out).1,
        Some(Response::Multi {
            results: vec![OpResult::Error {
                err: ErrorCode::NoAuth
            }]
        })
    );
    let reads = vec![
        ReadOp::GetData {
            path: "/p/s".into(),
        },
        ReadOp::GetData { path: "/p".into() },
    ];
    let out = send(&mut s, at(5), B, Request::MultiRead { ops: reads });
    let Some(Response::MultiRead { results }) = reply(&out).1 else {
        panic!("{out:?}");
    };
    assert_eq!(
        results[0],
        ReadResult::Error {
            err: ErrorCode::NoAuth
        }
    );
    assert!(matches!(results[1], ReadResult::Data { .. }));
}
