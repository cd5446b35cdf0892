//! Helpers shared by the server tests: typed requests in, outputs picked apart.

use super::{ConnId, Now, Output, Server, ServerConfig};
use crate::zk::proto::{
    Acl, ConnectRequest, ConnectResponse, CreateMode, CreateRequest, CreateResponse, DeleteRequest,
    ErrorCode, EventType, KeeperState, Request, Response, SetDataRequest,
};

/// Tick of the test server: sessions negotiate within [200, 2000] ms.
pub const TICK: u64 = 100;
pub const WALL_BASE: i64 = 1_700_000_000_000;

pub fn at(mono_ms: u64) -> Now {
    Now {
        mono_ms,
        wall_ms: WALL_BASE + mono_ms as i64,
    }
}

pub fn server() -> Server {
    Server::new(ServerConfig::with_tick(TICK, 42))
}

pub fn connect_req(session_id: i64, passwd: Vec<u8>, timeout_ms: i32) -> ConnectRequest {
    ConnectRequest {
        protocol_version: 0,
        last_zxid_seen: 0,
        timeout_ms,
        session_id,
        passwd,
        read_only: false,
    }
}

/// Opens a new session on `conn` and returns the server's answer.
pub fn open(s: &mut Server, now: Now, conn: ConnId, timeout_ms: i32) -> ConnectResponse {
    let out = s.handle_connect(now, conn, &connect_req(0, vec![0; 16], timeout_ms));
    match connected(&out) {
        (resp, false) => resp,
        other => panic!("connect failed: {other:?}"),
    }
}

/// The Connected output among `out`, and whether it closes the connection.
pub fn connected(out: &[Output]) -> (ConnectResponse, bool) {
    out.iter()
        .find_map(|o| match o {
            Output::Connected {
                response, close, ..
            } => Some((response.clone(), *close)),
            _ => None,
        })
        .expect("no Connected output")
}

pub fn send(s: &mut Server, now: Now, conn: ConnId, req: Request) -> Vec<Output> {
    s.handle_request(now, conn, 1, req)
}

/// The (only) reply among `out`.
pub fn reply(out: &[Output]) -> (ErrorCode, Option<Response>) {
    let replies: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Reply { err, body, .. } => Some((*err, body.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(replies.len(), 1, "expected one reply in {out:?}");
    replies[0].clone()
}

pub fn reply_zxid(out: &[Output]) -> i64 {
    out.iter()
        .find_map(|o| match o {
            Output::Reply { zxid, .. } => Some(*zxid),
            _ => None,
        })
        .expect("no reply")
}

/// Notifications to `conn`, in output order.
pub fn events(out: &[Output], conn: ConnId) -> Vec<(EventType, String)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Notify { conn: c, event } if *c == conn => {
                assert_eq!(event.state, KeeperState::SyncConnected);
                Some((event.event_type, event.path.clone()))
            }
            _ => None,
        })
        .collect()
}

pub fn closes(out: &[Output]) -> Vec<ConnId> {
    out.iter()
        .filter_map(|o| match o {
            Output::Close { conn } => Some(*conn),
            _ => None,
        })
        .collect()
}

pub fn create_req(path: &str, mode: CreateMode) -> Request {
    Request::Create(CreateRequest {
        path: path.to_string(),
        data: b"d".to_vec(),
        acl: Acl::open_unsafe(),
        mode,
    })
}

/// Creates a node and returns its final path or the error code.
pub fn create(
    s: &mut Server,
    now: Now,
    conn: ConnId,
    path: &str,
    mode: CreateMode,
) -> Result<String, ErrorCode> {
    match reply(&send(s, now, conn, create_req(path, mode))) {
        (ErrorCode::Ok, Some(Response::Create(CreateResponse { path }))) => Ok(path),
        (err, _) => Err(err),
    }
}

/// A delete of any version.
pub fn delete_req(path: &str) -> Request {
    Request::Delete(DeleteRequest {
        path: path.to_string(),
        version: -1,
    })
}

pub fn delete(s: &mut Server, now: Now, conn: ConnId, path: &str) -> ErrorCode {
    reply(&send(s, now, conn, delete_req(path))).0
}

pub fn set_data(s: &mut Server, now: Now, conn: ConnId, path: &str) -> Vec<Output> {
    let req = Request::SetData(SetDataRequest {
        path: path.to_string(),
        data: b"new".to_vec(),
        version: -1,
    });
    send(s, now, conn, req)
}

pub fn exists(s: &mut Server, now: Now, conn: ConnId, path: &str, watch: bool) -> ErrorCode {
    let req = Request::Exists {
        path: path.to_string(),
        watch,
    };
    reply(&send(s, now, conn, req)).0
}

pub fn get_data(s: &mut Server, now: Now, conn: ConnId, path: &str, watch: bool) -> ErrorCode {
    let req = Request::GetData {
        path: path.to_string(),
        watch,
    };
    reply(&send(s, now, conn, req)).0
}

pub fn get_children(s: &mut Server, now: Now, conn: ConnId, path: &str, watch: bool) -> ErrorCode {
    let req = Request::GetChildren {
        path: path.to_string(),
        watch,
    };
    reply(&send(s, now, conn, req)).0
}

/// The two sessions' connections of `two_clients`.
pub const A: u64 = 1;
pub const B: u64 = 2;

/// A server with two sessions (conns A and B) and a persistent "/p".
pub fn two_clients() -> Server {
    let mut s = server();
    open(&mut s, at(0), A, 1_000);
    open(&mut s, at(0), B, 1_000);
    create(
        &mut s,
        at(1),
        A,
        "/p",
        crate::zk::proto::CreateMode::Persistent,
    )
    .unwrap();
    s
}
