//! Watches: which event each change fires, to whom, once, and in what order.

use super::Output;
use super::test_support::*;
use crate::zk::proto::{
    CreateMode::*,
    ErrorCode,
    EventType::{NodeChildrenChanged, NodeCreated, NodeDataChanged, NodeDeleted},
    Request, Response,
};

fn ev(t: crate::zk::proto::EventType, p: &str) -> Vec<(crate::zk::proto::EventType, String)> {
    vec![(t, p.to_string())]
}

#[test]
fn data_watch_fires_on_set_data_once() {
    let mut s = two_clients();
    assert_eq!(get_data(&mut s, at(2), A, "/p", true), ErrorCode::Ok);
    let out = set_data(&mut s, at(3), B, "/p");
    assert_eq!(events(&out, A), ev(NodeDataChanged, "/p"));
    assert!(events(&out, B).is_empty());
    let out = set_data(&mut s, at(4), B, "/p");
    assert!(events(&out, A).is_empty(), "watch fired twice");
}

#[test]
fn data_watch_fires_on_delete() {
    let mut s = two_clients();
    get_data(&mut s, at(2), A, "/p", true);
    let out = send(&mut s, at(3), B, delete_req("/p"));
    assert_eq!(events(&out, A), ev(NodeDeleted, "/p"));
}

#[test]
fn exists_watch_on_missing_node_fires_node_created() {
    let mut s = two_clients();
    assert_eq!(exists(&mut s, at(2), A, "/p/x", true), ErrorCode::NoNode);
    let out = send(&mut s, at(3), B, create_req("/p/x", Ephemeral));
    assert_eq!(events(&out, A), ev(NodeCreated, "/p/x"));
    // The same (data-table) watch is now gone; a new exists watch sees the deletion.
    exists(&mut s, at(4), A, "/p/x", true);
    let out = send(&mut s, at(5), B, delete_req("/p/x"));
    assert_eq!(events(&out, A), ev(NodeDeleted, "/p/x"));
}

#[test]
fn get_data_and_get_children_on_missing_node_set_no_watch() {
    let mut s = two_clients();
    assert_eq!(get_data(&mut s, at(2), A, "/q", true), ErrorCode::NoNode);
    assert_eq!(
        get_children(&mut s, at(2), A, "/q", true),
        ErrorCode::NoNode
    );
    let out = send(&mut s, at(3), B, create_req("/q", Persistent));
    assert!(events(&out, A).is_empty());
    let out = send(&mut s, at(3), B, create_req("/q/c", Persistent));
    assert!(events(&out, A).is_empty());
}

#[test]
fn child_watch_fires_on_child_create_and_delete() {
    let mut s = two_clients();
    get_children(&mut s, at(2), A, "/p", true);
    let out = send(&mut s, at(3), B, create_req("/p/c", Persistent));
    assert_eq!(events(&out, A), ev(NodeChildrenChanged, "/p"));
    let out = send(&mut s, at(3), B, create_req("/p/d", Persistent));
    assert!(events(&out, A).is_empty(), "child watch fired twice");
    get_children(&mut s, at(4), A, "/p", true);
    // setData on the parent or a child fires nothing for a child watch.
    assert!(events(&set_data(&mut s, at(5), B, "/p"), A).is_empty());
    assert!(events(&set_data(&mut s, at(5), B, "/p/c"), A).is_empty());
    assert_eq!(delete(&mut s, at(6), B, "/p/c"), ErrorCode::Ok);
    let out = send(&mut s, at(6), B, Request::Ping);
    assert!(events(&out, A).is_empty());
    get_children(&mut s, at(7), A, "/p", true);
    let out = send(&mut s, at(8), B, delete_req("/p/d"));
    assert_eq!(events(&out, A), ev(NodeChildrenChanged, "/p"));
}

#[test]
fn child_watch_on_deleted_node_gets_node_deleted() {
    let mut s = two_clients();
    create(&mut s, at(1), A, "/p/c", Persistent).unwrap();
    get_children(&mut s, at(2), A, "/p/c", true);
    get_children(&mut s, at(2), A, "/p", true);
    let out = send(&mut s, at(3), B, delete_req("/p/c"));
    let mut expected = ev(NodeDeleted, "/p/c");
    expected.extend(ev(NodeChildrenChanged, "/p"));
    assert_eq!(events(&out, A), expected);
}

#[test]
fn data_and_child_watch_on_one_node_give_one_node_deleted() {
    let mut s = two_clients();
    get_data(&mut s, at(2), A, "/p", true);
    get_children(&mut s, at(2), A, "/p", true);
    exists(&mut s, at(2), A, "/p", true);
    let out = send(&mut s, at(3), B, delete_req("/p"));
    assert_eq!(events(&out, A), ev(NodeDeleted, "/p"));
}

#[test]
fn two_conns_watching_one_node_both_fire_in_conn_order() {
    let mut s = two_clients();
    get_data(&mut s, at(2), B, "/p", true);
    exists(&mut s, at(2), A, "/p", true);
    let out = set_data(&mut s, at(3), A, "/p");
    let notified: Vec<u64> = out
        .iter()
        .filter_map(|o| match o {
            Output::Notify { conn, .. } => Some(*conn),
            _ => None,
        })
        .collect();
    assert_eq!(notified, vec![A, B]);
}

#[test]
fn notification_precedes_the_reply_on_the_same_conn() {
    let mut s = two_clients();
    get_data(&mut s, at(2), A, "/p", true);
    let out = set_data(&mut s, at(3), A, "/p");
    let notify_at = out.iter().position(|o| matches!(o, Output::Notify { .. }));
    let reply_at = out.iter().position(|o| matches!(o, Output::Reply { .. }));
    assert!(notify_at.unwrap() < reply_at.unwrap(), "{out:?}");
}

#[test]
fn create_fires_node_created_then_parent_children_changed() {
    let mut s = two_clients();
    exists(&mut s, at(2), A, "/p/n", true);
    get_children(&mut s, at(2), A, "/p", true);
    let out = send(&mut s, at(3), B, create_req("/p/n", Persistent));
    let mut expected = ev(NodeCreated, "/p/n");
    expected.extend(ev(NodeChildrenChanged, "/p"));
    assert_eq!(events(&out, A), expected);
}

#[test]
fn disconnect_drops_the_conns_watches() {
    let mut s = two_clients();
    get_data(&mut s, at(2), A, "/p", true);
    get_children(&mut s, at(2), A, "/p", true);
    assert!(s.handle_disconnect(at(3), A).is_empty());
    let out = send(&mut s, at(4), B, delete_req("/p"));
    assert!(events(&out, A).is_empty());
    // A's session is alive: it can reconnect on a new conn.
    assert!(s.session_deadline((1 << 56) | 1).is_some());
}

#[test]
fn set_watches_delivers_missed_events_and_rearms_the_rest() {
    let mut s = two_clients();
    for p in [
        "/p/data_same",
        "/p/data_changed",
        "/p/child_same",
        "/p/child_changed",
    ] {
        create(&mut s, at(1), B, p, Persistent).unwrap();
    }
    let seen = s.last_zxid();
    set_data(&mut s, at(2), B, "/p/data_changed");
    create(&mut s, at(2), B, "/p/child_changed/c", Persistent).unwrap();
    create(&mut s, at(2), B, "/p/born", Persistent).unwrap();
    let strings = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    let req = Request::SetWatches {
        relative_zxid: seen,
        data: strings(&["/p/data_same", "/p/data_changed", "/p/data_gone"]),
        exist: strings(&["/p/born", "/p/unborn"]),
        child: strings(&["/p/child_same", "/p/child_changed", "/p/child_gone"]),
    };
    let out = s.handle_request(at(3), A, -8, req);
    assert_eq!(
        events(&out, A),
        vec![
            (NodeDataChanged, "/p/data_changed".to_string()),
            (NodeDeleted, "/p/data_gone".to_string()),
            (NodeCreated, "/p/born".to_string()),
            (NodeChildrenChanged, "/p/child_changed".to_string()),
            (NodeDeleted, "/p/child_gone".to_string()),
        ]
    );
    let Some(Output::Reply {
        xid,
        zxid,
        err,
        body,
        ..
    }) = out.last()
    else {
        panic!("no reply last: {out:?}");
    };
    assert_eq!((*xid, *zxid, *err), (-8, s.last_zxid(), ErrorCode::Ok));
    assert_eq!(body, &Some(Response::SetWatches));
    // The re-armed watches fire on the next change.
    let out = set_data(&mut s, at(4), B, "/p/data_same");
    assert_eq!(events(&out, A), ev(NodeDataChanged, "/p/data_same"));
    let out = send(&mut s, at(4), B, create_req("/p/unborn", Persistent));
    assert_eq!(events(&out, A), ev(NodeCreated, "/p/unborn"));
    let out = send(&mut s, at(4), B, create_req("/p/child_same/c", Persistent));
    assert_eq!(events(&out, A), ev(NodeChildrenChanged, "/p/child_same"));
    // The ones already delivered are not re-armed.
    assert!(events(&set_data(&mut s, at(5), B, "/p/data_changed"), A).is_empty());
}
