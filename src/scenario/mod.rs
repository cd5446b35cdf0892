//! The registry of named scenarios: a program (a recipe, or a flawed variant of it named
//! for its flaw, run by a workload on hosts it declares), the properties it is judged by,
//! and what the harness should find in it.
//!
//! - `zk`: what every ZooKeeper scenario shares
//! - `zk_lock`: the ZooKeeper lock, the shared lock, and their flawed variants
//! - `zk_election`: the ZooKeeper leader election and its flawed variant
//! - `zk_queue`: the ZooKeeper queue and its flawed variants
//! - `zk_barrier`: the ZooKeeper barrier and double barrier and their flawed variants
//! - `redis`: what every Redis scenario runs, a built-in lock or a user's recipe of any kind
//! - `redis_lock`: the single-instance Redis lock, Redlock, and their flawed variants
//! - `settings`: what the election, queue and barrier workloads are given, on every family

mod redis;
mod redis_lock;
mod settings;
mod zk;
mod zk_barrier;
mod zk_counter;
mod zk_election;
mod zk_lock;
mod zk_queue;

use crate::check::{Checkers, Property};
use crate::params::{Group, MAX_RUN_LIMIT_MS, ParamError, Params};
use crate::recipes::redis::decide::Flavor as RedisFlavor;
use crate::recipes::zk::election::decide::Flavor as ElectionFlavor;
use crate::recipes::zk::lock::Flavor;
use crate::recipes::zk::queue::decide::Flavor as QueueFlavor;
use crate::recipes::zk::rwlock;
use crate::recipes::zk::{barrier, double_barrier};
use crate::sim::node::Node;
use crate::sim::param::{Param, ParamSpec, ParamValue};
use crate::sim::software::{ClientFuture, Hosts};
use crate::zk::client::ResumeZxid;
pub use redis::{RedisConnect, RedisProgram};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};
pub use zk_barrier::ZkBarrierProgram;
pub use zk_counter::ZkCounterProgram;
pub use zk_election::ZkElectionProgram;
pub use zk_lock::ZkLockProgram;
pub use zk_queue::ZkQueueProgram;

/// What a scenario runs, the seam a user implements to put their own recipe in the world:
/// which hosts there are with which software, and the bounds its runs are judged by.
pub trait Program: Send + Sync + fmt::Debug {
    /// The run's hosts: servers with their families, and the clients with their program.
    fn hosts(&self, params: &Params) -> Hosts;

    /// How long a client that wants the lock may wait once faults are healed, when
    /// `liveness_bound_ms` leaves it to the program.
    fn liveness_bound(&self, params: &Params) -> u64;

    /// When a run stops if its workload has not finished, when `run_limit_ms` leaves it to
    /// the program; `liveness_bound_ms` is the run's (set or derived).
    fn run_limit(&self, params: &Params, liveness_bound_ms: u64) -> u64;

    /// The parameter groups its hosts and workload read (`locksim list SCENARIO` shows these).
    fn param_groups(&self) -> &'static [Group];

    /// Checks of parameter combinations only this program knows the meaning of.
    fn validate(&self, _params: &Params) -> Result<(), ParamError> {
        Ok(())
    }

    /// Its named profiles, the first the default; none: the parameters' defaults alone.
    fn profiles(&self) -> &'static [Profile] {
        &[]
    }
}

/// What each client host runs for a user's program, given the run's parameters.
type UserClientFn = dyn Fn(Node, &Params) -> ClientFuture + Send + Sync;

/// A user's client software, which a program runs in place of its built-in recipe.
#[derive(Clone)]
struct UserClients(Arc<UserClientFn>);

impl UserClients {
    fn new(run: impl Fn(Node, &Params) -> ClientFuture + Send + Sync + 'static) -> UserClients {
        UserClients(Arc::new(run))
    }
}

impl fmt::Debug for UserClients {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("UserClients")
    }
}

/// A named reach of the swarm and the server options that go with it, for one question
/// asked of a scenario ("does Redlock hold under the faults its own argument allows?").
/// Its settings are `--set` assignments applied before the user's, so the user's win, and
/// a trace file holds the values they led to rather than the name.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// Its name, as `--profile` and `Experiment::profile` take it.
    pub name: &'static str,
    /// What question it asks, for `locksim list`.
    pub summary: &'static str,
    /// Its `--set` assignments.
    pub settings: &'static [&'static str],
}

/// A named program with the properties it is judged by: what a run, an exploration or a
/// trace file names. Cheap to clone (the program is shared), so a run owns its scenario
/// whether it is a built-in or one a user built.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Its name, as the command line, trace files and messages give it.
    pub name: Cow<'static, str>,
    /// One line on what it runs, for `locksim list`.
    pub summary: Cow<'static, str>,
    /// What its hosts run.
    pub program: Arc<dyn Program>,
    /// What a run is judged by.
    pub properties: Vec<Property>,
    /// For a negative control: the properties its flaw breaks (the harness must find them).
    pub flaw: Vec<Property>,
    /// The checkers of its own properties; the built-in properties have theirs.
    pub checkers: Checkers,
    /// The parameters it declares itself, beside the built-in ones (none for a built-in).
    pub own_params: Vec<ParamSpec>,
    /// The steps of its clients' code it declares itself (`Node::step`), after those of its
    /// program (none for a built-in): what `with_steps` adds.
    pub own_steps: Vec<String>,
}

/// What a Redis lock promises: no herd or queue order to judge (no watches, no line).
const REDIS_LOCK_PROPERTIES: &[Property] =
    &[Property::MUTEX, Property::RESOURCE, Property::LIVENESS];

const LOCK_PROPERTIES: &[Property] = &[
    Property::MUTEX,
    Property::RESOURCE,
    Property::HERD,
    Property::LIVENESS,
    Property::FIFO,
];

/// What a shared lock promises: writers alone, readers together; a writer's release may wake
/// all the readers behind it. No `fifo`: readers queued together are granted in any order.
const SHARED_LOCK_PROPERTIES: &[Property] = &[
    Property::RW_EXCLUSION,
    Property::RESOURCE,
    Property::HERD,
    Property::LIVENESS,
];

/// What a leader election promises: one leader at a time, elected within a bound after the
/// heal; its leader's guarded writes; one wake-up per candidate's exit; every candidate
/// finishing its terms.
const ELECTION_PROPERTIES: &[Property] = &[
    Property::LEADER,
    Property::RESOURCE,
    Property::HERD,
    Property::LIVENESS,
];
/// What a queue promises: no item lost or taken twice, each producer's order, no herd (a
/// take wakes nobody), and every client's workload done.
const QUEUE_PROPERTIES: &[Property] = &[Property::HERD, Property::LIVENESS, Property::QUEUE];
/// What a barrier promises; no `herd`: a barrier wakes everyone at once by design (its
/// deletion, `ready`'s creation, the lowest process node's deletion on leave).
const BARRIER_PROPERTIES: &[Property] = &[Property::BARRIER, Property::LIVENESS];
/// What a counter's clients promise of their sessions: none reads the past, and every
/// client's rounds get done.
const COUNTER_PROPERTIES: &[Property] = &[Property::READ_YOUR_WRITES, Property::LIVENESS];

/// Builds the built-in scenarios once (see `builtins`).
fn builtin_list() -> Vec<Scenario> {
    vec![
    Scenario::new(
        "zk-lock",
        "ZooKeeper recipes-doc lock: GUID-named ephemeral sequential nodes, each waiter watches its predecessor",
        ZkLockProgram::profiled(Flavor::Recipe, zk_lock::PROFILES),
        LOCK_PROPERTIES,
    ),
    Scenario::new(
        "zk-lock-herd",
        "flawed: every waiter watches the lock directory's children, so each release wakes them all",
        ZkLockProgram::exclusive(Flavor::Herd),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::HERD]),
    Scenario::new(
        "zk-lock-simple",
        "flawed: one fixed ephemeral node; losers watch it and race to recreate it",
        ZkLockProgram::exclusive(Flavor::Simple),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::HERD, Property::FIFO]),
    Scenario::new(
        "zk-lock-noguid",
        "flawed: retries the create after ConnectionLoss without looking for its node, orphaning it",
        ZkLockProgram::exclusive(Flavor::NoGuid),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    Scenario::new(
        "zk-lock-name-sort",
        "flawed: orders the lock directory by whole name, not by sequence number (Z5); a newcomer whose GUID sorts first takes the lock from its holder",
        ZkLockProgram::exclusive(Flavor::NameSort),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "zk-lock-release-forgets",
        "flawed: forgets its lock node when the delete fails with ConnectionLoss (Z7, CURATOR-678); the node of its live session blocks everyone",
        ZkLockProgram::exclusive(Flavor::ReleaseForgets),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    Scenario::new(
        "zk-lock-session-event",
        "flawed: takes a session event on its predecessor's watch (Disconnected) for the deletion it waits for, and the lock for its own (Z8)",
        ZkLockProgram::exclusive(Flavor::SessionEvent),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "zk-lock-int-sort",
        "flawed: orders the line by sequence number as a plain integer (Z6, kazoo #606); once the counter wraps past 2147483647 the newest node sorts first and takes the lock from its holder. Default profile wrap (counters start at 2147483640), under which zk-lock holds",
        ZkLockProgram::profiled(Flavor::IntSort, zk_lock::WRAP_PROFILES),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "zk-lock-vanished",
        "flawed: takes a predecessor already gone at exists() for the lock being its own instead of listing again (Z4); whoever was ahead of it may still hold the lock. Default profile targeted: only aimed pauses reach the window",
        ZkLockProgram::profiled(Flavor::Vanished, zk_lock::TARGETED_PROFILES),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "zk-lock-stale-session",
        "flawed: after ConnectionLoss on its create, starts a new session and adopts the node its old session created, found by the same GUID (Z13, CURATOR-604); the server deletes it when the abandoned session expires. Default profile targeted-short; the adopted node's deletion also wakes two waiters at once (herd)",
        ZkLockProgram::profiled(Flavor::StaleSession, zk_lock::SHORT_PROFILES),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX, Property::HERD]),
    Scenario::new(
        "zk-lock-no-sync",
        "flawed: after ConnectionLoss on its create, looks for its GUID without sync first (Z15, the recipe as the seeds wrote it); a follower that has not applied the create hides it, a second create orphans the first, and the orphan blocks the line. Default profile lagging (3 servers)",
        ZkLockProgram::profiled(Flavor::NoSync, zk_lock::LAGGING_PROFILES),
        LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    Scenario::new(
        "zk-rwlock",
        "ZooKeeper recipes-doc shared lock: read- and write- nodes in one line; a reader waits on the next-lower writer, a writer on the next-lower node (c1..cW write, the others read)",
        ZkLockProgram::shared(rwlock::Flavor::Recipe),
        SHARED_LOCK_PROPERTIES,
    ),
    Scenario::new(
        "zk-rwlock-higher-writer",
        "flawed: a reader also waits behind writers queued after it (kazoo #649); such a writer waits on the reader, and both wait for ever",
        ZkLockProgram::shared(rwlock::Flavor::HigherWriter),
        SHARED_LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    Scenario::new(
        "zk-election",
        "ZooKeeper recipes-doc leader election: GUID-named ephemeral sequential n_ nodes, the lowest leads, each candidate watches the largest lower one; the leader writes with its node's czxid. Profile long-pauses: a leader paused past its session breaks leader",
        ZkElectionProgram::recipe(ElectionFlavor::Recipe),
        ELECTION_PROPERTIES,
    ),
    Scenario::new(
        "zk-election-herd",
        "flawed: every candidate watches the lowest node, so each leader's exit wakes them all (Z12)",
        ZkElectionProgram::recipe(ElectionFlavor::Herd),
        ELECTION_PROPERTIES,
    )
    .flawed(&[Property::HERD]),
    Scenario::new(
        "zk-election-stale-node",
        "flawed: after ConnectionLoss on its create, gives its session up for a new one and takes the first node carrying the GUID it kept for its own, unsynced and whoever owns it (Z14, CURATOR-498); the old session's node is deleted when that session expires, and the candidate behind it leads too (its deletion also wakes two candidates at once: herd). Default profile ensemble (3 servers)",
        ZkElectionProgram::profiled(ElectionFlavor::StaleNode, zk_election::ENSEMBLE_PROFILES),
        ELECTION_PROPERTIES,
    )
    .flawed(&[Property::LEADER, Property::HERD]),
    Scenario::new(
        "zk-election-stale-node-checked",
        "zk-election-stale-node with CURATOR-498's fix: a node found by the kept GUID is its own only if its session owns it (and the lookup syncs first). Default profile ensemble (3 servers)",
        ZkElectionProgram::profiled(ElectionFlavor::StaleNodeChecked, zk_election::ENSEMBLE_PROFILES),
        ELECTION_PROPERTIES,
    ),
    Scenario::new(
        "zk-queue",
        "ZooKeeper queue (the seed's DistributedQueue): qn- persistent sequential nodes; a consumer reads the lowest and deletes it, trying the next when it is gone, and watches the children only after listing none; offers and takes are multis with a marker that settles a lost reply",
        ZkQueueProgram::recipe(QueueFlavor::Recipe),
        QUEUE_PROPERTIES,
    ),
    Scenario::new(
        "zk-queue-delete-first",
        "flawed: claims the head by deleting it, then reads it (Z10); a deleted node cannot be read, so the item is lost",
        ZkQueueProgram::recipe(QueueFlavor::DeleteFirst),
        QUEUE_PROPERTIES,
    )
    .flawed(&[Property::QUEUE]),
    Scenario::new(
        "zk-queue-unconfirmed-delete",
        "flawed: reads the head, deletes it and takes it whatever the delete says (Z10); a NoNode means another consumer took it too",
        ZkQueueProgram::recipe(QueueFlavor::UnconfirmedDelete),
        QUEUE_PROPERTIES,
    )
    .flawed(&[Property::QUEUE]),
    Scenario::new(
        "zk-queue-herd",
        "flawed: every listing watches the queue's children and a consumer that lost the race for the head waits on it, so each take wakes every consumer that lost",
        ZkQueueProgram::recipe(QueueFlavor::Herd),
        QUEUE_PROPERTIES,
    )
    .flawed(&[Property::HERD]),
    Scenario::new(
        "zk-barrier",
        "ZooKeeper barrier: c1 creates a barrier node per round (then `armed`), each process registers and waits on exists() until c1 deletes it once all registered",
        ZkBarrierProgram::single(barrier::Flavor::Recipe),
        BARRIER_PROPERTIES,
    ),
    Scenario::new(
        "zk-barrier-unarmed",
        "flawed: processes look at the barrier node without waiting for c1 to arm it, and take a node not made yet for a lifted barrier",
        ZkBarrierProgram::single(barrier::Flavor::Unarmed),
        BARRIER_PROPERTIES,
    )
    .flawed(&[Property::BARRIER]),
    Scenario::new(
        "zk-double-barrier",
        "ZooKeeper recipes-doc double barrier: an ephemeral node per process, the last to arrive creates `ready`; on leave the lowest waits on the highest, the others delete theirs and wait on the lowest",
        ZkBarrierProgram::double(double_barrier::Flavor::Recipe, zk_barrier::DOUBLE_PROFILES),
        BARRIER_PROPERTIES,
    ),
    Scenario::new(
        "zk-double-barrier-no-ready",
        "flawed: counts the children instead of waiting for `ready` (Z11); one woken by the last arrival that lists again after a passed process left sees too few and waits for ever",
        ZkBarrierProgram::double(double_barrier::Flavor::NoReady, &[]),
        BARRIER_PROPERTIES,
    )
    .flawed(&[Property::BARRIER, Property::LIVENESS]),
    Scenario::new(
        "zk-double-barrier-reenter",
        "flawed: takes NodeExists on a create retried after a lost reply for someone else's node and enters again under a new name (Z11); counted twice, it opens the barrier early, and its first node, never deleted, blocks the leave for ever",
        ZkBarrierProgram::double(double_barrier::Flavor::Reenter, &[]),
        BARRIER_PROPERTIES,
    )
    .flawed(&[Property::BARRIER, Property::LIVENESS]),
    Scenario::new(
        "zk-double-barrier-rejoin",
        "flawed: having waited out a node of its name that an earlier session of its own left, creates its node again without looking at `ready` (Z17); the barrier opened with the old node counted, and it enters a round the others are leaving. Default profile closing (3 servers, short sessions)",
        ZkBarrierProgram::double(double_barrier::Flavor::Rejoin, zk_barrier::CLOSING_PROFILES),
        BARRIER_PROPERTIES,
    )
    .flawed(&[Property::BARRIER]),
    Scenario::new(
        "zk-counter",
        "ZooKeeper shared counter (Curator's DistributedAtomicLong): each client reads the counter znode and writes value + 1 on condition of its version, a round at a time; every session's reads are judged against what it has seen. Default profile lagging (3 servers)",
        ZkCounterProgram::new(ResumeZxid::LastSeen, zk_counter::LAGGING_PROFILES),
        COUNTER_PROPERTIES,
    ),
    Scenario::new(
        "zk-counter-zero-zxid",
        "flawed: zk-counter on a client that resumes its session with last-seen zxid 0 (Z16, zookeeper-client-rust #32); a lagging follower takes it, and its reads go back in time. Default profile lagging (3 servers)",
        ZkCounterProgram::new(ResumeZxid::Zero, zk_counter::LAGGING_PROFILES),
        COUNTER_PROPERTIES,
    )
    .flawed(&[Property::READ_YOUR_WRITES]),
    Scenario::new(
        "redis-lock",
        "single-instance Redis lock: SET NX PX with a random token, release by compare-and-delete; validity on the client's clock. Full profile: server clock jumps and restarts without persistence break mutex",
        RedisProgram::recipe(RedisFlavor::Recipe, true, redis_lock::PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "redis-lock-del",
        "flawed: releases by plain DEL, deleting the next holder's lock once its own expired",
        RedisProgram::recipe(RedisFlavor::PlainDel, true, redis_lock::PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "redlock",
        "Redlock over 5 masters: quorum 3, validity = TTL - elapsed - drift, unlock all on failure, random retry. Full profile: Kleppmann's pauses and clock jumps break mutex",
        RedisProgram::recipe(RedisFlavor::Recipe, false, redis_lock::PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "redlock-novalidity",
        "flawed: never checks that validity = TTL - elapsed - drift is positive (the unsigned subtraction wraps, as in redlock-rs), so a quorum whose votes took longer than the TTL counts as held while another client holds the expired keys. Default profile slow-votes (link delays, a per-node timeout above the TTL), under which redlock holds",
        RedisProgram::recipe(RedisFlavor::NoValidity, false, redis_lock::NO_VALIDITY_PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::MUTEX]),
    Scenario::new(
        "redlock-nounlock",
        "flawed: leaves its votes in place when it fails to get a quorum; they expire one by one and whoever asks first takes each, so the votes stay split and nobody holds the lock for seconds. Default profile contention (no faults), under which redlock holds",
        RedisProgram::recipe(RedisFlavor::NoUnlock, false, redis_lock::NO_UNLOCK_PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    Scenario::new(
        "redlock-fixed-retry",
        "flawed: every client retries after the same fixed delay, so clients that split the votes retry in step and split them again, for ever (R7). Default profile lockstep (3 clients, fixed link latencies that differ per link, no faults), under which redlock holds",
        RedisProgram::recipe(RedisFlavor::FixedRetry, false, redis_lock::FIXED_RETRY_PROFILES),
        REDIS_LOCK_PROPERTIES,
    )
    .flawed(&[Property::LIVENESS]),
    ]
}

/// A scenario name none of the built-ins answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownScenario(pub String);

impl fmt::Display for UnknownScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = builtins().iter().map(|s| s.name.as_ref()).collect();
        write!(
            f,
            "unknown scenario '{}' (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

/// The built-in scenarios, in `locksim list` order.
pub fn builtins() -> &'static [Scenario] {
    static BUILTINS: LazyLock<Vec<Scenario>> = LazyLock::new(builtin_list);
    &BUILTINS
}

/// The built-in scenario called `name`.
pub fn find(name: &str) -> Result<&'static Scenario, UnknownScenario> {
    builtins()
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| UnknownScenario(name.to_string()))
}

impl Scenario {
    /// A scenario of `program`'s hosts judged by `properties`, with no checkers of its own
    /// and no flaw to find.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        summary: impl Into<Cow<'static, str>>,
        program: impl Program + 'static,
        properties: &[Property],
    ) -> Scenario {
        Scenario {
            name: name.into(),
            summary: summary.into(),
            program: Arc::new(program),
            properties: properties.to_vec(),
            flaw: Vec::new(),
            checkers: Checkers::default(),
            own_params: Vec::new(),
            own_steps: Vec::new(),
        }
    }

    /// Declares steps its clients' code reaches (`node.step("fetch").await`), after its
    /// program's own (a workload's `write` and `release`, say; a `client_program` has none):
    /// a fault plan may aim a `pause_before` or a step trigger at any of them, and the swarm
    /// draws them as it draws the program's. A name declared already is kept once.
    ///
    /// # Panics
    /// On an empty name.
    pub fn with_steps<S: Into<String>>(mut self, steps: impl IntoIterator<Item = S>) -> Scenario {
        for step in steps.into_iter().map(Into::into) {
            assert!(!step.is_empty(), "a step needs a name");
            if !self.own_steps.contains(&step) {
                self.own_steps.push(step);
            }
        }
        self
    }

    /// The hosts of a run with `params`: its program's, with the steps it declares itself
    /// after the program's own.
    pub fn hosts(&self, params: &Params) -> Hosts {
        let mut hosts = self.program.hosts(params);
        for step in &self.own_steps {
            if !hosts.has_step(step) {
                hosts.pause_steps.push(step.clone());
            }
        }
        hosts
    }

    /// Declares a parameter of its own (in place of an earlier declaration of its key): runs
    /// take its default unless a setting or trace file gives another value.
    ///
    /// # Panics
    /// When `param` has the key of a built-in parameter.
    pub fn with_param<T: ParamValue>(mut self, param: Param<T>) -> Scenario {
        assert!(
            !Params::is_builtin(param.key()),
            "'{}' is a built-in parameter (see `locksim list`): give yours another key",
            param.key()
        );
        self.own_params.retain(|p| p.key != param.key());
        self.own_params.push(param.into());
        self
    }

    /// The parameters' defaults: the built-in ones and those it declares.
    fn defaults(&self) -> Params {
        let mut params = Params::default();
        for param in &self.own_params {
            params.own.insert(param.key, param.default.clone());
        }
        params
    }

    /// A trace file's params object as a run of this scenario reads it: missing keys take
    /// defaults, keys it neither has built in nor declares fail, the whole is validated.
    pub fn params_from_json(&self, value: &serde_json::Value) -> Result<Params, ParamError> {
        let params = self.defaults().with_json(value)?;
        self.validate(&params)?;
        Ok(params)
    }

    /// As a negative control: the properties its flaw breaks, which the harness must find.
    pub fn flawed(mut self, flaw: &[Property]) -> Scenario {
        self.flaw = flaw.to_vec();
        self
    }

    /// The parameters of a run: the defaults, then `profile`'s settings (the program's
    /// first profile when none is named), then the user's `assignments`, validated whole.
    pub fn params<S: AsRef<str>>(
        &self,
        profile: Option<&str>,
        assignments: &[S],
    ) -> Result<Params, ParamError> {
        let settings = match profile {
            None => self
                .program
                .profiles()
                .first()
                .map_or(&[][..], |p| p.settings),
            Some(name) => self.profile(name)?.settings,
        };
        let params = self
            .defaults()
            .overridden(settings)?
            .overridden(assignments)?;
        self.validate(&params)?;
        Ok(params)
    }

    /// Its profile called `name`, or an error naming the ones it has.
    pub fn profile(&self, name: &str) -> Result<&'static Profile, ParamError> {
        let profiles = self.program.profiles();
        profiles.iter().find(|p| p.name == name).ok_or_else(|| {
            let known: Vec<_> = profiles.iter().map(|p| p.name).collect();
            ParamError::UnknownProfile {
                scenario: self.name.to_string(),
                name: name.to_string(),
                known: known.join(", "),
            }
        })
    }

    /// Checks one `--set` assignment on its own: a parameter it has (built in or declared),
    /// a value of that parameter's type and in its range. Bounds that relate two
    /// parameters are judged with the whole (`params`).
    pub fn check_setting(&self, assignment: &str) -> Result<(), ParamError> {
        let params = self.defaults().with_assignment(assignment)?;
        for (key, value) in params.own.iter() {
            if let Some(declared) = self.own_params.iter().find(|p| p.key == key) {
                declared.check(value).map_err(ParamError::Invalid)?;
            }
        }
        Ok(())
    }

    /// The liveness bound of a run with `params`: the parameter if set, else the program's.
    pub fn liveness_bound(&self, params: &Params) -> u64 {
        match params.workload.liveness_bound_ms {
            0 => self.program.liveness_bound(params),
            set => set,
        }
    }

    /// The run limit of a run with `params`: the parameter if set, else the program's.
    pub fn run_limit(&self, params: &Params) -> u64 {
        match params.workload.run_limit_ms {
            0 => self.program.run_limit(params, self.liveness_bound(params)),
            set => set,
        }
    }

    /// Checks `params` as a whole for this scenario: each value in its range, then what the
    /// program knows, then the run limit they lead to.
    pub fn validate(&self, params: &Params) -> Result<(), ParamError> {
        params.validate()?;
        for (key, value) in params.own.iter() {
            let declared = self.own_params.iter().find(|p| p.key == key);
            declared
                .ok_or_else(|| ParamError::Unknown(key.to_string()))?
                .check(value)
                .map_err(ParamError::Invalid)?;
        }
        self.program.validate(params)?;
        let limit = self.run_limit(params);
        if limit > MAX_RUN_LIMIT_MS {
            return Err(ParamError::Invalid(format!(
                "the run limit would be {limit} ms of simulated time, above the most locksim \
                 runs ({MAX_RUN_LIMIT_MS}); {} derives it from the fault phase, the liveness \
                 bound and the workload: lower hold_ms, rounds or clients, or set run_limit_ms",
                self.name
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::PersistenceMode;

    fn with(assignments: &[&str]) -> Result<Params, ParamError> {
        let params = Params::default().overridden(assignments)?;
        find("zk-lock").unwrap().validate(&params).map(|()| params)
    }

    #[test]
    fn a_profile_sets_its_values_under_the_users_and_an_unknown_one_is_named() {
        let redlock = find("redlock").unwrap();
        let default = redlock.params::<&str>(None, &[]).unwrap();
        assert_eq!(
            default,
            redlock.params(Some("full"), &[] as &[&str]).unwrap()
        );
        assert_eq!(default.faults.pause_max_ms, 400);
        let own = redlock
            .params(Some("own-assumptions"), &["pause_max_ms=50"])
            .unwrap();
        assert_eq!(own.faults.pause_max_ms, 50, "the user's --set wins");
        assert_eq!(own.redis.persistence, PersistenceMode::AofAlways);
        let err = redlock.params::<&str>(Some("gentle"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown profile 'gentle' for redlock (known: full, own-assumptions)"
        );
        let err = find("zk-rwlock").unwrap().params::<&str>(Some("full"), &[]);
        assert_eq!(
            err.unwrap_err().to_string(),
            "unknown profile 'full': zk-rwlock has no profiles"
        );
        assert_eq!(
            find("zk-lock").unwrap().params::<&str>(None, &[]).unwrap(),
            Params::default()
        );
    }

    #[test]
    fn a_latency_no_client_can_connect_over_is_refused() {
        let err = with(&["latency_max_ms=5000", "faults=none"]).unwrap_err();
        assert!(
            err.to_string().contains("latency_max_ms=5000 is too long"),
            "{err}"
        );
        assert!(with(&["latency_max_ms=16"]).is_ok());
        assert!(with(&["latency_max_ms=17"]).is_err());
        assert!(with(&["latency_max_ms=17", "session_timeout_ms=300"]).is_ok());
        let err = with(&["latency_max_ms=16", "link_spread_ms=1"]).unwrap_err();
        assert!(
            err.to_string()
                .contains("latency_max_ms + link_spread_ms = 17 is too long"),
            "{err}"
        );
    }

    #[test]
    fn a_run_limit_beyond_the_maximum_is_refused_with_what_to_lower() {
        for huge in [
            &["hold_ms=3600000", "rounds=10000", "clients=32"][..],
            &["hold_ms=60000"],
            &["liveness_bound_ms=86400000"],
        ] {
            let err = with(huge).unwrap_err().to_string();
            assert!(
                err.contains("above the most locksim runs (600000)") && err.contains("lower"),
                "{huge:?}: {err}"
            );
        }
        assert!(with(&["hold_ms=1000"]).is_ok());
        assert!(with(&["run_limit_ms=600000"]).is_ok());
        assert!(with(&["run_limit_ms=600001"]).is_err());
        let err = with(&["run_limit_ms=600"]).unwrap_err().to_string();
        assert!(err.contains("must exceed fault_phase_ms=600"), "{err}");
        for scenario in builtins() {
            let derived = scenario.run_limit(&Params::default());
            assert!(
                derived < MAX_RUN_LIMIT_MS / 100,
                "{}: {derived}",
                scenario.name
            );
        }
    }

    const PERMITS: Param<u32> = Param::u32("permits", 2).range(1, 8);
    const FENCED: Param<bool> = Param::bool("fenced", false);

    fn declaring() -> Scenario {
        find("zk-lock")
            .unwrap()
            .clone()
            .with_param(PERMITS)
            .with_param(FENCED)
    }

    #[test]
    fn a_declared_parameter_is_set_typed_and_checked_like_a_builtin_one() {
        let scenario = declaring();
        let defaults = scenario.params::<&str>(None, &[]).unwrap();
        assert_eq!(
            (defaults.own.get(PERMITS), defaults.own.get(FENCED)),
            (2, false)
        );
        let set = scenario
            .params(None, &["permits=5", "fenced=true", "clients=3"])
            .unwrap();
        assert_eq!((set.own.get(PERMITS), set.own.get(FENCED)), (5, true));
        assert_eq!(set.workload.clients, 3);
        let err = scenario.params(None, &["permits=9"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid parameters: permits=9 is outside 1..=8"
        );
        assert!(matches!(
            scenario.params(None, &["fenced=1"]),
            Err(ParamError::BadValue { .. })
        ));
        assert_eq!(
            find("zk-lock").unwrap().params(None, &["permits=5"]),
            Err(ParamError::Unknown("permits".into())),
            "a scenario that does not declare it refuses it"
        );
    }

    #[test]
    fn a_trace_files_params_hold_the_declared_ones_beside_the_builtin_ones() {
        let scenario = declaring();
        let set = scenario.params(None, &["permits=5"]).unwrap();
        let json = serde_json::to_value(&set).unwrap();
        assert_eq!(json["permits"], 5);
        assert_eq!(json["clients"], 5);
        assert_eq!(scenario.params_from_json(&json), Ok(set));
        let only = scenario
            .params_from_json(&serde_json::json!({"fenced": true}))
            .unwrap();
        assert_eq!((only.own.get(PERMITS), only.own.get(FENCED)), (2, true));
        for (bad, key) in [
            (serde_json::json!({"permit": 5}), "permit"),
            (serde_json::json!({"permits": 0}), "permits=0"),
            (serde_json::json!({"fenced": "yes"}), "fenced"),
        ] {
            let err = scenario.params_from_json(&bad).unwrap_err().to_string();
            assert!(err.contains(key), "{bad}: {err}");
        }
        let err = find("zk-lock")
            .unwrap()
            .params_from_json(&json)
            .unwrap_err();
        assert_eq!(err, ParamError::Unknown("fenced".into()));
    }

    #[test]
    #[should_panic(expected = "'clients' is a built-in parameter")]
    fn a_declaration_may_not_take_a_builtin_key() {
        let _ = declaring().with_param(Param::u32("clients", 1));
    }
}
