//! The recorded history of a run: Jepsen-style invoke / ok / fail / info events, each stamped
//! with the true simulated time and the recording node's own clock reading.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// What an event says about an operation. `Info` means the outcome is unknown or the event
/// is an observation rather than an operation (a wake-up, a tree change, a phase change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Invoke,
    Ok,
    Fail,
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Client: acquire `lock`. Ok carries the fencing token when the recipe has one.
    Acquire {
        lock: String,
        token: Option<i64>,
    },
    /// Client: release `lock` (invoke when it starts, ok/fail/info when it ends; a client
    /// stops believing it holds the lock at the invoke).
    Release {
        lock: String,
    },
    /// Client (info): it learned it no longer holds `lock` (its session expired).
    Lost {
        lock: String,
    },
    /// Client (info): its place in line, once its lock node exists. `seq` is the parsed
    /// sequence suffix; None for recipes without one (order then is the event's time).
    Enqueued {
        lock: String,
        node: String,
        seq: Option<i64>,
    },
    /// Client (info): a watch fired and woke the recipe up while waiting for `lock`.
    Wake {
        lock: String,
        path: String,
        event: String,
    },
    /// Client: read the protected register (ok carries the value).
    Read {
        value: Option<i64>,
    },
    /// Client: write `value` (with the fencing token if any); ok = accepted, fail = rejected.
    Write {
        value: i64,
        token: Option<i64>,
    },
    /// Store (info): what it did with a write. `based_on` is the value the writer read,
    /// `current` the register's value when the write arrived.
    StoreWrite {
        client: String,
        based_on: i64,
        current: i64,
        value: i64,
        token: Option<i64>,
        accepted: bool,
    },
    /// ZooKeeper server (info): a node was created or deleted (by `session`).
    ZnodeCreated {
        path: String,
        session: i64,
    },
    ZnodeDeleted {
        path: String,
        session: i64,
    },
    /// ZooKeeper server (info): a session expired.
    SessionExpired {
        session: i64,
    },
    /// Harness (info): a fault from the plan was applied.
    Fault {
        fault: String,
    },
    /// Harness (info): the heal phase began (faults repaired, no new ones).
    Heal,
    /// Harness (info): the run ended (workload done or time limit).
    End,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// True simulated time, ms since the start of the run.
    pub time_ms: u64,
    /// The recording node's own wall clock reading, ms.
    pub clock_ms: i64,
    pub node: String,
    pub kind: Kind,
    #[serde(flatten)]
    pub op: Op,
}

/// A whole run's events, in the order they were recorded (which is true-time order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub events: Vec<Event>,
}

/// Shared, append-only sink that every simulated node writes into. The simulation is
/// single-threaded, so an Rc<RefCell> is enough.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Rc<RefCell<History>>);

impl Recorder {
    pub fn record(&self, event: Event) {
        self.0.borrow_mut().events.push(event);
    }

    pub fn snapshot(&self) -> History {
        self.0.borrow().clone()
    }
}
