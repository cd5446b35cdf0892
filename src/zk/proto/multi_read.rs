//! The bodies of multiRead (op 22, ZooKeeper 3.6+): reads laid out as multi's are (see
//! `multi`), each answered on its own (no all-or-nothing), a failed one with an error result.
//! The sub-requests carry a watch flag that 3.8 drops (`Op.getChildren(path)` and
//! `Op.getData(path)` keep the path only), so a multiRead leaves no watch.

use super::codes::ErrorCode;
use super::jute::{DecodeError, Reader, Writer};
use super::multi::{ERROR, read_header, write_header};
use super::records::Stat;

const GET_DATA: i32 = 4;
const GET_CHILDREN: i32 = 8;

/// One read of a multiRead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadOp {
    /// Type 8, GetChildrenRequest's body: the names of a node's children.
    GetChildren {
        /// The node's path.
        path: String,
    },
    /// Type 4, GetDataRequest's body: a node's data and Stat.
    GetData {
        /// The node's path.
        path: String,
    },
}

impl ReadOp {
    fn code(&self) -> i32 {
        match self {
            ReadOp::GetChildren { .. } => GET_CHILDREN,
            ReadOp::GetData { .. } => GET_DATA,
        }
    }
}

/// The outcome of one read of a multiRead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadResult {
    /// Type 8, GetChildrenResponse.
    Children {
        /// The children's names, in no order to rely on.
        children: Vec<String>,
    },
    /// Type 4, GetDataResponse.
    Data {
        /// The node's data.
        data: Vec<u8>,
        /// Its Stat.
        stat: Stat,
    },
    /// Type -1, ErrorResponse: this read failed (NoNode); the others stand.
    Error {
        /// Its code.
        err: ErrorCode,
    },
}

impl ReadResult {
    fn code(&self) -> i32 {
        match self {
            ReadResult::Children { .. } => GET_CHILDREN,
            ReadResult::Data { .. } => GET_DATA,
            ReadResult::Error { .. } => ERROR,
        }
    }
}

pub(super) fn write_ops(w: &mut Writer, ops: &[ReadOp]) {
    for op in ops {
        write_header(w, op.code(), false, -1);
        match op {
            ReadOp::GetChildren { path } | ReadOp::GetData { path } => {
                w.ustring(path);
                w.bool(false);
            }
        }
    }
    write_header(w, ERROR, true, -1);
}

/// The reads, or `UnknownMultiOp` for any other entry (3.8 answers such a multiRead with a
/// marshalling error).
pub(super) fn read_ops(r: &mut Reader<'_>) -> Result<Vec<ReadOp>, DecodeError> {
    let mut ops = Vec::new();
    while let Some(code) = read_header(r)? {
        let path = match code {
            GET_CHILDREN | GET_DATA => r.ustring()?,
            other => return Err(DecodeError::UnknownMultiOp(other)),
        };
        r.bool()?;
        ops.push(match code {
            GET_CHILDREN => ReadOp::GetChildren { path },
            _ => ReadOp::GetData { path },
        });
    }
    Ok(ops)
}

pub(super) fn write_results(w: &mut Writer, results: &[ReadResult]) {
    for result in results {
        let err = match result {
            ReadResult::Error { err } => err.code(),
            _ => 0,
        };
        write_header(w, result.code(), false, err);
        match result {
            ReadResult::Children { children } => w.strings(children),
            ReadResult::Data { data, stat } => {
                w.buffer(data);
                w.record(stat);
            }
            ReadResult::Error { err } => w.int(err.code()),
        }
    }
    write_header(w, ERROR, true, -1);
}

pub(super) fn read_results(r: &mut Reader<'_>) -> Result<Vec<ReadResult>, DecodeError> {
    let mut results = Vec::new();
    while let Some(code) = read_header(r)? {
        results.push(match code {
            GET_CHILDREN => ReadResult::Children {
                children: r.strings()?,
            },
            GET_DATA => ReadResult::Data {
                data: r.buffer()?,
                stat: r.record()?,
            },
            ERROR => ReadResult::Error {
                err: ErrorCode::try_from(r.int()?)?,
            },
            other => return Err(DecodeError::UnknownMultiOp(other)),
        });
    }
    Ok(results)
}
