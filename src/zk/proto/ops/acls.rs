//! The identity and ACL ops: auth (adds an identity to the connection), sasl, whoAmI, getACL
//! and setACL.

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::OpCode;
use crate::zk::proto::jute::Writer;

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
        OpCode::Sasl,
        "sasl",
        |r| Ok(Request::Sasl { token: r.buffer()? }),
        |req, w| {
            if let Request::Sasl { token } = req {
                w.buffer(token);
            }
        },
        |r| Ok(Response::Sasl { token: r.buffer()? }),
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

/// SetSASLResponse's token: an empty one is written null (-1), as a server without SASL
/// sends its `null` (a SASL server's tokens are never empty).
pub(super) fn write_token(w: &mut Writer, token: &[u8]) {
    match token {
        [] => w.int(-1),
        token => w.buffer(token),
    }
}

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
        Request::Sasl {
            token: b"n,,n=user,r=nonce".to_vec(),
        },
    ];
    let responses = vec![
        (OpCode::Sasl, Response::Sasl { token: vec![] }),
        (
            OpCode::Sasl,
            Response::Sasl {
                token: b"r=nonce,s=salt,i=4096".to_vec(),
            },
        ),
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

#[cfg(test)]
mod tests {
    use crate::zk::proto::{ErrorCode, ReplyHeader, Response, encode_reply};

    /// 3.8 without SASL answers `SetSASLResponse(null)`: the token's length is -1.
    #[test]
    fn a_server_without_sasl_sends_a_null_token() {
        let header = ReplyHeader {
            xid: 5,
            zxid: 0,
            err: ErrorCode::Ok,
        };
        let packet = encode_reply(&header, Some(&Response::Sasl { token: vec![] }));
        assert_eq!(packet[20..], [0xff; 4]);
    }
}
