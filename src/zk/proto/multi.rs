//! The bodies of multi (op 14), as ZooKeeper 3.8's `MultiOperationRecord` and
//! `MultiResponse` lay them out: each sub-operation or result behind a MultiHeader
//! {int type, boolean done, int err}, the list ended by the header {-1, true, -1}. Requests
//! carry err -1 in every header; results carry 0, or the error code of an error result
//! (type -1), whose body is ErrorResponse {int err}.

#[cfg(doc)]
use super::codes::OpCode;
use super::codes::{CreateMode, ErrorCode};
use super::jute::{DecodeError, Reader, Writer};
use super::ops::{
    CheckVersionRequest, Create2Response, CreateRequest, CreateResponse, CreateTtlRequest,
    DeleteRequest, SetDataRequest, SetDataResponse, write_create,
};
use super::records::Acl;

/// Sub-operation types (ZooDefs.OpCode), as patterns. CheckVersion (13) is valid only
/// inside a multi, so it is not an [`OpCode`]. 3.8 reads create, create2 and
/// createContainer entries alike, as a create of the mode their flags name.
const CREATE: i32 = 1;
const DELETE: i32 = 2;
const SET_DATA: i32 = 5;
const CHECK: i32 = 13;
const CREATE2: i32 = 15;
const CREATE_CONTAINER: i32 = 19;
const CREATE_TTL: i32 = 21;
/// The type of an error result (ZooDefs.OpCode.error), and of the closing header.
pub(super) const ERROR: i32 = -1;

/// One sub-operation of a multi. Each carries the body of the request of its kind, the same
/// record a plain request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MultiOp {
    /// Type 1, CreateRequest's body: creates a node of its mode, a container too (3.8 sends
    /// that as type 19, and reads types 1, 15 and 19 alike).
    Create(CreateRequest),
    /// Type 21, CreateTTLRequest's body, with a TTL mode (with another mode 3.8 reads it
    /// as a [`MultiOp::Create`]): creates a node with a time to live, which fails the multi
    /// with Unimplemented while the server's extended types are off.
    CreateTtl(CreateTtlRequest),
    /// A create whose flags name no mode: the multi fails at it with BadArguments, as 3.8's
    /// `CreateMode.fromFlag` throws only when the sub-operation's turn comes.
    CreateUnknownMode {
        /// The node's path.
        path: String,
        /// Its data.
        data: Vec<u8>,
        /// Its ACL.
        acl: Vec<Acl>,
        /// The flags as sent.
        flags: i32,
    },
    /// Type 2, DeleteRequest's body: deletes a childless node.
    Delete(DeleteRequest),
    /// Type 5, SetDataRequest's body: replaces a node's data.
    SetData(SetDataRequest),
    /// Type 13, CheckVersionRequest's body: fails unless the node exists and, when its
    /// version is not -1, has that version.
    Check(CheckVersionRequest),
}

impl MultiOp {
    /// Whether it creates a node with a time to live.
    pub fn is_ttl_create(&self) -> bool {
        matches!(self, MultiOp::Create(CreateRequest { mode, .. }) if mode.is_ttl())
    }

    /// A create with the open ACL (what recipes use).
    pub fn create(path: impl Into<String>, data: &[u8], mode: CreateMode) -> Self {
        MultiOp::Create(CreateRequest {
            path: path.into(),
            data: data.to_vec(),
            acl: Acl::open_unsafe(),
            mode,
        })
    }

    /// A delete of `path` at `version` (-1: any).
    pub fn delete(path: impl Into<String>, version: i32) -> Self {
        MultiOp::Delete(DeleteRequest {
            path: path.into(),
            version,
        })
    }

    /// A setData of `path` at `version` (-1: any).
    pub fn set_data(path: impl Into<String>, data: &[u8], version: i32) -> Self {
        MultiOp::SetData(SetDataRequest {
            path: path.into(),
            data: data.to_vec(),
            version,
        })
    }

    /// A check that `path` exists at `version` (-1: at any).
    pub fn check(path: impl Into<String>, version: i32) -> Self {
        MultiOp::Check(CheckVersionRequest {
            path: path.into(),
            version,
        })
    }

    fn code(&self) -> i32 {
        match self {
            MultiOp::Create(_) | MultiOp::CreateUnknownMode { .. } => CREATE,
            MultiOp::CreateTtl(_) => CREATE_TTL,
            MultiOp::Delete(_) => DELETE,
            MultiOp::SetData(_) => SET_DATA,
            MultiOp::Check(_) => CHECK,
        }
    }
}

/// The outcome of one sub-operation, the reply record of its kind. A multi that fails
/// reports an `Error` for every sub-operation: `Ok` for those before the failing one, its
/// error for that one, and RuntimeInconsistency for those after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpResult {
    /// Type 1, CreateResponse: the node was created.
    Create(CreateResponse),
    /// Type 15, Create2Response: a container or a TTL node was created (3.8 answers a plain
    /// create with [`OpResult::Create`], whatever type the request's entry had).
    Create2(Create2Response),
    /// Type 2: the node was deleted.
    Delete,
    /// Type 5, SetDataResponse: the data was set.
    SetData(SetDataResponse),
    /// Type 13: the check passed.
    Check,
    /// Type -1, ErrorResponse: the multi failed; see the enum's doc for which code each
    /// sub-operation gets.
    Error {
        /// This sub-operation's code.
        err: ErrorCode,
    },
}

impl OpResult {
    fn code(&self) -> i32 {
        match self {
            OpResult::Create(_) => CREATE,
            OpResult::Create2(_) => CREATE2,
            OpResult::Delete => DELETE,
            OpResult::SetData(_) => SET_DATA,
            OpResult::Check => CHECK,
            OpResult::Error { .. } => ERROR,
        }
    }

    /// The code a failed multi reports for this sub-operation (None: it succeeded).
    pub fn error(&self) -> Option<ErrorCode> {
        match self {
            OpResult::Error { err } => Some(*err),
            _ => None,
        }
    }
}

/// The error that decides a multi's outcome: None when every sub-operation succeeded, else
/// the first code that is not Ok (the failing sub-operation's).
pub fn multi_error(results: &[OpResult]) -> Option<ErrorCode> {
    results
        .iter()
        .filter_map(OpResult::error)
        .find(|&err| err != ErrorCode::Ok)
}

pub(super) fn write_header(w: &mut Writer, op: i32, done: bool, err: i32) {
    w.int(op);
    w.bool(done);
    w.int(err);
}

/// The type of the next entry, or None at the closing header (whose type and err are not
/// looked at, as in the Java decoders). The header's err is ignored too: an error result
/// carries its code again in its body.
pub(super) fn read_header(r: &mut Reader<'_>) -> Result<Option<i32>, DecodeError> {
    let op = r.int()?;
    let done = r.bool()?;
    r.int()?;
    Ok((!done).then_some(op))
}

pub(super) fn write_ops(w: &mut Writer, ops: &[MultiOp]) {
    for op in ops {
        write_header(w, op.code(), false, -1);
        match op {
            MultiOp::Create(create) => w.record(create),
            MultiOp::CreateUnknownMode {
                path,
                data,
                acl,
                flags,
            } => write_create(w, path, data, acl, *flags),
            MultiOp::CreateTtl(create) => w.record(create),
            MultiOp::Delete(delete) => w.record(delete),
            MultiOp::SetData(set) => w.record(set),
            MultiOp::Check(check) => w.record(check),
        }
    }
    write_header(w, ERROR, true, -1);
}

/// The sub-operations, or `UnknownMultiOp` for an entry of another type (3.8 fails to read
/// the whole multi then: MarshallingError).
pub(super) fn read_ops(r: &mut Reader<'_>) -> Result<Vec<MultiOp>, DecodeError> {
    let mut ops = Vec::new();
    // Every header takes 9 bytes, so the loop ends with the body.
    while let Some(code) = read_header(r)? {
        ops.push(match code {
            CREATE | CREATE2 | CREATE_CONTAINER | CREATE_TTL => read_create(r, code)?,
            DELETE => MultiOp::Delete(r.record()?),
            SET_DATA => MultiOp::SetData(r.record()?),
            CHECK => MultiOp::Check(r.record()?),
            other => return Err(DecodeError::UnknownMultiOp(other)),
        });
    }
    Ok(ops)
}

/// A create entry as `MultiOperationRecord` reads it: `Op.create` picks the kind from the
/// flags, so only a createTTL entry with a TTL mode makes a [`MultiOp::CreateTtl`].
fn read_create(r: &mut Reader<'_>, code: i32) -> Result<MultiOp, DecodeError> {
    let (path, data, acl, flags) = (r.ustring()?, r.buffer()?, r.records()?, r.int()?);
    let ttl_ms = if code == CREATE_TTL {
        Some(r.long()?)
    } else {
        None
    };
    Ok(match (CreateMode::try_from(flags), ttl_ms) {
        (Err(_), _) => MultiOp::CreateUnknownMode {
            path,
            data,
            acl,
            flags,
        },
        (Ok(mode), Some(ttl_ms)) if mode.is_ttl() => MultiOp::CreateTtl(CreateTtlRequest {
            path,
            data,
            acl,
            mode,
            ttl_ms,
        }),
        (Ok(mode), _) => MultiOp::Create(CreateRequest {
            path,
            data,
            acl,
            mode,
        }),
    })
}

pub(super) fn write_results(w: &mut Writer, results: &[OpResult]) {
    for result in results {
        let err = result.error().map_or(0, ErrorCode::code);
        write_header(w, result.code(), false, err);
        match result {
            OpResult::Create(create) => w.record(create),
            OpResult::Create2(create) => w.record(create),
            OpResult::SetData(set) => w.record(set),
            OpResult::Error { err } => w.int(err.code()),
            OpResult::Delete | OpResult::Check => {}
        }
    }
    write_header(w, ERROR, true, -1);
}

pub(super) fn read_results(r: &mut Reader<'_>) -> Result<Vec<OpResult>, DecodeError> {
    let mut results = Vec::new();
    while let Some(code) = read_header(r)? {
        results.push(match code {
            CREATE => OpResult::Create(r.record()?),
            CREATE2 => OpResult::Create2(r.record()?),
            DELETE => OpResult::Delete,
            SET_DATA => OpResult::SetData(r.record()?),
            CHECK => OpResult::Check,
            ERROR => OpResult::Error {
                err: ErrorCode::try_from(r.int()?)?,
            },
            other => return Err(DecodeError::UnknownMultiOp(other)),
        });
    }
    Ok(results)
}
