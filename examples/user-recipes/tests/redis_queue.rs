//! The user's queue over Redis: a take by a plain pop loses the item whose reply is lost; a
//! take that moves the head into the consumer's own list finds it again and keeps every item.

use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
use locksim::{Experiment, Property, Scenario};
use user_recipes::redis_queue::{MyQueue, Take};

/// `own-assumptions`: under `full` a master that restarts empty loses the queue whatever the
/// recipe does. Twenty items each, so that takes go on long enough for faults to meet them.
fn queue(take: Take) -> Experiment {
    Scenario::redis(1)
        .queue_workload(move |node| MyQueue::connect(node, take))
        .profile("own-assumptions")
        .set("items=20")
}

#[test]
fn popping_loses_the_item_whose_reply_is_lost() {
    let found = queue(Take::Pop).explore_guided(20);
    found.assert_violates(Property::QUEUE);
    assert!(
        found
            .to_string()
            .contains("instead of replying to its lpop"),
        "{found}"
    );
}

#[test]
fn moving_into_a_processing_list_keeps_every_item() {
    queue(Take::Move).explore(0..300).assert_clean();
}

/// c1's first take that finds an item, at 19 ms, loses its reply: the pop's item is gone,
/// the move's is in c1's processing list, where its next session finds it.
#[test]
fn a_lost_take_reply_loses_the_popped_item_and_not_the_moved_one() {
    let lose = |op: &str| {
        let fault = Fault::LoseReply {
            node: "redis1".into(),
            op: op.into(),
            client: "c1".into(),
        };
        FaultPlan::new(vec![TimedFault { at_ms: 10, fault }])
    };
    let popped = queue(Take::Pop).run_plan(0, lose("lpop"));
    assert!(
        popped
            .violations()
            .iter()
            .any(|v| v.detail.starts_with("item p1-0"))
    );
    let moved = queue(Take::Move).run_plan(0, lose("lmove"));
    assert!(moved.violations().is_empty(), "{:?}", moved.violations());
}
