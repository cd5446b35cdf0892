//! The ZooKeeper barrier (the recipes doc's "Barriers", the seed's barrier): a barrier node
//! that processes wait on with `exists(watch)` until it is deleted. A coordinator (c1) creates
//! one barrier node per round, and an `armed` node after them, before anyone waits on them:
//! a missing barrier node must mean "lifted", never "not made yet". Each process registers
//! its arrival at a round (a persistent node named by the process, so a retried create after
//! a lost reply is harmless); the coordinator lifts the round's barrier (deletes it) once
//! every process registered.
//!
//! Also what the barrier recipes share: their errors, retries through ConnectionLoss, and
//! waiting on a watch. The workload drives them through `recipes::Barrier` and
//! `recipes::DoubleBarrier`.

use super::lock::decide::{OnEvent, on_event};
use super::{ensure_path, retrying};
use crate::history::{ClientOp, Kind, Op};
use crate::recipes::{Barrier, RecipeError};
use crate::sim::node::Node;
use crate::zk::client::{Watch, ZkClient, ZkError};
use crate::zk::proto::ErrorCode;
use std::fmt;

/// Where the barrier nodes are.
pub const ROOT: &str = "/locksim/barrier";
/// Where processes register their arrival, a directory per round.
const ARRIVALS: &str = "/locksim/arrivals";

/// Why a barrier operation did not succeed, as the workload reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BarrierError {
    /// The session is gone: this barrier object is dead; a new session is needed.
    SessionExpired,
    /// Any other server answer the recipe cannot handle.
    Unexpected(String),
}

impl fmt::Display for BarrierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BarrierError::SessionExpired => f.write_str("session expired"),
            BarrierError::Unexpected(s) => write!(f, "unexpected: {s}"),
        }
    }
}

impl From<ZkError> for BarrierError {
    fn from(e: ZkError) -> BarrierError {
        match e {
            ZkError::SessionExpired
            | ZkError::Closed
            | ZkError::Server(ErrorCode::SessionExpired) => BarrierError::SessionExpired,
            other => BarrierError::Unexpected(other.to_string()),
        }
    }
}

impl From<BarrierError> for RecipeError {
    fn from(e: BarrierError) -> RecipeError {
        match e {
            BarrierError::SessionExpired => RecipeError::SessionExpired,
            BarrierError::Unexpected(s) => RecipeError::Unexpected(s),
        }
    }
}

/// Waits for the node event of `watch`, recording the wake-up; session events that end
/// nothing (Disconnected, SyncConnected) are not it.
pub(super) async fn wait(node: &Node, mut watch: Watch) -> Result<(), BarrierError> {
    loop {
        let Some(e) = watch.next().await else {
            return Err(BarrierError::SessionExpired);
        };
        match on_event(e.event_type, e.state) {
            OnEvent::Ignore => {}
            OnEvent::SessionLost => return Err(BarrierError::SessionExpired),
            OnEvent::Woken => {
                node.record(
                    Kind::Info,
                    Op::Client(ClientOp::Wake {
                        lock: None,
                        path: e.path,
                        event: e.event_type.into(),
                    }),
                );
                return Ok(());
            }
        }
    }
}

/// Deletes `path`, retrying through ConnectionLoss; gone already will do.
pub(super) async fn delete(client: &ZkClient, path: &str) -> Result<(), BarrierError> {
    match retrying(client, async || client.delete(path, -1).await).await {
        Ok(()) | Err(ZkError::Server(ErrorCode::NoNode)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Which barrier the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipe: nobody looks at a barrier node before the coordinator armed them all.
    Recipe,
    /// Processes look at the barrier node without waiting for `armed`: one that looks
    /// before the coordinator created it takes the missing node for a lifted barrier.
    Unarmed,
}

/// Whether a process waits for the coordinator's `armed` node before looking at a barrier.
pub fn waits_for_arming(flavor: Flavor) -> bool {
    flavor == Flavor::Recipe
}

/// Whether the coordinator may lift a barrier whose arrivals directory lists `arrivals`.
pub fn lifts(arrivals: &[String], count: u32) -> bool {
    arrivals.len() >= count as usize
}

fn barrier_path(round: u32) -> String {
    format!("{ROOT}/r{round}")
}

fn arrivals_path(round: u32) -> String {
    format!("{ARRIVALS}/r{round}")
}

fn armed_path() -> String {
    format!("{ROOT}/armed")
}

/// The barrier bound to one session of process `me`.
pub struct ZkBarrier {
    client: ZkClient,
    node: Node,
    flavor: Flavor,
    me: String,
    coordinator: bool,
    count: u32,
}

impl ZkBarrier {
    /// Binds a barrier of `flavor` to `client`, for process `me` among `count`; the
    /// coordinator arms `rounds` barriers first, unless a session of its own already did.
    pub async fn new(
        client: ZkClient,
        node: &Node,
        flavor: Flavor,
        coordinator: bool,
        count: u32,
        rounds: u32,
    ) -> Result<ZkBarrier, BarrierError> {
        let barrier = ZkBarrier {
            client,
            node: node.clone(),
            flavor,
            me: node.name.clone(),
            coordinator,
            count,
        };
        if coordinator {
            barrier.arm(rounds).await?;
        }
        Ok(barrier)
    }

    /// Creates every round's barrier node and arrivals directory, then `armed`. Once `armed`
    /// exists it never runs again: a barrier lifted and made again would strand whoever
    /// still waits on it.
    async fn arm(&self, rounds: u32) -> Result<(), BarrierError> {
        let c = &self.client;
        if retrying(c, async || c.exists(&armed_path()).await)
            .await?
            .is_some()
        {
            return Ok(());
        }
        for round in 0..rounds {
            ensure_path(c, &barrier_path(round)).await?;
            ensure_path(c, &arrivals_path(round)).await?;
        }
        Ok(ensure_path(c, &armed_path()).await?)
    }

    async fn wait_armed(&self) -> Result<(), BarrierError> {
        let c = &self.client;
        loop {
            let (armed, watch) = retrying(c, async || c.exists_watch(&armed_path()).await).await?;
            if armed.is_some() {
                return Ok(());
            }
            wait(&self.node, watch).await?;
        }
    }
}

/// The rounds as the workload drives them, through `recipes::Barrier`.
impl ZkBarrier {
    async fn enter_round(&mut self, round: u32) -> Result<(), BarrierError> {
        let c = &self.client;
        if waits_for_arming(self.flavor) && !self.coordinator {
            self.wait_armed().await?;
        }
        let arrivals = arrivals_path(round);
        ensure_path(c, &format!("{arrivals}/{}", self.me)).await?;
        let barrier = barrier_path(round);
        loop {
            if self.coordinator {
                let (listed, watch) =
                    retrying(c, async || c.get_children_watch(&arrivals).await).await?;
                if lifts(&listed, self.count) {
                    return delete(c, &barrier).await;
                }
                wait(&self.node, watch).await?;
            } else {
                let (stat, watch) = retrying(c, async || c.exists_watch(&barrier).await).await?;
                if stat.is_none() {
                    return Ok(());
                }
                wait(&self.node, watch).await?;
            }
        }
    }
}

impl Barrier for ZkBarrier {
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        Ok(self.enter_round(round).await?)
    }

    async fn close(self) {
        self.client.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coordinator_lifts_once_every_process_registered() {
        let names = |n: usize| (1..=n).map(|i| format!("c{i}")).collect::<Vec<_>>();
        assert!(!lifts(&names(2), 3));
        assert!(lifts(&names(3), 3));
        assert!(lifts(&[], 0));
    }

    #[test]
    fn only_the_flawed_barrier_looks_before_it_is_armed() {
        assert!(waits_for_arming(Flavor::Recipe));
        assert!(!waits_for_arming(Flavor::Unarmed));
    }
}
