//! The bodies of multi (op 14), as ZooKeeper 3.8's `MultiOperationRecord` and
//! `MultiResponse` lay them out: each sub-operation or result behind a MultiHeader
//! {int type, boolean done, int err}, the list ended by the header {-1, true, -1}. Requests
//! carry err -1 in every header; results carry 0, or the error code of an error result
//! (type -1), whose body is ErrorResponse {int err}.

#[cfg(doc)]
use super::codes::OpCode;
use super::codes::{CreateMode, ErrorCode};
use super::jute::{DecodeError, Reader, Writer};
use super::records::{Acl, Stat};

/// Sub-operation types (ZooDefs.OpCode), as patterns. CheckVersion (13) is valid only
/// inside a multi, so it is not an [`OpCode`].
const CREATE: i32 = 1;
const DELETE: i32 = 2;
const SET_DATA: i32 = 5;
const CHECK: i32 = 13;
/// The type of an error result (ZooDefs.OpCode.error), and of the closing header.
pub(super) const ERROR: i32 = -1;

/// One sub-operation of a multi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MultiOp {
    /// Type 1, CreateRequest's body: creates a node.
    Create {
        /// The node's path (a sequential node's prefix).
        path: String,
        /// Its data.
        data: Vec<u8>,
        /// Its ACL.
        acl: Vec<Acl>,
        /// Its kind.
        mode: CreateMode,
    },
    /// Type 2, DeleteRequest's body: deletes a childless node.
    Delete {
        /// The node's path.
        path: String,
        /// The version it must be at; -1 for any.
        version: i32,
    },
    /// Type 5, SetDataRequest's body: replaces a node's data.
    SetData {
        /// The node's path.
        path: String,
        /// Its new data.
        data: Vec<u8>,
        /// The version it must be at; -1 for any.
        version: i32,
    },
    /// Type 13, CheckVersionRequest's body: fails unless the node exists and, when
    /// `version` is not -1, has that version.
    Check {
        /// The node's path.
        path: String,
        /// The version it must be at; -1 for any.
        version: i32,
    },
}

impl MultiOp {
    /// Whether it creates a node with a time to live.
    pub fn is_ttl_create(&self) -> bool {
        matches!(self, MultiOp::Create { mode, .. } if mode.is_ttl())
    }

    /// Whether it creates a container (3.8 does, inside a multi; the simulated server does not
    /// serve containers yet).
    pub fn is_container_create(&self) -> bool {
        matches!(
            self,
            MultiOp::Create {
                mode: CreateMode::Container,
                ..
            }
        )
    }

    /// A create with the open ACL (what recipes use).
    pub fn create(path: impl Into<String>, data: &[u8], mode: CreateMode) -> Self {
        MultiOp::Create {
            path: path.into(),
            data: data.to_vec(),
            acl: Acl::open_unsafe(),
            mode,
        }
    }

    /// A delete of `path` at `version` (-1: any).
    pub fn delete(path: impl Into<String>, version: i32) -> Self {
        MultiOp::Delete {
            path: path.into(),
            version,
        }
    }

    /// A setData of `path` at `version` (-1: any).
    pub fn set_data(path: impl Into<String>, data: &[u8], version: i32) -> Self {
        MultiOp::SetData {
            path: path.into(),
            data: data.to_vec(),
            version,
        }
    }

    /// A check that `path` exists at `version` (-1: at any).
    pub fn check(path: impl Into<String>, version: i32) -> Self {
        MultiOp::Check {
            path: path.into(),
            version,
        }
    }

    fn code(&self) -> i32 {
        match self {
            MultiOp::Create { .. } => CREATE,
            MultiOp::Delete { .. } => DELETE,
            MultiOp::SetData { .. } => SET_DATA,
            MultiOp::Check { .. } => CHECK,
        }
    }
}

/// The outcome of one sub-operation. A multi that fails reports an `Error` for every
/// sub-operation: `Ok` for those before the failing one, its error for that one, and
/// RuntimeInconsistency for those after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpResult {
    /// Type 1, CreateResponse: the node was created.
    Create {
        /// Its path, with any sequence suffix.
        path: String,
    },
    /// Type 2: the node was deleted.
    Delete,
    /// Type 5, SetDataResponse: the data was set.
    SetData {
        /// The node's Stat after the write.
        stat: Stat,
    },
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
            OpResult::Create { .. } => CREATE,
            OpResult::Delete => DELETE,
            OpResult::SetData { .. } => SET_DATA,
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
            MultiOp::Create {
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
            MultiOp::Delete { path, version } | MultiOp::Check { path, version } => {
                w.ustring(path);
                w.int(*version);
            }
            MultiOp::SetData {
                path,
                data,
                version,
            } => {
                w.ustring(path);
                w.buffer(data);
                w.int(*version);
            }
        }
    }
    write_header(w, ERROR, true, -1);
}

pub(super) fn read_ops(r: &mut Reader<'_>) -> Result<Vec<MultiOp>, DecodeError> {
    let mut ops = Vec::new();
    // Every header takes 9 bytes, so the loop ends with the body.
    while let Some(code) = read_header(r)? {
        ops.push(match code {
            CREATE => MultiOp::Create {
                path: r.ustring()?,
                data: r.buffer()?,
                acl: r.records()?,
                mode: CreateMode::try_from(r.int()?)?,
            },
            DELETE => MultiOp::Delete {
                path: r.ustring()?,
                version: r.int()?,
            },
            SET_DATA => MultiOp::SetData {
                path: r.ustring()?,
                data: r.buffer()?,
                version: r.int()?,
            },
            CHECK => MultiOp::Check {
                path: r.ustring()?,
                version: r.int()?,
            },
            other => return Err(DecodeError::UnknownMultiOp(other)),
        });
    }
    Ok(ops)
}

pub(super) fn write_results(w: &mut Writer, results: &[OpResult]) {
    for result in results {
        let err = result.error().map_or(0, ErrorCode::code);
        write_header(w, result.code(), false, err);
        match result {
            OpResult::Create { path } => w.ustring(path),
            OpResult::SetData { stat } => w.record(stat),
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
            CREATE => OpResult::Create { path: r.ustring()? },
            DELETE => OpResult::Delete,
            SET_DATA => OpResult::SetData { stat: r.record()? },
            CHECK => OpResult::Check,
            ERROR => OpResult::Error {
                err: ErrorCode::try_from(r.int()?)?,
            },
            other => return Err(DecodeError::UnknownMultiOp(other)),
        });
    }
    Ok(results)
}
