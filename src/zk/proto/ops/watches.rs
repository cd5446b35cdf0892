//! The watch ops: setWatches and setWatches2 (a reconnected client's watches registered
//! again), addWatch (persistent watches), checkWatches and removeWatches.

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::{AddWatchMode, OpCode, WatcherType};

/// The watch ops' rows.
pub(super) static OPS: &[OpSpec] = &[
    row(
        OpCode::SetWatches,
        "set_watches",
        |r| {
            Ok(Request::SetWatches {
                relative_zxid: r.long()?,
                data: r.strings()?,
                exist: r.strings()?,
                child: r.strings()?,
            })
        },
        |req, w| {
            if let Request::SetWatches {
                relative_zxid,
                data,
                exist,
                child,
            } = req
            {
                w.long(*relative_zxid);
                w.strings(data);
                w.strings(exist);
                w.strings(child);
            }
        },
        |_| Ok(Response::SetWatches),
    ),
    row(
        OpCode::SetWatches2,
        "set_watches",
        |r| {
            Ok(Request::SetWatches2 {
                relative_zxid: r.long()?,
                data: r.strings()?,
                exist: r.strings()?,
                child: r.strings()?,
                persistent: r.strings()?,
                persistent_recursive: r.strings()?,
            })
        },
        |req, w| {
            if let Request::SetWatches2 {
                relative_zxid,
                data,
                exist,
                child,
                persistent,
                persistent_recursive,
            } = req
            {
                w.long(*relative_zxid);
                w.strings(data);
                w.strings(exist);
                w.strings(child);
                w.strings(persistent);
                w.strings(persistent_recursive);
            }
        },
        |_| Ok(Response::SetWatches2),
    ),
    row(
        OpCode::AddWatch,
        "add_watch",
        |r| {
            Ok(Request::AddWatch {
                path: r.ustring()?,
                mode: AddWatchMode::try_from(r.int()?)?,
            })
        },
        |req, w| {
            if let Request::AddWatch { path, mode } = req {
                w.ustring(path);
                w.int(mode.code());
            }
        },
        // An ErrorResponse whose code is always 0.
        |r| {
            r.int()?;
            Ok(Response::AddWatch)
        },
    ),
    row(
        OpCode::CheckWatches,
        "check_watches",
        |r| {
            Ok(Request::CheckWatches {
                path: r.ustring()?,
                kind: WatcherType::try_from(r.int()?)?,
            })
        },
        |req, w| {
            if let Request::CheckWatches { path, kind } = req {
                w.ustring(path);
                w.int(kind.code());
            }
        },
        |_| Ok(Response::CheckWatches),
    ),
    row(
        OpCode::RemoveWatches,
        "remove_watches",
        |r| {
            Ok(Request::RemoveWatches {
                path: r.ustring()?,
                kind: WatcherType::try_from(r.int()?)?,
            })
        },
        |req, w| {
            if let Request::RemoveWatches { path, kind } = req {
                w.ustring(path);
                w.int(kind.code());
            }
        },
        |_| Ok(Response::RemoveWatches),
    ),
];

/// A request of each of the family's ops and the replies they may get, for the codec's
/// tests (`ops::tests`, which checks that every op has both).
#[cfg(test)]
pub(super) fn examples() -> (Vec<Request>, Vec<(OpCode, Response)>) {
    use crate::zk::proto::{AddWatchMode, WatcherType};
    let requests = vec![
        Request::SetWatches {
            relative_zxid: 0x2_0000_0003,
            data: vec!["/a".into(), "/b".into()],
            exist: vec!["/c".into()],
            child: vec![],
        },
        Request::SetWatches2 {
            relative_zxid: 9,
            data: vec!["/a".into()],
            exist: vec![],
            child: vec!["/b".into()],
            persistent: vec!["/c".into()],
            persistent_recursive: vec!["/d".into()],
        },
        Request::CheckWatches {
            path: "/lock".into(),
            kind: WatcherType::Any,
        },
        Request::RemoveWatches {
            path: "/lock/n-1".into(),
            kind: WatcherType::Data,
        },
        Request::AddWatch {
            path: "/lock".into(),
            mode: AddWatchMode::PersistentRecursive,
        },
    ];
    let responses = vec![
        (OpCode::AddWatch, Response::AddWatch),
        (OpCode::CheckWatches, Response::CheckWatches),
        (OpCode::SetWatches2, Response::SetWatches2),
        (OpCode::RemoveWatches, Response::RemoveWatches),
        (OpCode::SetWatches, Response::SetWatches),
    ];
    (requests, responses)
}
