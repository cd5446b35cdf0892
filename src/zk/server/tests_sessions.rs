//! Sessions: negotiation, expiry on the tick grid, pings, close, reconnect, restart.

use super::near_misses::{CREATE_BEFORE_READ, READ_BEFORE_END};
use super::test_support::*;
use super::{Change, Output, Server, ServerConfig};
use crate::zk::proto::{
    ConnectResponse, CreateMode::*, ErrorCode, EventType::NodeDeleted, Request, Response,
};

const A: u64 = 1;
const B: u64 = 2;
const A2: u64 = 3;

fn invalid_session_response() -> ConnectResponse {
    ConnectResponse {
        protocol_version: 0,
        timeout_ms: 0,
        session_id: 0,
        passwd: vec![0; 16],
        read_only: false,
    }
}

#[test]
fn timeout_is_clamped_to_two_and_twenty_ticks() {
    let mut s = server();
    assert_eq!(open(&mut s, at(0), 1, 10).timeout_ms, 200);
    assert_eq!(open(&mut s, at(0), 2, 1_234).timeout_ms, 1_234);
    assert_eq!(open(&mut s, at(0), 3, 60_000).timeout_ms, 2_000);
}

#[test]
fn the_largest_timeout_is_what_the_client_is_told_and_does_not_expire_early() {
    let mut s = Server::new(ServerConfig {
        min_session_timeout_ms: u64::MAX,
        max_session_timeout_ms: u64::MAX,
        ..ServerConfig::with_tick(TICK, 42)
    });
    let resp = open(&mut s, at(50), A, 1_000);
    assert_eq!(resp.timeout_ms, i32::MAX);
    let deadline = (50 + i32::MAX as u64) / TICK * TICK + TICK;
    assert_eq!(s.session_deadline(resp.session_id), Some(deadline));
    assert!(s.handle_timeout(at(10 * TICK)).is_empty());
    assert!(s.handle_timeout(at(deadline - 1)).is_empty());
    assert_eq!(closes(&s.handle_timeout(at(deadline))), vec![A]);
}

#[test]
fn default_timeouts_of_a_huge_tick_stop_at_the_largest_int() {
    let config = ServerConfig::with_tick(u64::MAX / 4, 42);
    assert_eq!(config.min_session_timeout_ms, i32::MAX as u64);
    assert_eq!(config.max_session_timeout_ms, i32::MAX as u64);
}

#[test]
fn expiry_at_the_rounded_deadline_deletes_ephemerals_and_fires_watches() {
    let mut s = server();
    let a = open(&mut s, at(50), A, 1_000).session_id;
    let b = open(&mut s, at(50), B, 1_000).session_id;
    create(&mut s, at(60), A, "/lock", Ephemeral).unwrap();
    create(&mut s, at(60), A, "/p", Persistent).unwrap();
    exists(&mut s, at(70), B, "/lock", true);
    // Keep B alive; A's last packet was at 70: deadline round(1070) = 1100.
    send(&mut s, at(900), B, Request::Ping);
    assert_eq!(s.session_deadline(a), Some(1_100));
    assert_eq!(s.poll_timeout(), Some(1_100));
    assert!(s.handle_timeout(at(1_099)).is_empty());
    let zxid = s.last_zxid() + 1;
    let out = s.handle_timeout(at(1_100));
    assert!(
        matches!(out[0], Output::Changed(Change::SessionExpired { session, .. }) if session == a)
    );
    assert_eq!(
        out[1],
        Output::Changed(Change::Deleted {
            path: "/lock".into(),
            session: a,
            zxid
        })
    );
    assert_eq!(events(&out, B), vec![(NodeDeleted, "/lock".to_string())]);
    assert!(events(&out, A).is_empty());
    assert_eq!(closes(&out), vec![A]);
    assert_eq!(s.stat("/lock"), None);
    assert!(s.stat("/p").is_some());
    assert_eq!(s.last_zxid(), zxid);
    assert_eq!(s.session_deadline(a), None);
    // 900 + 1000 lies on the grid, so it rounds to the next tick.
    assert_eq!(s.session_deadline(b), Some(2_000));
    // The closed conn is gone; its session cannot be resumed.
    assert_eq!(
        s.handle_request(at(1_101), A, 5, Request::Ping),
        vec![Output::Close { conn: A }]
    );
    let out = s.handle_connect(at(1_102), A2, &connect_req(a, vec![0; 16], 1_000));
    assert_eq!(connected(&out), (invalid_session_response(), true));
}

#[test]
fn pings_extend_the_deadline() {
    let mut s = server();
    let a = open(&mut s, at(0), A, 500).session_id;
    assert_eq!(s.session_deadline(a), Some(600));
    for t in [400, 800, 1_200, 1_600] {
        assert!(s.handle_timeout(at(t)).is_empty());
        send(&mut s, at(t), A, Request::Ping);
    }
    assert_eq!(s.session_deadline(a), Some(2_200));
    assert!(s.handle_timeout(at(2_199)).is_empty());
    assert_eq!(closes(&s.handle_timeout(at(2_200))), vec![A]);
}

#[test]
fn any_input_expires_due_sessions_first() {
    let mut s = server();
    let a = open(&mut s, at(0), A, 500).session_id;
    // A packet arriving at the deadline is too late even if handle_timeout was not called.
    let out = send(&mut s, at(600), A, Request::Ping);
    assert_eq!(
        out,
        vec![
            Output::Changed(Change::SessionExpired {
                session: a,
                zxid: s.last_zxid()
            }),
            Output::Close { conn: A },
        ]
    );
}

#[test]
fn disconnect_alone_deletes_nothing_until_the_deadline() {
    let mut s = server();
    let a = open(&mut s, at(0), A, 1_000).session_id;
    create(&mut s, at(10), A, "/e", Ephemeral).unwrap();
    assert!(s.handle_disconnect(at(20), A).is_empty());
    assert!(s.handle_timeout(at(1_000)).is_empty());
    assert!(s.stat("/e").is_some());
    let out = s.handle_timeout(at(1_100));
    assert!(
        matches!(out[0], Output::Changed(Change::SessionExpired { session, .. }) if session == a)
    );
    assert!(closes(&out).is_empty());
    assert_eq!(s.stat("/e"), None);
}

#[test]
fn close_session_replies_deletes_and_closes() {
    let mut s = server();
    let a = open(&mut s, at(0), A, 1_000).session_id;
    open(&mut s, at(0), B, 1_000);
    create(&mut s, at(1), A, "/e", Ephemeral).unwrap();
    exists(&mut s, at(2), B, "/e", true);
    let zxid = s.last_zxid() + 1;
    let out = send(&mut s, at(3), A, Request::CloseSession);
    assert_eq!(
        out[0],
        Output::Changed(Change::Deleted {
            path: "/e".into(),
            session: a,
            zxid
        })
    );
    assert_eq!(events(&out, B), vec![(NodeDeleted, "/e".to_string())]);
    assert_eq!(reply(&out), (ErrorCode::Ok, Some(Response::CloseSession)));
    assert_eq!(reply_zxid(&out), zxid);
    assert_eq!(out.last(), Some(&Output::Close { conn: A }));
    assert!(
        !out.iter()
            .any(|o| matches!(o, Output::Changed(Change::SessionExpired { .. })))
    );
    assert_eq!(s.session_deadline(a), None);
    assert_eq!(s.poll_timeout(), s.session_deadline((1 << 56) | 2));
}

#[test]
fn reconnect_with_password_keeps_session_and_ephemerals() {
    let mut s = server();
    let resp = open(&mut s, at(0), A, 1_000);
    create(&mut s, at(10), A, "/e", Ephemeral).unwrap();
    get_data(&mut s, at(10), A, "/e", true);
    let req = connect_req(resp.session_id, resp.passwd.clone(), 1_500);
    let out = s.handle_connect(at(900), A2, &req);
    // The old connection is closed (and its watches with it).
    assert_eq!(closes(&out), vec![A]);
    let (again, close) = connected(&out);
    assert!(!close);
    assert_eq!(again.session_id, resp.session_id);
    assert_eq!(again.passwd, resp.passwd);
    assert_eq!(again.timeout_ms, 1_500);
    assert_eq!(s.session_deadline(resp.session_id), Some(2_500));
    assert!(s.stat("/e").is_some());
    assert_eq!(
        s.handle_request(at(901), A, 1, Request::Ping),
        vec![Output::Close { conn: A }]
    );
    // The new conn works and the old conn's watch is gone.
    let out = set_data(&mut s, at(902), A2, "/e");
    assert_eq!(reply(&out).0, ErrorCode::Ok);
    assert!(events(&out, A).is_empty());
}

#[test]
fn wrong_password_gets_timeout_zero_and_close() {
    let mut s = server();
    let resp = open(&mut s, at(0), A, 1_000);
    let out = s.handle_connect(
        at(10),
        A2,
        &connect_req(resp.session_id, vec![7; 16], 1_000),
    );
    assert_eq!(connected(&out), (invalid_session_response(), true));
    // The real server closes the session's current conn before checking the password.
    assert_eq!(closes(&out), vec![A]);
    // The session itself lives on, its deadline untouched.
    assert_eq!(s.session_deadline(resp.session_id), Some(1_100));
}

#[test]
fn unknown_session_gets_timeout_zero_and_close() {
    let mut s = server();
    let out = s.handle_connect(at(0), A, &connect_req(12345, vec![0; 16], 1_000));
    assert_eq!(
        out,
        vec![Output::Connected {
            conn: A,
            response: invalid_session_response(),
            close: true
        }]
    );
    assert_eq!(
        s.handle_request(at(1), A, 1, Request::Ping),
        vec![Output::Close { conn: A }]
    );
}

#[test]
fn restart_keeps_tree_and_sessions_and_rearms() {
    let mut s = server();
    let resp = open(&mut s, at(0), A, 1_000);
    open(&mut s, at(0), B, 1_000);
    create(&mut s, at(10), A, "/e", Ephemeral).unwrap();
    get_data(&mut s, at(10), B, "/e", true);
    let zxid = s.last_zxid();
    s.restart(at(5_050));
    assert_eq!(s.last_zxid(), zxid);
    assert!(s.stat("/e").is_some());
    assert_eq!(s.session_deadline(resp.session_id), Some(6_100));
    assert_eq!(s.poll_timeout(), Some(6_100));
    // Old connections are gone with their watches.
    assert_eq!(
        s.handle_request(at(5_060), B, 1, Request::Ping),
        vec![Output::Close { conn: B }]
    );
    let req = connect_req(resp.session_id, resp.passwd.clone(), 1_000);
    let out = s.handle_connect(at(5_070), A2, &req);
    assert!(closes(&out).is_empty());
    assert_eq!(connected(&out).0.session_id, resp.session_id);
    let out = set_data(&mut s, at(5_500), A2, "/e");
    assert!(events(&out, B).is_empty());
    // B never came back: its session expires on the re-armed deadline.
    let out = s.handle_timeout(at(6_100));
    assert_eq!(
        out,
        vec![Output::Changed(Change::SessionExpired {
            session: (1 << 56) | 2,
            zxid: s.last_zxid()
        })]
    );
}

/// A server that measures its clients' margins (a guided search's runs).
fn measuring() -> Server {
    Server::new(ServerConfig {
        measures_margins: true,
        ..ServerConfig::with_tick(TICK, 42)
    })
}

/// Each `RequestMargin` of `name` among `out`: (conn, since, at, ms).
fn margins(out: &[Output], name: &str) -> Vec<(u64, u64, u64, u64)> {
    out.iter()
        .filter_map(|o| match *o {
            Output::RequestMargin(m) if m.name == name => Some((m.conn, m.since_ms, m.at_ms, m.ms)),
            _ => None,
        })
        .collect()
}

fn read_before_end(out: &[Output]) -> Vec<(u64, u64, u64, u64)> {
    margins(out, READ_BEFORE_END)
}

#[test]
fn a_read_of_a_node_its_owner_s_expiry_deleted_later_had_that_long_to_spare() {
    let mut s = measuring();
    let a = open(&mut s, at(50), A, 1_000).session_id;
    open(&mut s, at(50), B, 1_000);
    create(&mut s, at(60), A, "/lock", Ephemeral).unwrap();
    get_children(&mut s, at(70), B, "/", false);
    assert_eq!(exists(&mut s, at(74), B, "/lock", true), ErrorCode::Ok);
    send(&mut s, at(600), B, Request::Ping);
    let deadline = s.session_deadline(a).unwrap();
    let out = s.handle_timeout(at(deadline));
    assert_eq!(closes(&out), vec![A]);
    assert_eq!(read_before_end(&out), [(B, 70, 74, deadline - 74)]);
}

#[test]
fn a_node_its_owner_deleted_a_read_first_in_its_session_or_a_server_not_measuring_has_none() {
    let mut s = measuring();
    open(&mut s, at(50), A, 1_000);
    open(&mut s, at(50), B, 1_000);
    create(&mut s, at(60), A, "/lock", Ephemeral).unwrap();
    create(&mut s, at(60), A, "/gone", Ephemeral).unwrap();
    get_children(&mut s, at(70), B, "/", false);
    exists(&mut s, at(74), B, "/gone", true);
    assert_eq!(delete(&mut s, at(80), A, "/gone"), ErrorCode::Ok);
    open(&mut s, at(90), A2, 1_000);
    get_data(&mut s, at(95), A2, "/lock", false);
    let out = send(&mut s, at(100), A, Request::CloseSession);
    assert!(read_before_end(&out).is_empty(), "{out:?}");

    let mut s = server();
    open(&mut s, at(50), A, 1_000);
    open(&mut s, at(50), B, 1_000);
    create(&mut s, at(60), A, "/lock", Ephemeral).unwrap();
    get_children(&mut s, at(70), B, "/", false);
    exists(&mut s, at(74), B, "/lock", true);
    let out = send(&mut s, at(100), A, Request::CloseSession);
    assert!(read_before_end(&out).is_empty(), "{out:?}");
}

#[test]
fn a_close_of_the_owner_s_session_counts_as_its_end() {
    let mut s = measuring();
    open(&mut s, at(50), A, 1_000);
    open(&mut s, at(50), B, 1_000);
    create(&mut s, at(60), A, "/lock", Ephemeral).unwrap();
    get_children(&mut s, at(70), B, "/", false);
    get_data(&mut s, at(74), B, "/lock", false);
    let out = send(&mut s, at(100), A, Request::CloseSession);
    assert_eq!(read_before_end(&out), [(B, 70, 74, 26)]);
}

#[test]
fn a_first_look_at_a_node_another_session_created_by_name_had_the_time_since_the_create() {
    let look = |s: &mut Server, ms, path: &str| {
        let req = Request::Exists {
            path: path.into(),
            watch: true,
        };
        margins(&send(s, at(ms), B, req), CREATE_BEFORE_READ)
    };
    for measures in [true, false] {
        let mut s = if measures { measuring() } else { server() };
        open(&mut s, at(50), A, 1_000);
        open(&mut s, at(50), B, 1_000);
        create(&mut s, at(55), A, "/barrier", Persistent).unwrap();
        create(&mut s, at(60), A, "/barrier/r0", Persistent).unwrap();
        let first = look(&mut s, 67, "/barrier/r0");
        match measures {
            true => assert_eq!(first, [(A, 55, 60, 7)]),
            false => assert!(first.is_empty(), "{first:?}"),
        }
        assert!(look(&mut s, 70, "/barrier/r0").is_empty(), "a second look");
        assert!(
            look(&mut s, 72, "/barrier").is_empty(),
            "a create first in its session"
        );
    }
}
