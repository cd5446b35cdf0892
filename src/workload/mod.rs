//! Workloads: what a client host does with its recipe, recorded as history. One module per
//! recipe family, sharing how a client gets (back) a session.
//!
//! - `lock`: acquire, read the register, work, write, release (locks and the shared lock)
//! - `election`: run for leader, do the lock's guarded work as leader, step down, run again
//! - `queue`: producers offer distinct items, consumers take them all
//! - `barrier`: arrive, enter, work, leave, a barrier per round (the barriers)
//! - `counter`: add one to a shared counter, a round at a time

pub(crate) mod barrier;
pub(crate) mod counter;
pub(crate) mod election;
pub(crate) mod lock;
pub(crate) mod queue;

use crate::history::{ClientOp, Kind, Op};
use crate::sim::node::Node;

/// Pause between a failed attempt and the next, so a client does not spin.
pub(crate) const RETRY_MS: u64 = 5;

/// Opens a session, retrying until one is had. Recorded as one Connect operation, so a
/// client that never gets a session back shows what it is stuck in.
pub(crate) async fn reconnect<T, E>(
    node: &Node,
    connect: &mut impl AsyncFnMut() -> Result<T, E>,
) -> T {
    node.record(Kind::Invoke, Op::Client(ClientOp::Connect));
    loop {
        if let Ok(session) = connect().await {
            node.record(Kind::Ok, Op::Client(ClientOp::Connect));
            return session;
        }
        node.timer().sleep(RETRY_MS).await;
    }
}
