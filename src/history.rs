//! The recorded history of a run: Jepsen-style invoke / ok / fail / info events, each stamped
//! with the true simulated time and the recording node's own clock reading.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io;

/// What an event says about an operation. `Info` means the outcome is unknown or the event
/// is an observation rather than an operation (a wake-up, a tree change, a phase change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The operation started.
    Invoke,
    /// It completed and took effect.
    Ok,
    /// It completed without effect.
    Fail,
    /// Its outcome is unknown, or the event is an observation.
    Info,
}

/// What happened, grouped by the family of events it belongs to. Every family's events
/// carry an `op` tag naming them, so the history's JSON is one flat object per event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Op {
    /// The world's own events: faults, the heal phase, the end.
    Harness(HarnessOp),
    /// A client's session and watches.
    Client(ClientOp),
    /// A lock recipe's operations.
    Lock(LockOp),
    /// A leader election's operations.
    Election(ElectionOp),
    /// A queue's operations.
    Queue(QueueOp),
    /// The protected resource's reads and writes.
    Store(StoreOp),
    /// A barrier's operations.
    Barrier(BarrierOp),
    /// An event of a server family (ZooKeeper's tree changes, say), which that family's
    /// module defines and reads back (`zk::events`).
    Server(ServerEvent),
    /// An event of a user's own recipe or workload, recorded with `Node::record_event` and
    /// read back by the user's checker with `ServerEvent::read` (the same tagged shape).
    User(ServerEvent),
}

/// What the world records of the run itself (node "harness").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum HarnessOp {
    /// A fault from the plan was applied (info).
    Fault {
        /// The fault as its Display tells it ("crash zk1"); for a targeted one, also whom
        /// it struck or that nobody had the role.
        fault: String,
    },
    /// A `pause_before` struck: `node` reached `step` and froze for `for_ms` (info).
    Paused {
        /// The client host that froze.
        node: String,
        /// The step of its program it reached.
        step: String,
        /// How long it stays frozen, ms.
        for_ms: u64,
    },
    /// The heal phase began: faults repaired, no new ones (info).
    Heal,
    /// When the run stopped at its time limit, `client` had not finished its workload
    /// (recorded just before End, one event per such client).
    Unfinished {
        /// The client host.
        client: String,
    },
    /// The run ended (workload done or time limit).
    End,
}

/// What a client records of its session and its watches, whatever recipe it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ClientOp {
    /// Open a session (invoke when it starts looking for one, ok once it has one; the
    /// attempts in between are not recorded).
    Connect,
    /// Info: a watch fired and woke the recipe up while it waited (for `lock`, when it is a
    /// lock's waiter).
    Wake {
        /// The lock it waits for, when it is a lock's waiter.
        #[serde(skip_serializing_if = "Option::is_none")]
        lock: Option<String>,
        /// The watched znode's path.
        path: String,
        /// What fired the watch: the node event's type (`NodeDeleted`).
        event: WatchEvent,
    },
    /// Info: a read of znode `path`'s data in `session` showed the node as the write
    /// `mzxid` left it (`read-your-writes` follows each session's view by it).
    DataRead {
        /// The znode read.
        path: String,
        /// The session that read it.
        session: i64,
        /// The zxid of the write that left the node as read (its stat's mzxid).
        mzxid: i64,
    },
    /// Info: the session's write of znode `path`'s data was applied as `mzxid`.
    DataWritten {
        /// The znode written.
        path: String,
        /// The session that wrote it.
        session: i64,
        /// The write's zxid (the node's new mzxid).
        mzxid: i64,
    },
}

/// The node event a watch fired with, as ZooKeeper's `Watcher.Event.EventType` names it
/// (and the history spells it): what `herd` tells a deletion's wake-ups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum WatchEvent {
    /// Not a node event (a session's state changed).
    None,
    /// The watched node was created.
    NodeCreated,
    /// The watched node was deleted.
    NodeDeleted,
    /// The watched node's data changed.
    NodeDataChanged,
    /// A child of the watched node was created or deleted.
    NodeChildrenChanged,
}

/// What a client records of its lock recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum LockOp {
    /// Acquire `lock`. Ok carries the fencing token when the recipe has one, and for a
    /// lease on several servers which granted it and how long it counts on it.
    Acquire {
        /// The lock's name (its path, its key).
        lock: String,
        /// Shared or exclusive, for a lock that has both (the read/write lock).
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<LockMode>,
        /// The fencing token granted (`Grant::token`); None on an invoke or a failure.
        token: Option<i64>,
        /// The servers that granted it (`Grant::granted_by`); empty for a single server.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        granted_by: Vec<String>,
        /// How much longer it counts on the lease, by its own clock (`Grant::valid_ms`).
        #[serde(skip_serializing_if = "Option::is_none")]
        valid_ms: Option<u64>,
    },
    /// Release `lock` (invoke when it starts, ok/fail/info when it ends; a client stops
    /// believing it holds the lock at the invoke).
    Release {
        /// The lock's name.
        lock: String,
    },
    /// Extend the lease on `lock` it holds (invoke, then ok with how much longer it counts
    /// on it by its own clock, or fail: not extended, the old lease still runs).
    Extend {
        /// The lock's name.
        lock: String,
        /// On ok, how much longer it counts on the lease, ms by its own clock.
        #[serde(skip_serializing_if = "Option::is_none")]
        valid_ms: Option<u64>,
    },
    /// Info: it learned it no longer holds `lock` (its session expired).
    Lost {
        /// The lock's name.
        lock: String,
    },
    /// Info: its place in line, once its lock node exists. `seq` is the parsed sequence
    /// suffix; None for recipes without one (order then is the event's time).
    Enqueued {
        /// The lock's name.
        lock: String,
        /// Its lock node's name in the lock's directory.
        node: String,
        /// Its lock node's sequence number.
        seq: Option<i64>,
        /// What it queued for, for a lock that has both modes.
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<LockMode>,
    },
}

impl LockOp {
    /// An acquire of `lock` with only a token to tell (an invoke, a failure, or a grant by a
    /// single server).
    pub fn acquire(lock: impl Into<String>, token: Option<i64>) -> LockOp {
        LockOp::Acquire {
            lock: lock.into(),
            mode: None,
            token,
            granted_by: Vec::new(),
            valid_ms: None,
        }
    }
}

/// What a client records of its leader election recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ElectionOp {
    /// Info: it stands as a candidate, once its candidate node exists. `seq` is the parsed
    /// sequence suffix.
    Candidate {
        /// The election's name (its path).
        election: String,
        /// Its candidate node's name in the election's directory.
        node: String,
        /// Its candidate node's sequence number.
        seq: Option<i64>,
    },
    /// Run for leader (invoke); ok when it became the leader, with its fencing token (its
    /// node's czxid); fail when the candidacy ended first (its session or its node is gone:
    /// the workload runs again).
    Lead {
        /// The election's name.
        election: String,
        /// On ok, its fencing token; None otherwise.
        token: Option<i64>,
    },
    /// Step down (invoke when it starts deleting its node, ok/info when that ends; a client
    /// stops believing it leads at the invoke).
    StepDown {
        /// The election's name.
        election: String,
    },
    /// Info: it learned it no longer leads (its session expired).
    LostLead {
        /// The election's name.
        election: String,
    },
}

/// What a client records of its queue recipe. Items are the producers' own names for what
/// they offer ("c1-0", ...), so that a checker can tell each item apart and its producer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum QueueOp {
    /// Offer `item` to `queue` (invoke; ok once it is in the queue, fail when it is known
    /// not to be, info when that is unknown).
    Offer {
        /// The queue's name (its path).
        queue: String,
        /// The item offered.
        item: String,
    },
    /// Take an item from `queue`, waiting for one (invoke with no item; ok with the item
    /// taken and the node it was; info when the outcome is unknown).
    Take {
        /// The queue's name.
        queue: String,
        /// On ok, the item taken.
        #[serde(skip_serializing_if = "Option::is_none")]
        item: Option<String>,
        /// On ok, the name of the queue node that held the item.
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<String>,
    },
    /// Info: a consumer asks ZooKeeper to take `item` (node `node`) for it; until its take
    /// completes, the item may be gone from the queue without anyone having taken it ok.
    Claim {
        /// The queue's name.
        queue: String,
        /// The item it claims.
        item: String,
        /// The name of the queue node that holds it.
        node: String,
    },
    /// Info: a consumer listed `queue` empty, with a watch on its children, and waits on it.
    Empty {
        /// The queue's name.
        queue: String,
    },
}

impl QueueOp {
    /// A take with nothing taken yet (an invoke, or an outcome not known).
    pub fn take(queue: impl Into<String>) -> QueueOp {
        QueueOp::Take {
            queue: queue.into(),
            item: None,
            node: None,
        }
    }
}

/// What a client records of a barrier recipe (the single barrier has no leave phase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum BarrierOp {
    /// Arrive at `barrier` (invoke) and pass it (ok), which it may do once `count` processes
    /// arrived; a fail (its session expired) is followed by another invoke.
    Enter {
        /// The barrier's name (its path).
        barrier: String,
        /// How many processes the barrier waits for.
        count: u32,
    },
    /// Info: its node in the barrier exists (`node` is its path).
    Joined {
        /// The barrier's name.
        barrier: String,
        /// Its node's path.
        node: String,
    },
    /// Be done with the work (invoke) and pass the barrier's leave phase (ok), which it may
    /// do once every process that entered is done.
    Leave {
        /// The barrier's name.
        barrier: String,
    },
}

/// How a client holds a read/write lock: readers share it, a writer holds it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LockMode {
    /// Shared with other readers.
    Read,
    /// Exclusive.
    Write,
}

/// The protected resource: what clients do to it, and what the store did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum StoreOp {
    /// Client: read the register (ok carries the value).
    Read {
        /// On ok, the register's value.
        value: Option<i64>,
    },
    /// Client: write `value` (with the fencing token if any); ok = accepted, fail = rejected.
    Write {
        /// The value written: the one read, plus one.
        value: i64,
        /// The fencing token it carries, if the recipe has one.
        token: Option<i64>,
    },
    /// Store (info): what it did with a write. `based_on` is the value the writer read,
    /// `current` the register's value when the write arrived.
    StoreWrite {
        /// The client host that wrote.
        client: String,
        /// The value the writer had read.
        based_on: i64,
        /// The register's value when the write arrived.
        current: i64,
        /// The value written.
        value: i64,
        /// The fencing token it carried.
        token: Option<i64>,
        /// Whether the store applied it (a fenced store refuses an old token).
        accepted: bool,
    },
}

/// A server family's event as the history keeps it: its name (`op`) and its fields. The
/// family defines its events as a serde type and converts with `new` / `read`, so the
/// history needs no case for any family.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerEvent {
    /// The event's name: its serde tag (`znode_created`).
    pub op: String,
    /// Its other fields, by name, as JSON values.
    #[serde(flatten)]
    pub fields: BTreeMap<String, Value>,
    /// Churn a reader of the story can skip (a lock node created), as opposed to what
    /// changes it (a session expired, a key expired): timelines leave routine events out.
    /// Not part of the history's JSON.
    #[serde(skip)]
    pub routine: bool,
    /// How a timeline tells it, when its family says it better than its name and fields do
    /// (`c1 DEL lock removed c2's "…"`). Not part of the history's JSON.
    #[serde(skip)]
    pub told: Option<String>,
}

impl ServerEvent {
    /// The event `event` serialises to: an object with an `op` string tag.
    pub fn new(event: &impl Serialize) -> ServerEvent {
        const SHAPE: &str = "a history event serialises to an object tagged with its name \
                             under `op` (#[serde(tag = \"op\")])";
        let Ok(Value::Object(mut fields)) = serde_json::to_value(event) else {
            panic!("{SHAPE}")
        };
        let op = match fields.remove("op") {
            Some(Value::String(op)) => op,
            _ => panic!("{SHAPE}"),
        };
        ServerEvent {
            op,
            fields: fields.into_iter().collect(),
            routine: false,
            told: None,
        }
    }

    /// Like `new`, for an event timelines leave out.
    pub fn routine(event: &impl Serialize) -> ServerEvent {
        ServerEvent {
            routine: true,
            ..ServerEvent::new(event)
        }
    }

    /// The same event, told in a timeline as `text`.
    pub fn told(self, text: String) -> ServerEvent {
        ServerEvent {
            told: Some(text),
            ..self
        }
    }

    /// The event as the family's type, if it is one of that family's.
    pub fn read<T: DeserializeOwned>(&self) -> Option<T> {
        let mut object: serde_json::Map<String, Value> = self.fields.clone().into_iter().collect();
        object.insert("op".into(), Value::String(self.op.clone()));
        serde_json::from_value(Value::Object(object)).ok()
    }
}

macro_rules! family_into_op {
    ($($family:ident => $variant:ident),*) => {$(
        impl From<$family> for Op {
            fn from(op: $family) -> Op {
                Op::$variant(op)
            }
        }
    )*};
}

family_into_op!(HarnessOp => Harness, ClientOp => Client, LockOp => Lock, ElectionOp => Election, QueueOp => Queue, BarrierOp => Barrier, StoreOp => Store, ServerEvent => Server);

impl Op {
    /// The op's name as the history's JSON spells it ("acquire", "znode_deleted", ...), for
    /// messages; serde's tag is its one owner.
    pub fn name(&self) -> String {
        tag_of(self, "op")
    }
}

impl Kind {
    /// The kind as the history's JSON spells it ("invoke", "ok", ...), for messages.
    pub fn name(self) -> String {
        tag_of(&self, "kind")
    }
}

/// How `value` serialises: a plain string, or the string under `tag` of an object.
fn tag_of(value: &impl Serialize, tag: &str) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v[tag].as_str().unwrap_or_default().to_string(),
        Err(_) => String::new(),
    }
}

/// One recorded event: who recorded what, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    /// True simulated time, ms since the start of the run.
    pub time_ms: u64,
    /// The recording node's own wall clock reading, ms.
    pub clock_ms: i64,
    /// The recording host (`c1`, `zk1`, or `harness` for the world's own events).
    pub node: String,
    /// What the event says about its operation.
    pub kind: Kind,
    /// The operation or observation; its fields sit beside the event's in the JSON.
    #[serde(flatten)]
    pub op: Op,
}

/// What an event says about its node's place in a line (a lock's queue, an election's
/// candidates), for faults aimed at a role (`sim::roles`). Each family of events says which
/// of its events these are (`HasRoles`), so the world resolves roles without naming a recipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleEvent {
    /// It has a place in `line`: `seq` orders the line (None: by arrival), `mode` is what it
    /// queued for under a read/write lock.
    Queued {
        line: String,
        seq: Option<i64>,
        mode: Option<LockMode>,
    },
    /// It holds `line` (a lock's holder, an election's leader).
    Holds { line: String },
    /// It left `line`: released, lost, or gave up its attempt.
    Leaves { line: String },
    /// It lost its session: whatever places it had are gone.
    LeavesAll,
    /// A watch woke it up (a trigger only: it changes no place).
    Woken,
}

/// A family of history events that can say what an event means for its node's role.
pub(crate) trait HasRoles {
    /// What this event, of `kind`, says about its node's place in a line, if anything.
    fn role_event(&self, kind: Kind) -> Option<RoleEvent>;
}

impl HasRoles for LockOp {
    fn role_event(&self, kind: Kind) -> Option<RoleEvent> {
        match (self, kind) {
            (
                LockOp::Enqueued {
                    lock, seq, mode, ..
                },
                _,
            ) => Some(RoleEvent::Queued {
                line: lock.clone(),
                seq: *seq,
                mode: *mode,
            }),
            (LockOp::Acquire { lock, .. }, Kind::Ok) => {
                Some(RoleEvent::Holds { line: lock.clone() })
            }
            (LockOp::Acquire { lock, .. }, Kind::Fail)
            | (LockOp::Release { lock }, Kind::Invoke)
            | (LockOp::Lost { lock }, _) => Some(RoleEvent::Leaves { line: lock.clone() }),
            _ => None,
        }
    }
}

impl HasRoles for ElectionOp {
    fn role_event(&self, kind: Kind) -> Option<RoleEvent> {
        match (self, kind) {
            (ElectionOp::Candidate { election, seq, .. }, _) => Some(RoleEvent::Queued {
                line: election.clone(),
                seq: *seq,
                mode: None,
            }),
            (ElectionOp::Lead { election, .. }, Kind::Ok) => Some(RoleEvent::Holds {
                line: election.clone(),
            }),
            (ElectionOp::Lead { election, .. }, Kind::Fail)
            | (ElectionOp::StepDown { election }, Kind::Invoke)
            | (ElectionOp::LostLead { election }, _) => Some(RoleEvent::Leaves {
                line: election.clone(),
            }),
            _ => None,
        }
    }
}

impl HasRoles for ClientOp {
    fn role_event(&self, kind: Kind) -> Option<RoleEvent> {
        match (self, kind) {
            (ClientOp::Connect, Kind::Invoke) => Some(RoleEvent::LeavesAll),
            (ClientOp::Wake { .. }, _) => Some(RoleEvent::Woken),
            _ => None,
        }
    }
}

impl Event {
    /// What this event says about its node's role, if anything.
    pub(crate) fn role_event(&self) -> Option<RoleEvent> {
        match &self.op {
            Op::Lock(op) => op.role_event(self.kind),
            Op::Client(op) => op.role_event(self.kind),
            Op::Election(op) => op.role_event(self.kind),
            Op::Harness(_)
            | Op::Queue(_)
            | Op::Barrier(_)
            | Op::Store(_)
            | Op::Server(_)
            | Op::User(_) => None,
        }
    }
}

/// A whole run's events, in the order they were recorded (which is true-time order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct History {
    /// The events, oldest first.
    pub events: Vec<Event>,
}

impl History {
    /// A fingerprint of the whole run for determinism checks: 64-bit FNV-1a over each event's
    /// JSON followed by a newline, as 16 lowercase hex digits. FNV rather than std's hasher
    /// because std's algorithm is explicitly unspecified and may change between releases;
    /// the newline cannot occur inside an event's JSON, so the encoding is unambiguous.
    pub fn digest(&self) -> String {
        let mut hasher = Fnv1a::new();
        for event in &self.events {
            // Neither can fail: the writer never errors and every field serialises (no maps
            // with non-string keys, no non-finite floats).
            serde_json::to_writer(&mut hasher, event).expect("an Event always serialises");
            io::Write::write_all(&mut hasher, b"\n").expect("hashing never fails");
        }
        format!("{:016x}", hasher.0)
    }

    /// True time at which the run ended: the End marker's, or the last event's if the run
    /// stopped without one (0 for an empty history).
    pub fn end_ms(&self) -> u64 {
        self.events
            .iter()
            .find(|e| e.op == Op::Harness(HarnessOp::End))
            .or(self.events.last())
            .map_or(0, |e| e.time_ms)
    }

    /// True time at which the heal phase began, if it did.
    pub fn heal_ms(&self) -> Option<u64> {
        self.events
            .iter()
            .find(|e| e.op == Op::Harness(HarnessOp::Heal))
            .map(|e| e.time_ms)
    }
}

/// The first index at which two histories differ, with the event each has there (None where
/// one history is shorter). None when they are equal. Used to report a determinism failure
/// by its first diverging event rather than by two opaque digests.
pub fn first_difference<'a>(
    a: &'a History,
    b: &'a History,
) -> Option<(usize, Option<&'a Event>, Option<&'a Event>)> {
    let len = a.events.len().max(b.events.len());
    (0..len)
        .map(|i| (i, a.events.get(i), b.events.get(i)))
        .find(|(_, x, y)| x != y)
}

/// 64-bit FNV-1a, fed through `io::Write` so events can be serialised straight into it.
struct Fnv1a(u64);

impl Fnv1a {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        Fnv1a(Self::OFFSET_BASIS)
    }
}

impl io::Write for Fnv1a {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Self::PRIME);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(time_ms: u64, node: &str, kind: Kind, op: Op) -> Event {
        Event {
            time_ms,
            clock_ms: time_ms as i64,
            node: node.to_string(),
            kind,
            op,
        }
    }

    fn sample() -> History {
        let acquire = Op::Lock(LockOp::acquire("/locks/l1", None));
        History {
            events: vec![
                event(0, "c1", Kind::Invoke, acquire.clone()),
                event(12, "c1", Kind::Ok, acquire),
                event(500, "harness", Kind::Info, Op::Harness(HarnessOp::Heal)),
                event(900, "harness", Kind::Info, Op::Harness(HarnessOp::End)),
            ],
        }
    }

    #[test]
    fn fnv1a_matches_published_vectors() {
        let mut empty = Fnv1a::new();
        io::Write::write_all(&mut empty, b"").unwrap();
        assert_eq!(empty.0, 0xcbf2_9ce4_8422_2325);
        let mut a = Fnv1a::new();
        io::Write::write_all(&mut a, b"a").unwrap();
        assert_eq!(a.0, 0xaf63_dc4c_8601_ec8c);
        let mut foobar = Fnv1a::new();
        io::Write::write_all(&mut foobar, b"foobar").unwrap();
        assert_eq!(foobar.0, 0x8594_4171_f739_67e8);
    }

    #[test]
    fn digest_is_sixteen_lowercase_hex_digits() {
        let digest = sample().digest();
        assert_eq!(digest.len(), 16);
        assert!(digest.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
        assert_eq!(History::default().digest(), "cbf29ce484222325");
    }

    #[test]
    fn digest_is_stable_for_equal_histories() {
        assert_eq!(sample().digest(), sample().digest());
        assert_eq!(sample().digest(), sample().clone().digest());
    }

    #[test]
    fn digest_changes_when_one_field_of_one_event_changes() {
        let base = sample().digest();
        let mut time = sample();
        time.events[1].time_ms = 13;
        let mut clock = sample();
        clock.events[1].clock_ms = 13;
        let mut node = sample();
        node.events[1].node = "c2".to_string();
        let mut kind = sample();
        kind.events[1].kind = Kind::Fail;
        let mut token = sample();
        token.events[1].op = Op::Lock(LockOp::acquire("/locks/l1", Some(1)));
        for changed in [time, clock, node, kind, token] {
            assert_ne!(changed.digest(), base, "{changed:?}");
        }
    }

    #[test]
    fn digest_depends_on_event_order() {
        let mut swapped = sample();
        swapped.events.swap(0, 1);
        assert_ne!(swapped.digest(), sample().digest());
    }

    #[test]
    fn first_difference_finds_the_changed_event() {
        let a = sample();
        let mut b = sample();
        b.events[2].node = "other".to_string();
        let (index, left, right) = first_difference(&a, &b).unwrap();
        assert_eq!(index, 2);
        assert_eq!(left, Some(&a.events[2]));
        assert_eq!(right, Some(&b.events[2]));
    }

    #[test]
    fn first_difference_reports_a_missing_tail() {
        let a = sample();
        let mut b = sample();
        b.events.truncate(3);
        assert_eq!(
            first_difference(&a, &b),
            Some((3, Some(&a.events[3]), None))
        );
        assert_eq!(
            first_difference(&b, &a),
            Some((3, None, Some(&a.events[3])))
        );
    }

    #[test]
    fn first_difference_of_equal_histories_is_none() {
        assert_eq!(first_difference(&sample(), &sample()), None);
        assert_eq!(
            first_difference(&History::default(), &History::default()),
            None
        );
    }

    #[test]
    fn end_and_heal_times() {
        let h = sample();
        assert_eq!(h.end_ms(), 900);
        assert_eq!(h.heal_ms(), Some(500));
        let mut no_markers = sample();
        no_markers.events.truncate(2);
        assert_eq!(no_markers.end_ms(), 12);
        assert_eq!(no_markers.heal_ms(), None);
        assert_eq!(History::default().end_ms(), 0);
    }
}
