//! Fixed records shared by several packets (zookeeper.jute): Stat, ACL, the connect handshake,
//! the request and reply headers and the watcher event.

use super::codes::{ErrorCode, EventType, KeeperState, OpCode};
use super::jute::{DecodeError, Reader, Record, Writer};

/// Node metadata (org.apache.zookeeper.data.Stat), 68 bytes on the wire in this field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stat {
    /// The zxid of the txn that created the node (the lock recipes' fencing token).
    pub czxid: i64,
    /// The zxid of the txn that last set its data (its creation's, until then).
    pub mzxid: i64,
    /// When it was created, ms since the Unix epoch by the server's wall clock.
    pub ctime: i64,
    /// When its data was last set, likewise.
    pub mtime: i64,
    /// How many times its data was set.
    pub version: i32,
    /// How many times its children changed.
    pub cversion: i32,
    /// How many times its ACL changed (always 0 here: no setACL).
    pub aversion: i32,
    /// The session that owns it, for an ephemeral node; else 0.
    pub ephemeral_owner: i64,
    /// The length of its data.
    pub data_length: i32,
    /// How many children it has.
    pub num_children: i32,
    /// The zxid of the txn that last changed its children.
    pub pzxid: i64,
}

impl Record for Stat {
    fn write(&self, w: &mut Writer) {
        w.long(self.czxid);
        w.long(self.mzxid);
        w.long(self.ctime);
        w.long(self.mtime);
        w.int(self.version);
        w.int(self.cversion);
        w.int(self.aversion);
        w.long(self.ephemeral_owner);
        w.int(self.data_length);
        w.int(self.num_children);
        w.long(self.pzxid);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Stat {
            czxid: r.long()?,
            mzxid: r.long()?,
            ctime: r.long()?,
            mtime: r.long()?,
            version: r.int()?,
            cversion: r.int()?,
            aversion: r.int()?,
            ephemeral_owner: r.long()?,
            data_length: r.int()?,
            num_children: r.int()?,
            pzxid: r.long()?,
        })
    }
}

/// One ACL entry: perms int, then Id { scheme ustring, id ustring }.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Acl {
    /// The permissions granted, a ZooDefs.Perms bit set (31: all).
    pub perms: i32,
    /// How `id` is read: `world`, `digest`, `ip` ...
    pub scheme: String,
    /// Whom it grants them to (`anyone`, for `world`).
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

impl Record for Acl {
    fn write(&self, w: &mut Writer) {
        w.int(self.perms);
        w.ustring(&self.scheme);
        w.ustring(&self.id);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Acl {
            perms: r.int()?,
            scheme: r.ustring()?,
            id: r.ustring()?,
        })
    }
}

/// One identity a connection holds, as whoAmI lists it (ClientInfo).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientInfo {
    /// The scheme: `ip`, or `digest` after an auth.
    pub auth_scheme: String,
    /// Who it names: an address, or a digest's user.
    pub user: String,
}

impl Record for ClientInfo {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.auth_scheme);
        w.ustring(&self.user);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(ClientInfo {
            auth_scheme: r.ustring()?,
            user: r.ustring()?,
        })
    }
}

/// A connection's first packet from the client (ConnectRequest), without a header: a new
/// session, or the resumption of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    /// Always 0.
    pub protocol_version: i32,
    /// The last zxid the client saw; a server behind it refuses the connection.
    pub last_zxid_seen: i64,
    /// The session timeout asked for; the server clamps it.
    pub timeout_ms: i32,
    /// 0 for a new session, else the session to resume.
    pub session_id: i64,
    /// The password of the session to resume (16 zero bytes for a new one).
    pub passwd: Vec<u8>,
    /// Whether the client accepts a read-only server.
    pub read_only: bool,
}

/// The trailing readOnly byte of both connect messages: always written, but pre-3.4 peers
/// omit it, so a body that ends before it reads as `false`.
fn read_optional_bool(r: &mut Reader<'_>) -> Result<bool, DecodeError> {
    if r.is_empty() { Ok(false) } else { r.bool() }
}

impl Record for ConnectRequest {
    fn write(&self, w: &mut Writer) {
        w.int(self.protocol_version);
        w.long(self.last_zxid_seen);
        w.int(self.timeout_ms);
        w.long(self.session_id);
        w.buffer(&self.passwd);
        w.bool(self.read_only);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(ConnectRequest {
            protocol_version: r.int()?,
            last_zxid_seen: r.long()?,
            timeout_ms: r.int()?,
            session_id: r.long()?,
            passwd: r.buffer()?,
            read_only: read_optional_bool(r)?,
        })
    }
}

/// The server's answer to a ConnectRequest (ConnectResponse), without a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    /// Always 0.
    pub protocol_version: i32,
    /// The negotiated session timeout; 0 when the session could not be resumed (expired,
    /// or a wrong password), and the server closes the connection.
    pub timeout_ms: i32,
    /// The session's id (0 when refused).
    pub session_id: i64,
    /// The session's password, which resuming it takes.
    pub passwd: Vec<u8>,
    /// Whether the server is read-only.
    pub read_only: bool,
}

impl Record for ConnectResponse {
    fn write(&self, w: &mut Writer) {
        w.int(self.protocol_version);
        w.int(self.timeout_ms);
        w.long(self.session_id);
        w.buffer(&self.passwd);
        w.bool(self.read_only);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(ConnectResponse {
            protocol_version: r.int()?,
            timeout_ms: r.int()?,
            session_id: r.long()?,
            passwd: r.buffer()?,
            read_only: read_optional_bool(r)?,
        })
    }
}

/// What precedes every request body after the connect (RequestHeader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    /// The client's number for the request, which the reply echoes; negative ones are
    /// reserved (ping, setWatches).
    pub xid: i32,
    /// Which operation, and so which body follows.
    pub op: OpCode,
}

impl Record for RequestHeader {
    fn write(&self, w: &mut Writer) {
        w.int(self.xid);
        w.int(self.op.code());
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(RequestHeader {
            xid: r.int()?,
            op: OpCode::try_from(r.int()?)?,
        })
    }
}

/// What precedes every reply body and notification after the connect (ReplyHeader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader {
    /// The xid of the request answered, or -1 for a notification.
    pub xid: i32,
    /// The zxid of the server's last txn when it answered (-1 on a notification).
    pub zxid: i64,
    /// The outcome; a body follows only when it is Ok.
    pub err: ErrorCode,
}

impl Record for ReplyHeader {
    fn write(&self, w: &mut Writer) {
        w.int(self.xid);
        w.long(self.zxid);
        w.int(self.err.code());
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(ReplyHeader {
            xid: r.int()?,
            zxid: r.long()?,
            err: ErrorCode::try_from(r.int()?)?,
        })
    }
}

/// A watch notification (xid -1) or a session event delivered locally by the client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WatcherEvent {
    /// What happened to the node; None for a session event.
    pub event_type: EventType,
    /// The session's state (SyncConnected for every node event from the server).
    pub state: KeeperState,
    /// The watched path; empty for a session event.
    pub path: String,
}

impl Record for WatcherEvent {
    fn write(&self, w: &mut Writer) {
        w.int(self.event_type.code());
        w.int(self.state.code());
        w.ustring(&self.path);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(WatcherEvent {
            event_type: EventType::try_from(r.int()?)?,
            state: KeeperState::try_from(r.int()?)?,
            path: r.ustring()?,
        })
    }
}
