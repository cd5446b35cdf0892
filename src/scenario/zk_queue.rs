//! The ZooKeeper queue scenarios: `zk1`, and producers p1..pP and consumers c1..cC that run
//! the queue workload with one flavor of the recipe, or with a user's own queue.

use super::{Program, UserClients, settings, zk};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Zookeeper};
use crate::recipes::zk::host::QUEUE_DIR;
use crate::recipes::zk::queue::decide::Flavor;
use crate::recipes::{Queue, RecipeError};
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, steps};
use crate::workload::queue::{self as workload, Role};
use crate::zk::client::ZkClient;
use std::rc::Rc;
use std::sync::Arc;

/// `zk1`, and producers and consumers running the queue workload over the ZooKeeper queue
/// recipe (a flavor of it) or over a user's queue (`ZkQueueProgram::queue_workload`).
#[derive(Debug)]
pub struct ZkQueueProgram {
    flavor: Flavor,
    /// A user's queue, run in place of the recipe.
    user: Option<UserClients>,
}

impl ZkQueueProgram {
    /// The built-in recipe of `flavor`.
    pub(super) const fn recipe(flavor: Flavor) -> ZkQueueProgram {
        ZkQueueProgram { flavor, user: None }
    }

    /// Producers `p1..pP` and consumers `c1..cC` run the standard queue workload over the
    /// queue `connect` binds to a new session with `zk1` (the queue directory `QUEUE_DIR`
    /// exists by then): called at the start and again whenever the queue reports its
    /// session gone.
    pub fn queue_workload<Q, F, Fut>(connect: F) -> ZkQueueProgram
    where
        Q: Queue + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Q, RecipeError>> + 'static,
    {
        let connect = Arc::new(connect);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (connect, params) = (connect.clone(), params.clone());
            Box::pin(async move {
                let role = settings::queue_role_of(&node, &params);
                let host = zk::zk_host(&node, &params);
                workload::run_client(&node, QUEUE_DIR, &role, async || {
                    let client = zk::session_in(&host, QUEUE_DIR).await?;
                    connect(node.clone(), client).await
                })
                .await
            })
        };
        ZkQueueProgram {
            user: Some(UserClients::new(run)),
            ..ZkQueueProgram::recipe(Flavor::Recipe)
        }
    }
}

/// Round trips an item costs: an offer (multi, marker delete) and a take (list, read, multi,
/// marker delete), a few times over for the races consumers lose.
const TRIPS_PER_ITEM: u64 = 12;

fn per_item_ms(p: &Params) -> u64 {
    2 * TRIPS_PER_ITEM * zk::leg_ms(p) + p.zookeeper.zk_tick_ms
}

impl Program for ZkQueueProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Queue::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (flavor, params) = (self.flavor, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: settings::queue_clients(&params),
            pause_steps: steps(workload::PAUSE_STEPS),
            wait_steps: Vec::new(),
            lazy_clients: self.user.is_none(),
            program: match self.user.clone() {
                Some(UserClients(run)) => Rc::new(move |node| run(node, &params)),
                None => Rc::new(move |node| {
                    let role = settings::queue_role_of(&node, &params);
                    Box::pin(client(node, params.clone(), flavor, role))
                }),
            },
        }
    }

    /// A session left by a client and any session lost to a fault take up to two timeouts
    /// to resolve; then every item left goes through the queue one after another.
    fn liveness_bound(&self, p: &Params) -> u64 {
        3 * p.zookeeper.session_timeout_ms
            + settings::queue_items(p) * per_item_ms(p)
            + zk::ensemble_recovery_ms(p)
    }

    /// After the fault phase, long enough for every item to go through and for one
    /// liveness bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        p.faults.fault_phase_ms
            + liveness_bound_ms
            + settings::queue_items(p) * per_item_ms(p)
            + p.zookeeper.session_timeout_ms
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate(p)
    }
}

/// The software of client host `node`: the queue workload in `role`.
async fn client(node: Node, params: Params, flavor: Flavor, role: Role) {
    let host = zk::zk_host(&node, &params);
    workload::run_client(&node, QUEUE_DIR, &role, async || {
        Ok(host.queue(flavor).await?)
    })
    .await;
}
