//! The identity and ACL ops: auth and sasl (answered at once, as 3.8 answers them), whoAmI,
//! getACL, and setACL, a write that fires no watch.

use std::rc::Rc;

use super::{Asker, NOT_MINE, Reply, Run, Serve, serve};
use crate::zk::acl;
use crate::zk::proto::{ClientInfo, ErrorCode, OpCode, Request, Response};
use crate::zk::server::ids::ConnId;
use crate::zk::server::output::Output;
use crate::zk::server::replica::Replica;

/// The identity and ACL ops' rows.
pub(super) static OPS: &[Serve] = &[
    serve(OpCode::Auth, Run::AtOnce(auth)),
    serve(OpCode::Sasl, Run::AtOnce(sasl)),
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
fn auth(server: &mut Replica, conn: ConnId, xid: i32, req: Request) -> Vec<Output> {
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

/// A SASL token, answered as 3.8 without SASL answers one (`processSasl` with no SASL
/// server): at once, Ok with zxid 0 and a null token, no identity added, the session
/// untouched.
fn sasl(_: &mut Replica, conn: ConnId, xid: i32, _: Request) -> Vec<Output> {
    vec![Output::Reply {
        conn,
        xid,
        zxid: 0,
        err: ErrorCode::Ok,
        body: Some(Response::Sasl { token: Vec::new() }),
    }]
}

fn who_am_i(_: &mut Replica, asker: &Asker<'_>, _: Request, _: &mut Vec<Output>) -> Reply {
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

#[cfg(test)]
mod tests {
    use crate::zk::proto::{ErrorCode, Request, Response};
    use crate::zk::server::Output;
    use crate::zk::server::test_support::{A, at, send, two_clients};

    /// Answered with zxid 0 whatever the last txn, adding no identity.
    #[test]
    fn sasl_is_answered_at_once_with_a_null_token() {
        let mut s = two_clients();
        let who = send(&mut s, at(3), A, Request::WhoAmI);
        let token = b"n,,n=u,r=nonce".to_vec();
        let out = s.handle_request(at(4), A, 7, Request::Sasl { token });
        let sasl = Response::Sasl { token: vec![] };
        assert_eq!(
            out,
            [Output::Reply {
                conn: A,
                xid: 7,
                zxid: 0,
                err: ErrorCode::Ok,
                body: Some(sasl),
            }]
        );
        assert_eq!(send(&mut s, at(5), A, Request::WhoAmI), who);
    }
}
