//! The hosts of a Redis scenario of your own, `Scenario::redis(n)`, and the workloads that
//! put a recipe of yours on them.

use super::{Experiment, default_name};
use crate::check::Property;
use crate::recipes::{Barrier, DoubleBarrier, Election, Lock, Queue};
use crate::scenario::{RedisConnect, RedisProgram, Scenario};
use crate::sim::node::Node;

/// The hosts of a Redis scenario before its clients are given a program: `Scenario::redis`.
#[derive(Debug, Clone)]
#[must_use = "give its clients a program, e.g. with `lock_workload`"]
pub struct RedisHosts {
    masters: u32,
}

impl Scenario {
    /// `masters` simulated Redis masters, named `redis1`, `redis2`..., and the protected
    /// store, for a scenario of your own. Its faults, profiles (`full`, the default, and
    /// `own-assumptions`) and parameters are those of the built-in Redis locks.
    pub fn redis(masters: u32) -> RedisHosts {
        RedisHosts { masters }
    }
}

impl RedisHosts {
    /// Each client runs the standard lock workload (acquire, read the store, work, write,
    /// release; `rounds` times) over the lock `connect` opens for its host. `connect` is
    /// called when a client starts and again whenever the lock reports its session gone.
    /// The scenario is judged by `mutex`, `resource` and `liveness`, and named after the
    /// test that builds it (see `Experiment::named`). Its `request_timeout_ms`, which the
    /// liveness bound allows for, starts at redis-rs's default response timeout.
    pub fn lock_workload<L: Lock + 'static>(self, connect: impl RedisConnect<L>) -> Experiment {
        users_recipe(
            "a user's lock over Redis",
            RedisProgram::lock_workload(self.masters, connect),
            &[Property::MUTEX, Property::RESOURCE, Property::LIVENESS],
        )
    }

    /// Each client runs the standard election workload (run for leader, read the store,
    /// work, write with the grant's token, step down; `terms` times) over the candidate
    /// `connect` opens for its host, called when a client starts and again whenever the
    /// election reports its session gone; the history names the election
    /// `locksim:election`. Judged by `leader`, `resource` and `liveness`, with the lock's
    /// profiles and timing (`ttl_ms`, `retry_delay_max_ms`, `request_timeout_ms` starting
    /// at redis-rs's default response timeout), which the bounds allow for. No `herd`: it
    /// counts the wake-ups of ZooKeeper watches, and a Redis recipe has none to report.
    ///
    /// A leader on a key with a TTL leads on a lease, which a pause past it, a master's
    /// clock jump or a restart that forgets can end behind its back: a correct one is clean
    /// only under `own-assumptions`. Its lease is its own: a recipe that renews it does so
    /// while the workload waits on [`Election::leadership_lost`], and says there when it
    /// could not.
    ///
    /// ```no_run
    /// use locksim::redis_rs::{aio::MultiplexedConnection, cmd};
    /// use locksim::{Election, Grant, Node, Property, RecipeError, Scenario};
    ///
    /// /// Leads once its key is set and never renews it: a term longer than the TTL outlives
    /// /// the key, and the next candidate leads beside it.
    /// struct Unrenewed { conn: MultiplexedConnection, node: Node }
    ///
    /// impl Election for Unrenewed {
    ///     async fn lead(&mut self) -> Result<Grant, RecipeError> {
    ///         loop {
    ///             let set: Option<String> = cmd("SET").arg("leader").arg(&self.node.name)
    ///                 .arg("NX").arg("PX").arg(200).query_async(&mut self.conn).await?;
    ///             if set.is_some() {
    ///                 return Ok(Grant::default());
    ///             }
    ///             self.node.timer().sleep(10).await;
    ///         }
    ///     }
    ///     async fn resign(&mut self) -> Result<(), RecipeError> {
    ///         let _: u32 = cmd("DEL").arg("leader").query_async(&mut self.conn).await?;
    ///         Ok(())
    ///     }
    /// }
    ///
    /// Scenario::redis(1)
    ///     .election_workload(|node| async move {
    ///         let conn = locksim::redis::rs::connect(&node, "redis1").await?;
    ///         Ok(Unrenewed { conn, node })
    ///     })
    ///     .set("hold_ms=300")
    ///     .explore(0..10)
    ///     .assert_violates(Property::LEADER);
    /// ```
    pub fn election_workload<E: Election + 'static>(
        self,
        connect: impl RedisConnect<E>,
    ) -> Experiment {
        users_recipe(
            "a user's leader election over Redis",
            RedisProgram::election_workload(self.masters, connect),
            &[Property::LEADER, Property::RESOURCE, Property::LIVENESS],
        )
    }

    /// Producers `p1..pP` offer their items (`p1-0`, `p1-1`, ...) and consumers `c1..cC`
    /// take them all, each over the queue `connect` opens for its host, called when a client
    /// starts and again whenever the queue reports its session gone (set `producers`,
    /// `consumers` and `items` to shape it); the history names the queue `locksim:queue`.
    /// Judged by `queue` (no item lost, none taken twice, each producer's order kept) and
    /// `liveness`, with the lock's profiles and timing. A lost reply to any command that
    /// changes the keyspace (`lose_reply`, op `lpop`, `rpush`, `eval`... or `any`) leaves
    /// the outcome unknown: the workload asks for the same offer or take again, and the
    /// recipe settles it. A master that restarts empty (`full`) loses the queue whatever
    /// the recipe does: `own-assumptions` keeps every acknowledged write.
    ///
    /// ```no_run
    /// use locksim::redis_rs::{AsyncCommands, aio::MultiplexedConnection};
    /// use locksim::{Node, Property, Queue, RecipeError, Scenario, Taken};
    ///
    /// /// Pushes and pops: an item whose pop's reply is lost is gone, and so is its take.
    /// struct Plain { conn: MultiplexedConnection, node: Node }
    ///
    /// async fn plain(node: Node) -> Result<Plain, RecipeError> {
    ///     Ok(Plain { conn: locksim::redis::rs::connect(&node, "redis1").await?, node })
    /// }
    ///
    /// impl Queue for Plain {
    ///     async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
    ///         let _: u32 = self.conn.rpush("queue", item).await?;
    ///         Ok(())
    ///     }
    ///     async fn take(&mut self) -> Result<Taken, RecipeError> {
    ///         loop {
    ///             let item: Option<String> = self.conn.lpop("queue", None).await?;
    ///             match item {
    ///                 Some(item) => return Ok(Taken::new(item)),
    ///                 None => self.node.timer().sleep(10).await,
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// let found = Scenario::redis(1).queue_workload(plain).profile("own-assumptions");
    /// found.explore(0..100).assert_violates(Property::QUEUE);
    /// ```
    pub fn queue_workload<Q: Queue + 'static>(self, connect: impl RedisConnect<Q>) -> Experiment {
        users_recipe(
            "a user's queue over Redis",
            RedisProgram::queue_workload(self.masters, connect),
            &[Property::QUEUE, Property::LIVENESS],
        )
    }

    /// Each client arrives at a barrier per round (`rounds` of them, each waiting for every
    /// client, after a random delay up to `arrive_max_ms`) and works once it passes, over
    /// the barrier `connect` opens for its host, called when a client starts and again
    /// whenever the barrier reports its session gone; the history names round `r`'s
    /// barrier `locksim:barrier/r{r}`. Judged by `barrier` (nobody passes before everyone
    /// arrived) and `liveness`, with the lock's profiles and timing. A master that restarts
    /// empty (`full`) forgets who arrived: `own-assumptions` keeps every acknowledged write.
    ///
    /// ```no_run
    /// use locksim::redis_rs::{AsyncCommands, aio::MultiplexedConnection};
    /// use locksim::{Barrier, Node, Param, Property, RecipeError, Scenario};
    ///
    /// /// Counts arrivals with INCR: an arrival whose reply was lost, asked again, counts twice.
    /// struct Counted { conn: MultiplexedConnection, node: Node }
    ///
    /// impl Barrier for Counted {
    ///     async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
    ///         let key = format!("arrived:{round}");
    ///         let _: u32 = self.conn.incr(&key, 1).await?;
    ///         let clients = self.node.param(Param::u32("clients", 5));
    ///         while self.conn.get::<_, u32>(&key).await? < clients {
    ///             self.node.timer().sleep(10).await;
    ///         }
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let counted = |node: Node| async move {
    ///     let conn = locksim::redis::rs::connect(&node, "redis1").await?;
    ///     Ok(Counted { conn, node })
    /// };
    /// let experiment = Scenario::redis(1).barrier_workload(counted);
    /// let explored = experiment.profile("own-assumptions").explore(0..100);
    /// explored.assert_violates(Property::BARRIER);
    /// ```
    pub fn barrier_workload<B: Barrier + 'static>(
        self,
        connect: impl RedisConnect<B>,
    ) -> Experiment {
        users_recipe(
            "a user's barrier over Redis",
            RedisProgram::barrier_workload(self.masters, connect),
            &[Property::BARRIER, Property::LIVENESS],
        )
    }

    /// As `barrier_workload`, over a double barrier: each round every client enters, works
    /// and leaves; the history names round `r`'s barrier `locksim:double-barrier/r{r}`.
    /// Judged by `barrier` (nobody passes its enter before everyone entered, nor its leave
    /// before everyone finished its work) and `liveness`.
    ///
    /// ```no_run
    /// use locksim::{DoubleBarrier, Property, RecipeError, Scenario};
    ///
    /// /// Lets everyone in and out at once: `barrier` finds a client that passed alone.
    /// struct Open;
    ///
    /// impl DoubleBarrier for Open {
    ///     async fn enter(&mut self, _round: u32) -> Result<(), RecipeError> {
    ///         Ok(())
    ///     }
    ///     async fn leave(&mut self, _round: u32) -> Result<(), RecipeError> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// Scenario::redis(1)
    ///     .double_barrier_workload(|_node| async { Ok(Open) })
    ///     .explore(0..10)
    ///     .assert_violates(Property::BARRIER);
    /// ```
    pub fn double_barrier_workload<D: DoubleBarrier + 'static>(
        self,
        connect: impl RedisConnect<D>,
    ) -> Experiment {
        users_recipe(
            "a user's double barrier over Redis",
            RedisProgram::double_barrier_workload(self.masters, connect),
            &[Property::BARRIER, Property::LIVENESS],
        )
    }

    /// Each client runs `program` once: a program that fits no workload, recording events
    /// of its own ([`Node::record_event`]) for a checker of your own
    /// ([`Experiment::check`]). Judged by `resource` (what it writes through
    /// [`ProtectedStore`](crate::store::ProtectedStore)), `liveness` (every client's program
    /// finishes) and the checkers you add. Its steps, where a plan may aim a pause, are those
    /// you declare with [`Experiment::steps`].
    pub fn client_program<F, Fut>(self, program: F) -> Experiment
    where
        F: Fn(Node) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        Experiment::new(Scenario::new(
            default_name(),
            "a user's client program over Redis",
            RedisProgram::client_program(self.masters, program),
            &[Property::RESOURCE, Property::LIVENESS],
        ))
    }
}

/// A user's recipe on Redis hosts, judged by `properties`. Its `request_timeout_ms`, which
/// the bounds allow for, starts at redis-rs's default response timeout.
fn users_recipe(
    summary: &'static str,
    program: RedisProgram,
    properties: &[Property],
) -> Experiment {
    Experiment::new(Scenario::new(default_name(), summary, program, properties)).set(&format!(
        "request_timeout_ms={}",
        crate::redis::rs::RESPONSE_TIMEOUT_MS
    ))
}
