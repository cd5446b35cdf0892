//! The identity and ACL ops: auth (answered at once, as 3.8 answers it), whoAmI, getACL, and
//! setACL, a write that fires no watch.

use std::rc::Rc;

use super::{Asker, NOT_MINE, Reply, Run, Serve, serve};
use crate::zk::acl;
use crate::zk::proto::{ClientInfo, ErrorCode, OpCode, Request, Response};
use crate::zk::server::{ConnId, Output, Server};

/// The identity and ACL ops' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::Auth, Run::AtOnce(auth)),
    serve(OpCode::WhoAmI, Run::Read(who_am_i)),
    serve(
        OpCode::GetAcl,
        Run::Read(|server, asker, req, _| {
            let Request::GetAcl { path } = req else {
                return Err(NOT_MINE);
            };
            let (acl, stat) = server.tree.get_acl(&path, asker.who)?;
            Ok(Response::GetAcl { acl, stat })
        }),
    ),
    serve(
        OpCode::SetAcl,
        Run::Write(|server, txn, req, _| {
            let Request::SetAcl { path, acl, version } = req else {
                return Err(NOT_MINE);
            };
            let stat = server.tree.set_acl(&path, &acl, version, txn.who)?;
            Ok(Response::SetAcl { stat })
        }),
    ),
];

/// An auth packet, answered at once with zxid 0 and without touching the session, as 3.8
/// answers it: Ok, the identity added; AuthFailed for a scheme with no provider, and the
/// connection closed.
fn auth(server: &mut Server, conn: ConnId, xid: i32, req: Request) -> Vec<Output> {
    let reply = |err| Output::Reply {
        conn,
        xid,
        zxid: 0,
        err,
        body: None,
    };
    let Request::Auth { scheme, auth, .. } = req else {
        return vec![reply(NOT_MINE)];
    };
    let Some(added) = acl::authenticate(&scheme, &auth) else {
        server.detach(conn);
        return vec![reply(ErrorCode::AuthFailed), Output::Close { conn }];
    };
    let ids = Rc::make_mut(server.identities.entry(conn).or_default());
    for id in added {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    vec![reply(ErrorCode::Ok)]
}

fn who_am_i(_: &mut Server, asker: &Asker<'_>, _: Request, _: &mut Vec<Output>) -> Reply {
    let clients = asker
        .who
        .iter()
        .map(|id| ClientInfo {
            auth_scheme: id.scheme.clone(),
            user: id.user().to_string(),
        })
        .collect();
    Ok(Response::WhoAmI { clients })
}
