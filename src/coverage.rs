//! What a run covered, as a pure function of its history, for the guided search: the
//! transitions of the recipe's state it went through, and the pairs of events across nodes
//! it showed. Like a checker it reads only the history, so a user's recipe, with its own
//! events, is covered without code of ours.
//!
//! - **Recipe state.** Each client is seen by its place in its line (holder, first waiter, a
//!   waiter behind, outside), never by its name, with its phase (its last recipe event),
//!   whether an operation of its is in flight, whether its session is up, whether a fault acts
//!   on it (paused, cut off), and whether it *believes* something the servers no longer hold:
//!   it holds or waits while its node was deleted, its session expired, its key expired or was
//!   changed by another. A transition is (the client's view before, the event, its view after,
//!   how many hold and whether anyone is stale).
//! - **Event pairs** (Mallory's signal): two consecutive events of different nodes, each named
//!   by its node's place rather than its host name.
//!
//! Both are hashed into 2^16 buckets (`Transitions`), counted as a bitmap (`CoverageMap`).

use crate::history::{
    ClientOp, ElectionOp, Event, HarnessOp, History, Kind, LockOp, Op, RoleEvent, ServerEvent,
};
use std::collections::BTreeMap;

/// Buckets of the coverage map: transitions are hashed into this many.
pub const BUCKETS: usize = 1 << 16;

/// The buckets a run reached, each with the true time it first reached it, in the order
/// reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transitions(pub Vec<(u16, u64)>);

/// The buckets every run so far reached: a fixed-size bitmap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverageMap {
    bits: Box<[u64]>,
    count: usize,
}

impl Default for CoverageMap {
    fn default() -> Self {
        CoverageMap {
            bits: vec![0; BUCKETS / 64].into_boxed_slice(),
            count: 0,
        }
    }
}

impl CoverageMap {
    /// Marks `bucket` reached; true when it was not before.
    pub fn insert(&mut self, bucket: u16) -> bool {
        let word = &mut self.bits[usize::from(bucket) / 64];
        let bit = 1 << (bucket % 64);
        let new = *word & bit == 0;
        *word |= bit;
        self.count += usize::from(new);
        new
    }

    /// How many buckets have been reached.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Takes in a run's transitions: the ones no run reached before, in the order the run
    /// reached them.
    pub fn merge(&mut self, run: &Transitions) -> Vec<(u16, u64)> {
        run.0
            .iter()
            .copied()
            .filter(|&(bucket, _)| self.insert(bucket))
            .collect()
    }
}

/// A client's place in its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Outside,
    Holder,
    First,
    Behind,
}

/// How a client's session stands, as far as the history tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Session {
    Unknown,
    Connecting,
    Up,
    /// The server ended it; the client may not know yet.
    Expired,
}

/// What coverage sees of one client.
#[derive(Debug, Clone)]
struct View {
    /// Its last recipe event, hashed (name and kind).
    phase: u64,
    /// The name of the operation it invoked and has not seen end, hashed; 0: none.
    in_flight: u64,
    /// When that operation was invoked, and the longest wait for it reported so far (a
    /// power of two of 8 ms steps).
    in_flight_since: u64,
    waited: u32,
    session: Session,
    /// It believes it holds or waits on what a server already took away.
    stale: bool,
    paused_until: u64,
    cut: u32,
    /// Its line (its name hashed), its place's order in it, and whether it holds it.
    line: Option<(u64, (i64, u64), bool)>,
    /// Its node's path in its line (a ZooKeeper lock node, a candidate).
    node: Option<String>,
    /// Its ZooKeeper session, once its node shows it.
    session_id: Option<i64>,
}

impl View {
    fn new() -> View {
        View {
            phase: 0,
            in_flight: 0,
            in_flight_since: 0,
            waited: 0,
            session: Session::Unknown,
            stale: false,
            paused_until: 0,
            cut: 0,
            line: None,
            node: None,
            session_id: None,
        }
    }
}

/// The clients' views, and what links the servers' events to them.
#[derive(Default)]
struct State {
    clients: BTreeMap<String, View>,
    /// ZooKeeper nodes created, by path, with the session that made them.
    created: BTreeMap<String, i64>,
    arrivals: u64,
}

/// What a run covered: every transition of a client's view and every pair of consecutive
/// events of different nodes, hashed, each with the time it was first reached.
pub fn of(history: &History) -> Transitions {
    let mut state = State::default();
    let mut seen = CoverageMap::default();
    let mut reached = Vec::new();
    let mut previous: Option<(u64, &str)> = None;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut since = 0;
    for event in &history.events {
        let (name, label) = label(event);
        let mut reach = |key: u64| {
            let bucket = (key >> 48) as u16;
            if seen.insert(bucket) {
                reached.push((bucket, event.time_ms));
            }
        };
        // The pair of this event with the one before, each named by its node's place.
        let named = mix(label, state.class_of(&event.node));
        if let Some((prev, node)) = previous
            && node != event.node
        {
            reach(mix(mix(PAIR, prev), named));
        }
        previous = Some((named, &event.node));
        let joined = is_client_event(event) && !state.clients.contains_key(&event.node);
        if joined {
            state.clients.insert(event.node.clone(), View::new());
        }
        // The views after the last event stand for the views before this one, unless a
        // client joined or a pause ended in between.
        let paused_ended = state
            .clients
            .values()
            .any(|v| (since + 1..=event.time_ms).contains(&v.paused_until));
        if joined || paused_ended || after.len() != state.clients.len() {
            state.abstracts(event.time_ms, &mut before);
        } else {
            std::mem::swap(&mut before, &mut after);
        }
        since = event.time_ms;
        state.observe(event, name, label);
        state.abstracts(event.time_ms, &mut after);
        let context = state.context();
        for ((client, was), now) in state.clients.keys().zip(&before).zip(&after) {
            let (was, now) = (*was, *now);
            if was != now || *client == event.node {
                reach(mix(mix(mix(mix(STATE, was), label), now), context));
            }
        }
        state.longer_waits(event.time_ms, &mut reach);
    }
    Transitions(reached)
}

const PAIR: u64 = 0x9e37_79b9_7f4a_7c15;
const STATE: u64 = 0xc2b2_ae3d_27d4_eb4f;
const WAIT: u64 = 0x1656_67b1_9e37_79f9;

/// A 64-bit mix of two values (splitmix64's finaliser over their combination).
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.rotate_left(23) ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash_str(s: &str) -> u64 {
    crate::sim::seed::fnv1a(s.as_bytes())
}

/// Whether the event is one a client records (a recipe's or a user's own).
fn is_client_event(event: &Event) -> bool {
    matches!(
        event.op,
        Op::Lock(_) | Op::Election(_) | Op::Queue(_) | Op::Barrier(_) | Op::Client(_) | Op::User(_)
    ) || matches!(event.op, Op::Store(_) if event.node != "store")
}

/// The event's name, hashed, and its name and kind, hashed: its op's name (a fault's first
/// word; a lost reply's with its request), never a host's.
fn label(event: &Event) -> (u64, u64) {
    use crate::history::{BarrierOp, QueueOp, StoreOp};
    let name: &str = match &event.op {
        Op::Harness(HarnessOp::Fault { fault }) => fault.split(' ').next().unwrap_or(""),
        Op::Harness(HarnessOp::Paused { .. }) => "paused",
        Op::Harness(HarnessOp::Heal) => "heal",
        Op::Harness(HarnessOp::Unfinished { .. }) => "unfinished",
        Op::Harness(HarnessOp::End) => "end",
        Op::Server(e) | Op::User(e) => &e.op,
        Op::Client(op) => match op {
            ClientOp::Connect => "connect",
            ClientOp::Wake { .. } => "wake",
            ClientOp::DataRead { .. } => "data_read",
            ClientOp::DataWritten { .. } => "data_written",
        },
        Op::Lock(op) => match op {
            LockOp::Acquire { .. } => "acquire",
            LockOp::Release { .. } => "release",
            LockOp::Extend { .. } => "extend",
            LockOp::Lost { .. } => "lost",
            LockOp::Enqueued { .. } => "enqueued",
        },
        Op::Election(op) => match op {
            ElectionOp::Candidate { .. } => "candidate",
            ElectionOp::Lead { .. } => "lead",
            ElectionOp::StepDown { .. } => "step_down",
            ElectionOp::LostLead { .. } => "lost_lead",
        },
        Op::Queue(op) => match op {
            QueueOp::Offer { .. } => "offer",
            QueueOp::Take { .. } => "take",
            QueueOp::Claim { .. } => "claim",
            QueueOp::Empty { .. } => "empty",
        },
        Op::Barrier(op) => match op {
            BarrierOp::Enter { .. } => "enter",
            BarrierOp::Joined { .. } => "joined",
            BarrierOp::Leave { .. } => "leave",
        },
        Op::Store(op) => match op {
            StoreOp::Read { .. } => "read",
            StoreOp::Write { .. } => "write",
            StoreOp::StoreWrite { .. } => "store_write",
        },
    };
    let mut name = hash_str(name);
    // A lost reply by the request it was: a lost create and a lost sync are different news
    // to a recipe, and a search steers toward the one it has not seen.
    if let Op::Server(e) = &event.op
        && e.op == "reply_lost"
        && let Some(request) = ["request", "command"]
            .iter()
            .find_map(|k| e.fields.get(*k).and_then(|v| v.as_str()))
    {
        name = mix(name, hash_str(request));
    }
    (name, mix(name, event.kind as u64))
}

impl State {
    /// Each client's view, abstracted to a number: its place, phase, what is in flight, its
    /// session, whether it is stale and whether a fault acts on it at `now`.
    fn abstracts(&self, now: u64, out: &mut Vec<u64>) {
        out.clear();
        out.extend(self.clients.values().map(|view| {
            let faulted = view.paused_until > now || view.cut > 0;
            let flags = u64::from(view.stale)
                | u64::from(faulted) << 1
                | (self.place_of(view) as u64) << 2
                | (view.session as u64) << 4;
            mix(mix(view.phase, view.in_flight), flags)
        }));
    }

    /// Each wait for an operation in flight that has grown past the longest reported for it,
    /// by powers of two of 8 ms, with the operation and the client's place: a search rewarded
    /// for longer waits climbs toward the runs where a client waits for ever.
    fn longer_waits(&mut self, now: u64, reach: &mut impl FnMut(u64)) {
        let longer = |view: &View| {
            let steps = (now.saturating_sub(view.in_flight_since) / 8).max(1);
            let bucket = steps.ilog2().min(15);
            (view.in_flight != 0 && bucket > view.waited).then_some(bucket)
        };
        let grown: Vec<(usize, u32, Place)> = self
            .clients
            .values()
            .enumerate()
            .filter_map(|(i, view)| Some((i, longer(view)?, self.place_of(view))))
            .collect();
        let mut grown = grown.into_iter().peekable();
        for (i, view) in self.clients.values_mut().enumerate() {
            let Some((_, bucket, place)) = grown.next_if(|(j, ..)| *j == i) else {
                continue;
            };
            view.waited = bucket;
            reach(mix(
                mix(mix(WAIT, view.in_flight), place as u64),
                u64::from(bucket),
            ));
        }
    }

    /// How many hold a line (0, 1, more), and whether anyone is stale.
    fn context(&self) -> u64 {
        let holders = self
            .clients
            .values()
            .filter(|v| matches!(v.line, Some((_, _, true))))
            .count()
            .min(2) as u64;
        let stale = self.clients.values().any(|v| v.stale);
        holders | u64::from(stale) << 2
    }

    /// A node named by its place: a client's place in its line, else what the host is.
    fn class_of(&self, node: &str) -> u64 {
        match self.clients.get(node) {
            Some(view) => 16 + self.place_of(view) as u64,
            None if node == "harness" => 1,
            None if node == "store" => 2,
            None => 3,
        }
    }

    fn place_of(&self, view: &View) -> Place {
        match &view.line {
            None => Place::Outside,
            Some((_, _, true)) => Place::Holder,
            Some((line, key, false)) => {
                let ahead = self.clients.values().any(
                    |other| matches!(&other.line, Some((l, k, false)) if l == line && k < key),
                );
                if ahead { Place::Behind } else { Place::First }
            }
        }
    }

    fn observe(&mut self, event: &Event, name: u64, label: u64) {
        match &event.op {
            Op::Harness(op) => self.harness(op, event.time_ms),
            Op::Server(server) => self.server(server),
            _ => {}
        }
        let node = match &event.op {
            Op::Lock(LockOp::Enqueued { lock, node, .. }) => Some(format!("{lock}/{node}")),
            Op::Election(ElectionOp::Candidate { election, node, .. }) => {
                Some(format!("{election}/{node}"))
            }
            _ => None,
        };
        let created = node.as_ref().and_then(|n| self.created.get(n)).copied();
        self.arrivals += 1;
        let arrival = self.arrivals;
        let Some(view) = self.clients.get_mut(&event.node) else {
            return;
        };
        match event.kind {
            Kind::Invoke => {
                view.in_flight = name;
                view.in_flight_since = event.time_ms;
                view.waited = 0;
            }
            _ if view.in_flight == name => view.in_flight = 0,
            _ => {}
        }
        view.phase = label;
        if let Op::Client(ClientOp::Connect) = event.op {
            view.session = match event.kind {
                Kind::Ok => Session::Up,
                _ => Session::Connecting,
            };
        }
        match event.role_event() {
            Some(RoleEvent::Queued { line, seq, .. }) => {
                let line = hash_str(&line);
                view.line = Some((line, (seq.unwrap_or(i64::MAX), arrival), false));
                view.node = node;
                view.session_id = created.or(view.session_id);
            }
            Some(RoleEvent::Holds { line }) => match &mut view.line {
                Some((l, _, holds)) if *l == hash_str(&line) => *holds = true,
                _ => view.line = Some((hash_str(&line), (i64::MAX, arrival), true)),
            },
            Some(RoleEvent::Leaves { .. } | RoleEvent::LeavesAll) => {
                view.line = None;
                view.node = None;
                view.stale = false;
            }
            Some(RoleEvent::Woken) | None => {}
        }
    }

    /// A fault or pause that acts on a client, as the world records it.
    fn harness(&mut self, op: &HarnessOp, now: u64) {
        match op {
            HarnessOp::Paused { node, for_ms, .. } => {
                if let Some(view) = self.clients.get_mut(node) {
                    view.paused_until = now + for_ms;
                }
            }
            HarnessOp::Fault { fault } => {
                let words: Vec<&str> = fault.split(' ').collect();
                match words.as_slice() {
                    ["pause", ..] => {
                        // `pause c3 for 50 ms`, or a targeted one: `pause the holder ...: c3`.
                        let struck = fault.rsplit_once(": ").map_or(words[1], |(_, c)| c);
                        let for_ms = words
                            .iter()
                            .position(|w| *w == "for")
                            .and_then(|i| words.get(i + 1)?.parse::<u64>().ok());
                        if let (Some(view), Some(for_ms)) = (self.clients.get_mut(struck), for_ms) {
                            view.paused_until = now + for_ms;
                        }
                    }
                    ["partition", a, _, b] | ["repair", a, _, b] => {
                        let cut = words[0] == "partition";
                        for end in [a, b] {
                            if let Some(view) = self.clients.get_mut(*end) {
                                view.cut = if cut {
                                    view.cut + 1
                                } else {
                                    view.cut.saturating_sub(1)
                                };
                            }
                        }
                    }
                    ["repair", "all", ..] => self.clients.values_mut().for_each(|v| v.cut = 0),
                    _ => {}
                }
            }
            HarnessOp::Heal => self.clients.values_mut().for_each(|v| v.cut = 0),
            _ => {}
        }
    }

    /// What a server took away from a client that may still believe it has it.
    fn server(&mut self, event: &ServerEvent) {
        let field = |name: &str| event.fields.get(name);
        match event.op.as_str() {
            "znode_created" => {
                if let (Some(path), Some(session)) = (
                    field("path").and_then(|v| v.as_str()),
                    field("session").and_then(|v| v.as_i64()),
                ) {
                    self.created.insert(path.to_string(), session);
                }
            }
            "znode_deleted" => {
                let Some(path) = field("path").and_then(|v| v.as_str()) else {
                    return;
                };
                self.created.remove(path);
                for view in self.clients.values_mut() {
                    if view.node.as_deref() == Some(path) && view.line.is_some() {
                        view.stale = true;
                    }
                }
            }
            "session_expired" => {
                let session = field("session").and_then(|v| v.as_i64());
                for view in self.clients.values_mut() {
                    if view.session_id.is_some() && view.session_id == session {
                        view.session = Session::Expired;
                        view.stale |= view.line.is_some();
                    }
                }
            }
            "key_expired" | "key_changed" => {
                let Some(key) = field("key").and_then(|v| v.as_str()) else {
                    return;
                };
                let by = field("client").and_then(|v| v.as_str());
                for (name, view) in &mut self.clients {
                    let holds_key = matches!(&view.line, Some((l, _, true)) if *l == hash_str(key));
                    if holds_key && by != Some(name.as_str()) {
                        view.stale = true;
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::history::HarnessOp;
    use crate::redis::events::RedisEvent;
    use crate::zk::events::ZkEvent;

    /// c1 takes the lock at `L1` through node `n1`; c2 queues behind it through `n2`; then
    /// what `between` adds; then c1 releases.
    fn lock_story(first: &str, second: &str, between: impl FnOnce(&mut HistoryBuilder)) -> History {
        let mut h = HistoryBuilder::default();
        h.at(0, first).invoke(acquire(L1));
        h.at(1, "zk1").info(created(&format!("{L1}/n1")));
        h.at(2, first).info(enqueued(L1, "n1", Some(1)));
        h.at(3, first).ok(acquire(L1));
        h.at(4, second).invoke(acquire(L1));
        h.at(5, "zk1").info(created(&format!("{L1}/n2")));
        h.at(6, second).info(enqueued(L1, "n2", Some(2)));
        between(&mut h);
        h.at(50, first).invoke(release(L1));
        h.at(51, "zk1").info(deleted(&format!("{L1}/n1")));
        h.at(52, first).ok(release(L1));
        h.build_unchecked()
    }

    fn state_after(history: &History, until: usize) -> State {
        let mut state = State::default();
        for event in &history.events[..until] {
            if is_client_event(event) && !state.clients.contains_key(&event.node) {
                state.clients.insert(event.node.clone(), View::new());
            }
            let (name, label) = label(event);
            state.observe(event, name, label);
        }
        state
    }

    #[test]
    fn clients_are_seen_by_their_place_never_by_their_name() {
        let named = of(&lock_story("c1", "c2", |_| {}));
        assert_eq!(named, of(&lock_story("c4", "c3", |_| {})));
        assert_eq!(named, of(&lock_story("c1", "c2", |_| {})));
        assert!(!named.0.is_empty());
        let state = state_after(&lock_story("c1", "c2", |_| {}), 7);
        let place = |c: &str| state.place_of(&state.clients[c]);
        assert_eq!(place("c1"), Place::Holder);
        assert_eq!(place("c2"), Place::First);
        assert_eq!(state.place_of(&View::new()), Place::Outside);
    }

    #[test]
    fn a_holder_whose_node_the_server_deleted_is_stale_and_that_is_new_coverage() {
        let deleted_ahead = lock_story("c1", "c2", |h| {
            h.at(20, "zk1").info(deleted(&format!("{L1}/n1")));
        });
        let state = state_after(&deleted_ahead, 8);
        assert!(state.clients["c1"].stale, "c1 still believes it holds");
        assert!(!state.clients["c2"].stale);
        let normal = of(&lock_story("c1", "c2", |_| {}));
        let mut map = CoverageMap::default();
        map.merge(&normal);
        let new = map.merge(&of(&deleted_ahead));
        assert!(!new.is_empty());
        assert_eq!(
            new[0].1, 20,
            "first new where the node was deleted ahead of its holder"
        );
        // Releasing clears the belief.
        assert!(!state_after(&deleted_ahead, deleted_ahead.events.len()).clients["c1"].stale);
    }

    #[test]
    fn a_lost_reply_is_told_apart_by_its_request() {
        let lost = |request: &str| {
            lock_story("c1", "c2", |h| {
                let op = ZkEvent::ReplyLost {
                    client: "c2".into(),
                    request: request.into(),
                };
                h.at(20, "zk1").info(op.into());
            })
        };
        let mut map = CoverageMap::default();
        map.merge(&of(&lost("create")));
        assert!(map.merge(&of(&lost("create"))).is_empty());
        assert!(
            !map.merge(&of(&lost("sync"))).is_empty(),
            "a lost sync is news"
        );
    }

    #[test]
    fn a_session_that_expires_under_its_holder_makes_it_stale() {
        let expired = lock_story("c1", "c2", |h| {
            h.at(20, "zk1")
                .info(ZkEvent::SessionExpired { session: 1 }.into());
        });
        let state = state_after(&expired, 8);
        assert_eq!(state.clients["c1"].session, Session::Expired);
        assert!(state.clients["c1"].stale && state.clients["c2"].stale);
        let other = lock_story("c1", "c2", |h| {
            h.at(20, "zk1")
                .info(ZkEvent::SessionExpired { session: 7 }.into());
        });
        assert!(!state_after(&other, 8).clients["c1"].stale);
    }

    #[test]
    fn a_redis_key_that_expires_or_another_changes_under_its_holder_makes_it_stale() {
        let story = |server_event: Op| {
            let mut h = HistoryBuilder::default();
            h.at(0, "c1").invoke(acquire("lock"));
            h.at(1, "c1").ok(acquire("lock"));
            h.at(5, "redis1").info(server_event);
            h.build_unchecked()
        };
        let expired = story(RedisEvent::KeyExpired { key: "lock".into() }.into());
        assert!(state_after(&expired, 3).clients["c1"].stale);
        let elsewhere = story(RedisEvent::KeyExpired { key: "k".into() }.into());
        assert!(!state_after(&elsewhere, 3).clients["c1"].stale);
    }

    #[test]
    fn a_paused_or_cut_off_client_is_under_a_fault_until_it_ends() {
        let fault = |text: &str| {
            Op::Harness(HarnessOp::Fault {
                fault: text.to_string(),
            })
        };
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(1, "harness").info(fault("pause c1 for 30 ms"));
        h.at(2, "harness").info(fault(
            "pause the holder for 40 ms when a client acquires: c2",
        ));
        h.at(3, "c3").invoke(acquire(L1));
        h.at(3, "harness").info(fault("partition c3 <-> zk1"));
        let history = h.build_unchecked();
        let state = state_after(&history, history.events.len());
        assert_eq!(state.clients["c1"].paused_until, 31);
        assert_eq!(state.clients["c3"].cut, 1);
        // Clients in name order: c1 first.
        let (mut at_10, mut at_40) = (Vec::new(), Vec::new());
        state.abstracts(10, &mut at_10);
        state.abstracts(40, &mut at_40);
        assert_ne!(at_10[0], at_40[0], "c1's pause ends at 31 ms");
    }

    /// A wait is reported each time it doubles (in 8 ms steps), so a run in which a client
    /// waits longer than any before reaches something new.
    #[test]
    fn a_longer_wait_than_any_before_is_new_coverage() {
        let waiting = |until: u64| {
            let mut h = HistoryBuilder::default();
            h.at(0, "c1").invoke(acquire(L1));
            for t in [8, 16, 40, 100, 1000] {
                if t <= until {
                    h.at(t, "zk1").info(created(&format!("{L1}/n{t}")));
                }
            }
            h.build_unchecked()
        };
        let mut state = State::default();
        state.clients.insert("c1".into(), View::new());
        let mut reported = Vec::new();
        for event in &waiting(100).events {
            let (name, label) = label(event);
            state.observe(event, name, label);
            state.longer_waits(event.time_ms, &mut |key| reported.push(key));
        }
        assert_eq!(
            state.clients["c1"].waited, 3,
            "100 ms is 12 steps of 8 ms: 2^3"
        );
        assert_eq!(reported.len(), 3, "at 16, 40 and 100 ms");
        let mut map = CoverageMap::default();
        map.merge(&of(&waiting(100)));
        let new = map.merge(&of(&waiting(1000)));
        assert!(new.iter().any(|&(_, at)| at == 1000), "{new:?}");
    }

    #[test]
    fn the_map_takes_in_only_what_is_new_in_the_order_reached() {
        let mut map = CoverageMap::default();
        assert_eq!(
            map.merge(&Transitions(vec![(7, 1), (3, 2)])),
            [(7, 1), (3, 2)]
        );
        assert_eq!(map.merge(&Transitions(vec![(3, 0), (9, 5)])), [(9, 5)]);
        assert_eq!(map.len(), 3);
    }
}
