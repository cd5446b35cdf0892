//! The ZooKeeper counter scenarios: clients that add one to a shared counter znode a round at
//! a time (Curator's `DistributedAtomicLong`), judged by what each session reads of it: with
//! one server nothing can go back; on an ensemble, only a client that resumes its session
//! with a wrong last-seen zxid reads the past (Z16).

use super::{Profile, Program, zk};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Zookeeper};
use crate::recipes::zk::counter::ZkCounter;
use crate::sim::node::Node;
use crate::sim::software::Hosts;
use crate::workload::counter as workload;
use crate::zk::client::{ResumeZxid, ZkConfig};
use std::rc::Rc;

/// Clients on the ZooKeeper servers adding to the counter, resuming their sessions with the
/// last-seen zxid a `ResumeZxid` says.
#[derive(Debug)]
pub struct ZkCounterProgram {
    resume: ResumeZxid,
    profiles: &'static [Profile],
}

/// The swarm on three servers whose followers apply up to 50 ms behind the leader: a client
/// that moves lands, now and then, on a server behind what it has seen.
pub(super) const LAGGING_PROFILES: &[Profile] = &[
    Profile {
        name: "lagging",
        summary: "the swarm on three servers whose followers apply up to 50 ms behind the leader",
        settings: &["zk_servers=3", "follower_lag_ms=50"],
    },
    Profile {
        name: "one-server",
        summary: "the swarm on one server, where no read can go back",
        settings: &["zk_servers=1"],
    },
];

impl ZkCounterProgram {
    /// Clients whose reconnects send `resume`, under `profiles`, the first the default.
    pub(super) const fn new(resume: ResumeZxid, profiles: &'static [Profile]) -> Self {
        ZkCounterProgram { resume, profiles }
    }

    /// A round at worst once healed: the work and a few round trips (read, conditional
    /// write, lost races read again) and ticks.
    fn round_ms(p: &Params) -> u64 {
        p.workload.hold_ms + 8 * zk::leg_ms(p) + 2 * p.zookeeper.zk_tick_ms
    }
}

impl Program for ZkCounterProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Workload::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (resume, params) = (self.resume, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: params.client_names(),
            pause_steps: Vec::new(),
            wait_steps: Vec::new(),
            lazy_clients: true,
            program: Rc::new(move |node| Box::pin(client(node, params.clone(), resume))),
        }
    }

    /// A client's session may take two timeouts to resolve (and a new one another to open),
    /// then the clients' rounds go one after another at worst.
    fn liveness_bound(&self, p: &Params) -> u64 {
        3 * p.zookeeper.session_timeout_ms
            + u64::from(p.workload.clients) * Self::round_ms(p)
            + zk::ensemble_recovery_ms(p)
    }

    /// After the fault phase, long enough for every round left and for one liveness bound.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        let work = u64::from(p.workload.clients * p.workload.rounds) * Self::round_ms(p);
        p.faults.fault_phase_ms + liveness_bound_ms + work + p.zookeeper.session_timeout_ms
    }

    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate(p)
    }
}

/// The software of client host `node`: the counter workload on sessions that resume with
/// `resume`.
async fn client(node: Node, params: Params, resume: ResumeZxid) {
    let config = ZkConfig {
        resume_zxid: resume,
        ..zk::zk_config(&node, &params)
    };
    let host = zk::zk_host_with(&node, &params, config);
    let (rounds, hold_ms) = (params.workload.rounds, params.workload.hold_ms);
    workload::run_client(&node, rounds, hold_ms, async || {
        let client = host.session().await?;
        ZkCounter::new(client, &node).await
    })
    .await;
}
