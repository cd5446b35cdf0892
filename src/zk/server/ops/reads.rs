//! The reads (FinalRequestProcessor): answered from the tree this server has applied, a
//! watch left where the request asks for one.

use super::{Asker, NOT_MINE, Reply, Run, Serve, serve};
use crate::zk::acl::{self, AuthId};
use crate::zk::proto::{ErrorCode, OpCode, ReadOp, ReadResult, Request, Response};
use crate::zk::server::output::Output;
use crate::zk::server::replica::Replica;

/// The reads' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::Exists, Run::Read(exists)),
    serve(OpCode::GetData, Run::Read(get_data)),
    serve(OpCode::GetChildren, Run::Read(get_children)),
    serve(OpCode::GetChildren2, Run::Read(get_children)),
    serve(OpCode::GetAllChildrenNumber, Run::Read(all_children_number)),
    serve(OpCode::GetEphemerals, Run::Read(get_ephemerals)),
    serve(OpCode::MultiRead, Run::Read(multi_read)),
    // A single server is always up to date: sync only keeps its place in the session's
    // order, which handling requests one by one already gives. An ensemble member orders it
    // through its leader before it gets here.
    serve(
        OpCode::Sync,
        Run::Read(|_, _, req, _| match req {
            Request::Sync { path } => Ok(Response::Sync { path }),
            _ => Err(NOT_MINE),
        }),
    ),
];

fn exists(server: &mut Replica, asker: &Asker<'_>, req: Request, _: &mut Vec<Output>) -> Reply {
    let Request::Exists { path, watch } = req else {
        return Err(NOT_MINE);
    };
    if path.contains('\0') {
        return Err(ErrorCode::BadArguments);
    }
    // exists leaves a watch even on a missing node: it fires NodeCreated later.
    if watch {
        server.watches.add_data(&path, asker.conn);
    }
    let stat = server.tree.stat(&path).ok_or(ErrorCode::NoNode)?;
    Ok(Response::Exists { stat })
}

fn get_data(server: &mut Replica, asker: &Asker<'_>, req: Request, _: &mut Vec<Output>) -> Reply {
    let Request::GetData { path, watch } = req else {
        return Err(NOT_MINE);
    };
    let (data, stat) = server.tree.data(&path).ok_or(ErrorCode::NoNode)?;
    server.tree.permits(&path, acl::READ, asker.who)?;
    if watch {
        server.watches.add_data(&path, asker.conn);
    }
    Ok(Response::GetData { data, stat })
}

/// getChildren and getChildren2, which only adds the parent's Stat to the reply.
fn get_children(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    _: &mut Vec<Output>,
) -> Reply {
    let (path, watch, stat_reply) = match req {
        Request::GetChildren { path, watch } => (path, watch, false),
        Request::GetChildren2 { path, watch } => (path, watch, true),
        _ => return Err(NOT_MINE),
    };
    let (children, stat) = server.tree.children(&path).ok_or(ErrorCode::NoNode)?;
    server.tree.permits(&path, acl::READ, asker.who)?;
    if watch {
        server.watches.add_child(&path, asker.conn);
    }
    Ok(if stat_reply {
        Response::GetChildren2 { children, stat }
    } else {
        Response::GetChildren { children }
    })
}

fn all_children_number(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    _: &mut Vec<Output>,
) -> Reply {
    let Request::GetAllChildrenNumber { path } = req else {
        return Err(NOT_MINE);
    };
    let total = server.tree.descendants(&path).ok_or(ErrorCode::NoNode)?;
    server.tree.permits(&path, acl::READ, asker.who)?;
    Ok(Response::GetAllChildrenNumber {
        total: i32::try_from(total).unwrap_or(i32::MAX),
    })
}

fn get_ephemerals(
    server: &mut Replica,
    asker: &Asker<'_>,
    req: Request,
    _: &mut Vec<Output>,
) -> Reply {
    let Request::GetEphemerals { prefix } = req else {
        return Err(NOT_MINE);
    };
    // As 3.8: a blank or "/" prefix (trimmed) means all; any other is matched as is.
    let all = matches!(prefix.trim(), "" | "/");
    let prefix = if all { "" } else { prefix.as_str() };
    let paths = server.tree.ephemerals(asker.session, prefix);
    Ok(Response::GetEphemerals { paths })
}

fn multi_read(server: &mut Replica, asker: &Asker<'_>, req: Request, _: &mut Vec<Output>) -> Reply {
    let Request::MultiRead { ops } = req else {
        return Err(NOT_MINE);
    };
    let results = ops
        .into_iter()
        .map(|op| read_op(server, op, asker.who))
        .collect();
    Ok(Response::MultiRead { results })
}

/// One read of a multiRead, which leaves no watch.
fn read_op(server: &Replica, op: ReadOp, who: &[AuthId]) -> ReadResult {
    let path = match &op {
        ReadOp::GetChildren { path } | ReadOp::GetData { path } => path,
    };
    if let Err(err) = server.tree.permits(path, acl::READ, who) {
        return ReadResult::Error { err };
    }
    let found = match op {
        ReadOp::GetChildren { path } => server
            .tree
            .children(&path)
            .map(|(children, _)| ReadResult::Children { children }),
        ReadOp::GetData { path } => server
            .tree
            .data(&path)
            .map(|(data, stat)| ReadResult::Data { data, stat }),
    };
    found.unwrap_or(ReadResult::Error {
        err: ErrorCode::NoNode,
    })
}
