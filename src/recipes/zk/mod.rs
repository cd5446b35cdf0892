//! ZooKeeper recipes, and what they share: the simulated host's glue (`host`), the kit a
//! recipe of one's own is built from (`kit`), and which errors leave a request's outcome
//! unknown.

pub mod barrier;
pub mod counter;
pub mod double_barrier;
pub mod election;
pub mod host;
pub mod kit;
pub mod lock;
pub mod queue;
pub mod rwlock;

use crate::zk::client::{ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode};

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

/// Brings the connected server up to date with the leader (`sync` on `path`), retrying
/// through ConnectionLoss. Needed before a read that settles whether a write whose reply was
/// lost was applied: on a follower that has not applied it yet, the read misses it, and no
/// server refuses the client for being behind, since its last-seen zxid predates the write
/// (Z15).
pub async fn catch_up(client: &ZkClient, path: &str) -> Result<(), ZkError> {
    retrying(client, async || client.sync(path).await)
        .await
        .map(drop)
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
