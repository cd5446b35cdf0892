//! locksim as a library: a scenario of your own, explored from your own `cargo test`.
//!
//! An `Experiment` is a scenario with the parameters, profile and properties to run it
//! under; `explore` runs a range of seeds, shrinks the first failing one's fault plan and
//! writes its trace (and its picture, an HTML page, beside it), and the `Explored` it
//! returns asserts what the test expects. Built the same way as the built-ins, on the same
//! runs, checkers, shrinker and trace files.
//!
//! - `env`: what the environment asks of a test run (`LOCKSIM_REPLAY`, seeds, trace
//!   directory) and where traces go by default
//! - `explored`: what an exploration found, its assertions and their failure messages
//! - `fuzz`: the proptest entry point
//! - `redis`: the Redis hosts, given a workload over a recipe of your own
//!   (`Scenario::redis(n)`)

mod env;
mod explored;
mod fuzz;
mod redis;

pub use explored::Explored;
pub use redis::RedisHosts;

use crate::check::{Checker, Property};
use crate::explore::guided::{self, GuidedSpec};
use crate::explore::{self, ExploreSpec};
use crate::html;
use crate::params::{ParamError, Params};
use crate::recipes::{Barrier, DoubleBarrier, Election, Lock, LockError, Queue, RecipeError};
use crate::scenario::{
    Scenario, ZkBarrierProgram, ZkElectionProgram, ZkLockProgram, ZkQueueProgram,
};
use crate::sim::fault::FaultPlan;
use crate::sim::node::Node;
use crate::sim::param::{Param, ParamValue};
use crate::trace::{self, Trace};
use crate::world::run::{self, RunReport, RunSpec};
use crate::zk::client::ZkClient;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The hosts of a ZooKeeper scenario before its clients are given a program:
/// `Scenario::zookeeper`.
#[derive(Debug, Clone)]
#[must_use = "give its clients a program, e.g. with `lock_workload`"]
pub struct ZkHosts;

impl Scenario {
    /// A simulated ZooKeeper server, `zk1`, and the protected store, for a scenario of
    /// your own. Its faults, profiles (`default`, `targeted`, `targeted-short`) and
    /// parameters are those of the built-in ZooKeeper lock.
    pub fn zookeeper() -> ZkHosts {
        ZkHosts
    }
}

impl ZkHosts {
    /// Each client runs the standard lock workload over the lock `connect` binds to a new
    /// session with `zk1` (the `ZkClient` it is given); the lock directory
    /// `recipes::zk::host::LOCK_DIR` exists by then. `connect` is called when a client
    /// starts and again whenever the lock reports its session gone. Judged by `mutex`,
    /// `resource`, `herd` (which reads what the recipe reports with
    /// `recipes::zk::kit::Report`) and `liveness`; named after the test that builds it.
    pub fn lock_workload<L, F, Fut>(self, connect: F) -> Experiment
    where
        L: Lock + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<L, LockError>> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's lock over ZooKeeper",
            ZkLockProgram::lock_workload(connect),
            &[
                Property::MUTEX,
                Property::RESOURCE,
                Property::HERD,
                Property::LIVENESS,
            ],
        ))
    }

    /// Each client runs `program` once, on a session with `zk1` opened for it: a program
    /// that fits none of the workloads, recording events of its own
    /// ([`Node::record_event`]) for a checker of your own ([`Experiment::check`]). Judged by
    /// `resource` (what it writes through [`ProtectedStore`](crate::store::ProtectedStore)),
    /// `liveness` (every client's program finishes) and the checkers you add; the lock's
    /// parameters and profiles. Its steps, where a plan may aim a pause, are those you
    /// declare with [`Experiment::steps`].
    ///
    /// ```no_run
    /// # use locksim::Scenario;
    /// use locksim::zk::proto::CreateMode;
    ///
    /// #[derive(serde::Serialize)]
    /// #[serde(tag = "op", rename_all = "snake_case")]
    /// enum Hello { Made { made: bool } }
    ///
    /// let explored = Scenario::zookeeper()
    ///     .client_program(|node, client| async move {
    ///         let made = client.create("/hello", b"", CreateMode::Persistent).await.is_ok();
    ///         node.record_event(&Hello::Made { made });
    ///     })
    ///     .explore(0..10);
    /// explored.assert_clean();
    /// ```
    pub fn client_program<F, Fut>(self, program: F) -> Experiment
    where
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's client program over ZooKeeper",
            ZkLockProgram::client_program(program),
            &[Property::RESOURCE, Property::LIVENESS],
        ))
    }

    /// Each client runs the standard election workload (run for leader, read the store,
    /// work, write with the grant's token, step down; `terms` times) over the candidate
    /// `connect` binds to a new session with `zk1`; the election directory
    /// `recipes::zk::kit::ELECTION_DIR` exists by then. `connect` is called when a client
    /// starts and again whenever the election reports its session gone. Judged by
    /// `leader`, `resource`, `herd` (which reads what the recipe reports with
    /// `recipes::zk::kit::Report`) and `liveness`; its profiles are the built-in
    /// election's (`short-pauses`, the default, and `long-pauses`).
    ///
    /// ```no_run
    /// # use locksim::{Election, Grant, RecipeError, Property, Scenario};
    /// # struct Mine;
    /// # impl Election for Mine {
    /// #     async fn lead(&mut self) -> Result<Grant, RecipeError> { Ok(Grant::default()) }
    /// #     async fn resign(&mut self) -> Result<(), RecipeError> { Ok(()) }
    /// # }
    /// Scenario::zookeeper()
    ///     .election_workload(|_node, _client| async { Ok(Mine) })
    ///     .explore(0..100)
    ///     .assert_violates(Property::LEADER);
    /// ```
    pub fn election_workload<E, F, Fut>(self, connect: F) -> Experiment
    where
        E: Election + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<E, RecipeError>> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's leader election over ZooKeeper",
            ZkElectionProgram::election_workload(connect),
            &[
                Property::LEADER,
                Property::RESOURCE,
                Property::HERD,
                Property::LIVENESS,
            ],
        ))
    }

    /// Producers `p1..pP` offer their items (`p1-0`, `p1-1`, ...) and consumers `c1..cC`
    /// take them all, each over the queue `connect` binds to a new session with `zk1`; the
    /// queue directory `recipes::zk::kit::QUEUE_DIR` exists by then. `connect` is called
    /// when a client starts and again whenever the queue reports its session gone (set
    /// `producers`, `consumers` and `items` to shape it). Judged by `queue` (no item lost,
    /// none taken twice, each producer's order kept), `herd` and `liveness`.
    pub fn queue_workload<Q, F, Fut>(self, connect: F) -> Experiment
    where
        Q: Queue + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Q, RecipeError>> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's queue over ZooKeeper",
            ZkQueueProgram::queue_workload(connect),
            &[Property::QUEUE, Property::HERD, Property::LIVENESS],
        ))
    }

    /// Each client arrives at a barrier per round (`rounds` of them, each waiting for every
    /// client) and works once it passes, over the barrier `connect` binds to a new session
    /// with `zk1`; the directory `recipes::zk::kit::BARRIER_DIR` exists by then, and the
    /// history names round `r`'s barrier `BARRIER_DIR/r{r}`. `connect` is called when a
    /// client starts and again whenever the barrier reports its session gone. Judged by
    /// `barrier` (nobody passes before everyone arrived) and `liveness`.
    ///
    /// ```no_run
    /// # use locksim::{Barrier, Property, RecipeError, Scenario};
    /// # struct Open;
    /// # impl Barrier for Open {
    /// #     async fn enter(&mut self, _round: u32) -> Result<(), RecipeError> { Ok(()) }
    /// # }
    /// Scenario::zookeeper()
    ///     .barrier_workload(|_node, _client| async { Ok(Open) })
    ///     .explore(0..10)
    ///     .assert_violates(Property::BARRIER);
    /// ```
    pub fn barrier_workload<B, F, Fut>(self, connect: F) -> Experiment
    where
        B: Barrier + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<B, RecipeError>> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's barrier over ZooKeeper",
            ZkBarrierProgram::barrier_workload(connect),
            &[Property::BARRIER, Property::LIVENESS],
        ))
    }

    /// As `barrier_workload`, over a double barrier: each round every client enters, works
    /// and leaves; the directory is `recipes::zk::kit::DOUBLE_BARRIER_DIR`. Judged by
    /// `barrier` (nobody passes its enter before everyone entered, nor its leave before
    /// everyone finished its work) and `liveness`.
    pub fn double_barrier_workload<D, F, Fut>(self, connect: F) -> Experiment
    where
        D: DoubleBarrier + 'static,
        F: Fn(Node, ZkClient) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<D, RecipeError>> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's double barrier over ZooKeeper",
            ZkBarrierProgram::double_barrier_workload(connect),
            &[Property::BARRIER, Property::LIVENESS],
        ))
    }
}

/// A scenario built in a test is named after its test binary and the test
/// (`zk_lock-watching_the_lowest_node_wakes_a_herd`: two binaries may each hold a test of
/// that name); the second one built by the same test gets `-2`, and so on, so each keeps its
/// own traces and replays.
fn default_name() -> String {
    thread_local! {
        static BUILT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let base = env::qualified_test_name()
        .map(|test| env::file_safe(&test))
        .unwrap_or_else(|| "my-scenario".to_string());
    match BUILT.replace(BUILT.get() + 1) {
        0 => base,
        n => format!("{base}-{}", n + 1),
    }
}

/// A scenario and how to run it: the profile, parameter settings, properties, parallelism
/// and trace directory. Built with chained calls, run with `explore` or `run`.
#[derive(Debug, Clone)]
#[must_use = "an experiment does nothing until it is explored or run"]
pub struct Experiment {
    scenario: Scenario,
    profile: Option<String>,
    settings: Vec<String>,
    /// The properties runs are judged by, when not the scenario's own.
    properties: Option<Vec<Property>>,
    /// The properties of the checkers `check` added, judged whatever `properties` says.
    checked: Vec<Property>,
    jobs: Option<usize>,
    campaign: u64,
    traces: Option<PathBuf>,
    /// Whether `explore` goes on after a finding to each property's first seed.
    every_property: bool,
}

impl Experiment {
    /// An experiment on `scenario` (a built-in one from `scenario::find`, or your own) with
    /// its default profile and parameters.
    pub fn new(scenario: Scenario) -> Experiment {
        Experiment {
            scenario,
            profile: None,
            settings: Vec::new(),
            properties: None,
            checked: Vec::new(),
            jobs: None,
            campaign: 0,
            traces: None,
            every_property: false,
        }
    }

    /// Names the scenario, as trace files and messages show it; by default a scenario built
    /// in a test is named after its test binary and the test (`zk_lock-watching_the_lowest`;
    /// `-2`, `-3`... for the next ones it builds).
    pub fn named(mut self, name: &str) -> Experiment {
        self.scenario.name = name.to_string().into();
        self
    }

    /// How many clients contend (the `clients` parameter).
    #[track_caller]
    pub fn clients(self, clients: u32) -> Experiment {
        self.set(&format!("clients={clients}"))
    }

    /// The fault profile to explore under (`locksim list SCENARIO` shows a scenario's); its
    /// settings come before any `set`.
    ///
    /// # Panics
    /// At this call, when the scenario has no profile of that name (the message names the
    /// ones it has); `try_profile` returns the error instead.
    #[track_caller]
    pub fn profile(self, profile: &str) -> Experiment {
        self.try_profile(profile).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `profile`, returning an unknown profile's error instead of panicking.
    pub fn try_profile(mut self, profile: &str) -> Result<Experiment, ParamError> {
        self.scenario.profile(profile)?;
        self.profile = Some(profile.to_string());
        Ok(self)
    }

    /// Declares a parameter of your own, which `set` then sets like a built-in one and
    /// trace files record; the recipe reads it with `Node::param`, a checker with
    /// `CheckConfig::param`.
    ///
    /// ```
    /// # use locksim::{Lock, LockError, Grant, Param, Scenario};
    /// # struct Nop;
    /// # impl Lock for Nop {
    /// #     async fn acquire(&mut self) -> Result<Grant, LockError> { Ok(Grant::default()) }
    /// #     async fn release(&mut self) -> Result<(), LockError> { Ok(()) }
    /// # }
    /// const PERMITS: Param<u32> = Param::u32("permits", 2).range(1, 8);
    /// let experiment = Scenario::redis(1)
    ///     .lock_workload(|node| async move {
    ///         let _permits = node.param(PERMITS);
    ///         Ok(Nop)
    ///     })
    ///     .param(PERMITS)
    ///     .set("permits=3");
    /// assert_eq!(experiment.params().unwrap().own.get(PERMITS), 3);
    /// assert!(experiment.try_set("permits=9").is_err());
    /// ```
    ///
    /// # Panics
    /// When `param` has the key of a built-in parameter.
    pub fn param<T: ParamValue>(mut self, param: Param<T>) -> Experiment {
        self.scenario = self.scenario.with_param(param);
        self
    }

    /// Declares steps of your own code (`node.step("commit").await` in a `client_program`,
    /// or in a `Lock`, `Election`, `Queue` or `Barrier` a workload runs, beside the
    /// workload's own steps): a fault plan may aim a `pause_before`, or a targeted pause's
    /// step trigger, at any of them, and the swarm draws them as it draws the workload's
    /// (in the order declared, after the workload's). A plan naming a step nothing
    /// declares is refused before the run, listing those declared; code that reaches an
    /// undeclared step ends its run as a harness error naming it.
    ///
    /// ```
    /// # use locksim::Scenario;
    /// use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
    ///
    /// let experiment = Scenario::redis(1)
    ///     .client_program(|node| async move {
    ///         node.step("commit").await;
    ///     })
    ///     .steps(["commit"])
    ///     .set("faults=none");
    /// let pause = |step: &str| TimedFault {
    ///     at_ms: 0,
    ///     fault: Fault::PauseBefore { node: "c1".into(), step: step.into(), for_ms: 50 },
    /// };
    /// let report = experiment.run_plan(1, FaultPlan::new(vec![pause("commit")]));
    /// assert!(report.violations().is_empty());
    /// // `pause("fetch")` would panic: "... no client program declares a step 'fetch'
    /// // (declared: commit)".
    /// ```
    pub fn steps<S: Into<String>>(mut self, steps: impl IntoIterator<Item = S>) -> Experiment {
        self.scenario = self.scenario.with_steps(steps);
        self
    }

    /// A parameter setting as `--set` takes it: `"ttl_ms=200"`. Later settings win. The
    /// setting is checked here on its own (a parameter the scenario has, declared with
    /// `param` first if it is your own; a value of its type and in its range); bounds that
    /// relate two parameters are judged when the experiment runs.
    ///
    /// ```should_panic
    /// # use locksim::{Lock, LockError, Grant, Scenario};
    /// # struct Nop;
    /// # impl Lock for Nop {
    /// #     async fn acquire(&mut self) -> Result<Grant, LockError> { Ok(Grant::default()) }
    /// #     async fn release(&mut self) -> Result<(), LockError> { Ok(()) }
    /// # }
    /// // Panics here: "bad value 'nope' for faults: ... (known: partition, loss, ...)".
    /// let _ = Scenario::redis(1)
    ///     .lock_workload(|_node| async { Ok(Nop) })
    ///     .set("faults=nope");
    /// ```
    ///
    /// # Panics
    /// At this call, on a setting the scenario refuses; `try_set` returns the error instead.
    #[track_caller]
    pub fn set(self, assignment: &str) -> Experiment {
        self.try_set(assignment).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `set`, returning a refused setting's error instead of panicking.
    pub fn try_set(mut self, assignment: &str) -> Result<Experiment, ParamError> {
        self.scenario.check_setting(assignment)?;
        self.settings.push(assignment.to_string());
        Ok(self)
    }

    /// Judges runs by `properties` instead of the scenario's own (a property of your own
    /// needs its checker: `check`), and by the property of every checker `check` adds,
    /// before or after this call. Trace files record the choice, so a replay judges the
    /// same.
    pub fn properties(mut self, properties: impl IntoIterator<Item = Property>) -> Experiment {
        self.properties = Some(properties.into_iter().collect());
        self
    }

    /// Gives the scenario `checker` (in place of any checker of the same property, a
    /// built-in one included) and judges runs by its property too, whether `properties`
    /// comes before this call or after. Its violations appear in
    /// verdicts, reports and trace files like the built-ins'.
    pub fn check(mut self, checker: impl Checker + 'static) -> Experiment {
        let property = checker.property();
        self.scenario.checkers.add(Arc::new(checker));
        for judged in [&mut self.scenario.properties, &mut self.checked] {
            if !judged.contains(&property) {
                judged.push(property);
            }
        }
        self
    }

    /// The properties runs are judged by: those `properties` chose (else the scenario's),
    /// then those of the checkers `check` added.
    fn judged(&self) -> Vec<Property> {
        let mut judged = self
            .properties
            .clone()
            .unwrap_or_else(|| self.scenario.properties.clone());
        for property in &self.checked {
            if !judged.contains(property) {
                judged.push(*property);
            }
        }
        judged
    }

    /// How many simulations run at once (default: the machine's parallelism). The verdict
    /// does not depend on it.
    pub fn jobs(mut self, jobs: usize) -> Experiment {
        self.jobs = Some(jobs);
        self
    }

    /// The campaign seed of `explore_guided` (default 0): another campaign makes other
    /// choices and may find another thing, or the same sooner or later.
    pub fn campaign(mut self, campaign: u64) -> Experiment {
        self.campaign = campaign;
        self
    }

    /// Makes `explore` go on after a finding, to the first seed of each property the range
    /// shows (`explore --every-property` on the command line): a rare two-leader run behind
    /// an early herd finding is found without narrowing `properties`. Each property's first
    /// finding is shrunk keeping that property broken and written as its own trace
    /// (`<scenario>-<seed>-<property>.json`); `Explored::findings` lists them and
    /// `assert_violates` takes any of them. It stops early once every judged property is
    /// found; the result is the same whatever `jobs` is.
    ///
    /// ```no_run
    /// # use locksim::{Property, scenario};
    /// let flawed = locksim::Experiment::new(scenario::find("zk-election-stale-node").unwrap().clone())
    ///     .every_property();
    /// let explored = flawed.explore(0..600);
    /// explored.assert_violates(Property::HERD);
    /// explored.assert_violates(Property::LEADER);
    /// ```
    ///
    /// `explore_guided` and `fuzz` stop at their first finding and panic when it is set.
    pub fn every_property(mut self) -> Experiment {
        self.every_property = true;
        self
    }

    /// Where the trace of a finding is written (default: `LOCKSIM_TRACES`, else
    /// `locksim-traces` under the test binary's target directory).
    pub fn traces(mut self, dir: impl Into<PathBuf>) -> Experiment {
        self.traces = Some(dir.into());
        self
    }

    /// The scenario as built.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The parameters its runs use: the defaults, the profile's settings, then `set`'s.
    pub fn params(&self) -> Result<Params, ParamError> {
        self.scenario
            .params(self.profile.as_deref(), &self.settings)
    }

    /// Runs one seed with the fault plan the swarm draws for it, and judges it.
    ///
    /// # Panics
    /// On parameters the scenario refuses, and when the harness itself fails.
    pub fn run(&self, seed: u64) -> RunReport {
        let spec = RunSpec {
            properties: self.judged(),
            ..RunSpec::generated(&self.scenario, self.valid_params(), seed)
        };
        run::run(&spec).unwrap_or_else(|e| panic!("{}: seed {seed}: {e}", self.scenario.name))
    }

    /// Runs one seed with `plan`, a fault plan of your own, instead of the one the swarm
    /// draws, and judges it as `run` does: the seed still decides latencies, clocks and
    /// every other random stream. A hand-made plan that should expose a flaw, asserted in
    /// one run; nothing is shrunk or written.
    ///
    /// ```no_run
    /// # use locksim::{Property, scenario};
    /// use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
    ///
    /// let noguid = locksim::Experiment::new(scenario::find("zk-lock-noguid").unwrap().clone());
    /// let lose_create = TimedFault {
    ///     at_ms: 0,
    ///     fault: Fault::LoseReply { node: "zk1".into(), op: "create".into(), client: "c1".into() },
    /// };
    /// let report = noguid.run_plan(1, FaultPlan::new(vec![lose_create]));
    /// assert!(report.violations().iter().any(|v| v.property == Property::LIVENESS));
    /// ```
    ///
    /// # Panics
    /// On parameters the scenario refuses, on a plan that does not suit its hosts, and when
    /// the harness itself fails.
    pub fn run_plan(&self, seed: u64, plan: FaultPlan) -> RunReport {
        let spec = RunSpec {
            plan,
            properties: self.judged(),
            ..RunSpec::generated(&self.scenario, self.valid_params(), seed)
        };
        run::run(&spec).unwrap_or_else(|e| panic!("{}: seed {seed}: {e}", self.scenario.name))
    }

    /// Explores `seeds` (or those `LOCKSIM_SEED` / `LOCKSIM_SEEDS` pin): the lowest failing
    /// seed wins, its fault plan is shrunk, and its trace is written (only that one; with
    /// `every_property`, each violated property's first seed is, each with its trace). With
    /// `LOCKSIM_REPLAY` naming a trace of this scenario, replays that trace instead and
    /// prints its digest and timeline.
    ///
    /// Without `--cfg tokio_unstable` (a crate that lacks locksim's `.cargo/config.toml`),
    /// tokio's own randomness is not seeded (a `tokio::select!` without `biased;` picks at
    /// random), so every seed runs twice and a difference is reported rather than trusted.
    /// Everything else draws the same randomness in both builds: a trace written by either
    /// replays in the other.
    ///
    /// # Panics
    /// On parameters the scenario refuses, and on a bad `LOCKSIM_*` variable.
    pub fn explore(&self, seeds: Range<u64>) -> Explored {
        if let Some(path) = env::replay_path()
            && let Some(explored) = self.replay_if_mine(&path)
        {
            return explored;
        }
        let seeds = env::seeds()
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or(seeds);
        let spec = ExploreSpec {
            scenario: self.scenario.clone(),
            params: self.valid_params(),
            properties: self.judged(),
            seeds: seeds.clone(),
            jobs: self.jobs.unwrap_or_else(env::default_jobs),
            check_determinism: !cfg!(tokio_unstable),
        };
        let exploration = match self.every_property {
            true => explore::explore_every_property(&spec, &()),
            false => explore::explore(&spec),
        };
        self.explored(format!("seeds {seeds:?}"), exploration)
    }

    /// Searches with a guided campaign instead of a range of seeds: up to `runs` runs, each
    /// kept when it reaches a recipe state no run reached before and its fault plan mutated
    /// after that point, stopping at the first finding (`explore --guided` on the command
    /// line; docs/commands.md tells how it chooses). The campaign seed (`campaign`, default
    /// 0) decides every choice, so the same test finds the same thing on any machine and any
    /// number of jobs. The finding is shrunk and written as `explore` writes it, and replays
    /// with `LOCKSIM_REPLAY` with no search involved; the assertions are the same.
    ///
    /// ```no_run
    /// # use locksim::{Property, scenario};
    /// let flawed = locksim::Experiment::new(scenario::find("zk-lock-vanished").unwrap().clone());
    /// flawed.explore_guided(1_000).assert_violates(Property::MUTEX);
    /// ```
    ///
    /// `LOCKSIM_SEED` / `LOCKSIM_SEEDS` pin the seeds here too: with either set, it explores
    /// those seeds as `explore` does, in place of the campaign. A guided finding's own plan
    /// runs again only from its trace (`LOCKSIM_REPLAY`): its seed alone draws another plan.
    ///
    /// # Panics
    /// On parameters the scenario refuses, on a bad `LOCKSIM_*` variable, and when
    /// `every_property` is set (a campaign stops at its first finding).
    pub fn explore_guided(&self, runs: u64) -> Explored {
        self.first_finding_only("explore_guided");
        if let Some(path) = env::replay_path()
            && let Some(explored) = self.replay_if_mine(&path)
        {
            return explored;
        }
        if let Some(seeds) = env::seeds().unwrap_or_else(|e| panic!("{e}")) {
            return self.explore(seeds);
        }
        let spec = GuidedSpec {
            scenario: self.scenario.clone(),
            params: self.valid_params(),
            properties: self.judged(),
            campaign: self.campaign,
            runs,
            jobs: self.jobs.unwrap_or_else(env::default_jobs),
            check_determinism: !cfg!(tokio_unstable),
        };
        let found = guided::guided(&spec, &());
        let searched = format!("guided campaign {}, up to {runs} runs", self.campaign);
        let exploration = explore::Exploration {
            seeds_run: found.runs,
            outcome: found.outcome,
            witnessed: Vec::new(),
            by_property: Vec::new(),
        };
        self.explored(searched, exploration)
    }

    /// Fuzzes with proptest: `PROPTEST_CASES` cases (proptest's default: 256), each a seed
    /// and a fault plan drawn from the scenario's swarm knobs, from a fixed proptest seed so
    /// every run sees the same cases. The first failing case's plan is shrunk by locksim's
    /// shrinker, and only that final plan's trace is written. Like `explore`, it replays
    /// `LOCKSIM_REPLAY`'s trace instead when it is of this scenario, and runs each case
    /// twice without `--cfg tokio_unstable`.
    ///
    /// # Panics
    /// On parameters the scenario refuses, and when `every_property` is set (proptest stops
    /// at its first failing case).
    pub fn fuzz(&self) -> Explored {
        self.first_finding_only("fuzz");
        if let Some(path) = env::replay_path()
            && let Some(explored) = self.replay_if_mine(&path)
        {
            return explored;
        }
        let (cases, exploration) = fuzz::fuzz(
            &self.scenario,
            &self.valid_params(),
            &self.judged(),
            !cfg!(tokio_unstable),
        );
        self.explored(format!("{cases} proptest cases"), exploration)
    }

    /// Panics when `every_property` is set: `search` stops at its first finding.
    #[track_caller]
    fn first_finding_only(&self, search: &str) {
        assert!(
            !self.every_property,
            "{}: every_property goes with explore over a range of seeds; {search} stops at its first finding",
            self.scenario.name
        );
    }

    /// Writes the finding's trace and its picture beside it, if there is one (with
    /// `every_property`, each property's, the lowest of them the finding's), and wraps the
    /// result.
    fn explored(&self, searched: String, exploration: explore::Exploration) -> Explored {
        let dir = self.trace_dir();
        let write = |finding: &explore::Finding, property: Option<Property>| {
            let trace = Trace::of(&finding.spec, &finding.report);
            let saved = match property {
                Some(p) => trace.save_for(&dir, p),
                None => trace.save(&dir),
            };
            saved
                .and_then(|p| html::write_beside(&p, &trace, &finding.report).map(|_| p))
                .unwrap_or_else(|e| panic!("cannot write a trace into {}: {e}", dir.display()))
        };
        let by_property: Vec<PathBuf> = exploration
            .by_property
            .iter()
            .map(|(p, finding)| write(finding, Some(*p)))
            .collect();
        let trace = match (&exploration.outcome, by_property.first()) {
            (explore::Outcome::Violation(_), Some(first)) => Some(first.clone()),
            (explore::Outcome::Violation(finding), None) => Some(write(finding, None)),
            _ => None,
        };
        Explored::new(
            self.scenario.name.to_string(),
            searched,
            exploration,
            trace,
            by_property,
        )
    }

    /// Replays the trace at `path` as a run of this scenario: the parameters, seed, fault
    /// plan and properties come from the file. `.assert_reproduced()` on what it returns
    /// checks that the run broke what the file says, with the file's digest.
    ///
    /// # Panics
    /// When the file cannot be read or is of another scenario.
    pub fn replay(&self, path: &Path) -> trace::Replay {
        let trace = Trace::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            trace.scenario,
            self.scenario.name,
            "{} is a trace of scenario {}, not of {}",
            path.display(),
            trace.scenario,
            self.scenario.name
        );
        trace::replay_as(&trace, &self.scenario, path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `LOCKSIM_REPLAY`'s trace replayed, when it is of this scenario; None when it is of
    /// another (that test explores as usual).
    fn replay_if_mine(&self, path: &Path) -> Option<Explored> {
        let trace = Trace::load(path).unwrap_or_else(|e| {
            panic!("LOCKSIM_REPLAY: {e} (cargo runs tests in the package's directory: give an absolute path)")
        });
        if trace.scenario != self.scenario.name {
            return None;
        }
        let replayed = self.replay(path);
        let spec = trace
            .spec_as(&self.scenario, path)
            .unwrap_or_else(|e| panic!("{e}"));
        Some(Explored::replayed(
            self.scenario.name.to_string(),
            spec,
            replayed,
            path,
        ))
    }

    fn valid_params(&self) -> Params {
        self.params()
            .unwrap_or_else(|e| panic!("{}: {e}", self.scenario.name))
    }

    fn trace_dir(&self) -> PathBuf {
        self.traces.clone().unwrap_or_else(env::trace_dir)
    }
}
