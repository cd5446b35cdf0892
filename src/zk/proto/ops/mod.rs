//! The supported operations as a table: one file per family (`reads`, `writes`, `watches`,
//! `sessions`, `acls`), each op one row there ([`OpSpec`]: its code, how its request body
//! reads and writes, how its reply body reads), beside the records its bodies share with a
//! multi's sub-operations. A body has no type tag of its own: the request header's op (or,
//! for a reply, the op of the request it answers) selects its row. The server's handlers are
//! rows too, in `zk::server::ops`, one file per family of the same name.
//!
//! A new op: its code in `codes::OpCode`, its variant in [`Request`] (and in [`Response`] if
//! its reply is new) and in `Request::op`, then its row and records in its family file, with
//! examples for the codec tests there; its handler row in the server's family file.

mod acls;
mod reads;
mod sessions;
#[cfg(test)]
mod tests;
mod watches;
mod writes;

use super::codes::{AddWatchMode, OpCode, WatcherType};
use super::jute::{DecodeError, Reader, Writer};
use super::multi::{self, MultiOp, OpResult};
use super::multi_read::{self, ReadOp, ReadResult};
use super::records::{Acl, ClientInfo, Stat};
pub(super) use writes::write_create;
pub use writes::{
    CheckVersionRequest, Create2Response, CreateRequest, CreateResponse, CreateTtlRequest,
    DeleteRequest, SetDataRequest, SetDataResponse,
};

/// One row of the table: an op's code, its name and its bodies' codec.
pub(super) struct OpSpec {
    /// The op code its request header carries.
    pub(super) op: OpCode,
    /// Its name in the Java client, in snake case, as fault plans name it (`lose_reply`'s
    /// `op`); the forms of one op share it (`create` is create2's, createContainer's and
    /// createTTL's too).
    name: &'static str,
    /// Reads a request body of this op.
    read_request: fn(&mut Reader<'_>) -> Result<Request, DecodeError>,
    /// Writes the body of a request of this op (the table only hands it one).
    write_request: fn(&Request, &mut Writer),
    /// Reads the body of a successful reply to a request of this op.
    read_response: fn(&mut Reader<'_>) -> Result<Response, DecodeError>,
}

/// A row: `op` and its name, then its request's reader and writer, then its reply's reader.
const fn row(
    op: OpCode,
    name: &'static str,
    read_request: fn(&mut Reader<'_>) -> Result<Request, DecodeError>,
    write_request: fn(&Request, &mut Writer),
    read_response: fn(&mut Reader<'_>) -> Result<Response, DecodeError>,
) -> OpSpec {
    OpSpec {
        op,
        name,
        read_request,
        write_request,
        read_response,
    }
}

/// Every family's rows. No op is in two rows, so the order decides nothing.
static TABLE: &[&[OpSpec]] = &[
    reads::OPS,
    writes::OPS,
    watches::OPS,
    sessions::OPS,
    acls::OPS,
];

/// The row of `op`; `UnknownOp` for a code the table has no row for.
fn spec(op: OpCode) -> Result<&'static OpSpec, DecodeError> {
    TABLE
        .iter()
        .flat_map(|rows| rows.iter())
        .find(|spec| spec.op == op)
        .ok_or(DecodeError::UnknownOp(op.code()))
}

/// Request bodies of the supported operations, one variant per op. A body that a multi's
/// sub-operation carries too is a record of its own ([`CreateRequest`] ...), shared by both.
/// New ops come as new variants.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Request {
    /// Create (op 1, CreateRequest): makes a node; the reply carries its path.
    Create(CreateRequest),
    /// Create2 (op 15, CreateRequest): a create whose reply carries the node's Stat too.
    Create2(CreateRequest),
    /// CreateContainer (op 19, CreateRequest): makes a container whatever its mode says
    /// (numbered when it is sequential); the reply carries the Stat, as Create2's does.
    CreateContainer(CreateRequest),
    /// CreateTTL (op 21, CreateTTLRequest): makes a node that lives `ttl_ms` after its last
    /// change once it has no children; its mode must be a TTL one. Refused with
    /// Unimplemented while the server's extended types are off.
    CreateTtl(CreateTtlRequest),
    /// Delete (op 2, DeleteRequest): removes a childless node.
    Delete(DeleteRequest),
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
    SetData(SetDataRequest),
    /// GetChildren (op 8, GetChildrenRequest): the names of a node's children.
    GetChildren {
        /// The parent's path.
        path: String,
        /// Whether to leave a child watch.
        watch: bool,
    },
    /// GetChildren2 (op 12, GetChildrenRequest): getChildren, with the parent's Stat.
    GetChildren2 {
        /// The parent's path.
        path: String,
        /// Whether to leave a child watch.
        watch: bool,
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
    /// Sasl (op 102, GetSASLRequest): a client's SASL token, answered at once.
    Sasl {
        /// The token.
        token: Vec<u8>,
    },
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
            Request::Create(_) => OpCode::Create,
            Request::Create2(_) => OpCode::Create2,
            Request::CreateContainer(_) => OpCode::CreateContainer,
            Request::CreateTtl(_) => OpCode::CreateTtl,
            Request::Delete(_) => OpCode::Delete,
            Request::Exists { .. } => OpCode::Exists,
            Request::GetData { .. } => OpCode::GetData,
            Request::SetData(_) => OpCode::SetData,
            Request::GetChildren { .. } => OpCode::GetChildren,
            Request::GetChildren2 { .. } => OpCode::GetChildren2,
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
            Request::Sasl { .. } => OpCode::Sasl,
            Request::AddWatch { .. } => OpCode::AddWatch,
            Request::Reconfig { .. } => OpCode::Reconfig,
        }
    }

    /// Its op's name in the Java client, in snake case (`create` for every create, as
    /// `get_children` for getChildren2), as fault plans name it.
    pub(crate) fn name(&self) -> &'static str {
        spec(self.op()).map_or("", |spec| spec.name)
    }

    /// Writes its body through its op's row.
    pub(super) fn write_body(&self, w: &mut Writer) {
        if let Ok(spec) = spec(self.op()) {
            (spec.write_request)(self, w);
        }
    }

    /// Reads the body of a request of kind `op` through its row; the caller checks for
    /// trailing bytes.
    pub(super) fn read_body(op: OpCode, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        (spec(op)?.read_request)(r)
    }
}

/// Reply bodies (only sent when ReplyHeader.err is Ok, which a multi's reply is even when a
/// sub-operation failed: its results say so).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Response {
    /// CreateResponse.
    Create(CreateResponse),
    /// Create2Response: the reply to create2, createContainer and createTTL.
    Create2(Create2Response),
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
    SetData(SetDataResponse),
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
    /// SetSASLResponse.
    Sasl {
        /// The server's next token; empty is written null, as a server without SASL sends it.
        token: Vec<u8>,
    },
}

impl Response {
    /// Writes its body. A reply is not an op's own (Create2Response answers three ops), so
    /// its writer is here rather than in a row.
    pub(super) fn write_body(&self, w: &mut Writer) {
        match self {
            Response::Create(create) => w.record(create),
            Response::Create2(create) => w.record(create),
            Response::SetData(set) => w.record(set),
            Response::Sync { path } => w.ustring(path),
            Response::Multi { results } => multi::write_results(w, results),
            Response::MultiRead { results } => multi_read::write_results(w, results),
            Response::Exists { stat } | Response::SetAcl { stat } => w.record(stat),
            Response::GetAcl { acl, stat } => {
                w.records(acl);
                w.record(stat);
            }
            Response::WhoAmI { clients } => w.records(clients),
            Response::Sasl { token } => acls::write_token(w, token),
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

    /// Reads the body of a successful reply to a request of kind `op` through its row; the
    /// caller checks for trailing bytes.
    pub(super) fn read_body(op: OpCode, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        (spec(op)?.read_response)(r)
    }
}
