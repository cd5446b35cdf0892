//! The ZooKeeper queue scenarios: `zk1`, and producers p1..pP and consumers c1..cC that run
//! the queue workload with one flavor of the recipe.

use super::{Program, zk};
use crate::params::{Faults, Group, Network, ParamError, Params, Queue, Zookeeper};
use crate::recipes::zk::host::{QUEUE_DIR, ZkHost};
use crate::recipes::zk::queue::decide::Flavor;
use crate::sim::node::Node;
use crate::sim::software::Hosts;
use crate::workload::queue::{self as workload, Role};
use std::rc::Rc;

#[derive(Debug)]
pub(super) struct ZkQueueProgram {
    pub(super) flavor: Flavor,
}

/// Each client's name and role: producers first, then consumers with their shares.
fn roles(p: &Params) -> Vec<(String, Role)> {
    let q = &p.queue;
    let producers = (1..=q.producers).map(|i| {
        let name = format!("p{i}");
        let items = workload::items_of(&name, q.items);
        (name, Role::Producer { items })
    });
    let total = q.producers * q.items;
    let consumers = (0..q.consumers).map(|i| {
        let takes = workload::share(total, q.consumers, i);
        (format!("c{}", i + 1), Role::Consumer { takes })
    });
    producers.chain(consumers).collect()
}

/// Round trips an item costs: an offer (multi, marker delete) and a take (list, read, multi,
/// marker delete), a few times over for the races consumers lose.
const TRIPS_PER_ITEM: u64 = 12;

fn per_item_ms(p: &Params) -> u64 {
    2 * TRIPS_PER_ITEM * p.network.slowest_link_ms() + p.zookeeper.zk_tick_ms
}

fn total_items(p: &Params) -> u64 {
    u64::from(p.queue.producers * p.queue.items)
}

impl Program for ZkQueueProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            Queue::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (flavor, params) = (self.flavor, params.clone());
        let roles = roles(&params);
        Hosts {
            servers: zk::servers(&params),
            clients: roles.iter().map(|(name, _)| name.clone()).collect(),
            pause_steps: workload::PAUSE_STEPS,
            wait_steps: &[],
            program: Rc::new(move |node| {
                let role = roles
                    .iter()
                    .find(|(name, _)| *name == node.name)
                    .map(|(_, role)| role.clone())
                    .expect("every client has a role");
                Box::pin(client(node, params.clone(), flavor, role))
            }),
        }
    }

    /// A session left by a client and any session lost to a fault take up to two timeouts
    /// to resolve; then every item left goes through the queue one after another.
    fn liveness_bound(&self, p: &Params) -> u64 {
        3 * p.zookeeper.session_timeout_ms + total_items(p) * per_item_ms(p)
    }

    /// After the fault phase, long enough for every item to go through and for one
    /// liveness bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        p.faults.fault_phase_ms
            + liveness_bound_ms
            + total_items(p) * per_item_ms(p)
            + p.zookeeper.session_timeout_ms
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate_latency(p)
    }
}

/// The software of client host `node`: the queue workload in `role`.
async fn client(node: Node, params: Params, flavor: Flavor, role: Role) {
    let host = ZkHost::new(&node, zk::zk_config(&node, &params));
    workload::run_client(&node, QUEUE_DIR, &role, async || host.queue(flavor).await).await;
}
