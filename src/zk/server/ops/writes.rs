//! The writes, applied in zxid order as their txn (`DataTree.createNode` / `deleteNode` /
//! `setData`): create in its four forms, delete, setData, multi and reconfig. Each fails
//! where 3.8's prep stage would, and a failed write still took its zxid.

use super::{NOT_MINE, Reply, Run, Serve, serve};
use crate::zk::proto::{
    Create2Response, CreateMode, CreateRequest, CreateResponse, CreateTtlRequest, DeleteRequest,
    ErrorCode, MultiOp, OpCode, Request, Response, SetDataRequest, SetDataResponse,
};
use crate::zk::server::output::Output;
use crate::zk::server::replica::Replica;
use crate::zk::tree::Txn;

/// The writes' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::Create, Run::Write(create)),
    serve(OpCode::Create2, Run::Write(create)),
    serve(OpCode::CreateContainer, Run::Write(create_container)),
    serve(OpCode::CreateTtl, Run::Write(create_ttl)),
    serve(OpCode::Delete, Run::Write(delete)),
    serve(OpCode::SetData, Run::Write(set_data)),
    serve(OpCode::Multi, Run::Write(multi)),
    serve(
        OpCode::Reconfig,
        Run::Write(|_, _, _, _| Err(ErrorCode::ReconfigDisabled)),
    ),
];

/// create and create2, whose reply carries the Stat too.
fn create(server: &mut Replica, txn: Txn<'_>, req: Request, out: &mut Vec<Output>) -> Reply {
    let (create, stat_reply) = match req {
        Request::Create(create) => (create, false),
        Request::Create2(create) => (create, true),
        _ => return Err(NOT_MINE),
    };
    let CreateRequest {
        path,
        data,
        acl,
        mode,
    } = create;
    server.check_ttl(mode, None)?;
    // Only createContainer and a multi make a container; a create writes a plain node.
    let mode = match mode {
        CreateMode::Container => CreateMode::Persistent,
        mode => mode,
    };
    let created = server.tree.create(&path, data, &acl, mode, txn)?;
    server.created(&created.path, txn, out);
    Ok(if stat_reply {
        Response::Create2(Create2Response {
            path: created.path,
            stat: created.stat,
        })
    } else {
        Response::Create(CreateResponse { path: created.path })
    })
}

fn create_container(
    server: &mut Replica,
    txn: Txn<'_>,
    req: Request,
    out: &mut Vec<Output>,
) -> Reply {
    let Request::CreateContainer(CreateRequest {
        path,
        data,
        acl,
        mode,
    }) = req
    else {
        return Err(NOT_MINE);
    };
    server.check_ttl(mode, None)?;
    let sequential = mode.is_sequential();
    let created = server
        .tree
        .create_container(&path, data, &acl, sequential, txn)?;
    server.created(&created.path, txn, out);
    Ok(Response::Create2(Create2Response {
        path: created.path,
        stat: created.stat,
    }))
}

fn create_ttl(server: &mut Replica, txn: Txn<'_>, req: Request, out: &mut Vec<Output>) -> Reply {
    let Request::CreateTtl(CreateTtlRequest {
        path,
        data,
        acl,
        mode,
        ttl_ms,
    }) = req
    else {
        return Err(NOT_MINE);
    };
    server.check_ttl(mode, Some(ttl_ms))?;
    let sequential = mode.is_sequential();
    let created = server
        .tree
        .create_ttl(&path, data, &acl, sequential, ttl_ms, txn)?;
    server.created(&created.path, txn, out);
    Ok(Response::Create2(Create2Response {
        path: created.path,
        stat: created.stat,
    }))
}

fn delete(server: &mut Replica, txn: Txn<'_>, req: Request, out: &mut Vec<Output>) -> Reply {
    let Request::Delete(DeleteRequest { path, version }) = req else {
        return Err(NOT_MINE);
    };
    server.tree.delete(&path, version, txn)?;
    server.deleted(&path, txn.session, txn.zxid, out);
    Ok(Response::Delete)
}

fn set_data(server: &mut Replica, txn: Txn<'_>, req: Request, out: &mut Vec<Output>) -> Reply {
    let Request::SetData(SetDataRequest {
        path,
        data,
        version,
    }) = req
    else {
        return Err(NOT_MINE);
    };
    let stat = server.tree.set_data(&path, data, version, txn)?;
    server.data_changed(&path, out);
    Ok(Response::SetData(SetDataResponse { stat }))
}

/// A multi (`server::multi`). A TTL create inside one is one 3.8 cannot turn into its
/// request record: the whole multi fails to marshal.
fn multi(server: &mut Replica, txn: Txn<'_>, req: Request, out: &mut Vec<Output>) -> Reply {
    let Request::Multi { ops } = req else {
        return Err(NOT_MINE);
    };
    if ops.iter().any(MultiOp::is_ttl_create) {
        return Err(ErrorCode::MarshallingError);
    }
    Ok(server.multi(txn, ops, out))
}
