//! The ZooKeeper double barrier (the recipes doc's "Double Barriers"): processes enter
//! together once `count` of them are there and leave together once all are done.
//!
//! Enter: watch `ready` (exists), create my ephemeral node (named by the process, so a
//! create retried after a lost reply finds it: NodeExists from my own session is my node),
//! list; with fewer than `count` process nodes wait for `ready`, else create it and pass.
//! Leave: list; none left: done; only mine: delete it, done; mine the lowest: wait on the
//! highest; otherwise delete mine and wait on the lowest; list again.
//!
//! A session that expires takes the process's node with it. Before the barrier opened, the
//! process enters again on a new session (its node counts again). Once it opened (`ready`
//! is there, so the node counted) it has left the barrier as far as everyone else can tell
//! (the others may pass the leave without it), whether or not it saw `ready` before its
//! session ended: it does not create its node again, finishes its work and runs the leave,
//! which finds no node of its own. The `barrier` checker counts it as done from its node's
//! deletion. A process told its session expired may find its node still there, held by
//! that session until the server is done with it (a leader that marked the session closing
//! lost its quorum before the close committed, and the next leader tracks the session
//! anew): it waits for the node to go, then looks at `ready` again before creating one,
//! since the barrier may have opened with that node counted meanwhile.

use super::barrier::{BarrierError, delete, wait};
use super::is_transient;
use super::{RETRY_MS, ensure_path, retrying};
use crate::history::{BarrierOp, Kind, Op};
use crate::recipes::{DoubleBarrier, RecipeError};
use crate::sim::node::Node;
use crate::zk::client::{ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode};

/// Where the barriers are, a directory per round.
pub const ROOT: &str = "/locksim/dbarrier";
/// The node the last process to arrive creates; not a process node.
pub const READY: &str = "ready";

/// Which double barrier the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipes-doc double barrier.
    Recipe,
    /// Counts the children instead of waiting for `ready` (Z11): whoever lists `count`
    /// nodes passes; one woken by the last arrival that lists again after a passed process
    /// already left its node sees fewer and waits for ever, and so does everyone behind it.
    NoReady,
    /// Takes NodeExists on the create retried after a lost reply for someone else's node and
    /// enters again under a new name (Z11): its first node still counts, so the barrier
    /// counts it twice and opens one process early.
    Reenter,
    /// Having waited out a node of its name held by an earlier session of its own (the
    /// server not yet done with it), creates its node again without looking at `ready`
    /// (Z17, the recipe as it was until a guided campaign found it): the barrier may have
    /// opened with the old node counted, and it enters a round the others are leaving.
    Rejoin,
}

/// A reply as the decisions see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It was applied.
    Ok,
    /// A node of that name exists already.
    NodeExists,
    /// ConnectionLoss or a timeout: it may or may not have been applied.
    ConnectionLoss,
    /// Anything else, the session's end included.
    Failed,
}

fn outcome<T>(result: &Result<T, ZkError>) -> Outcome {
    match result {
        Ok(_) => Outcome::Ok,
        Err(ZkError::Server(ErrorCode::NodeExists)) => Outcome::NodeExists,
        Err(e) if is_transient(e) => Outcome::ConnectionLoss,
        Err(_) => Outcome::Failed,
    }
}

/// What to do after creating my node ended in an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterCreate {
    /// My node exists: I am at the barrier.
    Joined,
    /// The outcome is unknown: create again (NodeExists will tell).
    CreateAgain,
    /// A node of my name exists: mine if my session owns it, else wait for it to go.
    CheckOwner,
    /// Create again under a new name (the `Reenter` flaw).
    Rename,
    /// Give up with the error.
    Fail,
}

/// The step after creating my node ended in `outcome`, running a barrier of `flavor`.
pub fn after_create(flavor: Flavor, outcome: Outcome) -> AfterCreate {
    match (outcome, flavor) {
        (Outcome::Ok, _) => AfterCreate::Joined,
        (Outcome::ConnectionLoss, _) => AfterCreate::CreateAgain,
        (Outcome::NodeExists, Flavor::Reenter) => AfterCreate::Rename,
        (Outcome::NodeExists, _) => AfterCreate::CheckOwner,
        (Outcome::Failed, _) => AfterCreate::Fail,
    }
}

/// Whether a process that found a node of its name held by another session (an earlier one
/// of its own), and waited for it to go, looks at `ready` again before creating its node:
/// the barrier may have opened with that node counted, which was its own leave.
pub fn looks_at_ready_again(flavor: Flavor) -> bool {
    flavor != Flavor::Rejoin
}

/// The process nodes of a listing (everything but `ready`), lowest name first.
pub fn processes(children: &[String]) -> Vec<&str> {
    let mut names: Vec<&str> = children
        .iter()
        .map(String::as_str)
        .filter(|n| *n != READY)
        .collect();
    names.sort_unstable();
    names
}

/// What a process entering does after listing the barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enter {
    /// Everyone is there: create `ready` and pass.
    CreateReady,
    /// Wait for `ready` (watched before my node was created).
    WaitForReady,
    /// Pass without `ready` (the `NoReady` flaw).
    Pass,
    /// Wait for the children to change and count again (the `NoReady` flaw).
    WaitForChildren,
}

/// The step of a process entering after a listing of the barrier's `children`, when
/// `count` processes are to meet.
pub fn enter(flavor: Flavor, children: &[String], count: u32) -> Enter {
    let all = processes(children).len() >= count as usize;
    match (flavor, all) {
        (Flavor::NoReady, true) => Enter::Pass,
        (Flavor::NoReady, false) => Enter::WaitForChildren,
        (_, true) => Enter::CreateReady,
        (_, false) => Enter::WaitForReady,
    }
}

/// What a process leaving as `me` does after listing the barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leave {
    /// No process node left: done.
    Done,
    /// Mine is the only one: delete it, done.
    DeleteMineAndGo,
    /// Mine is the lowest: wait for this one (the highest) to go, then list again.
    WaitOn(String),
    /// Delete mine (if listed) and wait for this one (the lowest) to go, then list again.
    DeleteMineAndWaitOn(String),
}

/// The step of process `me` leaving after a listing of the barrier's `children`.
pub fn leave(me: &str, children: &[String]) -> Leave {
    let procs = processes(children);
    match procs.as_slice() {
        [] => Leave::Done,
        [only] if *only == me => Leave::DeleteMineAndGo,
        [lowest, .., highest] if *lowest == me => Leave::WaitOn(highest.to_string()),
        [lowest, ..] if procs.contains(&me) => Leave::DeleteMineAndWaitOn(lowest.to_string()),
        [lowest, ..] => Leave::WaitOn(lowest.to_string()),
    }
}

fn dir(round: u32) -> String {
    format!("{ROOT}/r{round}")
}

/// The double barrier bound to one session of process `me`.
pub struct ZkDoubleBarrier {
    client: ZkClient,
    node: Node,
    flavor: Flavor,
    count: u32,
    /// My node's name in each round it was created in this session (the last one made).
    mine: Vec<(u32, String)>,
}

impl ZkDoubleBarrier {
    /// The double barrier of `flavor` for process `node` on `client`'s session, opening
    /// once `count` processes are there.
    pub fn new(client: ZkClient, node: &Node, flavor: Flavor, count: u32) -> ZkDoubleBarrier {
        ZkDoubleBarrier {
            client,
            node: node.clone(),
            flavor,
            count,
            mine: Vec::new(),
        }
    }

    fn name_in(&self, round: u32) -> String {
        self.mine
            .iter()
            .rev()
            .find(|(r, _)| *r == round)
            .map_or_else(|| self.node.name.clone(), |(_, n)| n.clone())
    }

    /// Creates my node in round `round`'s barrier, unless this session already did: true.
    /// False when a node of my name was another session's (an earlier one of mine, the
    /// server not yet done with it) and is gone by now: the barrier may have opened with it
    /// counted meanwhile, which was my leave, so `ready` is to be looked at again before a
    /// node of mine is created.
    async fn join(&mut self, round: u32) -> Result<bool, BarrierError> {
        if self.mine.iter().any(|(r, _)| *r == round) {
            return Ok(true);
        }
        let c = &self.client;
        let mut name = self.node.name.clone();
        let mut renames = 0;
        loop {
            let path = format!("{}/{name}", dir(round));
            let created = c.create(&path, b"", CreateMode::Ephemeral).await;
            match after_create(self.flavor, outcome(&created)) {
                AfterCreate::Joined => break,
                AfterCreate::CreateAgain => c.timer().sleep(RETRY_MS).await,
                AfterCreate::CheckOwner => {
                    let (stat, watch) = retrying(c, async || c.exists_watch(&path).await).await?;
                    match stat {
                        Some(s) if s.ephemeral_owner == c.session_id() => break,
                        Some(_) => wait(&self.node, watch).await?,
                        None => {}
                    }
                    if looks_at_ready_again(self.flavor) {
                        return Ok(false);
                    }
                }
                AfterCreate::Rename => {
                    renames += 1;
                    name = format!("{}-{renames}", self.node.name);
                }
                AfterCreate::Fail => {
                    return Err(created.err().map_or_else(
                        || BarrierError::Unexpected("create".into()),
                        BarrierError::from,
                    ));
                }
            }
        }
        self.node.record(
            Kind::Info,
            Op::Barrier(BarrierOp::Joined {
                barrier: dir(round),
                node: format!("{}/{name}", dir(round)),
            }),
        );
        self.mine.push((round, name));
        Ok(true)
    }
}

/// The rounds as the workload drives them, through `recipes::DoubleBarrier`.
impl ZkDoubleBarrier {
    async fn enter_round(&mut self, round: u32) -> Result<(), BarrierError> {
        let dir = dir(round);
        let ready = format!("{dir}/{READY}");
        ensure_path(&self.client, &dir).await?;
        loop {
            let c = &self.client;
            let watch = match self.flavor {
                Flavor::NoReady => None,
                _ => {
                    let (stat, watch) = retrying(c, async || c.exists_watch(&ready).await).await?;
                    if stat.is_some() {
                        // Everyone was there, a node of mine among them: this session's,
                        // or one gone with an earlier session, which was my leave.
                        return Ok(());
                    }
                    Some(watch)
                }
            };
            if !self.join(round).await? {
                continue;
            }
            let c = &self.client;
            let (listed, children_watch) = match watch {
                Some(w) => (retrying(c, async || c.get_children(&dir).await).await?, w),
                None => retrying(c, async || c.get_children_watch(&dir).await).await?,
            };
            match enter(self.flavor, &listed, self.count) {
                Enter::Pass => return Ok(()),
                Enter::CreateReady => {
                    return match retrying(c, async || {
                        c.create(&ready, b"", CreateMode::Persistent).await
                    })
                    .await
                    {
                        Ok(_) | Err(ZkError::Server(ErrorCode::NodeExists)) => Ok(()),
                        Err(e) => Err(e.into()),
                    };
                }
                Enter::WaitForReady | Enter::WaitForChildren => {
                    wait(&self.node, children_watch).await?
                }
            }
        }
    }

    async fn leave_round(&mut self, round: u32) -> Result<(), BarrierError> {
        let dir = dir(round);
        let me = self.name_in(round);
        let c = &self.client;
        loop {
            let listed = match retrying(c, async || c.get_children(&dir).await).await {
                Ok(listed) => listed,
                Err(ZkError::Server(ErrorCode::NoNode)) => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let other = match leave(&me, &listed) {
                Leave::Done => return Ok(()),
                Leave::DeleteMineAndGo => return delete(c, &format!("{dir}/{me}")).await,
                Leave::WaitOn(other) => other,
                Leave::DeleteMineAndWaitOn(lowest) => {
                    delete(c, &format!("{dir}/{me}")).await?;
                    lowest
                }
            };
            let path = format!("{dir}/{other}");
            let (stat, watch) = retrying(c, async || c.exists_watch(&path).await).await?;
            if stat.is_some() {
                wait(&self.node, watch).await?;
            }
        }
    }
}

impl DoubleBarrier for ZkDoubleBarrier {
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        Ok(self.enter_round(round).await?)
    }

    async fn leave(&mut self, round: u32) -> Result<(), RecipeError> {
        Ok(self.leave_round(round).await?)
    }

    async fn close(self) {
        self.client.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ready_is_no_process_and_the_last_to_arrive_creates_it() {
        let two = names(&["c2", "ready", "c1"]);
        assert_eq!(processes(&two), ["c1", "c2"]);
        assert_eq!(enter(Flavor::Recipe, &two, 3), Enter::WaitForReady);
        let three = names(&["c3", "c1", "c2"]);
        assert_eq!(enter(Flavor::Recipe, &three, 3), Enter::CreateReady);
        assert_eq!(enter(Flavor::NoReady, &two, 3), Enter::WaitForChildren);
        assert_eq!(enter(Flavor::NoReady, &three, 3), Enter::Pass);
    }

    #[test]
    fn the_lowest_waits_on_the_highest_and_the_others_delete_and_wait_on_the_lowest() {
        let kids = names(&["c3", "ready", "c1", "c2"]);
        assert_eq!(leave("c1", &kids), Leave::WaitOn("c3".into()));
        assert_eq!(leave("c2", &kids), Leave::DeleteMineAndWaitOn("c1".into()));
        assert_eq!(leave("c3", &kids), Leave::DeleteMineAndWaitOn("c1".into()));
        assert_eq!(
            leave("c4", &kids),
            Leave::WaitOn("c1".into()),
            "mine is gone"
        );
        assert_eq!(
            leave("c1", &names(&["c1", "ready"])),
            Leave::DeleteMineAndGo
        );
        assert_eq!(leave("c2", &names(&["ready"])), Leave::Done);
        assert_eq!(leave("c2", &names(&["c1"])), Leave::WaitOn("c1".into()));
    }

    #[test]
    fn a_lost_create_reply_is_resolved_by_nodeexists_except_by_the_reentering_flaw() {
        assert_eq!(
            after_create(Flavor::Recipe, Outcome::ConnectionLoss),
            AfterCreate::CreateAgain
        );
        assert_eq!(
            after_create(Flavor::Recipe, Outcome::NodeExists),
            AfterCreate::CheckOwner
        );
        assert_eq!(
            after_create(Flavor::NoReady, Outcome::NodeExists),
            AfterCreate::CheckOwner
        );
        assert_eq!(
            after_create(Flavor::Reenter, Outcome::NodeExists),
            AfterCreate::Rename
        );
        assert_eq!(
            after_create(Flavor::Reenter, Outcome::Ok),
            AfterCreate::Joined
        );
        assert_eq!(
            after_create(Flavor::Recipe, Outcome::Failed),
            AfterCreate::Fail
        );
    }

    #[test]
    fn only_the_rejoining_flaw_creates_its_node_again_without_looking_at_ready() {
        assert!(looks_at_ready_again(Flavor::Recipe));
        assert!(looks_at_ready_again(Flavor::NoReady));
        assert!(looks_at_ready_again(Flavor::Reenter));
        assert!(!looks_at_ready_again(Flavor::Rejoin));
    }
}
