//! Fixed records shared by several packets (zookeeper.jute): Stat, ACL, the connect handshake,
//! the request and reply headers and the watcher event.

use super::codes::{ErrorCode, EventType, KeeperState, OpCode};
use super::jute::{DecodeError, Reader, Record, Writer};

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    pub protocol_version: i32,
    pub last_zxid_seen: i64,
    pub timeout_ms: i32,
    pub session_id: i64,
    pub passwd: Vec<u8>,
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    pub protocol_version: i32,
    pub timeout_ms: i32,
    pub session_id: i64,
    pub passwd: Vec<u8>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    pub xid: i32,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader {
    pub xid: i32,
    pub zxid: i64,
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
    pub event_type: EventType,
    pub state: KeeperState,
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
