//! The user's ZooKeeper lock from the recipe kit: watching the lowest node wakes every
//! waiter on each release; watching the predecessor keeps the lock and wakes one.

use locksim::{Property, Scenario};
use user_recipes::zk_lock::{Watches, ZkLock};

#[test]
fn watching_the_lowest_node_wakes_a_herd() {
    Scenario::zookeeper()
        .lock_workload(|node, client| ZkLock::new(node, client, Watches::Lowest))
        .explore_guided(200)
        .assert_violates(Property::HERD);
}

#[test]
fn watching_the_predecessor_holds() {
    Scenario::zookeeper()
        .lock_workload(|node, client| ZkLock::new(node, client, Watches::Predecessor))
        .explore(0..300)
        .assert_clean();
}
