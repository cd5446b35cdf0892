//! What the election, queue and barrier workloads are given, from a scenario's parameters:
//! the same on every server family, so a user's recipe on Redis runs the rounds, terms and
//! items it would run on ZooKeeper.

use crate::params::Params;
use crate::sim::node::Node;
use crate::workload::{barrier, election, queue};

/// The election workload's settings: `name` as the history records it, a store request
/// given up after `store_timeout_ms`.
pub(super) fn election(p: &Params, name: &str, store_timeout_ms: u64) -> election::Workload {
    election::Workload {
        election: name.into(),
        terms: p.election.terms,
        hold_ms: p.workload.hold_ms,
        store_timeout_ms,
    }
}

/// The barrier workload's settings, its barriers under `dir`: each waits for every client.
pub(super) fn barrier(p: &Params, dir: &str) -> barrier::Workload {
    barrier::Workload {
        dir: dir.to_string(),
        rounds: p.workload.rounds,
        count: p.workload.clients,
        hold_ms: p.workload.hold_ms,
        arrive_max_ms: p.barrier.arrive_max_ms,
    }
}

/// Each queue client's name and role: producers first, then consumers with their shares.
pub(super) fn queue_roles(p: &Params) -> Vec<(String, queue::Role)> {
    let q = &p.queue;
    let producers = (1..=q.producers).map(|i| {
        let name = format!("p{i}");
        let items = queue::items_of(&name, q.items);
        (name, queue::Role::Producer { items })
    });
    let total = q.producers * q.items;
    let consumers = (0..q.consumers).map(|i| {
        let takes = queue::share(total, q.consumers, i);
        (format!("c{}", i + 1), queue::Role::Consumer { takes })
    });
    producers.chain(consumers).collect()
}

/// The queue's client hosts: producers, then consumers.
pub(super) fn queue_clients(p: &Params) -> Vec<String> {
    queue_roles(p).into_iter().map(|(name, _)| name).collect()
}

/// The queue role of client host `node`.
pub(super) fn queue_role_of(node: &Node, p: &Params) -> queue::Role {
    queue_roles(p)
        .into_iter()
        .find(|(name, _)| *name == node.name)
        .map(|(_, role)| role)
        .expect("every client has a role")
}

/// How many items go through the queue.
pub(super) fn queue_items(p: &Params) -> u64 {
    u64::from(p.queue.producers * p.queue.items)
}
