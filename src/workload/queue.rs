//! The queue workload: producers offer their own distinct items one after another, and
//! consumers take until, between them, they took as many items as were offered (each a
//! fixed share). A lost item leaves a consumer waiting for ever (the harness records it
//! Unfinished), so the run's end judges liveness; a duplicate shows in the takes.
//!
//! An offer or a take is one operation however many sessions it takes: after a session's
//! end the client reconnects and the recipe settles the request it had in flight.

use super::{RETRY_MS, reconnect};
use crate::history::{Kind, Op, QueueOp};
use crate::recipes::{Queue, RecipeError};
use crate::sim::node::Node;

/// The steps a `pause_before` fault can aim at: just before an offer or a take begins.
pub(crate) const PAUSE_STEPS: &[&str] = &["offer", "take"];

/// What one client does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    /// Offers these items, in this order.
    Producer { items: Vec<String> },
    /// Takes this many items.
    Consumer { takes: u32 },
}

/// The items producer `producer` (of `items` each) offers, in order: "p1-0", "p1-1", ...
pub(crate) fn items_of(producer: &str, items: u32) -> Vec<String> {
    (0..items).map(|i| format!("{producer}-{i}")).collect()
}

/// Consumer `index`'s share (0-based, of `consumers`) of `total` takes: as even as can be.
pub(crate) fn share(total: u32, consumers: u32, index: u32) -> u32 {
    total / consumers + u32::from(index < total % consumers)
}

/// Runs `role` on queue `queue`. `connect` opens a new session and returns the queue bound
/// to it; it is called again whenever the session is lost. After a failed attempt the same
/// operation is asked again, and the recipe settles what the failed one left unknown.
pub(crate) async fn run_client<Q: Queue>(
    node: &Node,
    queue: &str,
    role: &Role,
    mut connect: impl AsyncFnMut() -> Result<Q, RecipeError>,
) {
    let mut q = reconnect(node, &mut connect).await;
    match role {
        Role::Producer { items } => {
            for item in items {
                node.step("offer").await;
                let op = Op::Queue(QueueOp::Offer {
                    queue: queue.into(),
                    item: item.clone(),
                });
                node.record(Kind::Invoke, op.clone());
                loop {
                    match q.offer(item).await {
                        Ok(()) => break,
                        Err(e) => q = recover(node, &mut connect, q, e).await,
                    }
                }
                node.record(Kind::Ok, op);
            }
        }
        Role::Consumer { takes } => {
            for _ in 0..*takes {
                node.step("take").await;
                node.record(Kind::Invoke, Op::Queue(QueueOp::take(queue)));
                let taken = loop {
                    match q.take().await {
                        Ok(taken) => break taken,
                        Err(e) => q = recover(node, &mut connect, q, e).await,
                    }
                };
                node.record(
                    Kind::Ok,
                    Op::Queue(QueueOp::Take {
                        queue: queue.into(),
                        item: Some(taken.item),
                        node: taken.node,
                    }),
                );
            }
        }
    }
    q.close().await;
}

/// After a failed attempt: a new session if the old one ended, else a pause.
async fn recover<Q: Queue>(
    node: &Node,
    connect: &mut impl AsyncFnMut() -> Result<Q, RecipeError>,
    q: Q,
    e: RecipeError,
) -> Q {
    if e.needs_new_session() {
        q.close().await;
        reconnect(node, connect).await
    } else {
        node.timer().sleep(RETRY_MS).await;
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producers_items_are_named_in_order_and_shares_add_up() {
        assert_eq!(items_of("p2", 3), ["p2-0", "p2-1", "p2-2"]);
        assert_eq!(
            (0..3).map(|i| share(10, 3, i)).collect::<Vec<_>>(),
            [4, 3, 3]
        );
        assert_eq!((0..4).map(|i| share(2, 4, i)).sum::<u32>(), 2);
    }
}
