//! ZooKeeper client wire protocol (jute) for the supported subset: pure, sans-IO encode and
//! decode. Every packet is a 4-byte big-endian length followed by the body. The first packet
//! of a connection is a ConnectRequest (client) / ConnectResponse (server) without header;
//! later packets are RequestHeader + body and ReplyHeader + body (no body when err != 0).
//!
//! Layout: `jute` holds the primitives and the decode error, `codes` the integer-coded enums,
//! `records` the fixed records (Stat, ACL, headers, connect, watcher event), `ops` the
//! operations as a table, a file per family (each op a row: its code, how its bodies read and
//! write), `multi` the framing of multi's sub-operations and results (which carry the same
//! records as the plain requests), `multi_read` multiRead's, `packet` the framing and the
//! public encode / decode functions, and `frames` a server's frame reader.

mod codes;
mod frames;
mod jute;
mod multi;
mod multi_read;
mod ops;
mod packet;
mod records;

pub use codes::{AddWatchMode, CreateMode, ErrorCode, EventType, KeeperState, OpCode, WatcherType};
pub use frames::{FrameReader, JUTE_MAXBUFFER};
pub use jute::DecodeError;
pub use multi::{MultiOp, OpResult, multi_error};
pub use multi_read::{ReadOp, ReadResult};
pub use ops::{
    CheckVersionRequest, Create2Response, CreateRequest, CreateResponse, CreateTtlRequest,
    DeleteRequest, Request, Response, SetDataRequest, SetDataResponse,
};
pub use packet::{
    decode_connect_request, decode_connect_response, decode_reply_header, decode_request,
    decode_response, decode_watcher_event, encode_connect_request, encode_connect_response,
    encode_notification, encode_reply, encode_request, split_frame,
};
pub use records::{
    Acl, ClientInfo, ConnectRequest, ConnectResponse, ReplyHeader, RequestHeader, Stat,
    WatcherEvent,
};

/// Largest frame body a client accepts (jute.maxbuffer default 0xfffff plus slack); a
/// server's limit is [`JUTE_MAXBUFFER`].
pub const MAX_FRAME: usize = 0xfffff + 1024;

/// Reserved xid of a watch notification, the only packet a server sends unasked.
pub const NOTIFICATION_XID: i32 = -1;
/// Reserved xid of a ping and its reply, which a client matches against no pending request.
pub const PING_XID: i32 = -2;
/// Reserved xid of the setWatches a client sends first on a new connection of its session,
/// when it has watches to register again.
pub const SET_WATCHES_XID: i32 = -8;
/// Reserved xid of an auth packet and its reply.
pub const AUTH_XID: i32 = -4;
