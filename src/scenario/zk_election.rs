//! The ZooKeeper leader election scenarios: `zk1`, the store, and candidates that run the
//! election workload with one flavor of the recipe, or with a user's own election.

use super::{Profile, Program, UserClients, settings, zk};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Zookeeper};
use crate::recipes::zk::election::decide::Flavor;
use crate::recipes::zk::host::ELECTION_DIR;
use crate::recipes::{Election, RecipeError};
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, steps};
use crate::workload::election::{self as workload, Workload};
use crate::zk::client::ZkClient;
use std::rc::Rc;
use std::sync::Arc;

/// The election's two questions: does it hold under the faults a session survives, and
/// what do pauses past the session timeout do to it.
pub(super) const PROFILES: &[Profile] = &[
    Profile {
        name: "short-pauses",
        summary: "every fault kind, client pauses shorter than the session timeout (at most \
                  100 ms against 200 ms sessions), so a leader's session outlives them",
        settings: &["pause_max_ms=100"],
    },
    Profile {
        name: "long-pauses",
        summary: "every fault kind, client pauses up to three session timeouts: a leader \
                  paused past its session keeps believing it leads while the next one is \
                  elected (--set fencing=true and the store still refuses its stale writes)",
        settings: &["pause_max_ms=600"],
    },
];

/// For the flaws of a session given up: the short-pauses swarm on three servers first.
pub(super) const ENSEMBLE_PROFILES: &[Profile] = &[
    Profile {
        name: "ensemble",
        summary: "short-pauses on three servers",
        settings: &["pause_max_ms=100", "zk_servers=3"],
    },
    PROFILES[0],
    PROFILES[1],
];

/// `zk1`, the store, and candidates running the election workload over the ZooKeeper
/// election recipe (a flavor of it) or over a user's election
/// (`ZkElectionProgram::election_workload`).
#[derive(Debug)]
pub struct ZkElectionProgram {
    flavor: Flavor,
    profiles: &'static [Profile],
    /// A user's election, run in place of the recipe.
    user: Option<UserClients>,
}

impl ZkElectionProgram {
    /// The built-in recipe of `flavor`.
    pub(super) const fn recipe(flavor: Flavor) -> ZkElectionProgram {
        ZkElectionProgram::profiled(flavor, PROFILES)
    }

    /// The built-in recipe of `flavor` with named profiles, the first the default.
    pub(super) const fn profiled(
        flavor: Flavor,
        profiles: &'static [Profile],
    ) -> ZkElectionProgram {
        ZkElectionProgram {
            flavor,
            profiles,
            user: None,
        }
    }

    /// Each client runs the standard election workload over the candidate `connect` binds
    /// to a new session with `zk1` (the election directory `ELECTION_DIR` exists by then):
    /// called at the start and again whenever the election reports its session gone. The
    /// profiles of the built-in election (`short-pauses`, `long-pauses`).
    pub fn election_workload<E, F, Fut>(connect: F) -> ZkElectionProgram
    where
        E: Election + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<E, RecipeError>> + 'static,
    {
        let connect = Arc::new(connect);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (connect, params) = (connect.clone(), params.clone());
            Box::pin(async move {
                let host = zk::zk_host(&node, &params);
                workload::run_client(&node, &workload_of(&params), async || {
                    let client = zk::session_in(&host, ELECTION_DIR).await?;
                    connect(node.clone(), client).await
                })
                .await
            })
        };
        ZkElectionProgram {
            user: Some(UserClients::new(run)),
            ..ZkElectionProgram::recipe(Flavor::Recipe)
        }
    }
}

impl Program for ZkElectionProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Workload::GROUP,
            params::Election::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (flavor, params) = (self.flavor, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: params.client_names(),
            pause_steps: steps(workload::PAUSE_STEPS),
            wait_steps: Vec::new(),
            lazy_clients: self.user.is_none(),
            program: match self.user.clone() {
                Some(UserClients(run)) => Rc::new(move |node| run(node, &params)),
                None => Rc::new(move |node| Box::pin(client(node, params.clone(), flavor))),
            },
        }
    }

    /// The longest a running candidate may see no leader after the heal: a dead leader's
    /// session and a dead predecessor's can take two timeouts to resolve, then every
    /// other candidate may lead once before it (with a few round trips each).
    fn liveness_bound(&self, p: &Params) -> u64 {
        let per_term = p.workload.hold_ms + 12 * zk::leg_ms(p) + 2 * p.zookeeper.zk_tick_ms;
        3 * p.zookeeper.session_timeout_ms
            + u64::from(p.workload.clients) * per_term
            + zk::ensemble_recovery_ms(p)
    }

    /// After the fault phase, long enough for every remaining term to complete and for one
    /// liveness bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        let work = u64::from(p.workload.clients * p.election.terms)
            * (p.workload.hold_ms + 12 * zk::leg_ms(p));
        p.faults.fault_phase_ms + liveness_bound_ms + work + p.zookeeper.session_timeout_ms
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate(p)
    }

    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }
}

/// The election workload's settings, from the scenario's parameters.
fn workload_of(params: &Params) -> Workload {
    settings::election(params, ELECTION_DIR, params.zookeeper.session_timeout_ms)
}

/// The software of client host `node`: the election workload over a candidate of `flavor`.
async fn client(node: Node, params: Params, flavor: Flavor) {
    let host = zk::zk_host(&node, &params);
    workload::run_client(&node, &workload_of(&params), async || {
        host.candidate(flavor).await
    })
    .await;
}
