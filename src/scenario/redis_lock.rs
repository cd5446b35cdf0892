//! The Redis lock scenarios: masters redis1..redisN (one for the single-instance lock), the
//! store, and clients running the lock workload with one flavor of the recipe, or a lock of
//! the user's own.

use super::{Profile, Program};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Redis};
use crate::recipes::redis::decide::Flavor;
use crate::recipes::redis::lock::{RedisLock, RedisLockConfig};
use crate::recipes::{Lock, LockError};
use crate::redis::sim_host::RedisFamily;
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, ServerHost, steps};
use crate::store::StoreFamily;
use crate::workload::lock::{self as workload, Workload};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

/// The key every client contends for.
const KEY: &str = "locksim:lock";

/// A connect and a request take two round trips, four one-way latencies.
const ROUND_TRIPS_PER_REQUEST: u64 = 4;

/// The swarm's reach for the Redis locks: everything Kleppmann raised, or only what
/// Redlock's own argument allows. A profile sets parameters, fixed for a whole run, so what
/// survives a crash is one mode per run: the full profile keeps the worst (no persistence)
/// and `--set persistence=...` reaches the others.
pub(super) const PROFILES: &[Profile] = &[
    Profile {
        name: "full",
        summary: "every fault kind: client pauses shorter and longer than the TTL (up to \
                  twice it), clock jumps both ways and drift on masters and clients, \
                  crashes (restarting empty: persistence=none here; --set \
                  persistence=aof-everysec or aof-always for the other modes), partitions, \
                  delay, loss, lost replies of a SET (an acquire) or of the release \
                  script; failovers only with --set replica=true, as Redlock's masters \
                  have no replicas",
        settings: &["pause_max_ms=400"],
    },
    Profile {
        name: "own-assumptions",
        summary: "what Redlock's argument assumes away stays away: no clock jumps or \
                  failovers; pauses at most half the TTL, so a holder's remaining validity \
                  outlasts them; drift at most 0.5% per clock, so two clocks differ by no \
                  more than the 1% the drift allowance covers; fsync always (or --set \
                  persistence=none --set restart_delay_ms=200, the delayed restart)",
        settings: &[
            "faults=partition,loss,delay,crash,pause,clock_drift,lose_reply",
            "pause_max_ms=100",
            "clock_drift_max_ppm=5000",
            "persistence=aof-always",
        ],
    },
];

/// `redlock-novalidity`'s question: a quorum whose votes took longer than the TTL.
pub(super) const NO_VALIDITY_PROFILES: &[Profile] = &[
    Profile {
        name: "slow-votes",
        summary: "votes that take longer than the TTL, and nothing else: link delays up to \
                  twice the TTL, a per-node timeout above them (Redlock asks for one small \
                  against the TTL); redlock under the same settings turns such a late quorum \
                  down",
        settings: &[
            "faults=delay",
            "delay_max_ms=400",
            "request_timeout_ms=1000",
        ],
    },
    PROFILES[0],
    PROFILES[1],
];

/// `redlock-nounlock`'s question: contention alone, no faults.
pub(super) const NO_UNLOCK_PROFILES: &[Profile] = &[
    Profile {
        name: "contention",
        summary: "five clients contend for the lock and nothing fails",
        settings: &["faults=none"],
    },
    PROFILES[0],
    PROFILES[1],
];

/// `redlock-fixed-retry`'s question: clients whose attempts stay in step.
pub(super) const FIXED_RETRY_PROFILES: &[Profile] = &[
    Profile {
        name: "lockstep",
        summary: "three clients start together and nothing fails; no jitter: each \
                  client-master link has its own fixed latency (link_spread_ms), so masters \
                  are nearer some clients than others and a contended attempt can split the \
                  votes",
        settings: &[
            "faults=none",
            "latency_min_ms=1",
            "latency_max_ms=1",
            "link_spread_ms=3",
            "clients=3",
        ],
    },
    PROFILES[0],
    PROFILES[1],
];

/// Redis masters, a store, and clients running the lock workload: the built-in Redis locks
/// and a user's own lock (`RedisLockProgram::lock_workload`).
#[derive(Debug)]
pub struct RedisLockProgram {
    clients: LockClients,
    /// How many masters: a fixed number, or `redis_nodes` (Redlock).
    masters: Option<u32>,
    /// Its named profiles, the first its default.
    profiles: &'static [Profile],
}

/// What each client host runs, given the run's parameters and the lock's configuration.
type ClientFn = dyn Fn(Node, &Params, &RedisLockConfig) -> ClientFuture + Send + Sync;

/// The client software, named for `Debug`.
#[derive(Clone)]
struct LockClients {
    name: String,
    run: Arc<ClientFn>,
    /// Whether every wait of theirs goes through `Node::timer` (`Hosts::lazy_clients`).
    lazy: bool,
    /// The steps they reach (`Hosts::pause_steps`).
    steps: &'static [&'static str],
}

impl fmt::Debug for LockClients {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl RedisLockProgram {
    /// A built-in flavor of the recipe: over one master (`single`) or `redis_nodes`.
    pub(super) fn recipe(flavor: Flavor, single: bool, profiles: &'static [Profile]) -> Self {
        RedisLockProgram {
            clients: LockClients {
                name: format!("{flavor:?}"),
                run: Arc::new(move |node, p, config| {
                    Box::pin(client(node, p.clone(), config.clone(), flavor))
                }),
                lazy: true,
                steps: workload::PAUSE_STEPS,
            },
            masters: single.then_some(1),
            profiles,
        }
    }

    /// `masters` masters (`redis1`...) and the store, each client running the standard lock
    /// workload over the lock `connect` opens: called at the start and again whenever the
    /// lock says its session is gone. Profiles `full` and `own-assumptions`, as the
    /// built-in Redis locks have.
    pub fn lock_workload<L, F, Fut>(masters: u32, connect: F) -> RedisLockProgram
    where
        L: Lock + 'static,
        F: Fn(Node) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<L, LockError>> + 'static,
    {
        let connect = Arc::new(connect);
        RedisLockProgram {
            clients: LockClients {
                name: std::any::type_name::<L>().to_string(),
                run: Arc::new(move |node, p, _| {
                    let (connect, work) = (connect.clone(), workload_of(p));
                    Box::pin(async move {
                        workload::run_client(&node, &work, async || connect(node.clone()).await)
                            .await
                    })
                }),
                lazy: false,
                steps: workload::PAUSE_STEPS,
            },
            masters: Some(masters),
            profiles: PROFILES,
        }
    }

    /// `masters` masters and the store, each client running `program` once, recording
    /// events of its own for checkers of the user's own. Profiles `full` and
    /// `own-assumptions`, as the built-in Redis locks have.
    pub fn client_program<F, Fut>(masters: u32, program: F) -> RedisLockProgram
    where
        F: Fn(Node) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let program = Arc::new(program);
        RedisLockProgram {
            clients: LockClients {
                name: "a user's client program".to_string(),
                run: Arc::new(move |node, _, _| Box::pin(program(node))),
                lazy: false,
                // Only the steps the user declares (`Experiment::steps`): no workload.
                steps: &[],
            },
            masters: Some(masters),
            profiles: PROFILES,
        }
    }

    fn masters(&self, p: &Params) -> Vec<String> {
        let n = self.masters.unwrap_or(p.redis.redis_nodes);
        (1..=n).map(|i| format!("redis{i}")).collect()
    }
}

impl Program for RedisLockProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Workload::GROUP,
            Redis::GROUP,
        ]
    }

    fn hosts(&self, p: &Params) -> Hosts {
        let r = &p.redis;
        let family = Rc::new(RedisFamily {
            expiry_clock: r.expiry_clock,
            persistence: r.persistence(),
            restart_delay_ms: r.restart_delay_ms,
            replica_lag_ms: r.replica.then_some(r.replication_lag_ms),
        });
        let masters = self.masters(p);
        let mut servers: Vec<ServerHost> = masters
            .iter()
            .map(|name| ServerHost {
                name: name.clone(),
                family: family.clone(),
                swarmed: true,
            })
            .collect();
        servers.push(ServerHost {
            name: "store".into(),
            family: Rc::new(StoreFamily {
                fencing: p.workload.fencing,
            }),
            swarmed: false,
        });
        let config = RedisLockConfig {
            masters,
            key: KEY.into(),
            ttl_ms: r.ttl_ms,
            request_timeout_ms: r.request_timeout_ms,
            retry_delay_max_ms: r.retry_delay_max_ms,
            max_extensions: r.max_extensions,
        };
        let (clients, params) = (self.clients.run.clone(), p.clone());
        Hosts {
            servers,
            clients: p.client_names(),
            pause_steps: steps(self.clients.steps),
            wait_steps: Vec::new(),
            lazy_clients: self.clients.lazy,
            program: Rc::new(move |node| clients(node, &params, &config)),
        }
    }

    /// A holder that vanished keeps the lock for a TTL (plus a restart's delay); then every
    /// other client may hold it once before the waiter, each attempt costing a few round
    /// trips and at most one retry delay.
    fn liveness_bound(&self, p: &Params) -> u64 {
        let r = &p.redis;
        let attempt = 2 * ROUND_TRIPS_PER_REQUEST * p.network.slowest_link_ms()
            + 2 * r.request_timeout_ms
            + r.retry_delay_max_ms;
        2 * r.ttl_ms
            + r.restart_delay_ms
            + u64::from(p.workload.clients) * (p.workload.hold_ms + 2 * attempt)
    }

    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        let w = &p.workload;
        let per_round = w.hold_ms + 12 * p.network.slowest_link_ms() + p.redis.retry_delay_max_ms;
        p.faults.fault_phase_ms
            + liveness_bound_ms
            + u64::from(w.clients * w.rounds) * per_round
            + p.redis.ttl_ms
    }

    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        let (latency, timeout) = (p.network.slowest_link_ms(), p.redis.request_timeout_ms);
        if ROUND_TRIPS_PER_REQUEST * latency > 2 * timeout {
            return Err(ParamError::Invalid(format!(
                "{} is too long for request_timeout_ms={timeout}: a client connects and asks \
                 within two timeouts, four one-way latencies",
                p.network.slowest_link_text()
            )));
        }
        Ok(())
    }
}

/// The lock workload of a Redis lock scenario.
fn workload_of(params: &Params) -> Workload {
    Workload {
        lock_name: KEY.into(),
        mode: None,
        rounds: params.workload.rounds,
        hold_ms: params.workload.hold_ms,
        store_timeout_ms: params.redis.ttl_ms,
    }
}

/// The software of client host `node`: the lock workload over a Redis lock.
async fn client(node: Node, params: Params, config: RedisLockConfig, flavor: Flavor) {
    let rng = Rc::new(RefCell::new(node.rng()));
    let work = workload_of(&params);
    workload::run_client(&node, &work, async || {
        Ok(RedisLock::new(
            node.clone(),
            config.clone(),
            flavor,
            rng.clone(),
        ))
    })
    .await;
}
