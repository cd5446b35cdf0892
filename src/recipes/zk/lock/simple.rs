//! The `zk-lock-simple` variant: one fixed ephemeral node. Whoever creates it holds the
//! lock; everyone else watches it and, when it goes, all race to create it again. Correct
//! while sessions hold, but every release wakes every waiter (herd) and the race ignores
//! arrival order (fifo).

use super::{Failure, RETRY, ZkLock, classify};
use crate::recipes::{Grant, LockError, Observation};
use crate::zk::client::ZkError;
use crate::zk::proto::{CreateMode, ErrorCode};

pub(super) async fn acquire(lock: &mut ZkLock) -> Result<Grant, LockError> {
    let path = lock.path("lock");
    let mut waiting = false;
    loop {
        match lock.client.create2(&path, b"", CreateMode::Ephemeral).await {
            Ok((_, stat)) => {
                lock.node = Some(("lock".into(), stat.czxid));
                return Ok(Grant {
                    token: Some(stat.czxid),
                });
            }
            Err(ZkError::Server(ErrorCode::NodeExists)) => {}
            Err(e) => match classify(e) {
                Failure::Retry => {
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
                Failure::Fatal(f) => return Err(f),
            },
        }
        let (stat, watch) = match lock.client.exists_watch(&path).await {
            Ok(found) => found,
            Err(e) => match classify(e) {
                Failure::Retry => {
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
                Failure::Fatal(f) => return Err(f),
            },
        };
        match stat {
            // My own node, from a create whose reply was lost.
            Some(stat) if stat.ephemeral_owner == lock.client.session_id() => {
                lock.node = Some(("lock".into(), stat.czxid));
                return Ok(Grant {
                    token: Some(stat.czxid),
                });
            }
            Some(_) => {
                if !waiting {
                    waiting = true;
                    // No node of its own: its place is its arrival time.
                    (lock.observer)(Observation::Enqueued {
                        node: String::new(),
                        seq: None,
                    });
                }
                lock.wait(watch).await?;
            }
            None => {}
        }
    }
}
