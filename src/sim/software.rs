//! The seams between the world and what runs on its hosts. The world builds a run from a
//! `Hosts` value and drives servers through `ServerSoftware`; it never names a server family
//! or a recipe, so a new family or recipe adds files, not cases in the world.

use crate::sim::fault::Fault;
use crate::sim::node::Node;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// What a server host runs; turmoil calls it again on every restart.
pub type ServerFuture = Pin<Box<dyn Future<Output = turmoil::Result>>>;

/// What a client host runs: its whole program, from start to finish.
pub type ClientFuture = Pin<Box<dyn Future<Output = ()>>>;

/// A client program: given its host, the future that host runs.
pub type ClientProgram = Rc<dyn Fn(Node) -> ClientFuture>;

/// A family of simulated servers (ZooKeeper, Redis, the store): what a fault plan may ask of
/// it, known before any host exists so a bad plan is refused up front, and how to install
/// its software on a host.
pub trait ServerFamily {
    /// What a fault meant for this family's hosts calls for, for messages ("a ZooKeeper
    /// server").
    fn describe(&self) -> &'static str;

    /// The requests whose reply the server can lose after applying them, as `lose_reply`'s
    /// `op` names them. Empty: it never loses a reply.
    fn reply_ops(&self) -> &'static [&'static str] {
        &[]
    }

    /// The ones among `reply_ops` whose loss the swarm generator tries: those the recipes
    /// must survive. With one, choosing it draws nothing from the seed.
    fn swarm_reply_ops(&self) -> &'static [&'static str] {
        self.reply_ops()
    }

    /// Whether a `failover` (promote the replica, losing what it had not received) applies.
    fn fails_over(&self) -> bool {
        false
    }

    /// Whether a `stall_apply` (a follower that applies nothing for a while) applies.
    fn stalls_apply(&self) -> bool {
        false
    }

    /// Whether the server is a member of an ensemble, whose links to the other members an
    /// `isolate` cuts.
    fn ensemble_member(&self) -> bool {
        false
    }

    /// The software of `node`, which keeps what must survive a crash of that host.
    fn install(&self, node: Node) -> Box<dyn ServerSoftware>;
}

/// One server host's software, as the world drives it.
pub trait ServerSoftware {
    /// The host's software: run at the start and again after every restart.
    fn start(&self) -> ServerFuture;

    /// Carries out a fault only the software can (`lose_reply`, `failover`, `stall_apply`),
    /// one that the family's `reply_ops` / `fails_over` / `stalls_apply` admitted.
    fn apply(&mut self, fault: &Fault);

    /// The heal phase admits no faults: whatever is still armed is disarmed.
    fn heal(&mut self) {}

    /// Whether every wait of this software goes through `Node::timer` (or `turmoil::sleep`),
    /// so that its host may be skipped on the steps it has nothing to do
    /// (`turmoil::Sim::set_lazy`). A tokio timer cannot be seen: software with one must
    /// say false, and its host runs on every step, as the default has it.
    fn lazy(&self) -> bool {
        false
    }
}

/// One server host of a run.
#[derive(Clone)]
pub struct ServerHost {
    /// Its host name (`zk1`, `redis1`, `store`).
    pub name: String,
    /// What it runs: its family installs its software and says which faults it can take.
    pub family: Rc<dyn ServerFamily>,
    /// Whether the swarm generator aims faults at it (the store, the referee that judges the
    /// resource, is faulted only by a hand-written plan).
    pub swarmed: bool,
}

/// Every host of a run and its software, as a scenario declares them.
#[derive(Clone)]
pub struct Hosts {
    /// The servers, in the order they are registered with turmoil (which fixes addresses).
    pub servers: Vec<ServerHost>,
    /// The client hosts, each running `program`.
    pub clients: Vec<String>,
    /// What every client host runs.
    pub program: ClientProgram,
    /// The steps of `program` (`Node::step`): those a `pause_before` fault or a step
    /// trigger can aim at and the swarm draws from, in the order it draws them; a step
    /// the program reaches that is not here is a harness error.
    pub pause_steps: Vec<String>,
    /// Of `pause_steps`, those a client reaches only while it waits behind another (where a
    /// `blocked` pause can strike); none: a `blocked` pause may aim at any step.
    pub wait_steps: Vec<String>,
    /// Whether every wait of `program` goes through `Node::timer` (or `turmoil::sleep`), so
    /// that a client host may be skipped on the steps it has nothing to do. False for code
    /// that may call `tokio::time` itself (a user's program, redis-rs, tokio-zookeeper):
    /// those hosts run on every step.
    pub lazy_clients: bool,
}

/// `names` as a program's step list (`Hosts::pause_steps`).
pub fn steps(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

impl Hosts {
    /// Every host name: servers, then clients.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers
            .iter()
            .map(|s| s.name.as_str())
            .chain(self.clients.iter().map(String::as_str))
    }

    /// Whether `step` is one of `pause_steps`.
    pub fn has_step(&self, step: &str) -> bool {
        self.pause_steps.iter().any(|s| s == step)
    }

    /// The server host called `name`, if there is one.
    pub(crate) fn server(&self, name: &str) -> Option<&ServerHost> {
        self.servers.iter().find(|s| s.name == name)
    }
}
