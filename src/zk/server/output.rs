//! What the server core hands its driver: replies, notifications, closes, changes for the
//! history and messages for other members ([`Output`]), as values; the driver sends them.

use super::ids::{ConnId, ServerId};
use super::peer::PeerMsg;
use crate::zk::proto::{self, ConnectResponse, ErrorCode, ReplyHeader, Response, WatcherEvent};

/// How a request refused as it was read is answered (`Server::handle_refused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The reply's error code.
    pub err: ErrorCode,
    /// Whether the request was a write, which takes a zxid even when it fails.
    pub write: bool,
}

/// A change to the tree, the sessions or who leads, reported so the driver can record it
/// in the history.
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
        zxid: i64,
    },
    /// A new leader's epoch started: its zxids count from `zxid` (`epoch << 32`).
    Leading {
        epoch: u32,
        zxid: i64,
    },
}

impl Change {
    /// The zxid of the write that made the change.
    pub fn zxid(&self) -> i64 {
        match self {
            Change::Created { zxid, .. }
            | Change::Deleted { zxid, .. }
            | Change::SessionExpired { zxid, .. }
            | Change::Leading { zxid, .. } => *zxid,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
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
    /// A read had this many ms to spare before it would miss its session's own write
    /// (`own_writes`), for a search to read beside the history.
    ReadMargin(i64),
    /// A request came near making a read miss a node (`near_misses`), for a search to read
    /// beside the history.
    RequestMargin(RequestMargin),
    /// A message for another member of the ensemble.
    Peer {
        to: ServerId,
        msg: PeerMsg,
    },
}

/// How near a read came to missing a node (`near_misses`): the requests on `conn`, from the
/// one that came in at `since_ms` until the one at `at_ms`, made later by more than `ms`,
/// would make it miss. What the server tells its host (`Output::RequestMargin`) for a
/// search to read beside the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestMargin {
    /// What it measures (`READ_BEFORE_END`, `CREATE_BEFORE_READ`).
    pub name: &'static str,
    /// The connection whose requests are to be late.
    pub conn: ConnId,
    /// When that connection's session's request before them came in.
    pub since_ms: u64,
    /// When the last of them came in (the read, or the create).
    pub at_ms: u64,
    /// The time to spare.
    pub ms: u64,
    /// Whether they are the reader's own: a waiter's look at what it waits on, which a
    /// pause of the waiter at its wait step makes late as well.
    pub reader: bool,
}

impl Output {
    /// The connection and the exact bytes a driver sends for this output; None for outputs
    /// that are not packets (Close, Changed, the margins).
    pub fn packet(&self) -> Option<(ConnId, Vec<u8>)> {
        match self {
            Output::Connected { conn, response, .. } => {
                Some((*conn, proto::encode_connect_response(response)))
            }
            Output::Reply {
                conn,
                xid,
                zxid,
                err,
                body,
            } => {
                let header = ReplyHeader {
                    xid: *xid,
                    zxid: *zxid,
                    err: *err,
                };
                Some((*conn, proto::encode_reply(&header, body.as_ref())))
            }
            Output::Notify { conn, event } => Some((*conn, proto::encode_notification(event))),
            Output::Close { .. }
            | Output::Changed(_)
            | Output::ReadMargin(_)
            | Output::RequestMargin(_)
            | Output::Peer { .. } => None,
        }
    }
}

/// A message for member `to`.
pub(super) fn to(to: ServerId, msg: PeerMsg) -> Output {
    Output::Peer { to, msg }
}

/// The answer to a connect that cannot resume its session: timeout 0, and the connection
/// closed (`finishSessionInit(cnxn, false)`).
pub(super) fn refused_connect(conn: ConnId) -> Output {
    Output::Connected {
        conn,
        response: ConnectResponse {
            protocol_version: 0,
            timeout_ms: 0,
            session_id: 0,
            passwd: vec![0; 16],
            read_only: false,
        },
        close: true,
    }
}

pub(super) fn connected(
    conn: ConnId,
    timeout_ms: u64,
    session_id: i64,
    passwd: [u8; 16],
) -> Output {
    Output::Connected {
        conn,
        response: ConnectResponse {
            protocol_version: 0,
            timeout_ms: i32::try_from(timeout_ms).unwrap_or(i32::MAX),
            session_id,
            passwd: passwd.to_vec(),
            read_only: false,
        },
        close: false,
    }
}
