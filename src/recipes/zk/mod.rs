//! ZooKeeper recipes, and what they share: a simulated host's session with `zk1`, and
//! which errors leave a request's outcome unknown.

pub mod barrier;
pub mod double_barrier;
pub mod election;
pub mod kit;
pub mod lock;
pub mod queue;
pub mod rwlock;

use crate::sim::node::Node;
use crate::zk::PORT;
use crate::zk::client::{ConnectFuture, ZkClient, ZkConfig, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode};
use turmoil::net::TcpStream;

/// Pause before a request is tried again after ConnectionLoss, so a disconnected client
/// waits for its reconnect instead of spinning.
pub const RETRY_MS: u64 = 5;

/// Runs `op` again after a pause for as long as its outcome is unknown (ConnectionLoss): a
/// read, or a delete, which forgetting would orphan the node (Z7).
pub async fn retrying<T>(
    client: &ZkClient,
    mut op: impl AsyncFnMut() -> Result<T, ZkError>,
) -> Result<T, ZkError> {
    loop {
        match op().await {
            Err(e) if is_transient(&e) => client.timer().sleep(RETRY_MS).await,
            result => return result,
        }
    }
}

/// Creates `path` (and its missing parents) as persistent nodes; an existing one will do.
pub async fn ensure_path(client: &ZkClient, path: &str) -> Result<(), ZkError> {
    let mut prefix = String::new();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        prefix = format!("{prefix}/{part}");
        match retrying(client, async || {
            client.create(&prefix, b"", CreateMode::Persistent).await
        })
        .await
        {
            Ok(_) | Err(ZkError::Server(ErrorCode::NodeExists)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

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
