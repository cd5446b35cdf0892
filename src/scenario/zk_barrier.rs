//! The ZooKeeper barrier scenarios: `zk1`, the store (which nobody uses), and clients that
//! run the barrier workload over the barrier (c1 coordinates) or the double barrier, or
//! over a user's own.

use super::{Profile, Program, UserClients, settings, zk};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Zookeeper};
use crate::recipes::zk::barrier::{self, BarrierError, ZkBarrier};
use crate::recipes::zk::double_barrier::{self, ZkDoubleBarrier};
use crate::recipes::{Barrier, DoubleBarrier, RecipeError};
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, steps};
use crate::workload::barrier::{PAUSE_STEPS, run_barrier, run_double_barrier};
use crate::zk::client::ZkClient;
use std::rc::Rc;
use std::sync::Arc;

/// Which barrier the clients run.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// The barrier, coordinated by c1.
    Single(barrier::Flavor),
    Double(double_barrier::Flavor),
}

/// `zk1`, the store, and clients running the barrier workload over the ZooKeeper barrier or
/// double barrier (a flavor of either), or over a user's own
/// (`ZkBarrierProgram::barrier_workload`, `ZkBarrierProgram::double_barrier_workload`).
#[derive(Debug, Clone)]
pub struct ZkBarrierProgram {
    kind: Kind,
    /// Its named profiles, the first the default.
    profiles: &'static [Profile],
    /// A user's barrier, run in place of the recipe.
    user: Option<UserClients>,
}

/// The swarm on three servers with short sessions and long client partitions: a session
/// can expire at a leader about to lose its quorum, whose close never commits, so the next
/// leader tracks the session anew and its nodes outlive what its client was told (Z17).
const CLOSING: Profile = Profile {
    name: "closing",
    summary: "three servers, 100 ms sessions, client partitions up to 300 ms: a session told expired by a leader losing its quorum keeps its nodes until the next leader expires it",
    settings: &[
        "zk_servers=3",
        "follower_lag_ms=50",
        "session_timeout_ms=100",
        "partition_max_ms=300",
    ],
};

/// The swarm on the parameters' defaults (one server).
const DEFAULT: Profile = Profile {
    name: "default",
    summary: "the swarm on one server",
    settings: &[],
};

/// The double barrier's profiles: the swarm on one server first.
pub(super) const DOUBLE_PROFILES: &[Profile] = &[DEFAULT, CLOSING];

/// For a flaw only a session outliving its client's word reaches: `closing` first.
pub(super) const CLOSING_PROFILES: &[Profile] = &[CLOSING, DEFAULT];

impl ZkBarrierProgram {
    /// The built-in barrier of `flavor`.
    pub(super) const fn single(flavor: barrier::Flavor) -> ZkBarrierProgram {
        ZkBarrierProgram {
            kind: Kind::Single(flavor),
            profiles: &[],
            user: None,
        }
    }

    /// The built-in double barrier of `flavor`, with named profiles, the first the default.
    pub(super) const fn double(
        flavor: double_barrier::Flavor,
        profiles: &'static [Profile],
    ) -> ZkBarrierProgram {
        ZkBarrierProgram {
            kind: Kind::Double(flavor),
            profiles,
            user: None,
        }
    }

    /// Each client runs the barrier workload (`rounds` rounds, a barrier each, waiting for
    /// every client) over the barrier `connect` binds to a new session with `zk1` (its
    /// directory `BARRIER_DIR` exists by then; the history names round `r`'s barrier
    /// `BARRIER_DIR/r{r}`): called at the start and again whenever the barrier reports its
    /// session gone.
    pub fn barrier_workload<B, F, Fut>(connect: F) -> ZkBarrierProgram
    where
        B: Barrier + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<B, RecipeError>> + 'static,
    {
        let connect = Arc::new(connect);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (connect, params) = (connect.clone(), params.clone());
            Box::pin(async move {
                let host = zk::zk_host(&node, &params);
                let work = settings::barrier(&params, barrier::ROOT);
                run_barrier(&node, &work, async || {
                    let client = zk::session_in(&host, barrier::ROOT).await?;
                    connect(node.clone(), client).await
                })
                .await
            })
        };
        ZkBarrierProgram {
            user: Some(UserClients::new(run)),
            ..ZkBarrierProgram::single(barrier::Flavor::Recipe)
        }
    }

    /// As `barrier_workload`, over a double barrier: each client enters, works and leaves
    /// each round; its directory is `DOUBLE_BARRIER_DIR`.
    pub fn double_barrier_workload<D, F, Fut>(connect: F) -> ZkBarrierProgram
    where
        D: DoubleBarrier + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<D, RecipeError>> + 'static,
    {
        let connect = Arc::new(connect);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (connect, params) = (connect.clone(), params.clone());
            Box::pin(async move {
                let host = zk::zk_host(&node, &params);
                let work = settings::barrier(&params, double_barrier::ROOT);
                run_double_barrier(&node, &work, async || {
                    let client = zk::session_in(&host, double_barrier::ROOT).await?;
                    connect(node.clone(), client).await
                })
                .await
            })
        };
        ZkBarrierProgram {
            user: Some(UserClients::new(run)),
            ..ZkBarrierProgram::double(double_barrier::Flavor::Recipe, &[])
        }
    }

    /// One round at worst once healed: the spread of arrivals, the work, and a few round
    /// trips for each of enter and leave (create, list, watch, wake, delete) and ticks.
    fn round_ms(p: &Params) -> u64 {
        p.barrier.arrive_max_ms
            + p.workload.hold_ms
            + 16 * zk::leg_ms(p)
            + 2 * p.zookeeper.zk_tick_ms
    }
}

impl Program for ZkBarrierProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Workload::GROUP,
            params::Barrier::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (kind, params) = (self.kind, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: params.client_names(),
            pause_steps: steps(PAUSE_STEPS),
            wait_steps: Vec::new(),
            lazy_clients: self.user.is_none(),
            program: match self.user.clone() {
                Some(UserClients(run)) => Rc::new(move |node| run(node, &params)),
                None => Rc::new(move |node| Box::pin(client(node, params.clone(), kind))),
            },
        }
    }

    /// A process waits for the slowest: its session and the slowest's may each take a
    /// timeout to resolve, the slowest may still be finishing the round before, then the
    /// round itself; before the first round, for c1 to create every round's nodes.
    fn liveness_bound(&self, p: &Params) -> u64 {
        3 * p.zookeeper.session_timeout_ms
            + 2 * Self::round_ms(p)
            + zk::ensemble_recovery_ms(p)
            + zk::ensemble_writes_ms(p, setup_writes(self.kind, p))
    }

    /// After the fault phase, long enough for every round to complete and for one liveness
    /// bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        p.faults.fault_phase_ms
            + liveness_bound_ms
            + u64::from(p.workload.rounds) * Self::round_ms(p)
            + p.zookeeper.session_timeout_ms
    }

    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate(p)
    }
}

/// The creates of c1's setup for the single barrier: each round's barrier node and arrivals
/// directory with their parents, then `armed` with its parents. The double barrier has none.
fn setup_writes(kind: Kind, p: &Params) -> u64 {
    match kind {
        Kind::Single(_) => 6 * u64::from(p.workload.rounds) + 3,
        Kind::Double(_) => 0,
    }
}

/// The software of client host `node`: the barrier workload over the built-in barrier of
/// `kind`.
async fn client(node: Node, params: Params, kind: Kind) {
    let host = zk::zk_host(&node, &params);
    let session = async || {
        host.session()
            .await
            .map_err(|e| RecipeError::from(BarrierError::from(e)))
    };
    match kind {
        Kind::Single(flavor) => {
            let work = settings::barrier(&params, barrier::ROOT);
            let coordinator = params.client_names().first() == Some(&node.name);
            run_barrier(&node, &work, async || {
                let client = session().await?;
                let made =
                    ZkBarrier::new(client, &node, flavor, coordinator, work.count, work.rounds);
                Ok(made.await?)
            })
            .await
        }
        Kind::Double(flavor) => {
            let work = settings::barrier(&params, double_barrier::ROOT);
            run_double_barrier(&node, &work, async || {
                Ok(ZkDoubleBarrier::new(
                    session().await?,
                    &node,
                    flavor,
                    work.count,
                ))
            })
            .await
        }
    }
}
