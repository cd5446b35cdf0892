//! What every Redis scenario runs: masters redis1..redisN (one for the single-instance
//! lock), the store, and clients running one workload: the lock workload over a flavor of
//! locksim's Redis lock (`redis_lock`), or a user's lock, election, queue, barrier, double
//! barrier or program. The workload decides the client hosts, the steps a pause can aim at
//! and the bounds a run is judged by; the hosts and profiles are the Redis family's.

use super::{Profile, Program, UserClients, redis_lock, settings};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Redis};
use crate::recipes::redis::decide::Flavor;
use crate::recipes::redis::lock::RedisLockConfig;
use crate::recipes::{Barrier, DoubleBarrier, Election, Lock, Queue, RecipeError};
use crate::redis::sim_host::RedisFamily;
use crate::sim::node::Node;
use crate::sim::software::{ClientFuture, Hosts, ServerHost, steps};
use crate::store::StoreFamily;
use crate::workload::{barrier, election, lock, queue};
use std::rc::Rc;
use std::sync::Arc;

/// A connect and a request take two round trips, four one-way latencies.
const ROUND_TRIPS_PER_REQUEST: u64 = 4;

/// How the history names what a user's recipe works on: Redis keys of the user's choosing
/// are not the harness's to know.
const ELECTION: &str = "locksim:election";
const QUEUE: &str = "locksim:queue";
const BARRIER: &str = "locksim:barrier";
const DOUBLE_BARRIER: &str = "locksim:double-barrier";

/// What opens a user's recipe for a Redis client host: `connect` of `RedisHosts`'
/// workloads, any `Fn(Node)` returning a future of the recipe (a closure, an async fn). It
/// is called when the client starts and again whenever the recipe reports its session gone.
///
/// ```
/// # use locksim::{Grant, Lock, LockError, Node};
/// # struct MyLock;
/// # impl Lock for MyLock {
/// #     async fn acquire(&mut self) -> Result<Grant, LockError> { Ok(Grant::default()) }
/// #     async fn release(&mut self) -> Result<(), LockError> { Ok(()) }
/// # }
/// async fn connect(node: Node) -> Result<MyLock, LockError> {
///     let _conn = locksim::redis::rs::connect(&node, "redis1").await?;
///     Ok(MyLock)
/// }
/// let _ = locksim::Scenario::redis(1).lock_workload(connect);
/// ```
pub trait RedisConnect<T>:
    Fn(Node) -> <Self as RedisConnect<T>>::Opening + Send + Sync + 'static
{
    /// The future of the recipe.
    type Opening: Future<Output = Result<T, RecipeError>> + 'static;
}

impl<T, F, Fut> RedisConnect<T> for F
where
    F: Fn(Node) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, RecipeError>> + 'static,
{
    type Opening = Fut;
}

/// Redis masters, a store, and clients running a workload over locksim's Redis lock or a
/// user's recipe: `RedisProgram::lock_workload`, `election_workload`, `queue_workload`,
/// `barrier_workload`, `double_barrier_workload`, or a whole program of the user's own
/// (`client_program`). Profiles `full` and `own-assumptions`, as the built-in Redis locks
/// have.
#[derive(Debug)]
pub struct RedisProgram {
    clients: Clients,
    workload: Workload,
    /// How many masters: a fixed number, or `redis_nodes` (Redlock).
    masters: Option<u32>,
    /// Its named profiles, the first its default.
    profiles: &'static [Profile],
}

/// Whose software the clients run.
#[derive(Debug, Clone)]
enum Clients {
    /// locksim's Redis lock of this flavor.
    Recipe(Flavor),
    /// A user's recipe or program.
    User(UserClients),
}

/// The workload the clients run: it decides who the clients are, where a pause can strike,
/// and how long a run may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workload {
    /// The lock workload.
    Lock,
    /// A user's whole program: the lock's parameters and bounds, and only the steps the
    /// user declares (`Experiment::steps`).
    Program,
    Election,
    Queue,
    Barrier,
    DoubleBarrier,
}

impl RedisProgram {
    /// A built-in flavor of the Redis lock: over one master (`single`) or `redis_nodes`.
    pub(super) fn recipe(flavor: Flavor, single: bool, profiles: &'static [Profile]) -> Self {
        RedisProgram {
            clients: Clients::Recipe(flavor),
            workload: Workload::Lock,
            masters: single.then_some(1),
            profiles,
        }
    }

    /// `masters` masters running a user's clients under `workload`.
    fn user(
        masters: u32,
        workload: Workload,
        run: impl Fn(Node, &Params) -> ClientFuture + Send + Sync + 'static,
    ) -> RedisProgram {
        RedisProgram {
            clients: Clients::User(UserClients::new(run)),
            workload,
            masters: Some(masters),
            profiles: redis_lock::PROFILES,
        }
    }

    /// `masters` masters (`redis1`...) and the store, each client running the standard lock
    /// workload over the lock `connect` opens: called at the start and again whenever the
    /// lock says its session is gone.
    pub fn lock_workload<L: Lock + 'static>(
        masters: u32,
        connect: impl RedisConnect<L>,
    ) -> RedisProgram {
        let connect = Arc::new(connect);
        RedisProgram::user(masters, Workload::Lock, move |node, p| {
            let (connect, work) = (connect.clone(), redis_lock::workload_of(p));
            Box::pin(async move {
                lock::run_client(&node, &work, async || connect(node.clone()).await).await
            })
        })
    }

    /// `masters` masters and the store, each client running the standard election workload
    /// (`terms` terms) over the candidate `connect` opens, as `lock_workload` calls it.
    pub fn election_workload<E: Election + 'static>(
        masters: u32,
        connect: impl RedisConnect<E>,
    ) -> RedisProgram {
        let connect = Arc::new(connect);
        RedisProgram::user(masters, Workload::Election, move |node, p| {
            let connect = connect.clone();
            let work = settings::election(p, ELECTION, p.redis.ttl_ms);
            Box::pin(async move {
                election::run_client(&node, &work, async || connect(node.clone()).await).await
            })
        })
    }

    /// `masters` masters, producers `p1..pP` and consumers `c1..cC` running the standard
    /// queue workload over the queue `connect` opens, as `lock_workload` calls it.
    pub fn queue_workload<Q: Queue + 'static>(
        masters: u32,
        connect: impl RedisConnect<Q>,
    ) -> RedisProgram {
        let connect = Arc::new(connect);
        RedisProgram::user(masters, Workload::Queue, move |node, p| {
            let (connect, role) = (connect.clone(), settings::queue_role_of(&node, p));
            Box::pin(async move {
                queue::run_client(&node, QUEUE, &role, async || connect(node.clone()).await).await
            })
        })
    }

    /// `masters` masters, each client running the barrier workload (`rounds` rounds, a
    /// barrier each, waiting for every client) over the barrier `connect` opens, as
    /// `lock_workload` calls it.
    pub fn barrier_workload<B: Barrier + 'static>(
        masters: u32,
        connect: impl RedisConnect<B>,
    ) -> RedisProgram {
        let connect = Arc::new(connect);
        RedisProgram::user(masters, Workload::Barrier, move |node, p| {
            let (connect, work) = (connect.clone(), settings::barrier(p, BARRIER));
            Box::pin(async move {
                barrier::run_barrier(&node, &work, async || connect(node.clone()).await).await
            })
        })
    }

    /// As `barrier_workload`, over a double barrier: each client enters, works and leaves
    /// each round.
    pub fn double_barrier_workload<D: DoubleBarrier + 'static>(
        masters: u32,
        connect: impl RedisConnect<D>,
    ) -> RedisProgram {
        let connect = Arc::new(connect);
        RedisProgram::user(masters, Workload::DoubleBarrier, move |node, p| {
            let (connect, work) = (connect.clone(), settings::barrier(p, DOUBLE_BARRIER));
            Box::pin(async move {
                let connect = async || connect(node.clone()).await;
                barrier::run_double_barrier(&node, &work, connect).await
            })
        })
    }

    /// `masters` masters and the store, each client running `program` once, recording
    /// events of its own for checkers of the user's own. The lock's parameters and bounds.
    pub fn client_program<F, Fut>(masters: u32, program: F) -> RedisProgram
    where
        F: Fn(Node) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let program = Arc::new(program);
        RedisProgram::user(masters, Workload::Program, move |node, _| {
            Box::pin(program(node))
        })
    }

    fn masters(&self, p: &Params) -> Vec<String> {
        let n = self.masters.unwrap_or(p.redis.redis_nodes);
        (1..=n).map(|i| format!("redis{i}")).collect()
    }

    /// The client hosts: the queue's producers and consumers, or c1..cN.
    fn client_names(&self, p: &Params) -> Vec<String> {
        match self.workload {
            Workload::Queue => settings::queue_clients(p),
            _ => p.client_names(),
        }
    }

    /// The steps of the workload a `pause_before` fault can aim at.
    fn pause_steps(&self) -> &'static [&'static str] {
        match self.workload {
            Workload::Lock => lock::PAUSE_STEPS,
            Workload::Program => &[],
            Workload::Election => election::PAUSE_STEPS,
            Workload::Queue => queue::PAUSE_STEPS,
            Workload::Barrier | Workload::DoubleBarrier => barrier::PAUSE_STEPS,
        }
    }
}

/// One attempt at a request once healed, at worst: a reconnect and the request (four one-way
/// latencies each way: `ROUND_TRIPS_PER_REQUEST` twice), each waiting out a request timeout,
/// then a retry delay. A user's recipe is counted as retrying within `retry_delay_max_ms`,
/// as locksim's Redis lock does.
fn attempt_ms(p: &Params) -> u64 {
    2 * ROUND_TRIPS_PER_REQUEST * p.network.slowest_link_ms()
        + 2 * p.redis.request_timeout_ms
        + p.redis.retry_delay_max_ms
}

/// What a request in flight at the heal may still cost: a master crashed late may stay
/// unreachable its restart delay, and the client waits out its request's timeout, then
/// reconnects (an attempt).
fn heal_ms(p: &Params) -> u64 {
    p.redis.restart_delay_ms + attempt_ms(p)
}

/// One item through the queue once healed: its offer and its take, a few requests each (a
/// consumer's look for a take of its own left unsettled, the take, a lost race), and a
/// consumer's poll of the empty queue, at most a retry delay.
fn per_item_ms(p: &Params) -> u64 {
    const REQUESTS_PER_ITEM: u64 = 6;
    REQUESTS_PER_ITEM * 2 * p.network.slowest_link_ms() + p.redis.retry_delay_max_ms
}

/// One barrier round at worst once healed: the spread of arrivals, the work, and for each
/// of enter and leave a few requests (arrive, look) and a poll, at most a retry delay.
fn round_ms(p: &Params) -> u64 {
    p.barrier.arrive_max_ms
        + p.workload.hold_ms
        + 8 * 2 * p.network.slowest_link_ms()
        + 2 * p.redis.retry_delay_max_ms
}

impl Program for RedisProgram {
    fn param_groups(&self) -> &'static [Group] {
        match self.workload {
            Workload::Lock | Workload::Program => &[
                Network::GROUP,
                Faults::GROUP,
                params::Workload::GROUP,
                Redis::GROUP,
            ],
            Workload::Election => &[
                Network::GROUP,
                Faults::GROUP,
                params::Workload::GROUP,
                params::Election::GROUP,
                Redis::GROUP,
            ],
            Workload::Queue => &[
                Network::GROUP,
                Faults::GROUP,
                params::Queue::GROUP,
                Redis::GROUP,
            ],
            Workload::Barrier | Workload::DoubleBarrier => &[
                Network::GROUP,
                Faults::GROUP,
                params::Workload::GROUP,
                params::Barrier::GROUP,
                Redis::GROUP,
            ],
        }
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
        let params = p.clone();
        let (program, lazy_clients): (crate::sim::software::ClientProgram, bool) =
            match self.clients.clone() {
                Clients::Recipe(flavor) => {
                    let config = RedisLockConfig {
                        masters,
                        key: redis_lock::KEY.into(),
                        ttl_ms: r.ttl_ms,
                        request_timeout_ms: r.request_timeout_ms,
                        retry_delay_max_ms: r.retry_delay_max_ms,
                        max_extensions: r.max_extensions,
                    };
                    let run = move |node| {
                        let (params, config) = (params.clone(), config.clone());
                        Box::pin(redis_lock::client(node, params, config, flavor)) as ClientFuture
                    };
                    (Rc::new(run), true)
                }
                Clients::User(UserClients(run)) => (Rc::new(move |node| run(node, &params)), false),
            };
        Hosts {
            servers,
            clients: self.client_names(p),
            pause_steps: steps(self.pause_steps()),
            wait_steps: Vec::new(),
            lazy_clients,
            program,
        }
    }

    /// The lock: a holder that vanished keeps the lock for a TTL (plus a restart's delay),
    /// and a request of its applied late (a delayed SET, a renewal whose reply was lost) can
    /// keep it another TTL; then every other client may hold it once before the waiter,
    /// each attempt costing a few round trips and at most one retry delay, a request timed
    /// out and a reconnect. The election likewise: a leader is a holder of its key.
    ///
    /// The queue: what was in flight at the heal settles (`heal_ms`), then every item left
    /// goes through one after another.
    ///
    /// The barriers: a process waits for the slowest, whose request in flight at the heal
    /// settles (`heal_ms`); it may still be finishing the round before, then the round itself.
    fn liveness_bound(&self, p: &Params) -> u64 {
        match self.workload {
            Workload::Lock | Workload::Program | Workload::Election => {
                let r = &p.redis;
                2 * r.ttl_ms
                    + r.restart_delay_ms
                    + u64::from(p.workload.clients) * (p.workload.hold_ms + 2 * attempt_ms(p))
            }
            Workload::Queue => heal_ms(p) + settings::queue_items(p) * per_item_ms(p),
            Workload::Barrier | Workload::DoubleBarrier => heal_ms(p) + 2 * round_ms(p),
        }
    }

    /// After the fault phase, long enough for one liveness bound to pass and then for the
    /// work left to complete: every round or term of every client (a few round trips and a
    /// retry delay each, and the work), every item, or every barrier round; and a TTL (a
    /// request timeout for the queue and the barriers) for what the last of it leaves behind.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        let (w, r) = (&p.workload, &p.redis);
        let per_turn = w.hold_ms + 12 * p.network.slowest_link_ms() + r.retry_delay_max_ms;
        let work = match self.workload {
            Workload::Lock | Workload::Program => {
                u64::from(w.clients * w.rounds) * per_turn + r.ttl_ms
            }
            Workload::Election => u64::from(w.clients * p.election.terms) * per_turn + r.ttl_ms,
            Workload::Queue => settings::queue_items(p) * per_item_ms(p) + r.request_timeout_ms,
            Workload::Barrier | Workload::DoubleBarrier => {
                u64::from(w.rounds) * round_ms(p) + r.request_timeout_ms
            }
        };
        p.faults.fault_phase_ms + liveness_bound_ms + work
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
