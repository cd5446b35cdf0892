//! ZooKeeper recipes, and what they share: a simulated host's session with `zk1`, and
//! which errors leave a request's outcome unknown.

pub mod barrier;
pub mod double_barrier;
pub mod election;
pub mod lock;
pub mod queue;
pub mod rwlock;

use crate::sim::node::Node;
use crate::zk::PORT;
use crate::zk::client::{ConnectFuture, ZkClient, ZkConfig, ZkError};
use crate::zk::proto::ErrorCode;
use turmoil::net::TcpStream;

/// Opens a session with `zk1` from simulated host `node`, whose tasks run its driver.
pub async fn open_session(node: &Node, config: &ZkConfig) -> Result<ZkClient, ZkError> {
    let connector = || -> ConnectFuture<TcpStream> { Box::pin(TcpStream::connect(("zk1", PORT))) };
    let (client, driver) = ZkClient::connect(connector, config.clone()).await?;
    node.spawn(driver.run());
    Ok(client)
}

/// Errors after which the session may still be alive and the request may or may not have
/// been applied.
pub fn is_transient(e: &ZkError) -> bool {
    matches!(
        e,
        ZkError::ConnectionLoss
            | ZkError::Io(_)
            | ZkError::Protocol(_)
            | ZkError::Server(ErrorCode::ConnectionLoss | ErrorCode::OperationTimeout)
    )
}
