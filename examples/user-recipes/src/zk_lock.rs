//! A ZooKeeper lock of the user's own, built from locksim's recipe kit: ephemeral sequential
//! nodes named with a GUID, the lowest holds the lock. What a waiter watches is the variant:
//! the node just below its own (the recipe), or the lowest node, which every waiter then
//! watches, so each release wakes them all (the herd effect).

use locksim::recipes::zk::kit::{self, LOCK_DIR, Report, retrying};
use locksim::zk::client::{SessionEvents, ZkClient};
use locksim::{Grant, Lock, LockError, Node};

/// Which node a waiter watches.
#[derive(Debug, Clone, Copy)]
pub enum Watches {
    Predecessor,
    Lowest,
}

/// One client's lock, bound to one session.
pub struct ZkLock {
    client: ZkClient,
    events: SessionEvents,
    report: Report,
    watches: Watches,
    /// Unique to the session; with a count, to each enqueue.
    guid: String,
    enqueued: u64,
    mine: Option<(String, i64)>,
}

impl ZkLock {
    pub async fn new(node: Node, client: ZkClient, watches: Watches) -> Result<ZkLock, LockError> {
        let guid = format!("_c_{}_{:x}_", node.name, client.session_id());
        let (events, report) = (client.events(), Report::new(&node, LOCK_DIR));
        Ok(ZkLock {
            client,
            events,
            report,
            watches,
            guid,
            enqueued: 0,
            mine: None,
        })
    }
}

impl Lock for ZkLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        if self.mine.is_none() {
            self.enqueued += 1;
            let guid = format!("{}{}_", self.guid, self.enqueued);
            self.mine =
                Some(kit::enqueue(&self.client, LOCK_DIR, &guid, &self.report, None).await?);
        }
        let (mine, czxid) = self.mine.clone().expect("enqueued above");
        loop {
            let line = kit::line(&kit::list(&self.client, LOCK_DIR).await?);
            let Some(at) = line.iter().position(|c| *c == mine) else {
                self.mine = None;
                return Err(LockError::NodeGone);
            };
            let watched = match (at, self.watches) {
                (0, _) => {
                    return Ok(Grant {
                        token: Some(czxid),
                        ..Grant::default()
                    });
                }
                (_, Watches::Predecessor) => format!("{LOCK_DIR}/{}", line[at - 1]),
                (_, Watches::Lowest) => format!("{LOCK_DIR}/{}", line[0]),
            };
            let (stat, mut watch) = retrying(&self.client, async || {
                self.client.exists_watch(&watched).await
            })
            .await?;
            if stat.is_some() {
                kit::wait(&mut watch, &self.report).await?;
            }
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        match self.mine.take() {
            Some((mine, _)) => kit::delete(&self.client, &format!("{LOCK_DIR}/{mine}")).await,
            None => Ok(()),
        }
    }

    async fn lost(&mut self) {
        kit::session_lost(&mut self.events).await
    }

    async fn close(self) {
        self.client.close().await
    }
}
