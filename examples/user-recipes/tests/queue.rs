//! The user's queue: deleting the head before reading it loses the item; reading it, then
//! deleting it with a marker of the take, loses none and duplicates none.

use locksim::{Property, Scenario};
use user_recipes::queue::{MyQueue, Take};

#[test]
fn deleting_before_reading_loses_an_item() {
    Scenario::zookeeper()
        .queue_workload(|node, client| MyQueue::new(node, client, Take::DeleteFirst))
        .explore_guided(300)
        .assert_violates(Property::QUEUE);
}

#[test]
fn reading_then_deleting_with_a_marker_keeps_every_item() {
    Scenario::zookeeper()
        .queue_workload(|node, client| MyQueue::new(node, client, Take::ReadThenDelete))
        .explore(0..500)
        .assert_clean();
}
