//! Containers and TTL nodes: made by createContainer, createTTL and a multi, and deleted by
//! the reaper's rounds as 3.8's `ContainerManager` deletes them.

use super::test_support::*;
use super::{Change, Output, Server, ServerConfig};
use crate::zk::proto::{
    Acl, CreateMode,
    CreateMode::*,
    ErrorCode,
    EventType::{NodeChildrenChanged, NodeDeleted},
    MultiOp, OpResult, Request, Response,
};
use crate::zk::proto::{Create2Response, CreateRequest, CreateResponse, CreateTtlRequest};

/// Rounds every second, sessions that outlive the tests; TTL nodes allowed when `extended`.
fn reaping_server(extended: bool) -> Server {
    let mut s = Server::new(ServerConfig {
        container_check_ms: 1_000,
        extended_types: extended,
        ..ServerConfig::with_tick(1_000, 42)
    });
    open(&mut s, at(0), A, 20_000);
    open(&mut s, at(0), B, 20_000);
    s
}

fn container_req(path: &str, mode: CreateMode) -> Request {
    Request::CreateContainer(CreateRequest {
        path: path.into(),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode,
    })
}

fn ttl_req(path: &str, mode: CreateMode, ttl_ms: i64) -> Request {
    Request::CreateTtl(CreateTtlRequest {
        path: path.into(),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode,
        ttl_ms,
    })
}

/// The created path of a Create2 reply, or the error.
fn created(out: &[Output]) -> Result<String, ErrorCode> {
    match reply(out) {
        (ErrorCode::Ok, Some(Response::Create2(Create2Response { path, stat }))) => {
            assert_eq!(stat.ephemeral_owner, 0, "clients see no owner of {path}");
            Ok(path)
        }
        (err, body) => {
            assert_eq!(body, None);
            Err(err)
        }
    }
}

/// The paths the reaper deleted in `out`, each with the reaper's session 0.
fn reaped(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Changed(Change::Deleted { path, session, .. }) => {
                assert_eq!(*session, 0);
                Some(path.clone())
            }
            _ => None,
        })
        .collect()
}

/// A multi of A's, and its results.
fn multi(s: &mut Server, ops: Vec<MultiOp>) -> Vec<OpResult> {
    match reply(&send(s, at(1), A, Request::Multi { ops })).1 {
        Some(Response::Multi { results }) => results,
        other => panic!("a multi is answered with its results, got {other:?}"),
    }
}

/// What a round at `mono_ms` deletes.
fn round(s: &mut Server, mono_ms: u64) -> Vec<String> {
    reaped(&s.handle_timeout(at(mono_ms)))
}

#[test]
fn a_container_goes_once_its_last_child_is_gone() {
    let mut s = reaping_server(false);
    assert_eq!(
        created(&send(&mut s, at(1), A, container_req("/c", Container))),
        Ok("/c".into())
    );
    create(&mut s, at(2), A, "/c/x", Persistent).unwrap();
    assert_eq!(round(&mut s, 1_000), Vec::<String>::new(), "it has a child");
    assert_eq!(delete(&mut s, at(1_001), A, "/c/x"), ErrorCode::Ok);
    assert_eq!(exists(&mut s, at(1_002), B, "/c", true), ErrorCode::Ok);
    get_children(&mut s, at(1_002), B, "/", true);
    assert_eq!(
        round(&mut s, 1_999),
        Vec::<String>::new(),
        "not a round yet"
    );
    let zxid = s.last_zxid();
    let out = s.handle_timeout(at(2_000));
    assert_eq!(reaped(&out), ["/c"]);
    assert_eq!(s.last_zxid(), zxid + 1, "a deleteContainer txn");
    assert_eq!(
        events(&out, B),
        [
            (NodeDeleted, "/c".into()),
            (NodeChildrenChanged, "/".into())
        ]
    );
}

#[test]
fn a_container_never_used_stays_and_any_flags_make_one() {
    let mut s = reaping_server(false);
    let out = send(&mut s, at(1), A, container_req("/c-", PersistentSequential));
    assert_eq!(created(&out), Ok("/c-0000000000".into()));
    assert_eq!(
        created(&send(&mut s, at(1), A, container_req("/d", Persistent))),
        Ok("/d".into())
    );
    assert_eq!(
        round(&mut s, 5_000),
        Vec::<String>::new(),
        "cversion 0: never used"
    );
    create(&mut s, at(5_001), A, "/d/e", Ephemeral).unwrap();
    send(&mut s, at(5_002), A, Request::CloseSession);
    assert_eq!(
        round(&mut s, 6_000),
        ["/d"],
        "its ephemeral child went with the session"
    );
}

#[test]
fn a_round_deletes_what_was_empty_when_it_began() {
    let mut s = reaping_server(false);
    for path in ["/a", "/a/b"] {
        created(&send(&mut s, at(1), A, container_req(path, Container))).unwrap();
    }
    create(&mut s, at(1), A, "/a/b/x", Persistent).unwrap();
    delete(&mut s, at(2), A, "/a/b/x");
    assert_eq!(round(&mut s, 1_000), ["/a/b"]);
    assert_eq!(round(&mut s, 1_500), Vec::<String>::new());
    assert_eq!(round(&mut s, 2_000), ["/a"], "emptied by the round before");
}

#[test]
fn rounds_keep_a_fixed_rate_and_restart_with_the_server() {
    let mut s = reaping_server(false);
    created(&send(&mut s, at(1), A, container_req("/c", Container))).unwrap();
    create(&mut s, at(1), A, "/c/x", Persistent).unwrap();
    assert_eq!(
        round(&mut s, 3_500),
        Vec::<String>::new(),
        "the missed rounds are not made up"
    );
    delete(&mut s, at(3_600), A, "/c/x");
    assert_eq!(round(&mut s, 3_999), Vec::<String>::new());
    s.restart(at(3_999));
    assert_eq!(
        round(&mut s, 4_000),
        Vec::<String>::new(),
        "counted afresh from the restart"
    );
    assert_eq!(round(&mut s, 4_999), ["/c"]);
}

#[test]
fn a_create_with_the_container_mode_makes_a_plain_node() {
    let mut s = reaping_server(false);
    create(&mut s, at(1), A, "/p", Container).unwrap();
    create(&mut s, at(1), A, "/p/x", Persistent).unwrap();
    delete(&mut s, at(2), A, "/p/x");
    assert_eq!(round(&mut s, 1_000), Vec::<String>::new());
}

#[test]
fn a_multi_makes_a_container_and_answers_with_its_stat() {
    let mut s = reaping_server(false);
    let results = multi(
        &mut s,
        vec![
            MultiOp::create("/c", b"", Container),
            MultiOp::create("/c/x", b"", Persistent),
        ],
    );
    let stat = s.stat("/c").unwrap();
    assert_eq!(
        results,
        [
            OpResult::Create2(Create2Response {
                path: "/c".into(),
                stat: crate::zk::proto::Stat {
                    num_children: 0,
                    cversion: 0,
                    pzxid: stat.czxid,
                    ..stat
                },
            }),
            OpResult::Create(CreateResponse {
                path: "/c/x".into()
            }),
        ]
    );
    delete(&mut s, at(2), A, "/c/x");
    assert_eq!(round(&mut s, 1_000), ["/c"]);
}

#[test]
fn ttl_nodes_are_refused_while_extended_types_are_off() {
    let mut s = reaping_server(false);
    let zxid = s.last_zxid();
    let out = send(&mut s, at(1), A, ttl_req("/t", PersistentWithTtl, 100));
    assert_eq!(created(&out), Err(ErrorCode::Unimplemented));
    assert_eq!(s.last_zxid(), zxid + 1, "a failed write takes its zxid");
    let ttl = MultiOp::CreateTtl(CreateTtlRequest {
        path: "/t".into(),
        data: vec![],
        acl: Acl::open_unsafe(),
        mode: PersistentWithTtl,
        ttl_ms: 100,
    });
    let results = multi(&mut s, vec![MultiOp::create("/a", b"", Persistent), ttl]);
    let err = |err| OpResult::Error { err };
    assert_eq!(results, [err(ErrorCode::Ok), err(ErrorCode::Unimplemented)]);
}

#[test]
fn a_ttl_node_goes_once_unchanged_and_childless_for_its_ttl() {
    let mut s = reaping_server(true);
    let out = send(
        &mut s,
        at(1),
        A,
        ttl_req("/t-", PersistentSequentialWithTtl, 1_500),
    );
    assert_eq!(created(&out), Ok("/t-0000000000".into()));
    let t = "/t-0000000000";
    create(&mut s, at(2), A, &format!("{t}/x"), Persistent).unwrap();
    assert_eq!(round(&mut s, 2_000), Vec::<String>::new(), "it has a child");
    delete(&mut s, at(2_000), A, &format!("{t}/x"));
    set_data(&mut s, at(2_000), A, t);
    assert_eq!(
        round(&mut s, 3_000),
        Vec::<String>::new(),
        "changed 1 s ago"
    );
    assert_eq!(round(&mut s, 4_000), [t], "unchanged for 2 s > 1.5 s");
}

#[test]
fn a_ttl_must_fit_its_mode() {
    let mut s = reaping_server(true);
    for (mode, ttl, why) in [
        (PersistentWithTtl, 0, "not positive"),
        (PersistentWithTtl, 1 << 40, "past 2^40 - 1"),
        (Persistent, 100, "a TTL for a mode without one"),
    ] {
        let out = send(&mut s, at(1), A, ttl_req("/t", mode, ttl));
        assert_eq!(created(&out), Err(ErrorCode::BadArguments), "{why}");
    }
    assert_eq!(
        create(&mut s, at(1), A, "/t", PersistentWithTtl),
        Err(ErrorCode::BadArguments)
    );
    let out = send(&mut s, at(1), A, container_req("/t", PersistentWithTtl));
    assert_eq!(created(&out), Err(ErrorCode::BadArguments));
    let out = send(
        &mut s,
        at(1),
        A,
        ttl_req("/t", PersistentWithTtl, (1 << 40) - 1),
    );
    assert_eq!(created(&out), Ok("/t".into()));
}

#[test]
fn a_multi_create_whose_flags_name_no_mode_fails_there() {
    let mut s = reaping_server(false);
    let zxid = s.last_zxid();
    let unknown = MultiOp::CreateUnknownMode {
        path: "/b".into(),
        data: vec![],
        acl: Acl::open_unsafe(),
        flags: 9,
    };
    let ops = vec![
        MultiOp::create("/a", b"", Persistent),
        unknown,
        MultiOp::create("/c", b"", Persistent),
    ];
    let err = |err| OpResult::Error { err };
    assert_eq!(
        multi(&mut s, ops),
        [
            err(ErrorCode::Ok),
            err(ErrorCode::BadArguments),
            err(ErrorCode::RuntimeInconsistency)
        ]
    );
    assert_eq!(s.last_zxid(), zxid + 1);
    assert_eq!(exists(&mut s, at(2), A, "/a", false), ErrorCode::NoNode);
}
