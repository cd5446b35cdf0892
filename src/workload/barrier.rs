//! The barrier workload: each round, arrive after a random delay (so that arrivals spread
//! out), pass the round's barrier, work, and leave it (for a double barrier). Each round has
//! a barrier of its own, named `{dir}/r{round}` in the history. Enter and leave are recorded
//! as invoke / ok; a failed attempt is recorded as a fail, then the process tries again, on
//! a new session if its session expired (the recipe says what that means for its place).

use super::{RETRY_MS, reconnect};
use crate::history::{BarrierOp, Kind, Op};
use crate::recipes::{Barrier, DoubleBarrier, RecipeError};
use crate::sim::node::Node;
use rand::Rng;

/// The steps a `pause_before` fault can aim at: arriving, and leaving after the work.
pub(crate) const PAUSE_STEPS: &[&str] = &["enter", "leave"];

/// What each client does, from the scenario's parameters.
pub(crate) struct Workload {
    /// Where the rounds' barriers are, as the history names them.
    pub(crate) dir: String,
    /// Rounds, each with a barrier of its own.
    pub(crate) rounds: u32,
    /// How many processes each barrier waits for.
    pub(crate) count: u32,
    /// The work between passing a barrier and leaving it, ms on the node's clock.
    pub(crate) hold_ms: u64,
    /// Longest random wait before arriving at a round's barrier, ms.
    pub(crate) arrive_max_ms: u64,
}

/// Which phase of a round an attempt is in.
#[derive(Clone, Copy)]
enum Phase {
    Enter,
    Leave,
}

/// A barrier as the workload drives it: one with a leave phase or one without.
trait Rounds {
    fn has_leave(&self) -> bool;
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError>;
    async fn leave(&mut self, round: u32) -> Result<(), RecipeError>;
    async fn close(self);
}

/// A barrier, passed once per round.
struct Single<B>(B);

impl<B: Barrier> Rounds for Single<B> {
    fn has_leave(&self) -> bool {
        false
    }
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        self.0.enter(round).await
    }
    async fn leave(&mut self, _round: u32) -> Result<(), RecipeError> {
        Ok(())
    }
    async fn close(self) {
        self.0.close().await
    }
}

/// A double barrier, entered and left each round.
struct Double<D>(D);

impl<D: DoubleBarrier> Rounds for Double<D> {
    fn has_leave(&self) -> bool {
        true
    }
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        self.0.enter(round).await
    }
    async fn leave(&mut self, round: u32) -> Result<(), RecipeError> {
        self.0.leave(round).await
    }
    async fn close(self) {
        self.0.close().await
    }
}

/// Runs the workload over a barrier. `connect` opens a new session and returns a barrier
/// bound to it; it is called again whenever the session is lost.
pub(crate) async fn run_barrier<B: Barrier>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<B, RecipeError>,
) {
    run_client(node, work, async || connect().await.map(Single)).await
}

/// Runs the workload over a double barrier, as `run_barrier` does.
pub(crate) async fn run_double_barrier<D: DoubleBarrier>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<D, RecipeError>,
) {
    run_client(node, work, async || connect().await.map(Double)).await
}

async fn run_client<B: Rounds>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<B, RecipeError>,
) {
    let mut rng = node.rng();
    let mut barrier = reconnect(node, &mut connect).await;
    for round in 0..work.rounds {
        node.timer()
            .sleep(rng.random_range(0..=work.arrive_max_ms))
            .await;
        node.step("enter").await;
        barrier = attempt(node, work, round, Phase::Enter, barrier, &mut connect).await;
        node.timer().sleep(work.hold_ms).await;
        if barrier.has_leave() {
            node.step("leave").await;
            barrier = attempt(node, work, round, Phase::Leave, barrier, &mut connect).await;
        }
    }
    barrier.close().await;
}

/// Runs one phase of round `round` until it passes, on a new session whenever the one it
/// has expires; returns the barrier it ends with.
async fn attempt<B: Rounds>(
    node: &Node,
    work: &Workload,
    round: u32,
    phase: Phase,
    mut barrier: B,
    connect: &mut impl AsyncFnMut() -> Result<B, RecipeError>,
) -> B {
    let path = format!("{}/r{round}", work.dir);
    let op = match phase {
        Phase::Enter => Op::Barrier(BarrierOp::Enter {
            barrier: path,
            count: work.count,
        }),
        Phase::Leave => Op::Barrier(BarrierOp::Leave { barrier: path }),
    };
    loop {
        node.record(Kind::Invoke, op.clone());
        let result = match phase {
            Phase::Enter => barrier.enter(round).await,
            Phase::Leave => barrier.leave(round).await,
        };
        match result {
            Ok(()) => {
                node.record(Kind::Ok, op);
                return barrier;
            }
            Err(e) => {
                node.record(Kind::Fail, op.clone());
                if e.needs_new_session() {
                    barrier = reconnect(node, connect).await;
                }
                node.timer().sleep(RETRY_MS).await;
            }
        }
    }
}
