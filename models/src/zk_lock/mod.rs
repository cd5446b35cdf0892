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
//! notices; with `stale_reads`, a lookup after a lost create reply that is not preceded by
//! `sync` may be served by a follower that has not applied that create (Z15). The
//! directory's counter starts at `seq_start`, so a run can cross its wrap past
//! 2147483647. A client of the `stale-session` flaw that abandons its session for a new one
//! leaves the old one to the server, which expires it (and its nodes) at some later step.
//!
//! - `config.rs`: the switches and bounds, as `--set` spells them
//! - `state.rs`: the state, and its renaming of clients
//! - `told.rs`: each step in the model's words
//! - `trace.rs`: a counterexample as a locksim scenario and fault plan

mod config;
mod state;
mod told;
mod trace;

pub use config::{PARAMS, RENAMED, UNEXPRESSED, ZkLockModel};
pub use state::{Client, Event, Node, Phase, State, WatchOn};

use locksim::recipes::zk::lock::decide::{
    self, AfterCreate, AfterExists, Contender, Decision, Flavor, OnEvent, Outcome,
};
use locksim::zk::proto::{EventType, KeeperState};
use stateright::{Model, Property};

/// How the model names the directory's children, as the driver does.
impl ZkLockModel {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// The create of its sequential node is applied and the reply read.
    Create(u8),
    /// The create is applied and its reply lost (ConnectionLoss).
    CreateLost(u8),
    /// `getChildren` (with a children watch for the herd), then `decide`; after a lost
    /// reply, `find_own` instead.
    List(u8),
    /// After a lost create reply, an unsynced `getChildren` served by a follower that has
    /// not applied the create: `find_own` finds nothing.
    StaleList(u8),
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
            stale_reads_left: self.stale_reads,
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
                Phase::Looking => {
                    actions.push(Action::List(c));
                    if state.stale_reads_left > 0 && !decide::syncs_before_lookup(self.flavor) {
                        actions.push(Action::StaleList(c));
                    }
                }
                Phase::Listing => actions.push(Action::List(c)),
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
            Action::StaleList(c) => {
                next.stale_reads_left -= 1;
                next.clients[usize::from(c)].phase = Phase::Idle;
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
