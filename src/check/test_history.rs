//! Test-only builder that keeps handcrafted histories readable:
//! `h.at(100, "c1").ok(acquire(L1))`. The clock reading equals the true time.

use crate::history::{ClientOp, Event, History, Kind, LockOp, Op, StoreOp, WatchEvent};
use crate::zk::events::ZkEvent;

/// One event at `time_ms` on `node` with a clock reading of 0: for tests that build events one
/// by one rather than a history through [`HistoryBuilder`].
pub(crate) fn event(time_ms: u64, node: &str, kind: Kind, op: Op) -> Event {
    Event {
        time_ms,
        clock_ms: 0,
        node: node.into(),
        kind,
        op,
    }
}

#[derive(Default)]
pub(crate) struct HistoryBuilder {
    events: Vec<Event>,
}

pub(crate) struct At<'a> {
    builder: &'a mut HistoryBuilder,
    time_ms: u64,
    node: &'a str,
}

impl HistoryBuilder {
    pub(crate) fn at<'a>(&'a mut self, time_ms: u64, node: &'a str) -> At<'a> {
        At {
            builder: self,
            time_ms,
            node,
        }
    }

    /// The history so far; panics if it is malformed, so a checker test cannot pass on a
    /// history the checker would never be given.
    pub(crate) fn build(&self) -> History {
        let history = self.build_unchecked();
        if let Err(malformed) = super::validate(&history) {
            panic!("test history is malformed: {malformed}");
        }
        history
    }

    /// The history so far, as is: for tests of validation itself.
    pub(crate) fn build_unchecked(&self) -> History {
        History {
            events: self.events.clone(),
        }
    }
}

impl At<'_> {
    fn push(self, kind: Kind, op: Op) {
        self.builder.events.push(Event {
            time_ms: self.time_ms,
            clock_ms: self.time_ms as i64,
            node: self.node.to_string(),
            kind,
            op,
        });
    }

    pub(crate) fn invoke(self, op: Op) {
        self.push(Kind::Invoke, op);
    }

    pub(crate) fn ok(self, op: Op) {
        self.push(Kind::Ok, op);
    }

    pub(crate) fn fail(self, op: Op) {
        self.push(Kind::Fail, op);
    }

    pub(crate) fn info(self, op: Op) {
        self.push(Kind::Info, op);
    }
}

pub(crate) const L1: &str = "/locks/l1";
pub(crate) const L2: &str = "/locks/l2";

pub(crate) fn acquire(lock: &str) -> Op {
    Op::Lock(LockOp::acquire(lock, None))
}

pub(crate) fn release(lock: &str) -> Op {
    Op::Lock(LockOp::Release {
        lock: lock.to_string(),
    })
}

pub(crate) fn lost(lock: &str) -> Op {
    Op::Lock(LockOp::Lost {
        lock: lock.to_string(),
    })
}

pub(crate) fn enqueued(lock: &str, node: &str, seq: Option<i64>) -> Op {
    Op::Lock(LockOp::Enqueued {
        lock: lock.to_string(),
        node: node.to_string(),
        seq,
        mode: None,
    })
}

pub(crate) fn wake(lock: &str, path: &str, event: WatchEvent) -> Op {
    Op::Client(ClientOp::Wake {
        lock: Some(lock.to_string()),
        path: path.to_string(),
        event,
    })
}

pub(crate) fn created(path: &str) -> Op {
    ZkEvent::ZnodeCreated {
        path: path.to_string(),
        session: 1,
    }
    .into()
}

pub(crate) fn deleted(path: &str) -> Op {
    ZkEvent::ZnodeDeleted {
        path: path.to_string(),
        session: 1,
    }
    .into()
}

pub(crate) fn store_write(
    client: &str,
    based_on: i64,
    current: i64,
    value: i64,
    accepted: bool,
) -> Op {
    Op::Store(StoreOp::StoreWrite {
        client: client.to_string(),
        based_on,
        current,
        value,
        token: None,
        accepted,
    })
}
