//! The ZooKeeper recipe kit: what a recipe of your own (a lock, an election, a queue) needs
//! besides its own decisions, so a variant is its `decide` plus a small driver over
//! `ZkClient`.
//!
//! - the directories the workloads make before they hand over a session: `LOCK_DIR`,
//!   `ELECTION_DIR`, `QUEUE_DIR`, `BARRIER_DIR`, `DOUBLE_BARRIER_DIR`
//! - requests whose outcome is unknown after ConnectionLoss: `is_transient`, `retrying`
//! - a create whose reply was lost: name nodes with a GUID, then `catch_up` and `find_own`
//! - sequence order, right across the counter's wrap: `line`, `sequence`
//! - what the checkers judge that only the recipe knows: its place in line, the watches
//!   that woke it, a queue's claims and empty listings, reported with `Report` (`herd`,
//!   `fifo`, `queue` and targeted faults read them)
//! - the session: `wait` on a watch through session events, `session_lost` for
//!   `Lock::lost` and `Election::leadership_lost`

pub use super::barrier::ROOT as BARRIER_DIR;
pub use super::double_barrier::ROOT as DOUBLE_BARRIER_DIR;
pub use super::host::{ELECTION_DIR, LOCK_DIR, QUEUE_DIR};
pub use super::lock::decide::{OnEvent, find_own, on_event};
pub use super::{RETRY_MS, catch_up, ensure_path, is_transient, retrying};
pub use crate::zk::seq::parse as sequence;

use crate::history::{ClientOp, Kind, LockMode, LockOp, Op, QueueOp, WatchEvent};
use crate::recipes::LockError;
use crate::sim::node::Node;
use crate::zk::client::{SessionEvents, Watch, ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode, WatcherEvent};
use crate::zk::seq;

/// Puts a node in line under `dir`: an ephemeral sequential `{guid}lock-`, and after a lost
/// reply, the child carrying `guid` if the create was applied after all (creating again
/// blindly would orphan it: Z1), looked for after `catch_up` (a lagging follower could hide
/// it: Z15); reports it. `guid` must be unique to this enqueue. Returns
/// the node's name and its czxid (a fencing token).
pub async fn enqueue(
    client: &ZkClient,
    dir: &str,
    guid: &str,
    report: &Report,
    mode: Option<LockMode>,
) -> Result<(String, i64), LockError> {
    let path = format!("{dir}/{guid}lock-");
    loop {
        let (name, czxid) = match client
            .create2(&path, b"", CreateMode::EphemeralSequential)
            .await
        {
            Ok((created, stat)) => (created[dir.len() + 1..].to_string(), stat.czxid),
            Err(e) if is_transient(&e) => {
                catch_up(client, dir).await?;
                let children = list(client, dir).await?;
                let Some(own) = find_own(&children, guid) else {
                    continue;
                };
                let at = format!("{dir}/{own}");
                match retrying(client, async || client.exists(&at).await).await? {
                    Some(stat) => (own.to_string(), stat.czxid),
                    None => continue,
                }
            }
            Err(e) => return Err(e.into()),
        };
        report.enqueued(&name, mode);
        return Ok((name, czxid));
    }
}

/// The children of `dir`, retrying through ConnectionLoss.
pub async fn list(client: &ZkClient, dir: &str) -> Result<Vec<String>, LockError> {
    Ok(retrying(client, async || client.get_children(dir).await).await?)
}

/// Deletes `path`, retrying through ConnectionLoss (forgetting a node whose delete failed
/// orphans it: Z7); one already gone counts as deleted.
pub async fn delete(client: &ZkClient, path: &str) -> Result<(), LockError> {
    match retrying(client, async || client.delete(path, -1).await).await {
        Ok(()) | Err(ZkError::Server(ErrorCode::NoNode)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Waits on `watch` until a node event fires, and reports the wake-up. Session events that
/// end nothing (Disconnected, SyncConnected) are no wake-up: taking one for a deletion lets
/// a waiter skip its turn (Z8). Err(SessionExpired) once the session is gone.
pub async fn wait(watch: &mut Watch, report: &Report) -> Result<(), LockError> {
    while let Some(event) = watch.next().await {
        match on_event(event.event_type, event.state) {
            OnEvent::Ignore => {}
            OnEvent::SessionLost => break,
            OnEvent::Woken => {
                report.woken(&event);
                return Ok(());
            }
        }
    }
    Err(LockError::SessionExpired)
}

/// Completes once the session is gone, and with it every lock it held: what `Lock::lost`
/// of a ZooKeeper lock waits for.
pub async fn session_lost(events: &mut SessionEvents) {
    while let Some(e) = events.next().await {
        if on_event(e.event_type, e.state) == OnEvent::SessionLost {
            return;
        }
    }
}

/// The children of a lock directory that carry a sequence number, in sequence order (serial
/// order, so a wrapped counter still sorts the newest last).
pub fn line(children: &[String]) -> Vec<String> {
    let mut line: Vec<(i64, &String)> = children
        .iter()
        .filter_map(|c| seq::parse(c).map(|n| (n, c)))
        .collect();
    seq::sort_serial(&mut line);
    line.into_iter().map(|(_, c)| c.clone()).collect()
}

/// What a client's recipe reports to the history about its directory (a lock's, an
/// election's, a queue's).
#[derive(Debug, Clone)]
pub struct Report {
    node: Node,
    lock: String,
}

impl Report {
    /// Reports of the client on `node` about the directory `lock`.
    pub fn new(node: &Node, lock: &str) -> Report {
        Report {
            node: node.clone(),
            lock: lock.to_string(),
        }
    }

    /// Its node `name` joined the line (queued for `mode`, for a lock with modes).
    pub fn enqueued(&self, name: &str, mode: Option<LockMode>) {
        self.node.record(
            Kind::Info,
            Op::Lock(LockOp::Enqueued {
                lock: self.lock.clone(),
                node: name.to_string(),
                seq: seq::parse(name),
                mode,
            }),
        );
    }

    /// A watch on `path` woke it with `event`.
    pub fn woken_by(&self, path: &str, event: WatchEvent) {
        self.node.record(
            Kind::Info,
            Op::Client(ClientOp::Wake {
                lock: Some(self.lock.clone()),
                path: path.to_string(),
                event,
            }),
        );
    }

    /// A watch woke it with `event`.
    pub fn woken(&self, event: &WatcherEvent) {
        self.woken_by(&event.path, event.event_type.into());
    }

    /// Of a queue: it asks ZooKeeper to take `item`, held by node `name` (bare), for it. A
    /// take the run's end cuts short after its claim may have removed the item without
    /// returning it: `queue` excuses that item rather than call it lost.
    pub fn claimed(&self, item: &str, name: &str) {
        self.node.record(
            Kind::Info,
            Op::Queue(QueueOp::Claim {
                queue: self.lock.clone(),
                item: item.to_string(),
                node: name.to_string(),
            }),
        );
    }

    /// Of a queue: it listed no item, setting a watch on the children with that listing,
    /// and waits on it. The watch's first change is then an offer, whatever else changed
    /// before the wake-up is recorded: `herd` does not take it for a take's.
    pub fn listed_empty(&self) {
        let queue = self.lock.clone();
        self.node
            .record(Kind::Info, Op::Queue(QueueOp::Empty { queue }));
    }
}
