//! The session ops: ping (keeps an idle session alive) and closeSession. Neither has a
//! body either way.

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::OpCode;

/// The session ops' rows.
pub(super) static OPS: &[OpSpec] = &[
    row(
        OpCode::Ping,
        "ping",
        |_| Ok(Request::Ping),
        |_, _| {},
        |_| Ok(Response::Ping),
    ),
    row(
        OpCode::CloseSession,
        "close_session",
        |_| Ok(Request::CloseSession),
        |_, _| {},
        |_| Ok(Response::CloseSession),
    ),
];

/// A request of each of the family's ops and the replies they may get, for the codec's
/// tests (`ops::tests`, which checks that every op has both).
#[cfg(test)]
pub(super) fn examples() -> (Vec<Request>, Vec<(OpCode, Response)>) {
    let requests = vec![Request::Ping, Request::CloseSession];
    let responses = vec![
        (OpCode::Ping, Response::Ping),
        (OpCode::CloseSession, Response::CloseSession),
    ];
    (requests, responses)
}
