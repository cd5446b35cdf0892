//! The ZooKeeper lock scenarios: `zk1`, the store, and clients that run the lock workload
//! with one flavor of the recipe, the exclusive lock's or the shared lock's, or a lock of
//! the user's own.

use super::{Profile, Program, UserClients, zk};
use crate::history::LockMode;
use crate::params::{self, Faults, Group, Network, ParamError, Params, SharedLock, Zookeeper};
use crate::recipes::zk::host::LOCK_DIR;
use crate::recipes::zk::lock::Flavor;
use crate::recipes::zk::lock::decide::Contender;
use crate::recipes::zk::rwlock;
use crate::recipes::{Lock, LockError};
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, steps};
use crate::workload::lock::{self as workload, Workload};
use crate::workload::reconnect;
use crate::zk::client::ZkClient;
use std::rc::Rc;
use std::sync::Arc;

/// `zk1`, the store, and clients running the lock workload over the ZooKeeper lock recipe
/// (a flavor of it) or over a user's lock (`ZkLockProgram::lock_workload`).
#[derive(Debug)]
pub struct ZkLockProgram {
    flavor: Flavor,
    /// The shared lock's flavor, for a read/write lock scenario (clients c1..cW write, the
    /// others read); None for the exclusive lock.
    shared: Option<rwlock::Flavor>,
    profiles: &'static [Profile],
    /// A user's lock, run in place of the recipe.
    user: Option<UserClients>,
    /// The steps its clients reach (`Hosts::pause_steps`), and of those the ones only a
    /// waiter reaches (`Hosts::wait_steps`).
    steps: (&'static [&'static str], &'static [&'static str]),
}

/// The swarm with targeted faults: pauses aimed at a holder, a waiter or a waiter's
/// predecessor when a client enqueues, acquires, is woken or reaches a step, in place of
/// untargeted pauses (which could add up with them past a session). Holders work
/// longer than a session's ping interval, so a line stays long enough for a waiter paused
/// past its session to vanish from the middle of it.
const TARGETED: &[&str] = &[
    "faults=partition,loss,delay,crash,clock_jump,clock_drift,lose_reply",
    "targeted_max=3",
    "targeted_pause_max_ms=300",
    "clients=4",
    "rounds=3",
    "hold_ms=150",
];

/// The targeted swarm with shorter holds, so a holder reaches the head of the line within
/// a session timeout of its create.
const TARGETED_SHORT: &[&str] = &[
    "faults=partition,loss,delay,crash,clock_jump,clock_drift,lose_reply",
    "targeted_max=3",
    "targeted_pause_max_ms=300",
    "clients=4",
    "rounds=3",
    "hold_ms=60",
];

/// For a flaw only an ensemble has: three servers whose followers apply up to 50 ms late.
const LAGGING: &[&str] = &["zk_servers=3", "follower_lag_ms=50"];

/// The exclusive lock's profiles: the default swarm first, then the targeted ones.
pub(super) const PROFILES: &[Profile] = &[
    Profile {
        name: "default",
        summary: "the swarm without targeted faults",
        settings: &[],
    },
    Profile {
        name: "targeted",
        summary: "targeted pauses instead of untargeted ones (a waiter behind another up to 300 ms, past its session), 4 clients holding 150 ms",
        settings: TARGETED,
    },
    Profile {
        name: "targeted-short",
        summary: "the targeted profile with 60 ms holds",
        settings: TARGETED_SHORT,
    },
];

/// For a flaw only a lagging follower reaches: the swarm on a lagging ensemble first.
pub(super) const LAGGING_PROFILES: &[Profile] = &[
    Profile {
        name: "lagging",
        summary: "the swarm on three servers whose followers apply up to 50 ms behind the leader",
        settings: LAGGING,
    },
    PROFILES[0],
    PROFILES[1],
    PROFILES[2],
];

/// For a flaw only targeted faults reach: the targeted swarm first.
pub(super) const TARGETED_PROFILES: &[Profile] = &[PROFILES[1], PROFILES[2], PROFILES[0]];

/// For a flaw whose adopted node must reach the head of the line before its session ends:
/// short holds first.
pub(super) const SHORT_PROFILES: &[Profile] = &[PROFILES[2], PROFILES[1], PROFILES[0]];

impl ZkLockProgram {
    pub(super) const fn exclusive(flavor: Flavor) -> ZkLockProgram {
        ZkLockProgram::profiled(flavor, &[])
    }

    /// The exclusive lock with named profiles, the first the default.
    pub(super) const fn profiled(flavor: Flavor, profiles: &'static [Profile]) -> ZkLockProgram {
        ZkLockProgram {
            flavor,
            shared: None,
            profiles,
            user: None,
            steps: (STEPS, WAIT_STEPS),
        }
    }

    /// Each client runs the standard lock workload over the lock `connect` binds to a new
    /// session with `zk1` (the lock directory `LOCK_DIR` exists by then): called at the
    /// start and again whenever the lock reports its session gone. The profiles of the
    /// built-in lock (`default`, `targeted`, `targeted-short`).
    pub fn lock_workload<L, F, Fut>(connect: F) -> ZkLockProgram
    where
        L: Lock + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<L, LockError>> + 'static,
    {
        let connect = Arc::new(connect);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (connect, params) = (connect.clone(), params.clone());
            Box::pin(async move {
                let host = zk::zk_host(&node, &params);
                let work = workload_of(&params, None);
                workload::run_client(&node, &work, async || {
                    let client = zk::session_in(&host, LOCK_DIR).await?;
                    connect(node.clone(), client).await
                })
                .await
            })
        };
        ZkLockProgram {
            user: Some(UserClients::new(run)),
            steps: (workload::PAUSE_STEPS, &[]),
            ..ZkLockProgram::profiled(Flavor::Recipe, PROFILES)
        }
    }

    /// Each client runs `program` once, on a session with `zk1` opened for it (and none
    /// again: the program handles its session's end itself), recording events of its own
    /// for checkers of the user's own. The lock's parameters, profiles and bounds.
    pub fn client_program<F, Fut>(program: F) -> ZkLockProgram
    where
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let program = Arc::new(program);
        let run = move |node: Node, params: &Params| -> ClientFuture {
            let (program, params) = (program.clone(), params.clone());
            Box::pin(async move {
                let host = zk::zk_host(&node, &params);
                let client = reconnect(&node, &mut async || host.session().await).await;
                program(node.clone(), client).await
            })
        };
        // Only the steps the user declares (`Experiment::steps`): there is no workload.
        ZkLockProgram {
            user: Some(UserClients::new(run)),
            steps: (&[], &[]),
            ..ZkLockProgram::profiled(Flavor::Recipe, PROFILES)
        }
    }

    pub(super) const fn shared(flavor: rwlock::Flavor) -> ZkLockProgram {
        ZkLockProgram {
            flavor: Flavor::Recipe,
            shared: Some(flavor),
            profiles: &[],
            user: None,
            steps: (STEPS, WAIT_STEPS),
        }
    }
}

/// The steps a fault can aim at: the workload's, then the lock recipe's.
const STEPS: &[&str] = &["write", "release", "exists"];

/// The step only a waiter reaches: the recipe's look at its predecessor.
const WAIT_STEPS: &[&str] = &["exists"];

/// How client `name` (c1..cN) queues: under a shared lock of `shared`'s flavor, c1..cW as
/// writers and the others as readers.
fn contender(shared: Option<rwlock::Flavor>, name: &str, params: &Params) -> Contender {
    let Some(flavor) = shared else {
        return Contender::Exclusive;
    };
    let index: u32 = name.trim_start_matches('c').parse().unwrap_or(u32::MAX);
    let mode = if index <= params.shared_lock.writers {
        LockMode::Write
    } else {
        LockMode::Read
    };
    Contender::Shared(mode, flavor)
}

/// The counter-wrap control's one question: what happens once the counter wraps.
pub(super) const WRAP_PROFILES: &[Profile] = &[Profile {
    name: "wrap",
    summary: "every sequence counter starts 7 short of 2147483647, so it wraps to negative \
              numbers early in the run (with no faults needed)",
    settings: &["seq_start=2147483640"],
}];

impl Program for ZkLockProgram {
    fn param_groups(&self) -> &'static [Group] {
        match self.shared {
            None => &[
                Network::GROUP,
                Faults::GROUP,
                params::Workload::GROUP,
                Zookeeper::GROUP,
            ],
            Some(_) => &[
                Network::GROUP,
                Faults::GROUP,
                params::Workload::GROUP,
                SharedLock::GROUP,
                Zookeeper::GROUP,
            ],
        }
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (flavor, shared, params) = (self.flavor, self.shared, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: params.client_names(),
            pause_steps: steps(self.steps.0),
            wait_steps: steps(self.steps.1),
            lazy_clients: self.user.is_none(),
            program: match self.user.clone() {
                Some(UserClients(run)) => Rc::new(move |node| run(node, &params)),
                None => Rc::new(move |node| {
                    let contender = contender(shared, &node.name, &params);
                    Box::pin(client(node, params.clone(), flavor, contender))
                }),
            },
        }
    }

    /// A wanting client's session and any orphaned predecessor's session can take two
    /// timeouts to resolve, then every other client may hold the lock once before it (with
    /// a few round trips each).
    fn liveness_bound(&self, p: &Params) -> u64 {
        let per_holder = p.workload.hold_ms + 12 * zk::leg_ms(p) + 2 * p.zookeeper.zk_tick_ms;
        3 * p.zookeeper.session_timeout_ms
            + u64::from(p.workload.clients) * per_holder
            + zk::ensemble_recovery_ms(p)
    }

    /// After the fault phase, long enough for every remaining round to complete and for one
    /// liveness bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        let work = u64::from(p.workload.clients * p.workload.rounds)
            * (p.workload.hold_ms + 12 * zk::leg_ms(p));
        p.faults.fault_phase_ms + liveness_bound_ms + work + p.zookeeper.session_timeout_ms
    }

    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if self.shared.is_some() && p.shared_lock.writers > p.workload.clients {
            return Err(ParamError::Invalid(format!(
                "writers={} is more than clients={}",
                p.shared_lock.writers, p.workload.clients
            )));
        }
        zk::validate(p)
    }
}

/// The software of client host `node`: the lock workload over a ZooKeeper lock, queuing as
/// `contender`.
async fn client(node: Node, params: Params, flavor: Flavor, contender: Contender) {
    let host = zk::zk_host(&node, &params);
    let work = workload_of(&params, contender.mode());
    workload::run_client(&node, &work, async || host.lock(flavor, contender).await).await;
}

/// The lock workload of a ZooKeeper lock scenario, for a client queuing for `mode`.
fn workload_of(params: &Params, mode: Option<LockMode>) -> Workload {
    Workload {
        lock_name: LOCK_DIR.into(),
        mode,
        rounds: params.workload.rounds,
        hold_ms: params.workload.hold_ms,
        store_timeout_ms: params.zookeeper.session_timeout_ms,
    }
}
