//! The counter workload: each client adds one to the shared counter `rounds` times, working
//! `hold_ms` after each, and takes a new session whenever its session is gone.

use super::reconnect;
use crate::recipes::zk::counter::ZkCounter;
use crate::sim::node::Node;

/// Runs the workload on counters `connect` binds to a new session each.
pub(crate) async fn run_client<E>(
    node: &Node,
    rounds: u32,
    hold_ms: u64,
    mut connect: impl AsyncFnMut() -> Result<ZkCounter, E>,
) {
    let mut counter = reconnect(node, &mut connect).await;
    let mut done = 0;
    while done < rounds {
        match counter.increment().await {
            Ok(_) => {
                done += 1;
                node.timer().sleep(hold_ms).await;
            }
            Err(_) => counter = reconnect(node, &mut connect).await,
        }
    }
}
