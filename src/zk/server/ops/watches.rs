//! The watch ops: setWatches and setWatches2 (`DataTree.setWatches`: a reconnected client's
//! watches, those it missed fired at once), addWatch, checkWatches and removeWatches. All of
//! them act on this server's watch tables only, so they are reads.

use super::{Asker, NOT_MINE, Reply, Run, Serve, serve};
use crate::zk::proto::{AddWatchMode, ErrorCode, EventType, OpCode, Request, Response};
use crate::zk::server::ids::ConnId;
use crate::zk::server::output::Output;
use crate::zk::server::replica::Replica;
use crate::zk::server::requests::notify_one;
use crate::zk::watch::Mode;

/// The watch ops' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::SetWatches, Run::Read(set_watches)),
    serve(OpCode::SetWatches2, Run::Read(set_watches2)),
    serve(OpCode::AddWatch, Run::Read(add_watch)),
    serve(OpCode::CheckWatches, Run::Read(check_watches)),
    serve(OpCode::RemoveWatches, Run::Read(remove_watches)),
];

fn set_watches(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    out: &mut Vec<Output>,
) -> Reply {
    let Request::SetWatches {
        relative_zxid,
        data,
        exist,
        child,
    } = req
    else {
        return Err(NOT_MINE);
    };
    let paths = [data.as_slice(), exist.as_slice(), child.as_slice()];
    rearm(server, asker.conn, relative_zxid, paths, out);
    Ok(Response::SetWatches)
}

/// The persistent watches come back as they were, with no missed event fired.
fn set_watches2(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    out: &mut Vec<Output>,
) -> Reply {
    let Request::SetWatches2 {
        relative_zxid,
        data,
        exist,
        child,
        persistent,
        persistent_recursive,
    } = req
    else {
        return Err(NOT_MINE);
    };
    let paths = [data.as_slice(), exist.as_slice(), child.as_slice()];
    rearm(server, asker.conn, relative_zxid, paths, out);
    for (paths, mode) in [
        (persistent, Mode::Persistent),
        (persistent_recursive, Mode::Recursive),
    ] {
        for path in paths {
            server.watches.add_persistent(&path, asker.conn, mode);
        }
    }
    Ok(Response::SetWatches2)
}

/// No check of the path or of an ACL, as in 3.8.0.
fn add_watch(server: &mut Replica, asker: &Asker<'_>, req: Request, _: &mut Vec<Output>) -> Reply {
    let Request::AddWatch { path, mode } = req else {
        return Err(NOT_MINE);
    };
    let mode = match mode {
        AddWatchMode::Persistent => Mode::Persistent,
        AddWatchMode::PersistentRecursive => Mode::Recursive,
    };
    server.watches.add_persistent(&path, asker.conn, mode);
    Ok(Response::AddWatch)
}

fn check_watches(server: &mut Replica, _: &Asker<'_>, req: Request, _: &mut Vec<Output>) -> Reply {
    let Request::CheckWatches { path, kind } = req else {
        return Err(NOT_MINE);
    };
    match server.watches.any_on(&path, kind) {
        true => Ok(Response::CheckWatches),
        false => Err(ErrorCode::NoWatcher),
    }
}

fn remove_watches(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    _: &mut Vec<Output>,
) -> Reply {
    let Request::RemoveWatches { path, kind } = req else {
        return Err(NOT_MINE);
    };
    match server.watches.remove(&path, asker.conn, kind) {
        true => Ok(Response::RemoveWatches),
        false => Err(ErrorCode::NoWatcher),
    }
}

/// `DataTree.setWatches`: fires at once what the client missed since `relative_zxid` and
/// re-arms the rest, for the paths of its data, exist and child watches.
fn rearm(
    server: &mut Replica,
    conn: ConnId,
    relative_zxid: i64,
    [data, exist, child]: [&[String]; 3],
    out: &mut Vec<Output>,
) {
    for path in data {
        match server.tree.stat(path) {
            None => notify_one(out, conn, EventType::NodeDeleted, path),
            Some(s) if s.mzxid > relative_zxid => {
                notify_one(out, conn, EventType::NodeDataChanged, path)
            }
            Some(_) => server.watches.add_data(path, conn),
        }
    }
    for path in exist {
        match server.tree.stat(path) {
            Some(_) => notify_one(out, conn, EventType::NodeCreated, path),
            None => server.watches.add_data(path, conn),
        }
    }
    for path in child {
        match server.tree.stat(path) {
            None => notify_one(out, conn, EventType::NodeDeleted, path),
            Some(s) if s.pzxid > relative_zxid => {
                notify_one(out, conn, EventType::NodeChildrenChanged, path)
            }
            Some(_) => server.watches.add_child(path, conn),
        }
    }
}
