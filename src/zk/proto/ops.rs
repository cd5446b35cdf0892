//! Request and reply bodies of the supported operations. A body has no type tag of its own:
//! the request header's op (or, for a reply, the op of the request it answers) selects it.

use super::codes::{AddWatchMode, CreateMode, OpCode, WatcherType};
use super::jute::{DecodeError, Reader, Writer};
use super::multi::{self, MultiOp, OpResult};
use super::multi_read::{self, ReadOp, ReadResult};
use super::records::{Acl, ClientInfo, Stat};

/// Request bodies of the supported operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Create (op 1) or, with `stat_reply`, Create2 (op 15): same body (CreateRequest).
    Create {
        /// The node's path; for a sequential node, the prefix its number is appended to.
        path: String,
        /// Its data.
        data: Vec<u8>,
        /// Its ACL.
        acl: Vec<Acl>,
        /// Its kind, sent as the int `flags`.
        mode: CreateMode,
        /// Whether the reply carries the node's Stat (Create2).
        stat_reply: bool,
    },
    /// CreateContainer (op 19, CreateRequest): makes a container whatever `mode` says
    /// (numbered when it is sequential); the reply carries the Stat, as Create2's does.
    CreateContainer {
        /// The node's path; for a sequential mode, the prefix its number is appended to.
        path: String,
        /// Its data.
        data: Vec<u8>,
        /// Its ACL.
        acl: Vec<Acl>,
        /// Sent as the int `flags`: only whether it is sequential counts.
        mode: CreateMode,
    },
    /// CreateTTL (op 21, CreateTTLRequest): makes a node that lives `ttl_ms` after its last
    /// change once it has no children; `mode` must be a TTL one. Refused with Unimplemented
    /// while the server's extended types are off.
    CreateTtl {
        /// The node's path; for a sequential mode, the prefix its number is appended to.
        path: String,
        /// Its data.
        data: Vec<u8>,
        /// Its ACL.
        acl: Vec<Acl>,
        /// Sent as the int `flags`.
        mode: CreateMode,
        /// Its time to live in milliseconds: 1 to 2⁴⁰ − 1.
        ttl_ms: i64,
    },
    /// Delete (op 2, DeleteRequest): removes a childless node.
    Delete {
        /// The node's path.
        path: String,
        /// The version it must be at; -1 for any.
        version: i32,
    },
    /// Exists (op 3, ExistsRequest): the node's Stat.
    Exists {
        /// The node's path.
        path: String,
        /// Whether to leave a data watch, which fires on its creation if it is missing.
        watch: bool,
    },
    /// GetData (op 4, GetDataRequest): the node's data and Stat.
    GetData {
        /// The node's path.
        path: String,
        /// Whether to leave a data watch.
        watch: bool,
    },
    /// SetData (op 5, SetDataRequest): replaces the node's data.
    SetData {
        /// The node's path.
        path: String,
        /// Its new data.
        data: Vec<u8>,
        /// The version it must be at; -1 for any.
        version: i32,
    },
    /// GetChildren (op 8) or, with `stat_reply`, GetChildren2 (op 12): same body
    /// (GetChildrenRequest).
    GetChildren {
        /// The parent's path.
        path: String,
        /// Whether to leave a child watch.
        watch: bool,
        /// Whether the reply carries the parent's Stat (GetChildren2).
        stat_reply: bool,
    },
    /// Answered once the server is up to date with the leader (at once on a single server),
    /// in order with the session's other requests; the path is echoed, not checked.
    Sync {
        /// Echoed in the reply.
        path: String,
    },
    /// All-or-nothing: every sub-operation applies, in one txn, or none does.
    Multi {
        /// The sub-operations, in order.
        ops: Vec<MultiOp>,
    },
    /// Ping (op 11, no body), sent with xid -2 to keep an idle session alive.
    Ping,
    /// CloseSession (op -11, no body): ends the session, deleting its ephemeral nodes.
    CloseSession,
    /// SetWatches (op 101): the watches a client had, registered again after it reconnected;
    /// those whose event it missed fire at once.
    SetWatches {
        /// The last zxid the client saw; a watch whose path changed after it fires at once.
        relative_zxid: i64,
        /// Paths with a getData watch.
        data: Vec<String>,
        /// Paths with an exists watch.
        exist: Vec<String>,
        /// Paths with a getChildren watch.
        child: Vec<String>,
    },
    /// SetWatches2 (op 105): SetWatches with the client's persistent and persistent-recursive
    /// watches as well.
    SetWatches2 {
        /// The last zxid the client saw; a watch whose path changed after it fires at once.
        relative_zxid: i64,
        /// Paths with a getData watch.
        data: Vec<String>,
        /// Paths with an exists watch.
        exist: Vec<String>,
        /// Paths with a getChildren watch.
        child: Vec<String>,
        /// Paths with a persistent watch.
        persistent: Vec<String>,
        /// Paths with a persistent recursive watch.
        persistent_recursive: Vec<String>,
    },
    /// GetEphemerals (op 103): the paths of the session's ephemeral nodes that start with
    /// `prefix`, as strings (`/a` matches `/ab` too); all of them when it is empty or `/`.
    GetEphemerals {
        /// What the paths must start with.
        prefix: String,
    },
    /// GetAllChildrenNumber (op 104): how many nodes lie below `path`, at any depth.
    GetAllChildrenNumber {
        /// The node counted below; it must exist.
        path: String,
    },
    /// MultiRead (op 22): the reads answered one by one, in order; none leaves a watch.
    MultiRead {
        /// The reads.
        ops: Vec<ReadOp>,
    },
    /// CheckWatches (op 17): fails with NoWatcher unless this connection has a watch of
    /// `kind` on `path`.
    CheckWatches {
        /// The watched path.
        path: String,
        /// Which watches count.
        kind: WatcherType,
    },
    /// RemoveWatches (op 18): drops this connection's watches of `kind` on `path` (they never
    /// fire); NoWatcher if it had none.
    RemoveWatches {
        /// The watched path.
        path: String,
        /// Which watches go.
        kind: WatcherType,
    },
    /// GetACL (op 6, GetACLRequest): the node's ACL and Stat.
    GetAcl {
        /// The node's path.
        path: String,
    },
    /// SetACL (op 7, SetACLRequest): replaces the node's ACL.
    SetAcl {
        /// The node's path.
        path: String,
        /// Its new ACL.
        acl: Vec<Acl>,
        /// The ACL version (Stat.aversion) it must be at; -1 for any.
        version: i32,
    },
    /// Auth (op 100, AuthPacket, sent with xid -4): adds an identity of `scheme` to the
    /// connection; a scheme the server has no provider for ends the connection.
    Auth {
        /// Unused by the server (0).
        kind: i32,
        /// `digest` (auth `user:password`) or `ip`.
        scheme: String,
        /// The credentials.
        auth: Vec<u8>,
    },
    /// WhoAmI (op 107, no body): the identities the connection holds.
    WhoAmI,
    /// Reconfig (op 16, ReconfigRequest): a change of the ensemble's membership, refused
    /// with ReconfigDisabled (the simulated servers have no dynamic configuration).
    Reconfig {
        /// Servers to add, comma-separated (incremental reconfig).
        joining_servers: String,
        /// Server ids to remove, comma-separated.
        leaving_servers: String,
        /// The whole new membership (non-incremental reconfig).
        new_members: String,
        /// The configuration version the change applies to; -1 for any.
        config_id: i64,
    },
    /// AddWatch (op 106, AddWatchRequest): a watch on `path` that stays after it fires; the
    /// path need not exist.
    AddWatch {
        /// The watched path (for a recursive watch, the top of the watched subtree).
        path: String,
        /// Persistent or persistent-recursive.
        mode: AddWatchMode,
    },
}

impl Request {
    /// The op code its request header carries.
    pub fn op(&self) -> OpCode {
        match self {
            Request::Create {
                stat_reply: false, ..
            } => OpCode::Create,
            Request::Create {
                stat_reply: true, ..
            } => OpCode::Create2,
            Request::CreateContainer { .. } => OpCode::CreateContainer,
            Request::CreateTtl { .. } => OpCode::CreateTtl,
            Request::Delete { .. } => OpCode::Delete,
            Request::Exists { .. } => OpCode::Exists,
            Request::GetData { .. } => OpCode::GetData,
            Request::SetData { .. } => OpCode::SetData,
            Request::GetChildren {
                stat_reply: false, ..
            } => OpCode::GetChildren,
            Request::GetChildren {
                stat_reply: true, ..
            } => OpCode::GetChildren2,
            Request::Sync { .. } => OpCode::Sync,
            Request::Multi { .. } => OpCode::Multi,
            Request::Ping => OpCode::Ping,
            Request::CloseSession => OpCode::CloseSession,
            Request::SetWatches { .. } => OpCode::SetWatches,
            Request::SetWatches2 { .. } => OpCode::SetWatches2,
            Request::GetEphemerals { .. } => OpCode::GetEphemerals,
            Request::GetAllChildrenNumber { .. } => OpCode::GetAllChildrenNumber,
            Request::MultiRead { .. } => OpCode::MultiRead,
            Request::CheckWatches { .. } => OpCode::CheckWatches,
            Request::RemoveWatches { .. } => OpCode::RemoveWatches,
            Request::GetAcl { .. } => OpCode::GetAcl,
            Request::SetAcl { .. } => OpCode::SetAcl,
            Request::Auth { .. } => OpCode::Auth,
            Request::WhoAmI => OpCode::WhoAmI,
            Request::AddWatch { .. } => OpCode::AddWatch,
            Request::Reconfig { .. } => OpCode::Reconfig,
        }
    }

    pub(super) fn write_body(&self, w: &mut Writer) {
        match self {
            Request::Create {
                path,
                data,
                acl,
                mode,
                stat_reply: _,
            }
            | Request::CreateContainer {
                path,
                data,
                acl,
                mode,
            } => {
                w.ustring(path);
                w.buffer(data);
                w.records(acl);
                w.int(mode.code());
            }
            Request::CreateTtl {
                path,
                data,
                acl,
                mode,
                ttl_ms,
            } => {
                w.ustring(path);
                w.buffer(data);
                w.records(acl);
                w.int(mode.code());
                w.long(*ttl_ms);
            }
            Request::Delete { path, version } => {
                w.ustring(path);
                w.int(*version);
            }
            Request::Exists { path, watch }
            | Request::GetData { path, watch }
            | Request::GetChildren { path, watch, .. } => {
                w.ustring(path);
                w.bool(*watch);
            }
            Request::SetData {
                path,
                data,
                version,
            } => {
                w.ustring(path);
                w.buffer(data);
                w.int(*version);
            }
            Request::Sync { path }
            | Request::GetEphemerals { prefix: path }
            | Request::GetAllChildrenNumber { path }
            | Request::GetAcl { path } => w.ustring(path),
            Request::SetAcl { path, acl, version } => {
                w.ustring(path);
                w.records(acl);
                w.int(*version);
            }
            Request::AddWatch { path, mode } => {
                w.ustring(path);
                w.int(mode.code());
            }
            Request::Reconfig {
                joining_servers,
                leaving_servers,
                new_members,
                config_id,
            } => {
                w.ustring(joining_servers);
                w.ustring(leaving_servers);
                w.ustring(new_members);
                w.long(*config_id);
            }
            Request::Auth { kind, scheme, auth } => {
                w.int(*kind);
                w.ustring(scheme);
                w.buffer(auth);
            }
            Request::Multi { ops } => multi::write_ops(w, ops),
            Request::MultiRead { ops } => multi_read::write_ops(w, ops),
            Request::CheckWatches { path, kind } | Request::RemoveWatches { path, kind } => {
                w.ustring(path);
                w.int(kind.code());
            }
            Request::Ping | Request::CloseSession | Request::WhoAmI => {}
            Request::SetWatches {
                relative_zxid,
                data,
                exist,
                child,
            } => {
                w.long(*relative_zxid);
                w.strings(data);
                w.strings(exist);
                w.strings(child);
            }
            Request::SetWatches2 {
                relative_zxid,
                data,
                exist,
                child,
                persistent,
                persistent_recursive,
            } => {
                w.long(*relative_zxid);
                w.strings(data);
                w.strings(exist);
                w.strings(child);
                w.strings(persistent);
                w.strings(persistent_recursive);
            }
        }
    }

    /// Reads the body of a request of kind `op`; the caller checks for trailing bytes.
    pub(super) fn read_body(op: OpCode, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match op {
            OpCode::Create | OpCode::Create2 => Request::Create {
                path: r.ustring()?,
                data: r.buffer()?,
                acl: r.records()?,
                mode: CreateMode::try_from(r.int()?)?,
                stat_reply: op == OpCode::Create2,
            },
            OpCode::CreateContainer => Request::CreateContainer {
                path: r.ustring()?,
                data: r.buffer()?,
                acl: r.records()?,
                mode: CreateMode::try_from(r.int()?)?,
            },
            OpCode::CreateTtl => Request::CreateTtl {
                path: r.ustring()?,
                data: r.buffer()?,
                acl: r.records()?,
                mode: CreateMode::try_from(r.int()?)?,
                ttl_ms: r.long()?,
            },
            OpCode::Delete => Request::Delete {
                path: r.ustring()?,
                version: r.int()?,
            },
            OpCode::Exists => Request::Exists {
                path: r.ustring()?,
                watch: r.bool()?,
            },
            OpCode::GetData => Request::GetData {
                path: r.ustring()?,
                watch: r.bool()?,
            },
            OpCode::SetData => Request::SetData {
                path: r.ustring()?,
                data: r.buffer()?,
                version: r.int()?,
            },
            OpCode::GetChildren | OpCode::GetChildren2 => Request::GetChildren {
                path: r.ustring()?,
                watch: r.bool()?,
                stat_reply: op == OpCode::GetChildren2,
            },
            OpCode::Sync => Request::Sync { path: r.ustring()? },
            OpCode::Multi => Request::Multi {
                ops: multi::read_ops(r)?,
            },
            OpCode::Ping => Request::Ping,
            OpCode::CloseSession => Request::CloseSession,
            OpCode::SetWatches => Request::SetWatches {
                relative_zxid: r.long()?,
                data: r.strings()?,
                exist: r.strings()?,
                child: r.strings()?,
            },
            OpCode::SetWatches2 => Request::SetWatches2 {
                relative_zxid: r.long()?,
                data: r.strings()?,
                exist: r.strings()?,
                child: r.strings()?,
                persistent: r.strings()?,
                persistent_recursive: r.strings()?,
            },
            OpCode::GetEphemerals => Request::GetEphemerals {
                prefix: r.ustring()?,
            },
            OpCode::GetAllChildrenNumber => Request::GetAllChildrenNumber { path: r.ustring()? },
            OpCode::MultiRead => Request::MultiRead {
                ops: multi_read::read_ops(r)?,
            },
            OpCode::CheckWatches => Request::CheckWatches {
                path: r.ustring()?,
                kind: WatcherType::try_from(r.int()?)?,
            },
            OpCode::RemoveWatches => Request::RemoveWatches {
                path: r.ustring()?,
                kind: WatcherType::try_from(r.int()?)?,
            },
            OpCode::GetAcl => Request::GetAcl { path: r.ustring()? },
            OpCode::SetAcl => Request::SetAcl {
                path: r.ustring()?,
                acl: r.records()?,
                version: r.int()?,
            },
            OpCode::Auth => Request::Auth {
                kind: r.int()?,
                scheme: r.ustring()?,
                auth: r.buffer()?,
            },
            OpCode::WhoAmI => Request::WhoAmI,
            OpCode::AddWatch => Request::AddWatch {
                path: r.ustring()?,
                mode: AddWatchMode::try_from(r.int()?)?,
            },
            OpCode::Reconfig => Request::Reconfig {
                joining_servers: r.ustring()?,
                leaving_servers: r.ustring()?,
                new_members: r.ustring()?,
                config_id: r.long()?,
            },
        })
    }
}

/// Reply bodies (only sent when ReplyHeader.err is Ok, which a multi's reply is even when a
/// sub-operation failed: its results say so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// CreateResponse.
    Create {
        /// The node's path, with any sequence suffix.
        path: String,
    },
    /// Create2Response.
    Create2 {
        /// The node's path, with any sequence suffix.
        path: String,
        /// The new node's Stat.
        stat: Stat,
    },
    /// Delete's reply has no body.
    Delete,
    /// ExistsResponse.
    Exists {
        /// The node's Stat.
        stat: Stat,
    },
    /// GetDataResponse.
    GetData {
        /// The node's data.
        data: Vec<u8>,
        /// Its Stat.
        stat: Stat,
    },
    /// SetDataResponse.
    SetData {
        /// The node's Stat after the write.
        stat: Stat,
    },
    /// GetChildrenResponse.
    GetChildren {
        /// The children's names (not paths), in no order to rely on.
        children: Vec<String>,
    },
    /// GetChildren2Response.
    GetChildren2 {
        /// The children's names (not paths), in no order to rely on.
        children: Vec<String>,
        /// The parent's Stat.
        stat: Stat,
    },
    /// SyncResponse.
    Sync {
        /// The request's path, echoed.
        path: String,
    },
    /// MultiResponse.
    Multi {
        /// One result per sub-operation, in order.
        results: Vec<OpResult>,
    },
    /// A ping's reply has no body.
    Ping,
    /// CloseSession's reply has no body.
    CloseSession,
    /// SetWatches' reply has no body.
    SetWatches,
    /// SetWatches2's reply has no body.
    SetWatches2,
    /// MultiRead's MultiResponse.
    MultiRead {
        /// One result per read, in order.
        results: Vec<ReadResult>,
    },
    /// CheckWatches' reply has no body.
    CheckWatches,
    /// RemoveWatches' reply has no body.
    RemoveWatches,
    /// GetEphemeralsResponse.
    GetEphemerals {
        /// The nodes' paths, in no order to rely on.
        paths: Vec<String>,
    },
    /// GetAllChildrenNumberResponse.
    GetAllChildrenNumber {
        /// How many nodes lie below the one asked about.
        total: i32,
    },
    /// GetACLResponse.
    GetAcl {
        /// The node's ACL (a digest's hash shown as `x` to a connection without ADMIN).
        acl: Vec<Acl>,
        /// Its Stat.
        stat: Stat,
    },
    /// SetACLResponse.
    SetAcl {
        /// The node's Stat after the change.
        stat: Stat,
    },
    /// An auth's reply has no body.
    Auth,
    /// AddWatch's reply, an ErrorResponse whose code is always 0.
    AddWatch,
    /// WhoAmIResponse.
    WhoAmI {
        /// The connection's identities, in no order to rely on.
        clients: Vec<ClientInfo>,
    },
}

impl Response {
    pub(super) fn write_body(&self, w: &mut Writer) {
        match self {
            Response::Create { path } | Response::Sync { path } => w.ustring(path),
            Response::Multi { results } => multi::write_results(w, results),
            Response::MultiRead { results } => multi_read::write_results(w, results),
            Response::Create2 { path, stat } => {
                w.ustring(path);
                w.record(stat);
            }
            Response::Exists { stat } | Response::SetData { stat } | Response::SetAcl { stat } => {
                w.record(stat)
            }
            Response::GetAcl { acl, stat } => {
                w.records(acl);
                w.record(stat);
            }
            Response::WhoAmI { clients } => w.records(clients),
            Response::AddWatch => w.int(0),
            Response::GetData { data, stat } => {
                w.buffer(data);
                w.record(stat);
            }
            Response::GetChildren { children } | Response::GetEphemerals { paths: children } => {
                w.strings(children)
            }
            Response::GetAllChildrenNumber { total } => w.int(*total),
            Response::GetChildren2 { children, stat } => {
                w.strings(children);
                w.record(stat);
            }
            Response::Delete
            | Response::Ping
            | Response::CloseSession
            | Response::SetWatches
            | Response::SetWatches2
            | Response::CheckWatches
            | Response::RemoveWatches
            | Response::Auth => {}
        }
    }

    /// Reads the body of a successful reply to a request of kind `op`; the caller checks
    /// for trailing bytes.
    pub(super) fn read_body(op: OpCode, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match op {
            OpCode::Create => Response::Create { path: r.ustring()? },
            OpCode::Create2 | OpCode::CreateContainer | OpCode::CreateTtl => Response::Create2 {
                path: r.ustring()?,
                stat: r.record()?,
            },
            OpCode::Delete => Response::Delete,
            OpCode::Exists => Response::Exists { stat: r.record()? },
            OpCode::GetData => Response::GetData {
                data: r.buffer()?,
                stat: r.record()?,
            },
            OpCode::SetData => Response::SetData { stat: r.record()? },
            OpCode::GetChildren => Response::GetChildren {
                children: r.strings()?,
            },
            OpCode::GetChildren2 => Response::GetChildren2 {
                children: r.strings()?,
                stat: r.record()?,
            },
            OpCode::Sync => Response::Sync { path: r.ustring()? },
            OpCode::Multi => Response::Multi {
                results: multi::read_results(r)?,
            },
            OpCode::Ping => Response::Ping,
            OpCode::CloseSession => Response::CloseSession,
            OpCode::SetWatches => Response::SetWatches,
            OpCode::SetWatches2 => Response::SetWatches2,
            OpCode::GetEphemerals => Response::GetEphemerals {
                paths: r.strings()?,
            },
            OpCode::GetAllChildrenNumber => Response::GetAllChildrenNumber { total: r.int()? },
            OpCode::MultiRead => Response::MultiRead {
                results: multi_read::read_results(r)?,
            },
            OpCode::CheckWatches => Response::CheckWatches,
            OpCode::RemoveWatches => Response::RemoveWatches,
            OpCode::GetAcl => Response::GetAcl {
                acl: r.records()?,
                stat: r.record()?,
            },
            OpCode::SetAcl => Response::SetAcl { stat: r.record()? },
            OpCode::Auth => Response::Auth,
            OpCode::AddWatch => {
                r.int()?;
                Response::AddWatch
            }
            // A server that reconfigures answers with the new configuration (a
            // GetDataResponse); the simulated ones never do.
            OpCode::Reconfig => Response::GetData {
                data: r.buffer()?,
                stat: r.record()?,
            },
            OpCode::WhoAmI => Response::WhoAmI {
                clients: r.records()?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    //! Every body through a whole packet and back, every strict prefix of a body rejected,
    //! and arbitrary bytes never panicking the decoders.

    use super::*;
    use crate::zk::proto::{
        ErrorCode, ReplyHeader, RequestHeader, decode_reply_header, decode_request,
        decode_response, encode_reply, encode_request, split_frame,
    };
    use proptest::prelude::*;

    fn stat() -> Stat {
        Stat {
            czxid: 0x1_0000_0001,
            mzxid: 0x1_0000_0007,
            ctime: 1_700_000_000_000,
            mtime: 1_700_000_000_500,
            version: 3,
            cversion: -1,
            aversion: 0,
            ephemeral_owner: 0x0100_0000_0000_0042,
            data_length: 2,
            num_children: 0,
            pzxid: 0x1_0000_0009,
        }
    }

    fn all_requests() -> Vec<Request> {
        let mut requests = vec![
            Request::Delete {
                path: "/lock/n-0000000001".into(),
                version: -1,
            },
            Request::Exists {
                path: "/lock".into(),
                watch: true,
            },
            Request::GetData {
                path: "/lock".into(),
                watch: false,
            },
            Request::SetData {
                path: "/cfg".into(),
                data: vec![0, 0xff, 7],
                version: 4,
            },
            Request::Sync {
                path: "/queue/locks".into(),
            },
            Request::Multi { ops: vec![] },
            Request::Multi {
                ops: vec![
                    MultiOp::create("/q/entry-", b"v", CreateMode::PersistentSequential),
                    MultiOp::delete("/q/locks/entry-0000000001", 3),
                    MultiOp::set_data("/q", &[0, 0xff], -1),
                    MultiOp::check("/q", 2),
                ],
            },
            Request::Ping,
            Request::CloseSession,
            Request::SetWatches {
                relative_zxid: 0x2_0000_0003,
                data: vec!["/a".into(), "/b".into()],
                exist: vec!["/c".into()],
                child: vec![],
            },
            Request::GetEphemerals {
                prefix: "/lock".into(),
            },
            Request::SetWatches2 {
                relative_zxid: 9,
                data: vec!["/a".into()],
                exist: vec![],
                child: vec!["/b".into()],
                persistent: vec!["/c".into()],
                persistent_recursive: vec!["/d".into()],
            },
            Request::GetAllChildrenNumber {
                path: "/lock".into(),
            },
            Request::CheckWatches {
                path: "/lock".into(),
                kind: WatcherType::Any,
            },
            Request::MultiRead { ops: vec![] },
            Request::MultiRead {
                ops: vec![
                    ReadOp::GetChildren {
                        path: "/lock".into(),
                    },
                    ReadOp::GetData {
                        path: "/lock/n-1".into(),
                    },
                ],
            },
            Request::RemoveWatches {
                path: "/lock/n-1".into(),
                kind: WatcherType::Data,
            },
            Request::GetAcl {
                path: "/lock".into(),
            },
            Request::SetAcl {
                path: "/lock".into(),
                acl: Acl::open_unsafe(),
                version: 2,
            },
            Request::Auth {
                kind: 0,
                scheme: "digest".into(),
                auth: b"u:p".to_vec(),
            },
            Request::WhoAmI,
            Request::AddWatch {
                path: "/lock".into(),
                mode: AddWatchMode::PersistentRecursive,
            },
            Request::Reconfig {
                joining_servers: "server.4=10.0.0.4:2888:3888;2181".into(),
                leaving_servers: String::new(),
                new_members: String::new(),
                config_id: -1,
            },
            Request::CreateContainer {
                path: "/locks".into(),
                data: vec![1],
                acl: Acl::open_unsafe(),
                mode: CreateMode::Container,
            },
            Request::CreateTtl {
                path: "/lease-".into(),
                data: vec![],
                acl: Acl::open_unsafe(),
                mode: CreateMode::PersistentSequentialWithTtl,
                ttl_ms: 30_000,
            },
        ];
        for stat_reply in [false, true] {
            requests.push(Request::Create {
                path: "/lock/n-".into(),
                data: vec![],
                acl: vec![
                    Acl {
                        perms: 1,
                        scheme: "digest".into(),
                        id: "u:h".into(),
                    },
                    Acl::open_unsafe().remove(0),
                ],
                mode: CreateMode::PersistentSequential,
                stat_reply,
            });
            requests.push(Request::GetChildren {
                path: "/".into(),
                watch: true,
                stat_reply,
            });
        }
        requests
    }

    /// Every reply body, with the op of the request it answers.
    fn all_responses() -> Vec<(OpCode, Response)> {
        vec![
            (OpCode::Create, Response::Create { path: "/x".into() }),
            (
                OpCode::Create2,
                Response::Create2 {
                    path: "/x0000000001".into(),
                    stat: stat(),
                },
            ),
            (
                OpCode::CreateContainer,
                Response::Create2 {
                    path: "/locks".into(),
                    stat: stat(),
                },
            ),
            (
                OpCode::CreateTtl,
                Response::Create2 {
                    path: "/lease-0000000003".into(),
                    stat: stat(),
                },
            ),
            (
                OpCode::GetAcl,
                Response::GetAcl {
                    acl: Acl::open_unsafe(),
                    stat: stat(),
                },
            ),
            (OpCode::SetAcl, Response::SetAcl { stat: stat() }),
            (OpCode::Auth, Response::Auth),
            (OpCode::AddWatch, Response::AddWatch),
            (
                OpCode::WhoAmI,
                Response::WhoAmI {
                    clients: vec![ClientInfo {
                        auth_scheme: "ip".into(),
                        user: "127.0.0.1".into(),
                    }],
                },
            ),
            (OpCode::Delete, Response::Delete),
            (OpCode::Exists, Response::Exists { stat: stat() }),
            (
                OpCode::GetData,
                Response::GetData {
                    data: b"hi".to_vec(),
                    stat: stat(),
                },
            ),
            (OpCode::SetData, Response::SetData { stat: stat() }),
            (
                OpCode::GetChildren,
                Response::GetChildren {
                    children: vec!["n-1".into(), "n-2".into()],
                },
            ),
            (
                OpCode::GetChildren2,
                Response::GetChildren2 {
                    children: vec![],
                    stat: stat(),
                },
            ),
            (OpCode::Sync, Response::Sync { path: "/q".into() }),
            (OpCode::Multi, Response::Multi { results: vec![] }),
            (
                OpCode::GetEphemerals,
                Response::GetEphemerals {
                    paths: vec!["/lock/n-1".into(), "/e".into()],
                },
            ),
            (
                OpCode::GetAllChildrenNumber,
                Response::GetAllChildrenNumber { total: 7 },
            ),
            (OpCode::CheckWatches, Response::CheckWatches),
            (OpCode::SetWatches2, Response::SetWatches2),
            (
                OpCode::MultiRead,
                Response::MultiRead {
                    results: vec![
                        ReadResult::Children {
                            children: vec!["n-1".into()],
                        },
                        ReadResult::Data {
                            data: b"d".to_vec(),
                            stat: stat(),
                        },
                        ReadResult::Error {
                            err: ErrorCode::NoNode,
                        },
                    ],
                },
            ),
            (OpCode::RemoveWatches, Response::RemoveWatches),
            (
                OpCode::Multi,
                Response::Multi {
                    results: vec![
                        OpResult::Create {
                            path: "/q/entry-0000000004".into(),
                        },
                        OpResult::Delete,
                        OpResult::SetData { stat: stat() },
                        OpResult::Check,
                    ],
                },
            ),
            (
                OpCode::Multi,
                Response::Multi {
                    results: vec![
                        OpResult::Error { err: ErrorCode::Ok },
                        OpResult::Error {
                            err: ErrorCode::NoNode,
                        },
                        OpResult::Error {
                            err: ErrorCode::RuntimeInconsistency,
                        },
                    ],
                },
            ),
            (OpCode::Ping, Response::Ping),
            (OpCode::CloseSession, Response::CloseSession),
            (OpCode::SetWatches, Response::SetWatches),
        ]
    }

    fn body_of(packet: &[u8]) -> &[u8] {
        let (body, consumed) = split_frame(packet).unwrap().unwrap();
        assert_eq!(consumed, packet.len());
        body
    }

    #[test]
    fn every_request_round_trips() {
        let requests = all_requests();
        let ops: Vec<OpCode> = requests.iter().map(Request::op).collect();
        for &op in OpCode::ALL {
            assert!(ops.contains(&op), "no request exercises {op:?}");
        }
        for (xid, req) in (1..).zip(requests) {
            let packet = encode_request(xid, &req);
            let header = RequestHeader { xid, op: req.op() };
            assert_eq!(decode_request(body_of(&packet)), Ok((header, req)));
        }
    }

    #[test]
    fn every_response_round_trips() {
        for (op, resp) in all_responses() {
            let header = ReplyHeader {
                xid: 9,
                zxid: 0x3_0000_0001,
                err: ErrorCode::Ok,
            };
            let packet = encode_reply(&header, Some(&resp));
            let (got, rest) = decode_reply_header(body_of(&packet)).unwrap();
            assert_eq!(got, header);
            assert_eq!(decode_response(op, rest), Ok(resp));
        }
    }

    #[test]
    fn op_distinguishes_stat_reply_variants() {
        let create = |stat_reply| Request::Create {
            path: "/a".into(),
            data: vec![],
            acl: vec![],
            mode: CreateMode::Persistent,
            stat_reply,
        };
        assert_eq!(create(false).op(), OpCode::Create);
        assert_eq!(create(true).op(), OpCode::Create2);
        let children = |stat_reply| Request::GetChildren {
            path: "/a".into(),
            watch: false,
            stat_reply,
        };
        assert_eq!(children(false).op(), OpCode::GetChildren);
        assert_eq!(children(true).op(), OpCode::GetChildren2);
    }

    #[test]
    fn every_strict_prefix_of_a_request_is_rejected() {
        for req in all_requests() {
            let packet = encode_request(1, &req);
            let body = body_of(&packet);
            for cut in 0..body.len() {
                assert!(
                    decode_request(&body[..cut]).is_err(),
                    "{req:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn every_strict_prefix_of_a_reply_is_rejected() {
        let header = ReplyHeader {
            xid: 1,
            zxid: 1,
            err: ErrorCode::Ok,
        };
        for (op, resp) in all_responses() {
            let packet = encode_reply(&header, Some(&resp));
            let body = body_of(&packet);
            for cut in 0..16 {
                assert!(decode_reply_header(&body[..cut]).is_err());
            }
            let reply_body = &body[16..];
            for cut in 0..reply_body.len() {
                assert!(
                    decode_response(op, &reply_body[..cut]).is_err(),
                    "{resp:?} cut at {cut}"
                );
            }
        }
    }

    /// Re-encoding a decoded request must decode to the same request: decoding loses
    /// nothing the encoder needs.
    fn assert_request_stable(body: &[u8]) {
        if let Ok((header, req)) = decode_request(body) {
            let again = encode_request(header.xid, &req);
            assert_eq!(decode_request(&again[4..]), Ok((header, req)));
        }
    }

    fn multi_op() -> impl Strategy<Value = MultiOp> {
        let path = "/[a-z]{0,3}(/[a-z-]{1,3}){0,2}";
        let data = proptest::collection::vec(any::<u8>(), 0..4);
        prop_oneof![
            (
                path,
                data.clone(),
                proptest::sample::select(CreateMode::ALL)
            )
                .prop_map(|(p, d, m)| MultiOp::create(p, &d, m)),
            (path, any::<i32>()).prop_map(|(p, v)| MultiOp::delete(p, v)),
            (path, data, any::<i32>()).prop_map(|(p, d, v)| MultiOp::set_data(p, &d, v)),
            (path, any::<i32>()).prop_map(|(p, v)| MultiOp::check(p, v)),
        ]
    }

    fn op_result() -> impl Strategy<Value = OpResult> {
        prop_oneof![
            "/[a-z0-9]{0,12}".prop_map(|path| OpResult::Create { path }),
            Just(OpResult::Delete),
            any::<i64>().prop_map(|czxid| OpResult::SetData {
                stat: Stat { czxid, ..stat() }
            }),
            Just(OpResult::Check),
            proptest::sample::select(ErrorCode::ALL).prop_map(|err| OpResult::Error { err }),
        ]
    }

    proptest! {
        /// Any multi, and any multi reply, through a packet and back; every strict prefix
        /// and one flipped byte never panic the decoder.
        #[test]
        fn multi_round_trips_and_mangling_never_panics(
            ops in proptest::collection::vec(multi_op(), 0..5),
            results in proptest::collection::vec(op_result(), 0..5),
            flip in any::<prop::sample::Index>(),
            mask in 1..=255u8,
        ) {
            let req = Request::Multi { ops };
            let packet = encode_request(7, &req);
            let header = RequestHeader { xid: 7, op: OpCode::Multi };
            prop_assert_eq!(decode_request(body_of(&packet)), Ok((header, req)));
            let mut mangled = packet[4..].to_vec();
            let at = flip.index(mangled.len());
            mangled[at] ^= mask;
            assert_request_stable(&mangled);
            for cut in 0..packet.len() - 4 {
                prop_assert!(decode_request(&packet[4..4 + cut]).is_err());
            }

            let resp = Response::Multi { results };
            let header = ReplyHeader { xid: 7, zxid: 9, err: ErrorCode::Ok };
            let packet = encode_reply(&header, Some(&resp));
            prop_assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(resp));
            let mut mangled = packet[20..].to_vec();
            if !mangled.is_empty() {
                let at = flip.index(mangled.len());
                mangled[at] ^= mask;
                if let Ok(again) = decode_response(OpCode::Multi, &mangled) {
                    let packet = encode_reply(&header, Some(&again));
                    prop_assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(again));
                }
            }
        }

        #[test]
        fn decode_request_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            assert_request_stable(&bytes);
        }

        #[test]
        fn decode_request_body_never_panics(
            xid in any::<i32>(),
            op in proptest::sample::select(OpCode::ALL),
            tail in proptest::collection::vec(any::<u8>(), 0..96),
        ) {
            let mut body = xid.to_be_bytes().to_vec();
            body.extend_from_slice(&op.code().to_be_bytes());
            body.extend_from_slice(&tail);
            assert_request_stable(&body);
        }

        #[test]
        fn decode_response_never_panics(
            op in proptest::sample::select(OpCode::ALL),
            bytes in proptest::collection::vec(any::<u8>(), 0..96),
        ) {
            if let Ok(resp) = decode_response(op, &bytes) {
                let header = ReplyHeader { xid: 1, zxid: 1, err: ErrorCode::Ok };
                let packet = encode_reply(&header, Some(&resp));
                prop_assert_eq!(decode_response(op, &packet[20..]), Ok(resp));
            }
        }
    }
}
