//! multi and sync: all-or-nothing, per-operation results in the real server's layout, one
//! zxid per multi (failed ones too), watches fired only by a multi that applied.

use super::test_support::*;
use super::{Change, Output, Server};
use crate::zk::proto::{
    CreateMode::*,
    ErrorCode,
    EventType::{NodeChildrenChanged, NodeCreated, NodeDataChanged, NodeDeleted},
    MultiOp, OpResult, Request, Response, multi_error,
};
use crate::zk::proto::{CreateResponse, SetDataResponse};

/// `two_clients`, with "/p" holding "/p/x".
fn two_clients_and_x() -> Server {
    let mut s = two_clients();
    create(&mut s, at(1), A, "/p/x", Persistent).unwrap();
    s
}

fn multi(s: &mut Server, conn: u64, ops: Vec<MultiOp>) -> (Vec<OpResult>, Vec<Output>) {
    let out = send(s, at(5), conn, Request::Multi { ops });
    match reply(&out) {
        (ErrorCode::Ok, Some(Response::Multi { results })) => (results, out),
        other => panic!("a multi is answered Ok with results, got {other:?}"),
    }
}

fn err(code: ErrorCode) -> OpResult {
    OpResult::Error { err: code }
}

#[test]
fn successful_multi_applies_every_op_in_one_zxid() {
    let mut s = two_clients_and_x();
    let before = s.last_zxid();
    let (results, out) = multi(
        &mut s,
        A,
        vec![
            MultiOp::create("/p/q-", b"1", PersistentSequential),
            MultiOp::create("/p/e", b"", Ephemeral),
            MultiOp::check("/p/x", 0),
            MultiOp::set_data("/p/x", b"new", 0),
            MultiOp::delete("/p/e", -1),
        ],
    );
    assert_eq!(s.last_zxid(), before + 1, "one zxid for the whole multi");
    assert_eq!(reply_zxid(&out), before + 1);
    let x = s.stat("/p/x").unwrap();
    assert_eq!(
        results,
        vec![
            OpResult::Create(CreateResponse {
                path: "/p/q-0000000001".into()
            }),
            OpResult::Create(CreateResponse {
                path: "/p/e".into()
            }),
            OpResult::Check,
            OpResult::SetData(SetDataResponse { stat: x }),
            OpResult::Delete,
        ]
    );
    assert_eq!(multi_error(&results), None);
    assert_eq!((x.version, x.mzxid), (1, before + 1));
    assert_eq!(s.stat("/p/q-0000000001").unwrap().czxid, before + 1);
    assert_eq!(s.stat("/p/e"), None);
    let p = s.stat("/p").unwrap();
    assert_eq!((p.num_children, p.pzxid), (2, before + 1));
    let zxids: Vec<i64> = out
        .iter()
        .filter_map(|o| match o {
            Output::Changed(Change::Created { zxid, .. } | Change::Deleted { zxid, .. }) => {
                Some(*zxid)
            }
            _ => None,
        })
        .collect();
    assert_eq!(zxids, vec![before + 1; 3], "two creates and a delete");
}

#[test]
fn failed_multi_changes_nothing_and_reports_the_real_layout() {
    let mut s = two_clients_and_x();
    let x_before = s.stat("/p/x").unwrap();
    let p_before = s.stat("/p").unwrap();
    let before = s.last_zxid();
    let (results, out) = multi(
        &mut s,
        A,
        vec![
            MultiOp::create("/p/new", b"", Persistent),
            MultiOp::set_data("/p/x", b"v", 7),
            MultiOp::delete("/p/x", -1),
            MultiOp::create("/p/other-", b"", PersistentSequential),
        ],
    );
    assert_eq!(
        results,
        vec![
            err(ErrorCode::Ok),
            err(ErrorCode::BadVersion),
            err(ErrorCode::RuntimeInconsistency),
            err(ErrorCode::RuntimeInconsistency),
        ]
    );
    assert_eq!(multi_error(&results), Some(ErrorCode::BadVersion));
    assert_eq!(s.last_zxid(), before + 1, "a failed multi uses up its zxid");
    assert_eq!(reply_zxid(&out), before + 1);
    assert_eq!(s.stat("/p/new"), None);
    assert_eq!(s.stat("/p/x"), Some(x_before));
    assert_eq!(s.stat("/p"), Some(p_before));
    assert!(!out.iter().any(|o| matches!(o, Output::Changed(_))));
    // No sequence number was used up either.
    let (results, _) = multi(
        &mut s,
        A,
        vec![MultiOp::create("/p/n-", b"", PersistentSequential)],
    );
    assert_eq!(
        results,
        vec![OpResult::Create(CreateResponse {
            path: "/p/n-0000000001".into()
        })]
    );
}

#[test]
fn later_ops_see_earlier_ones() {
    let mut s = two_clients_and_x();
    let (results, _) = multi(
        &mut s,
        A,
        vec![
            MultiOp::create("/p/d", b"", Persistent),
            MultiOp::create("/p/d/c", b"", Persistent),
            MultiOp::set_data("/p/d/c", b"1", 0),
            MultiOp::check("/p/d/c", 1),
            MultiOp::delete("/p/d/c", 1),
            MultiOp::delete("/p/d", 0),
        ],
    );
    assert_eq!(multi_error(&results), None, "{results:?}");
    assert_eq!(s.stat("/p/d"), None);
    // The same ops without the child's delete fail on the parent's: NotEmpty.
    let (results, _) = multi(
        &mut s,
        A,
        vec![
            MultiOp::create("/p/d", b"", Persistent),
            MultiOp::create("/p/d/c", b"", Persistent),
            MultiOp::delete("/p/d", -1),
        ],
    );
    assert_eq!(
        results,
        vec![
            err(ErrorCode::Ok),
            err(ErrorCode::Ok),
            err(ErrorCode::NotEmpty)
        ]
    );
    assert_eq!(s.stat("/p/d"), None);
}

#[test]
fn check_errors() {
    let mut s = two_clients_and_x();
    for (op, code) in [
        (MultiOp::check("/p/missing", -1), ErrorCode::NoNode),
        (MultiOp::check("/p/x", 3), ErrorCode::BadVersion),
        (MultiOp::check("/p/x/", -1), ErrorCode::BadArguments),
    ] {
        let (results, _) = multi(&mut s, A, vec![op]);
        assert_eq!(results, vec![err(code)]);
    }
    let (results, _) = multi(&mut s, A, vec![MultiOp::check("/p/x", -1)]);
    assert_eq!(results, vec![OpResult::Check]);
}

#[test]
fn empty_multi_takes_a_zxid_and_returns_no_results() {
    let mut s = two_clients_and_x();
    let before = s.last_zxid();
    let (results, _) = multi(&mut s, A, vec![]);
    assert!(results.is_empty());
    assert_eq!(s.last_zxid(), before + 1);
}

#[test]
fn watches_fire_per_op_in_order_before_the_reply() {
    let mut s = two_clients_and_x();
    assert_eq!(exists(&mut s, at(2), B, "/p/y", true), ErrorCode::NoNode);
    assert_eq!(get_data(&mut s, at(2), B, "/p/x", true), ErrorCode::Ok);
    assert_eq!(get_children(&mut s, at(2), B, "/p", true), ErrorCode::Ok);
    let (_, out) = multi(
        &mut s,
        A,
        vec![
            MultiOp::create("/p/y", b"", Persistent),
            MultiOp::set_data("/p/x", b"2", -1),
            MultiOp::delete("/p/y", -1),
        ],
    );
    let string = |p: &str| p.to_string();
    assert_eq!(
        events(&out, B),
        vec![
            (NodeCreated, string("/p/y")),
            (NodeChildrenChanged, string("/p")),
            (NodeDataChanged, string("/p/x")),
        ],
        "each watch fires once; the delete finds them spent"
    );
    let reply_at = out
        .iter()
        .position(|o| matches!(o, Output::Reply { .. }))
        .unwrap();
    let last_notify = out
        .iter()
        .rposition(|o| matches!(o, Output::Notify { .. }))
        .unwrap();
    assert!(last_notify < reply_at);
    // A delete in a later multi fires a fresh exists watch.
    assert_eq!(exists(&mut s, at(6), B, "/p/x", true), ErrorCode::Ok);
    let (_, out) = multi(&mut s, A, vec![MultiOp::delete("/p/x", -1)]);
    assert_eq!(events(&out, B), vec![(NodeDeleted, string("/p/x"))]);
}

#[test]
fn failed_multi_fires_no_watch() {
    let mut s = two_clients_and_x();
    assert_eq!(get_data(&mut s, at(2), B, "/p/x", true), ErrorCode::Ok);
    let (_, out) = multi(
        &mut s,
        A,
        vec![
            MultiOp::set_data("/p/x", b"2", -1),
            MultiOp::check("/p/missing", -1),
        ],
    );
    assert!(events(&out, B).is_empty());
    let out = set_data(&mut s, at(6), A, "/p/x");
    assert_eq!(events(&out, B), vec![(NodeDataChanged, "/p/x".to_string())]);
}

#[test]
fn ephemeral_created_by_a_multi_belongs_to_the_session() {
    let mut s = two_clients_and_x();
    multi(&mut s, B, vec![MultiOp::create("/p/eph", b"", Ephemeral)]);
    assert_ne!(s.stat("/p/eph").unwrap().ephemeral_owner, 0);
    let out = send(&mut s, at(7), B, Request::CloseSession);
    assert_eq!(reply(&out).0, ErrorCode::Ok);
    assert_eq!(s.stat("/p/eph"), None);
}

#[test]
fn sync_echoes_the_path_without_a_txn() {
    let mut s = two_clients_and_x();
    let before = s.last_zxid();
    for path in ["/p/x", "/missing", "not a path"] {
        let out = send(
            &mut s,
            at(3),
            A,
            Request::Sync {
                path: path.to_string(),
            },
        );
        assert_eq!(
            reply(&out),
            (
                ErrorCode::Ok,
                Some(Response::Sync {
                    path: path.to_string()
                })
            )
        );
        assert_eq!(reply_zxid(&out), before);
    }
    assert_eq!(s.last_zxid(), before);
}

#[test]
fn a_ttl_create_fails_the_whole_multi_to_marshal_after_taking_a_zxid_as_in_3_8() {
    let mut s = two_clients_and_x();
    let before = s.last_zxid();
    let ops = vec![
        MultiOp::create("/p/ok", b"", Persistent),
        MultiOp::create("/p/t", b"", PersistentSequentialWithTtl),
    ];
    let out = send(&mut s, at(5), A, Request::Multi { ops });
    assert_eq!(reply(&out), (ErrorCode::MarshallingError, None));
    assert_eq!(reply_zxid(&out), before + 1);
    assert_eq!(exists(&mut s, at(6), A, "/p/ok", false), ErrorCode::NoNode);
}
