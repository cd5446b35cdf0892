//! The identity and ACL ops: auth (adds an identity to the connection), whoAmI, getACL and
//! setACL.

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::OpCode;

/// The identity and ACL ops' rows.
pub(super) static OPS: &[OpSpec] = &[
    row(
        OpCode::Auth,
        "auth",
        |r| {
            Ok(Request::Auth {
                kind: r.int()?,
                scheme: r.ustring()?,
                auth: r.buffer()?,
            })
        },
        |req, w| {
            if let Request::Auth { kind, scheme, auth } = req {
                w.int(*kind);
                w.ustring(scheme);
                w.buffer(auth);
            }
        },
        |_| Ok(Response::Auth),
    ),
    row(
        OpCode::WhoAmI,
        "whoami",
        |_| Ok(Request::WhoAmI),
        |_, _| {},
        |r| {
            Ok(Response::WhoAmI {
                clients: r.records()?,
            })
        },
    ),
    row(
        OpCode::GetAcl,
        "get_acl",
        |r| Ok(Request::GetAcl { path: r.ustring()? }),
        |req, w| {
            if let Request::GetAcl { path } = req {
                w.ustring(path);
            }
        },
        |r| {
            Ok(Response::GetAcl {
                acl: r.records()?,
                stat: r.record()?,
            })
        },
    ),
    row(
        OpCode::SetAcl,
        "set_acl",
        |r| {
            Ok(Request::SetAcl {
                path: r.ustring()?,
                acl: r.records()?,
                version: r.int()?,
            })
        },
        |req, w| {
            if let Request::SetAcl { path, acl, version } = req {
                w.ustring(path);
                w.records(acl);
                w.int(*version);
            }
        },
        |r| Ok(Response::SetAcl { stat: r.record()? }),
    ),
];

/// A request of each of the family's ops and the replies they may get, for the codec's
/// tests (`ops::tests`, which checks that every op has both).
#[cfg(test)]
pub(super) fn examples() -> (Vec<Request>, Vec<(OpCode, Response)>) {
    use super::tests::stat;
    use crate::zk::proto::{Acl, ClientInfo};
    let requests = vec![
        Request::GetAcl {
            path: "/lock".into(),
        },
        Request::SetAcl {
            path: "/lock".into(),
            acl: Acl::open_unsafe(),
            version: 2,
        },
        Request::Auth {
            kind: 0,
            scheme: "digest".into(),
            auth: b"u:p".to_vec(),
        },
        Request::WhoAmI,
    ];
    let responses = vec![
        (
            OpCode::GetAcl,
            Response::GetAcl {
                acl: Acl::open_unsafe(),
                stat: stat(),
            },
        ),
        (OpCode::SetAcl, Response::SetAcl { stat: stat() }),
        (OpCode::Auth, Response::Auth),
        (
            OpCode::WhoAmI,
            Response::WhoAmI {
                clients: vec![ClientInfo {
                    auth_scheme: "ip".into(),
                    user: "127.0.0.1".into(),
                }],
            },
        ),
    ];
    (requests, responses)
}
