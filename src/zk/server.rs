//! Sans-IO ZooKeeper server core: data tree, sessions, watches. Inputs arrive through
//! `handle_*` with the time as an argument; outputs are returned. No I/O, no clock reads.

use crate::zk::proto::{ConnectRequest, Request};
pub use crate::zk::proto::{ConnectResponse, ErrorCode, Response, WatcherEvent};

/// Identifies one client connection (the driver assigns them).
pub type ConnId = u64;

/// The server's clocks at the moment of an input: `mono_ms` drives session expiry,
/// `wall_ms` (ms since the Unix epoch) fills Stat.ctime/mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    pub mono_ms: u64,
    pub wall_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// ZooKeeper tickTime.
    pub tick_ms: u64,
    /// Default 2 × tick.
    pub min_session_timeout_ms: u64,
    /// Default 20 × tick.
    pub max_session_timeout_ms: u64,
    /// Server id: the top byte of session ids.
    pub server_id: u8,
    /// Seed of the server's own random stream (session passwords).
    pub seed: u64,
}

impl ServerConfig {
    pub fn with_tick(tick_ms: u64, seed: u64) -> Self {
        ServerConfig {
            tick_ms,
            min_session_timeout_ms: 2 * tick_ms,
            max_session_timeout_ms: 20 * tick_ms,
            server_id: 1,
            seed,
        }
    }
}

/// A change to the tree, reported so the driver can record it in the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Created {
        path: String,
        session: i64,
        zxid: i64,
    },
    Deleted {
        path: String,
        session: i64,
        zxid: i64,
    },
    SessionExpired {
        session: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Answer to a connect; when `close` the driver closes the connection after sending.
    Connected {
        conn: ConnId,
        response: ConnectResponse,
        close: bool,
    },
    /// Answer to a request (`body` only when `err` is Ok).
    Reply {
        conn: ConnId,
        xid: i32,
        zxid: i64,
        err: ErrorCode,
        body: Option<Response>,
    },
    Notify {
        conn: ConnId,
        event: WatcherEvent,
    },
    /// The server closes this connection (after closeSession's reply, for example).
    Close {
        conn: ConnId,
    },
    Changed(Change),
}

pub struct Server {}

impl Server {
    pub fn new(config: ServerConfig) -> Self {
        let _ = config;
        todo!("H2")
    }

    pub fn handle_connect(&mut self, now: Now, conn: ConnId, req: &ConnectRequest) -> Vec<Output> {
        let _ = (now, conn, req);
        todo!("H2")
    }

    pub fn handle_request(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        req: Request,
    ) -> Vec<Output> {
        let _ = (now, conn, xid, req);
        todo!("H2")
    }

    pub fn handle_disconnect(&mut self, now: Now, conn: ConnId) -> Vec<Output> {
        let _ = (now, conn);
        todo!("H2")
    }

    pub fn handle_timeout(&mut self, now: Now) -> Vec<Output> {
        let _ = now;
        todo!("H2")
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        todo!("H2")
    }

    pub fn restart(&mut self, now: Now) {
        let _ = now;
        todo!("H2")
    }
}
