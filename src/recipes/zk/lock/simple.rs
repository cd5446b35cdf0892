//! The `zk-lock-simple` variant: one fixed ephemeral node. Whoever creates it holds the
//! lock; everyone else watches it and, when it goes, all race to create it again. Correct
//! while sessions hold, but every release wakes every waiter (herd) and the race ignores
//! arrival order (fifo).

use super::decide::{self, SimpleNext};
use super::{ZkLock, retrying};
use crate::recipes::{Grant, LockError, Observation};
use crate::zk::client::ZkError;
use crate::zk::proto::{CreateMode, ErrorCode};

pub(super) async fn acquire(lock: &mut ZkLock) -> Result<Grant, LockError> {
    let path = lock.path("lock");
    // No node of its own to queue with: its place is its arrival time.
    (lock.observer)(Observation::Enqueued {
        node: String::new(),
        seq: None,
    });
    loop {
        match retrying!(
            lock.client.timer(),
            lock.client.create2(&path, b"", CreateMode::Ephemeral).await
        ) {
            Ok((_, stat)) => return Ok(lock.hold("lock", stat.czxid)),
            Err(ZkError::Server(ErrorCode::NodeExists)) => {}
            Err(e) => return Err(e.into()),
        }
        let (stat, watch) = retrying!(lock.client.timer(), lock.client.exists_watch(&path).await)?;
        let owner = stat.as_ref().map(|s| s.ephemeral_owner);
        match (decide::simple_next(owner, lock.client.session_id()), stat) {
            (SimpleNext::Hold, Some(stat)) => return Ok(lock.hold("lock", stat.czxid)),
            (SimpleNext::Wait, _) => {
                lock.wait(watch).await?;
            }
            _ => {}
        }
    }
}
