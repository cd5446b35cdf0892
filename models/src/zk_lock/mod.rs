//! The ZooKeeper lock: one server with one lock directory (ephemeral sequential children named
//! `<guid>-lock-<seq>` from the directory's counter), sessions, one-shot watches, and N
//! clients running the recipe's own decisions from `recipes::zk::lock::decide`: what to do
//! after a create (and after its lost reply), which node a listing says to watch (or the
//! directory, for the herd), what an `exists` that finds no predecessor means, what an event
//! means, when a delete released the node, and where each flawed variant decides otherwise.
//! Each client enqueues once, writes to the resource once it holds the lock, and releases. A
//! request and its reply are one step; the faults are capped actions: a create whose reply is
//! lost after the server applied it, a delete lost before the server applied it, a waiter's
//! connection that drops and comes back within its session (a Disconnected event on its
//! watch), and a client that pauses past its session timeout, so the server expires its
//! session (its nodes vanish, their watches fire) while the client takes no step and later
//! notices. The directory's counter starts at `seq_start`, so a run can cross its wrap past
//! 2147483647. A client of the `stale-session` flaw that abandons its session for a new one
//! leaves the old one to the server, which expires it (and its nodes) at some later step.
//!
//! - `told.rs`: each step in the model's words
//! - `trace.rs`: a counterexample as a locksim scenario and fault plan

mod told;
mod trace;

use crate::settings::{ParamError, Renamed, Settings};
use crate::symmetry::Renaming;
use locksim::recipes::zk::lock::decide::{
    self, AfterCreate, AfterExists, Contender, Decision, Flavor, OnEvent, Outcome,
};
use locksim::zk::proto::{EventType, KeeperState};
use stateright::{Model, Property, Representative};

/// The model's switches and bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZkLockModel {
    /// The recipe or one of its flawed variants (`Simple` is not modelled: see
    /// `UNEXPRESSED`).
    pub flavor: Flavor,
    pub clients: u8,
    /// Whether the resource refuses a token lower than the highest it has seen.
    pub fencing: bool,
    /// Create replies lost in a run, all clients together.
    pub lost_replies: u8,
    /// Sessions expired under a paused client in a run, all clients together.
    pub expiries: u8,
    /// Deletes lost to ConnectionLoss before the server applied them, all clients together.
    pub lost_deletes: u8,
    /// Connections of waiting clients that drop and come back within the session timeout,
    /// all clients together.
    pub disconnects: u8,
    /// Where the directory's sequence counter starts, as `locksim`'s `seq_start`: near
    /// 2147483647 it wraps to negative numbers within a run (Z6).
    pub seq_start: u32,
}

impl Default for ZkLockModel {
    fn default() -> Self {
        ZkLockModel {
            flavor: Flavor::Recipe,
            clients: 2,
            fencing: true,
            lost_replies: 1,
            expiries: 1,
            lost_deletes: 1,
            disconnects: 1,
            seq_start: 0,
        }
    }
}

/// The parameters `--set` accepts, with what each means.
pub const PARAMS: &[(&str, &str)] = &[
    (
        "flavor",
        "recipe (GUID, predecessor watch), herd, noguid, name-sort, int-sort (its flaw needs seq_start=2147483647), release-forgets, session-event, vanished (its flaw needs clients=3) or stale-session, as the scenarios zk-lock and zk-lock-<flavor>",
    ),
    ("clients", "number of clients, 1 to 4"),
    (
        "fencing",
        "true (the resource refuses stale tokens) or false",
    ),
    ("lost_replies", "create replies lost in a run, 0 to 2"),
    ("expiries", "sessions expired under a paused client, 0 to 2"),
    (
        "lost_deletes",
        "deletes lost to ConnectionLoss before the server applied them, 0 to 2",
    ),
    (
        "disconnects",
        "connections of waiters that drop and come back within the session, 0 to 2",
    ),
    (
        "seq_start",
        "where the sequence counter starts, 0 to 2147483647 (past 2147483647 it wraps to -2147483648)",
    ),
];

/// The flavors the model expresses, named as the simulation's scenarios end.
const FLAVORS: &[(&str, Flavor)] = &[
    ("recipe", Flavor::Recipe),
    ("herd", Flavor::Herd),
    ("noguid", Flavor::NoGuid),
    ("name-sort", Flavor::NameSort),
    ("int-sort", Flavor::IntSort),
    ("release-forgets", Flavor::ReleaseForgets),
    ("session-event", Flavor::SessionEvent),
    ("vanished", Flavor::Vanished),
    ("stale-session", Flavor::StaleSession),
];

/// The simulation's flavors the model cannot express, and why.
pub const UNEXPRESSED: &[(&str, &str)] = &[(
    "simple",
    "one fixed node raced for by create and exists (simple_next): no line of sequential nodes, which is what the model is made of",
)];

const FENCING: &[(&str, bool)] = &[("true", true), ("false", false)];

/// The spellings this model had before it spelled its parameters as `locksim` does.
pub const RENAMED: &[Renamed] = &[
    Renamed {
        old: "lost-replies",
        new: "lost_replies",
        note: "snake_case",
    },
    Renamed {
        old: "fencing=on",
        new: "fencing=true",
        note: "true or false",
    },
    Renamed {
        old: "fencing=off",
        new: "fencing=false",
        note: "true or false",
    },
];

impl ZkLockModel {
    /// The model as `--set` configures it, the rest as `default` has it.
    pub fn from_settings(settings: &Settings) -> Result<Self, ParamError> {
        settings.only(PARAMS, RENAMED)?;
        let d = ZkLockModel::default();
        Ok(ZkLockModel {
            flavor: settings.choice("flavor", FLAVORS, d.flavor)?,
            clients: settings.number("clients", 1..=4, d.clients)?,
            fencing: settings.choice("fencing", FENCING, d.fencing)?,
            lost_replies: settings.number("lost_replies", 0..=2, d.lost_replies)?,
            expiries: settings.number("expiries", 0..=2, d.expiries)?,
            lost_deletes: settings.number("lost_deletes", 0..=2, d.lost_deletes)?,
            disconnects: settings.number("disconnects", 0..=2, d.disconnects)?,
            seq_start: settings.number("seq_start", 0..=2_147_483_647, d.seq_start)?,
        })
    }

    /// The parameters as the report prints them: as `--set` takes them.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            ("flavor", flavor_name(self.flavor).into()),
            ("clients", self.clients.to_string()),
            ("fencing", self.fencing.to_string()),
            ("lost_replies", self.lost_replies.to_string()),
            ("expiries", self.expiries.to_string()),
            ("lost_deletes", self.lost_deletes.to_string()),
            ("disconnects", self.disconnects.to_string()),
            ("seq_start", self.seq_start.to_string()),
        ]
    }

    /// The node's name as the driver creates it: a GUID prefix per client (none for
    /// `NoGuid`), then ZooKeeper's `%010d` of the directory's signed 32-bit counter, which
    /// started at `seq_start` (so past 2147483647 it reads -2147483648).
    fn name(&self, node: Node) -> String {
        self.name_of(node.seq, node.owner)
    }

    /// The name of node `seq` created by client `owner`.
    fn name_of(&self, seq: u8, owner: u8) -> String {
        let counter = (self.seq_start as i32).wrapping_add(i32::from(seq));
        format!("{}lock-{counter:010}", self.guid(owner))
    }

    /// Ok if the model's steps and properties are blind to which client is which, so a
    /// search may reduce by symmetry: not when names are sorted whole, where a client's
    /// GUID decides its place in line.
    pub fn symmetric(&self) -> Result<(), ParamError> {
        match self.flavor {
            Flavor::NameSort => Err(ParamError::Asymmetric {
                given: "flavor=name-sort".into(),
                why: "a client's GUID decides its place in a line sorted by name",
            }),
            _ => Ok(()),
        }
    }

    fn guid(&self, client: u8) -> String {
        match self.flavor {
            Flavor::NoGuid => String::new(),
            _ => format!("g{client}-"),
        }
    }

    /// The directory's children as `getChildren` returns them.
    fn listing(&self, state: &State) -> Vec<String> {
        state.nodes.iter().map(|&n| self.name(n)).collect()
    }

    /// The node a child's name stands for.
    fn node_named(&self, state: &State, name: &str) -> Option<Node> {
        state.nodes.iter().copied().find(|&n| self.name(n) == name)
    }
}

fn flavor_name(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Herd => "herd",
        Flavor::NoGuid => "noguid",
        Flavor::Simple => "simple",
        Flavor::Recipe => "recipe",
        Flavor::NameSort => "name-sort",
        Flavor::ReleaseForgets => "release-forgets",
        Flavor::SessionEvent => "session-event",
        Flavor::IntSort => "int-sort",
        Flavor::Vanished => "vanished",
        Flavor::StaleSession => "stale-session",
    }
}

/// A child of the lock directory: its place in creation order (its name's number is the
/// counter's, `seq_start` on; the order is also its czxid's, the fencing token: the
/// directory's creates are the only writes) and the session that owns it: its client's
/// current one, or one the client abandoned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    pub seq: u8,
    pub owner: u8,
    /// Whether its session is one its client abandoned for a new one (`stale-session`).
    pub abandoned: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// About to send the create of its node.
    Idle,
    /// Its create's reply was lost: it lists the directory to look for its GUID.
    Looking,
    /// In line: it lists the directory and decides.
    Listing,
    /// The listing named `pred` its predecessor: it sends `exists` with a watch on it.
    Exists { pred: u8 },
    /// Waiting for its watch to fire.
    Waiting,
    /// It believes it holds the lock; `wrote` once it has written the resource.
    Holding { wrote: bool },
    /// Released, or gave up when its session or node was gone.
    Done,
}

/// What a one-shot watch is set on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WatchOn {
    Node(u8),
    Children,
}

/// An event delivered to a client that has not read it yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Event {
    /// Its watch fired: the watched node was deleted, or the directory's children changed.
    Watch(EventType),
    /// Its connection dropped and came back within the session timeout: a session event
    /// (Disconnected) on its watch, which stays set. A watch that fires before it is read
    /// takes its place.
    Disconnected,
    /// Its session expired.
    Expired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client {
    pub phase: Phase,
    /// The node it knows as its own (the driver's `node`).
    pub node: Option<u8>,
    pub session_alive: bool,
    pub watch: Option<WatchOn>,
    pub event: Option<Event>,
    /// Whether it has ever believed it holds the lock.
    pub acquired: bool,
    /// Whether a session it abandoned for its current one still lives on the server.
    pub abandoned_alive: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub next_seq: u8,
    /// The lock directory's children, in creation order.
    pub nodes: Vec<Node>,
    pub clients: Vec<Client>,
    /// Create replies that may still be lost.
    pub lost_left: u8,
    /// Sessions that may still expire under a paused client.
    pub expiries_left: u8,
    /// Deletes that may still be lost.
    pub lost_deletes_left: u8,
    /// Connections that may still drop under a waiter.
    pub disconnects_left: u8,
    /// The highest token the resource has accepted.
    pub store_max: Option<u8>,
    /// Whether the resource accepted a write with a token below one it had accepted.
    pub stale_write: bool,
    /// Whether one node's deletion woke more than one waiter.
    pub multi_wake: bool,
    /// The node of the last grant, and whether some grant went to a node created before it.
    pub last_grant: Option<u8>,
    pub out_of_order: bool,
}

impl State {
    /// Whether client `c` believes it holds the lock.
    pub fn believes(&self, c: usize) -> bool {
        matches!(self.clients[c].phase, Phase::Holding { .. })
    }

    /// How many clients whose sessions the server still keeps believe they hold the lock.
    /// ZooKeeper's lock promises at most one: a holder whose session expired unknown to it
    /// (Z2) is what fencing is for.
    pub fn live_believers(&self) -> usize {
        (0..self.clients.len())
            .filter(|&c| self.believes(c) && self.clients[c].session_alive)
            .count()
    }

    /// Client `c` takes the lock with its node; notes a grant out of line.
    fn grant(&mut self, c: usize) {
        let seq = self.clients[c].node;
        if self.last_grant.is_some_and(|last| Some(last) > seq) {
            self.out_of_order = true;
        }
        self.last_grant = seq;
        let client = &mut self.clients[c];
        client.phase = Phase::Holding { wrote: false };
        client.acquired = true;
        client.watch = None;
    }

    /// A node of a live session that its own client does not know as its node and is not
    /// looking for (after a lost create reply).
    pub fn orphan(&self) -> Option<Node> {
        self.nodes.iter().copied().find(|n| {
            let c = &self.clients[usize::from(n.owner)];
            c.session_alive && c.node != Some(n.seq) && c.phase != Phase::Looking
        })
    }

    /// Deletes node `seq` and fires the watches on it (and every children watch); returns
    /// how many waiters it woke.
    fn delete(&mut self, seq: u8) -> usize {
        self.nodes.retain(|n| n.seq != seq);
        let mut woken = 0;
        for c in &mut self.clients {
            let event = match c.watch {
                Some(WatchOn::Node(s)) if s == seq => EventType::NodeDeleted,
                Some(WatchOn::Children) => EventType::NodeChildrenChanged,
                _ => continue,
            };
            c.watch = None;
            c.event = Some(Event::Watch(event));
            woken += 1;
        }
        if woken > 1 {
            self.multi_wake = true;
        }
        woken
    }

    /// Client `c` gives its session up for a new one: its nodes stay with the old session,
    /// which the server keeps until it expires.
    fn abandon_session(&mut self, c: u8) {
        for n in self.nodes.iter_mut().filter(|n| n.owner == c) {
            n.abandoned = true;
        }
        let client = &mut self.clients[usize::from(c)];
        client.abandoned_alive = true;
        client.watch = None;
        client.event = None;
    }

    /// The server ends a session of client `c`, its current one or (`abandoned`) the one it
    /// abandoned: that session's nodes vanish, firing their watches.
    fn delete_session(&mut self, c: u8, abandoned: bool) {
        let owned: Vec<u8> = self
            .nodes
            .iter()
            .filter(|n| n.owner == c && n.abandoned == abandoned)
            .map(|n| n.seq)
            .collect();
        for seq in owned {
            self.delete(seq);
        }
    }

    /// The same state with its clients renamed: they sit at their new index and own their
    /// nodes under their new id. Nothing else names a client: watches, events, tokens and
    /// grants name nodes by sequence number.
    pub fn renamed(&self, renaming: &Renaming) -> State {
        State {
            nodes: self
                .nodes
                .iter()
                .map(|n| Node {
                    owner: renaming.client(n.owner),
                    ..*n
                })
                .collect(),
            clients: renaming.reorder(&self.clients),
            ..self.clone()
        }
    }

    /// Creates a node for `owner` and fires every children watch.
    fn create(&mut self, owner: u8) -> u8 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.nodes.push(Node {
            seq,
            owner,
            abandoned: false,
        });
        for c in &mut self.clients {
            if c.watch == Some(WatchOn::Children) {
                c.watch = None;
                c.event = Some(Event::Watch(EventType::NodeChildrenChanged));
            }
        }
        seq
    }
}

/// Clients are interchangeable: a node's name carries its owner's GUID, but the queue is
/// ordered by sequence number, and every property counts clients or looks at nodes. The
/// representative orders the clients by what they know and the nodes they own (sequence
/// numbers are unique, so only clients with identical states and no nodes tie).
impl Representative for State {
    fn representative(&self) -> State {
        let keys: Vec<(Client, Vec<u8>)> = (0..self.clients.len())
            .map(|c| {
                let owned = self.nodes.iter().filter(|n| usize::from(n.owner) == c);
                (self.clients[c], owned.map(|n| n.seq).collect())
            })
            .collect();
        self.renamed(&Renaming::sorting(&keys))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// The create of its sequential node is applied and the reply read.
    Create(u8),
    /// The create is applied and its reply lost (ConnectionLoss).
    CreateLost(u8),
    /// `getChildren` (with a children watch for the herd), then `decide`; after a lost
    /// reply, `find_own` instead.
    List(u8),
    /// `exists` with a watch on the predecessor.
    Exists(u8),
    /// It reads its pending event.
    Event(u8),
    /// A holder writes the resource with its node's czxid as token.
    Write(u8),
    /// A holder deletes its node.
    Release(u8),
    /// A holder's delete is lost before the server applies it (ConnectionLoss).
    DeleteLost(u8),
    /// A waiter's connection drops and comes back within its session timeout.
    Disconnect(u8),
    /// It pauses past its session timeout: the server expires its session.
    PauseExpire(u8),
    /// The server expires the session it abandoned, deleting that session's nodes.
    AbandonedExpire(u8),
}

impl Model for ZkLockModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            next_seq: 0,
            nodes: Vec::new(),
            clients: vec![
                Client {
                    phase: Phase::Idle,
                    node: None,
                    session_alive: true,
                    watch: None,
                    event: None,
                    acquired: false,
                    abandoned_alive: false,
                };
                usize::from(self.clients)
            ],
            lost_left: self.lost_replies,
            expiries_left: self.expiries,
            lost_deletes_left: self.lost_deletes,
            disconnects_left: self.disconnects,
            store_max: None,
            stale_write: false,
            multi_wake: false,
            last_grant: None,
            out_of_order: false,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        for (i, client) in state.clients.iter().enumerate() {
            let c = i as u8;
            if client.event.is_some() {
                actions.push(Action::Event(c));
            }
            if let Phase::Holding { wrote: false } = client.phase {
                actions.push(Action::Write(c));
            }
            if client.abandoned_alive {
                actions.push(Action::AbandonedExpire(c));
            }
            if !client.session_alive {
                // Its ZooKeeper requests would fail; all it can do is read the expiry or,
                // as a holder that has not yet, write the resource.
                continue;
            }
            match client.phase {
                Phase::Idle => {
                    actions.push(Action::Create(c));
                    if state.lost_left > 0 {
                        actions.push(Action::CreateLost(c));
                    }
                }
                Phase::Looking | Phase::Listing => actions.push(Action::List(c)),
                Phase::Exists { .. } => actions.push(Action::Exists(c)),
                Phase::Holding { wrote: true } => {
                    actions.push(Action::Release(c));
                    if state.lost_deletes_left > 0 {
                        actions.push(Action::DeleteLost(c));
                    }
                }
                Phase::Waiting => {
                    if state.disconnects_left > 0 && client.event.is_none() {
                        actions.push(Action::Disconnect(c));
                    }
                }
                Phase::Holding { wrote: false } | Phase::Done => {}
            }
            if state.expiries_left > 0 && !matches!(client.phase, Phase::Idle | Phase::Done) {
                actions.push(Action::PauseExpire(c));
            }
        }
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        let mut next = state.clone();
        match action {
            Action::Create(c) | Action::CreateLost(c) => {
                let seq = next.create(c);
                let outcome = match action {
                    Action::Create(_) => Outcome::Ok,
                    _ => {
                        next.lost_left -= 1;
                        Outcome::ConnectionLoss
                    }
                };
                if decide::abandons_session(self.flavor, outcome) {
                    next.abandon_session(c);
                }
                let client = &mut next.clients[usize::from(c)];
                match decide::after_create(self.flavor, outcome) {
                    AfterCreate::Enqueued => {
                        client.node = Some(seq);
                        client.phase = Phase::Listing;
                    }
                    AfterCreate::LookForGuid => client.phase = Phase::Looking,
                    AfterCreate::CreateAgain => client.phase = Phase::Idle,
                    AfterCreate::Fail => client.phase = Phase::Done,
                }
            }
            Action::List(c) => {
                let children = self.listing(state);
                let ci = usize::from(c);
                if state.clients[ci].phase == Phase::Looking {
                    let own = decide::find_own(&children, &self.guid(c))
                        .and_then(|name| self.node_named(state, name));
                    let client = &mut next.clients[ci];
                    match own {
                        Some(node) => {
                            client.node = Some(node.seq);
                            client.phase = Phase::Listing;
                        }
                        None => client.phase = Phase::Idle,
                    }
                    return Some(next);
                }
                let mine = self.name_of(state.clients[ci].node?, c);
                match Contender::Exclusive.decide(self.flavor, &mine, &children) {
                    Decision::Acquired => next.grant(ci),
                    Decision::NodeGone => {
                        let client = &mut next.clients[ci];
                        client.node = None;
                        client.phase = Phase::Done;
                    }
                    Decision::WatchPredecessor(pred) => {
                        let client = &mut next.clients[ci];
                        if decide::watches_children(self.flavor) {
                            client.watch = Some(WatchOn::Children);
                            client.phase = Phase::Waiting;
                        } else {
                            client.phase = Phase::Exists {
                                pred: self.node_named(state, &pred)?.seq,
                            };
                        }
                    }
                }
            }
            Action::Exists(c) => {
                let Phase::Exists { pred } = state.clients[usize::from(c)].phase else {
                    return None;
                };
                let present = state.nodes.iter().any(|n| n.seq == pred);
                let ci = usize::from(c);
                match decide::after_predecessor_exists(present) {
                    AfterExists::Wait => {
                        next.clients[ci].watch = Some(WatchOn::Node(pred));
                        next.clients[ci].phase = Phase::Waiting;
                    }
                    AfterExists::ListAgain if decide::gone_predecessor_is_held(self.flavor) => {
                        next.grant(ci)
                    }
                    AfterExists::ListAgain => next.clients[ci].phase = Phase::Listing,
                }
            }
            Action::Event(c) => {
                let ci = usize::from(c);
                let (event_type, keeper_state) = match next.clients[ci].event.take()? {
                    Event::Watch(t) => (t, KeeperState::SyncConnected),
                    Event::Disconnected => (EventType::None, KeeperState::Disconnected),
                    Event::Expired => (EventType::None, KeeperState::Expired),
                };
                if state.clients[ci].phase == Phase::Waiting
                    && decide::takes_for_deletion(self.flavor, event_type, keeper_state)
                {
                    next.grant(ci);
                    return Some(next);
                }
                let client = &mut next.clients[ci];
                match decide::on_event(event_type, keeper_state) {
                    OnEvent::Ignore => {}
                    OnEvent::Woken if client.phase == Phase::Waiting => {
                        client.phase = Phase::Listing
                    }
                    OnEvent::Woken => {}
                    OnEvent::SessionLost => {
                        client.node = None;
                        client.phase = Phase::Done;
                    }
                }
            }
            Action::Write(c) => {
                let token = state.clients[usize::from(c)].node?;
                let stale = state.store_max.is_some_and(|max| token < max);
                if !(stale && self.fencing) {
                    next.stale_write |= stale;
                    next.store_max = next.store_max.max(Some(token));
                }
                next.clients[usize::from(c)].phase = Phase::Holding { wrote: true };
            }
            Action::Release(c) => {
                let seq = state.clients[usize::from(c)].node?;
                let outcome = if state.nodes.iter().any(|n| n.seq == seq) {
                    next.delete(seq);
                    Outcome::Ok
                } else {
                    Outcome::NoNode
                };
                let client = &mut next.clients[usize::from(c)];
                if decide::released(outcome) {
                    client.node = None;
                }
                client.phase = Phase::Done;
            }
            Action::DeleteLost(c) => {
                next.lost_deletes_left -= 1;
                let client = &mut next.clients[usize::from(c)];
                if decide::forgets_node(self.flavor, Outcome::ConnectionLoss) {
                    client.node = None;
                    client.phase = Phase::Done;
                } else if !decide::retries(Outcome::ConnectionLoss) {
                    client.phase = Phase::Done;
                }
            }
            Action::Disconnect(c) => {
                next.disconnects_left -= 1;
                next.clients[usize::from(c)].event = Some(Event::Disconnected);
            }
            Action::PauseExpire(c) => {
                next.expiries_left -= 1;
                let client = &mut next.clients[usize::from(c)];
                client.session_alive = false;
                client.watch = None;
                client.event = Some(Event::Expired);
                next.delete_session(c, false);
            }
            Action::AbandonedExpire(c) => {
                next.clients[usize::from(c)].abandoned_alive = false;
                next.delete_session(c, true);
            }
        }
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("mutex", |_, s: &State| {
                (0..s.clients.len()).filter(|&c| s.believes(c)).count() <= 1
            }),
            Property::always("live-session-mutex", |_, s: &State| s.live_believers() <= 1),
            Property::always("fenced-resource", |_, s: &State| !s.stale_write),
            Property::always("single-wakeup-per-release", |_, s: &State| !s.multi_wake),
            Property::always("no-orphan", |_, s: &State| s.orphan().is_none()),
            Property::always("fifo", |_, s: &State| !s.out_of_order),
            Property::sometimes("each-client-acquires", |_, s: &State| {
                s.clients.iter().all(|c| c.acquired)
            }),
        ]
    }
}
