//! ZooKeeper client wire protocol (jute) for the supported subset: pure, sans-IO encode and
//! decode. Every packet is a 4-byte big-endian length followed by the body. The first packet
//! of a connection is a ConnectRequest (client) / ConnectResponse (server) without header;
//! later packets are RequestHeader + body and ReplyHeader + body (no body when err != 0).

/// Largest frame body accepted (jute.maxbuffer default 0xfffff plus slack).
pub const MAX_FRAME: usize = 0xfffff + 1024;

/// Reserved xids.
pub const NOTIFICATION_XID: i32 = -1;
pub const PING_XID: i32 = -2;
pub const SET_WATCHES_XID: i32 = -8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpCode {
    Create = 1,
    Delete = 2,
    Exists = 3,
    GetData = 4,
    SetData = 5,
    GetChildren = 8,
    Ping = 11,
    GetChildren2 = 12,
    Create2 = 15,
    CloseSession = -11,
    SetWatches = 101,
}

/// Result codes carried in ReplyHeader.err (KeeperException.Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorCode {
    Ok = 0,
    SystemError = -1,
    RuntimeInconsistency = -2,
    DataInconsistency = -3,
    ConnectionLoss = -4,
    MarshallingError = -5,
    Unimplemented = -6,
    OperationTimeout = -7,
    BadArguments = -8,
    NoNode = -101,
    NoAuth = -102,
    BadVersion = -103,
    NoChildrenForEphemerals = -108,
    NodeExists = -110,
    NotEmpty = -111,
    SessionExpired = -112,
    InvalidCallback = -113,
    InvalidAcl = -114,
    AuthFailed = -115,
    SessionMoved = -118,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CreateMode {
    Persistent = 0,
    Ephemeral = 1,
    PersistentSequential = 2,
    EphemeralSequential = 3,
}

impl CreateMode {
    pub fn is_ephemeral(self) -> bool {
        matches!(
            self,
            CreateMode::Ephemeral | CreateMode::EphemeralSequential
        )
    }
    pub fn is_sequential(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentSequential | CreateMode::EphemeralSequential
        )
    }
}

/// Node metadata (org.apache.zookeeper.data.Stat), 68 bytes on the wire in this field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stat {
    pub czxid: i64,
    pub mzxid: i64,
    pub ctime: i64,
    pub mtime: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: i64,
    pub data_length: i32,
    pub num_children: i32,
    pub pzxid: i64,
}

/// One ACL entry: perms int, then Id { scheme ustring, id ustring }.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Acl {
    pub perms: i32,
    pub scheme: String,
    pub id: String,
}

impl Acl {
    /// world:anyone with all permissions (ZooDefs.Ids.OPEN_ACL_UNSAFE).
    pub fn open_unsafe() -> Vec<Acl> {
        vec![Acl {
            perms: 31,
            scheme: "world".into(),
            id: "anyone".into(),
        }]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    pub protocol_version: i32,
    pub last_zxid_seen: i64,
    pub timeout_ms: i32,
    pub session_id: i64,
    pub passwd: Vec<u8>,
    pub read_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    pub protocol_version: i32,
    pub timeout_ms: i32,
    pub session_id: i64,
    pub passwd: Vec<u8>,
    pub read_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    pub xid: i32,
    pub op: OpCode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader {
    pub xid: i32,
    pub zxid: i64,
    pub err: ErrorCode,
}

/// Request bodies of the supported operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Create (op 1) or, with `stat_reply`, Create2 (op 15): same body.
    Create {
        path: String,
        data: Vec<u8>,
        acl: Vec<Acl>,
        mode: CreateMode,
        stat_reply: bool,
    },
    Delete {
        path: String,
        version: i32,
    },
    Exists {
        path: String,
        watch: bool,
    },
    GetData {
        path: String,
        watch: bool,
    },
    SetData {
        path: String,
        data: Vec<u8>,
        version: i32,
    },
    /// GetChildren (op 8) or, with `stat_reply`, GetChildren2 (op 12): same body.
    GetChildren {
        path: String,
        watch: bool,
        stat_reply: bool,
    },
    Ping,
    CloseSession,
    SetWatches {
        relative_zxid: i64,
        data: Vec<String>,
        exist: Vec<String>,
        child: Vec<String>,
    },
}

/// Reply bodies (only sent when ReplyHeader.err is Ok).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    Create { path: String },
    Create2 { path: String, stat: Stat },
    Delete,
    Exists { stat: Stat },
    GetData { data: Vec<u8>, stat: Stat },
    SetData { stat: Stat },
    GetChildren { children: Vec<String> },
    GetChildren2 { children: Vec<String>, stat: Stat },
    Ping,
    CloseSession,
    SetWatches,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventType {
    None = -1,
    NodeCreated = 1,
    NodeDeleted = 2,
    NodeDataChanged = 3,
    NodeChildrenChanged = 4,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeeperState {
    Disconnected = 0,
    SyncConnected = 3,
    AuthFailed = 4,
    ConnectedReadOnly = 5,
    SaslAuthenticated = 6,
    Expired = -112,
    Closed = 7,
}

/// A watch notification (xid -1) or a session event delivered locally by the client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WatcherEvent {
    pub event_type: EventType,
    pub state: KeeperState,
    pub path: String,
}

/// Why bytes could not be decoded. "Need more bytes" is not an error: frame splitting
/// returns `Ok(None)` for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The length prefix is negative or larger than MAX_FRAME.
    BadFrameLength(i64),
    /// The body ended before a field was complete.
    Truncated,
    /// Bytes were left over after the last field of a body.
    TrailingBytes(usize),
    UnknownOp(i32),
    UnknownErrorCode(i32),
    UnknownCreateMode(i32),
    UnknownEventType(i32),
    UnknownKeeperState(i32),
    /// A string or vector length that is negative (other than -1 = null) or past the body.
    BadLength(i32),
    /// A string that is not UTF-8.
    BadUtf8,
}

/// Splits one frame off the front of `buf`: `Ok(Some((body, consumed)))`, `Ok(None)` when
/// more bytes are needed, or an error for an impossible length.
pub fn split_frame(buf: &[u8]) -> Result<Option<(&[u8], usize)>, DecodeError> {
    let _ = buf;
    todo!("H1")
}

/// Client side: a length-prefixed ConnectRequest packet.
pub fn encode_connect_request(req: &ConnectRequest) -> Vec<u8> {
    let _ = req;
    todo!("H1")
}

/// Client side: a length-prefixed request packet (header + body).
pub fn encode_request(xid: i32, req: &Request) -> Vec<u8> {
    let _ = (xid, req);
    todo!("H1")
}

/// Server side: decodes a ConnectRequest body (the trailing readOnly byte is optional).
pub fn decode_connect_request(body: &[u8]) -> Result<ConnectRequest, DecodeError> {
    let _ = body;
    todo!("H1")
}

/// Server side: decodes a request header and body.
pub fn decode_request(body: &[u8]) -> Result<(RequestHeader, Request), DecodeError> {
    let _ = body;
    todo!("H1")
}

/// Server side: a length-prefixed ConnectResponse packet.
pub fn encode_connect_response(resp: &ConnectResponse) -> Vec<u8> {
    let _ = resp;
    todo!("H1")
}

/// Server side: a length-prefixed reply (header, then the body when given).
pub fn encode_reply(header: &ReplyHeader, body: Option<&Response>) -> Vec<u8> {
    let _ = (header, body);
    todo!("H1")
}

/// Server side: a length-prefixed watch notification (xid -1, zxid -1, err 0, event).
pub fn encode_notification(event: &WatcherEvent) -> Vec<u8> {
    let _ = event;
    todo!("H1")
}

/// Client side: decodes a ConnectResponse body (the trailing readOnly byte is optional).
pub fn decode_connect_response(body: &[u8]) -> Result<ConnectResponse, DecodeError> {
    let _ = body;
    todo!("H1")
}

/// Client side: decodes a reply header and returns the rest of the body.
pub fn decode_reply_header(body: &[u8]) -> Result<(ReplyHeader, &[u8]), DecodeError> {
    let _ = body;
    todo!("H1")
}

/// Client side: decodes the body of a successful reply to a request of kind `op`.
pub fn decode_response(op: OpCode, body: &[u8]) -> Result<Response, DecodeError> {
    let _ = (op, body);
    todo!("H1")
}

/// Client side: decodes the body of a notification (after its reply header).
pub fn decode_watcher_event(body: &[u8]) -> Result<WatcherEvent, DecodeError> {
    let _ = body;
    todo!("H1")
}

impl Request {
    pub fn op(&self) -> OpCode {
        todo!("H1")
    }
}
