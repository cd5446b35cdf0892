//! The reads: exists, getData, getChildren and getChildren2, getAllChildrenNumber,
//! getEphemerals, multiRead, and sync (answered once the server has caught up).

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::OpCode;
use crate::zk::proto::multi_read;

/// The reads' rows.
pub(super) static OPS: &[OpSpec] = &[
    row(
        OpCode::Exists,
        "exists",
        |r| {
            Ok(Request::Exists {
                path: r.ustring()?,
                watch: r.bool()?,
            })
        },
        |req, w| {
            if let Request::Exists { path, watch } = req {
                w.ustring(path);
                w.bool(*watch);
            }
        },
        |r| Ok(Response::Exists { stat: r.record()? }),
    ),
    row(
        OpCode::GetData,
        "get_data",
        |r| {
            Ok(Request::GetData {
                path: r.ustring()?,
                watch: r.bool()?,
            })
        },
        |req, w| {
            if let Request::GetData { path, watch } = req {
                w.ustring(path);
                w.bool(*watch);
            }
        },
        |r| {
            Ok(Response::GetData {
                data: r.buffer()?,
                stat: r.record()?,
            })
        },
    ),
    row(
        OpCode::GetChildren,
        "get_children",
        |r| {
            Ok(Request::GetChildren {
                path: r.ustring()?,
                watch: r.bool()?,
            })
        },
        |req, w| {
            if let Request::GetChildren { path, watch } = req {
                w.ustring(path);
                w.bool(*watch);
            }
        },
        |r| {
            Ok(Response::GetChildren {
                children: r.strings()?,
            })
        },
    ),
    row(
        OpCode::GetChildren2,
        "get_children",
        |r| {
            Ok(Request::GetChildren2 {
                path: r.ustring()?,
                watch: r.bool()?,
            })
        },
        |req, w| {
            if let Request::GetChildren2 { path, watch } = req {
                w.ustring(path);
                w.bool(*watch);
            }
        },
        |r| {
            Ok(Response::GetChildren2 {
                children: r.strings()?,
                stat: r.record()?,
            })
        },
    ),
    row(
        OpCode::GetAllChildrenNumber,
        "get_all_children_number",
        |r| Ok(Request::GetAllChildrenNumber { path: r.ustring()? }),
        |req, w| {
            if let Request::GetAllChildrenNumber { path } = req {
                w.ustring(path);
            }
        },
        |r| Ok(Response::GetAllChildrenNumber { total: r.int()? }),
    ),
    row(
        OpCode::GetEphemerals,
        "get_ephemerals",
        |r| {
            Ok(Request::GetEphemerals {
                prefix: r.ustring()?,
            })
        },
        |req, w| {
            if let Request::GetEphemerals { prefix } = req {
                w.ustring(prefix);
            }
        },
        |r| {
            Ok(Response::GetEphemerals {
                paths: r.strings()?,
            })
        },
    ),
    row(
        OpCode::MultiRead,
        "multi_read",
        |r| {
            let ops = multi_read::read_ops(r)?;
            Ok(Request::MultiRead { ops })
        },
        |req, w| {
            if let Request::MultiRead { ops } = req {
                multi_read::write_ops(w, ops);
            }
        },
        |r| {
            let results = multi_read::read_results(r)?;
            Ok(Response::MultiRead { results })
        },
    ),
    row(
        OpCode::Sync,
        "sync",
        |r| Ok(Request::Sync { path: r.ustring()? }),
        |req, w| {
            if let Request::Sync { path } = req {
                w.ustring(path);
            }
        },
        |r| Ok(Response::Sync { path: r.ustring()? }),
    ),
];

/// A request of each of the family's ops and the replies they may get, for the codec's
/// tests (`ops::tests`, which checks that every op has both).
#[cfg(test)]
pub(super) fn examples() -> (Vec<Request>, Vec<(OpCode, Response)>) {
    use super::tests::stat;
    use crate::zk::proto::{ErrorCode, ReadOp, ReadResult};
    let requests = vec![
        Request::Exists {
            path: "/lock".into(),
            watch: true,
        },
        Request::GetData {
            path: "/lock".into(),
            watch: false,
        },
        Request::Sync {
            path: "/queue/locks".into(),
        },
        Request::GetEphemerals {
            prefix: "/lock".into(),
        },
        Request::GetAllChildrenNumber {
            path: "/lock".into(),
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
        Request::GetChildren {
            path: "/".into(),
            watch: true,
        },
        Request::GetChildren2 {
            path: "/".into(),
            watch: true,
        },
    ];
    let responses = vec![
        (OpCode::Exists, Response::Exists { stat: stat() }),
        (
            OpCode::GetData,
            Response::GetData {
                data: b"hi".to_vec(),
                stat: stat(),
            },
        ),
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
    ];
    (requests, responses)
}
