//! Malformed histories: the recorder or a driver broke the history's own rules. That is a
//! harness bug, not a bug in the system under test, so it is reported apart from violations
//! and no checker runs on such a history (the same split as stateright's history testers).

use crate::history::{
    BarrierOp, ClientOp, ElectionOp, HarnessOp, History, Kind, LockOp, Op, QueueOp, StoreOp,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The first event (by index in the history) that breaks a rule, and which rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Malformed {
    /// The offending event's index in the history.
    pub index: usize,
    /// The rule it breaks.
    pub reason: MalformedReason,
}

/// The history's own rules, which a recorder must keep and every checker relies on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum MalformedReason {
    /// The event's true time is earlier than the previous event's: the history must be in
    /// true-time order. (Clock readings may go backwards; true time may not.)
    TimeWentBackwards {
        /// The previous event's true time.
        previous_ms: u64,
    },
    /// An ok / fail / info for an operation (acquire, extend or release of that lock, read,
    /// write, offer or take on that queue, connect) that this node has no invocation
    /// outstanding for.
    CompletionWithoutInvoke,
    /// An invocation while the same node's same operation, invoked at `pending_index`, has
    /// not completed: a driver forgot to record the outcome (info when it is unknown).
    InvokeWhilePending {
        /// Where the pending invocation is.
        pending_index: usize,
    },
    /// An observation (enqueue, wake, lost, store decision, tree change, phase marker)
    /// recorded as anything but info.
    ObservationNotInfo {
        /// The kind it was recorded as.
        kind: Kind,
    },
    /// A second Heal or End marker; the first is at `first_index`.
    RepeatedMarker {
        /// Where the first marker is.
        first_index: usize,
    },
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed history at event {}: ", self.index)?;
        match &self.reason {
            MalformedReason::TimeWentBackwards { previous_ms } => {
                write!(
                    f,
                    "true time went backwards (previous event at {previous_ms} ms)"
                )
            }
            MalformedReason::CompletionWithoutInvoke => {
                f.write_str("completion of an operation the node never invoked")
            }
            MalformedReason::InvokeWhilePending { pending_index } => write!(
                f,
                "invocation while the same operation (event {pending_index}) is still open"
            ),
            MalformedReason::ObservationNotInfo { kind } => {
                write!(f, "observation recorded as {kind:?}, not info")
            }
            MalformedReason::RepeatedMarker { first_index } => {
                write!(f, "repeated phase marker (first at event {first_index})")
            }
        }
    }
}

impl std::error::Error for Malformed {}

/// What an invocation is matched on: a completion closes the node's outstanding invocation
/// of the same operation (for locks, of the same lock).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Operation<'a> {
    Acquire(&'a str),
    Release(&'a str),
    Extend(&'a str),
    Read,
    Write,
    Connect,
    Lead(&'a str),
    StepDown(&'a str),
    Offer(&'a str),
    Take(&'a str),
    Enter(&'a str),
    Leave(&'a str),
}

pub(super) fn operation(op: &Op) -> Option<Operation<'_>> {
    match op {
        Op::Lock(LockOp::Acquire { lock, .. }) => Some(Operation::Acquire(lock)),
        Op::Lock(LockOp::Release { lock }) => Some(Operation::Release(lock)),
        Op::Lock(LockOp::Extend { lock, .. }) => Some(Operation::Extend(lock)),
        Op::Store(StoreOp::Read { .. }) => Some(Operation::Read),
        Op::Store(StoreOp::Write { .. }) => Some(Operation::Write),
        Op::Client(ClientOp::Connect) => Some(Operation::Connect),
        Op::Election(ElectionOp::Lead { election, .. }) => Some(Operation::Lead(election)),
        Op::Election(ElectionOp::StepDown { election }) => Some(Operation::StepDown(election)),
        Op::Queue(QueueOp::Offer { queue, .. }) => Some(Operation::Offer(queue)),
        Op::Queue(QueueOp::Take { queue, .. }) => Some(Operation::Take(queue)),
        Op::Barrier(BarrierOp::Enter { barrier, .. }) => Some(Operation::Enter(barrier)),
        Op::Barrier(BarrierOp::Leave { barrier }) => Some(Operation::Leave(barrier)),
        _ => None,
    }
}

/// Checks the rules every history must keep, returning the first event that breaks one.
pub fn validate(history: &History) -> Result<(), Malformed> {
    let mut pending: BTreeMap<(&str, Operation), usize> = BTreeMap::new();
    let mut markers: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut previous_ms = 0;
    for (index, event) in history.events.iter().enumerate() {
        let fail = |reason| Err(Malformed { index, reason });
        if event.time_ms < previous_ms {
            return fail(MalformedReason::TimeWentBackwards { previous_ms });
        }
        previous_ms = event.time_ms;
        if let Some(operation) = operation(&event.op) {
            let key = (event.node.as_str(), operation);
            if event.kind == Kind::Invoke {
                if let Some(&pending_index) = pending.get(&key) {
                    return fail(MalformedReason::InvokeWhilePending { pending_index });
                }
                pending.insert(key, index);
            } else if pending.remove(&key).is_none() {
                return fail(MalformedReason::CompletionWithoutInvoke);
            }
            continue;
        }
        if event.kind != Kind::Info {
            return fail(MalformedReason::ObservationNotInfo { kind: event.kind });
        }
        let marker = match event.op {
            Op::Harness(HarnessOp::Heal) => "heal",
            Op::Harness(HarnessOp::End) => "end",
            _ => continue,
        };
        if let Some(&first_index) = markers.get(marker) {
            return fail(MalformedReason::RepeatedMarker { first_index });
        }
        markers.insert(marker, index);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::history::WatchEvent;

    fn reason_of(h: &HistoryBuilder) -> Result<(), Malformed> {
        validate(&h.build_unchecked())
    }

    #[test]
    fn a_well_formed_history_passes() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(0, "c2").invoke(acquire(L1));
        h.at(5, "c1").ok(acquire(L1));
        h.at(6, "c1")
            .invoke(Op::Store(StoreOp::Read { value: None }));
        h.at(7, "c1")
            .ok(Op::Store(StoreOp::Read { value: Some(3) }));
        h.at(8, "c2").fail(acquire(L1));
        h.at(8, "c2").invoke(acquire(L1));
        h.at(9, "c1").invoke(release(L1));
        h.at(9, "c1").info(release(L1));
        h.at(9, "c1").invoke(acquire(L2));
        h.at(10, "zk1").info(deleted("/locks/l1/n1"));
        h.at(10, "c2")
            .info(wake(L1, "/locks/l1/n1", WatchEvent::NodeDeleted));
        h.at(10, "c2").ok(acquire(L1));
        h.at(11, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(12, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(reason_of(&h), Ok(()));
    }

    #[test]
    fn an_extension_pairs_like_any_operation() {
        let extend = |valid_ms| {
            Op::Lock(LockOp::Extend {
                lock: L1.into(),
                valid_ms,
            })
        };
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(extend(None));
        h.at(0, "c1").invoke(acquire(L1));
        h.at(1, "c1").ok(extend(Some(190)));
        h.at(2, "c1").invoke(extend(None));
        h.at(3, "c1").fail(extend(None));
        assert_eq!(reason_of(&h), Ok(()));
        h.at(4, "c1").fail(extend(None));
        assert_eq!(
            reason_of(&h).unwrap_err().reason,
            MalformedReason::CompletionWithoutInvoke
        );
    }

    #[test]
    fn true_time_going_backwards_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(100, "zk1").info(created("/locks/l1/n1"));
        h.at(99, "zk1").info(deleted("/locks/l1/n1"));
        assert_eq!(
            reason_of(&h),
            Err(Malformed {
                index: 1,
                reason: MalformedReason::TimeWentBackwards { previous_ms: 100 }
            })
        );
    }

    #[test]
    fn completion_without_invoke_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(1, "c2").ok(acquire(L1));
        assert_eq!(
            reason_of(&h),
            Err(Malformed {
                index: 1,
                reason: MalformedReason::CompletionWithoutInvoke
            })
        );
    }

    #[test]
    fn completion_for_another_lock_does_not_close_the_invocation() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(1, "c1").ok(acquire(L2));
        assert_eq!(reason_of(&h).unwrap_err().index, 1);
    }

    #[test]
    fn second_completion_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(Op::Store(StoreOp::Write {
            value: 1,
            token: None,
        }));
        h.at(1, "c1").ok(Op::Store(StoreOp::Write {
            value: 1,
            token: None,
        }));
        h.at(2, "c1").fail(Op::Store(StoreOp::Write {
            value: 1,
            token: None,
        }));
        assert_eq!(
            reason_of(&h).unwrap_err().reason,
            MalformedReason::CompletionWithoutInvoke
        );
    }

    #[test]
    fn invoke_while_pending_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(acquire(L1));
        h.at(5, "c1").invoke(acquire(L1));
        assert_eq!(
            reason_of(&h),
            Err(Malformed {
                index: 1,
                reason: MalformedReason::InvokeWhilePending { pending_index: 0 }
            })
        );
    }

    #[test]
    fn observation_recorded_as_ok_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").ok(enqueued(L1, "n1", Some(1)));
        assert_eq!(
            reason_of(&h),
            Err(Malformed {
                index: 0,
                reason: MalformedReason::ObservationNotInfo { kind: Kind::Ok }
            })
        );
    }

    #[test]
    fn repeated_end_is_malformed() {
        let mut h = HistoryBuilder::default();
        h.at(0, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(1, "harness").info(Op::Harness(HarnessOp::End));
        h.at(2, "harness").info(Op::Harness(HarnessOp::End));
        assert_eq!(
            reason_of(&h),
            Err(Malformed {
                index: 2,
                reason: MalformedReason::RepeatedMarker { first_index: 1 }
            })
        );
    }

    #[test]
    fn display_names_the_event_and_the_rule() {
        let m = Malformed {
            index: 4,
            reason: MalformedReason::TimeWentBackwards { previous_ms: 10 },
        };
        assert_eq!(
            m.to_string(),
            "malformed history at event 4: true time went backwards (previous event at 10 ms)"
        );
    }
}
