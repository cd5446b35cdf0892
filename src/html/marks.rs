//! The events a picture draws as marks at an instant, on the lane of the host they belong
//! to, each with the words its tooltip says: the text timeline's where it tells the event,
//! else words of its own (a wake-up, an accepted write).

use crate::history::{
    BarrierOp, ClientOp, ElectionOp, Event, HarnessOp, History, Kind, LockOp, Op, QueueOp, StoreOp,
};
use crate::timeline;
use serde::Serialize;

/// One event at an instant.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) lane: String,
    pub(crate) what: MarkKind,
    pub(crate) at: u64,
    pub(crate) title: String,
}

/// What a mark stands for, which picks its shape and colour.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MarkKind {
    /// It took its place in a lock's line or stood as a candidate.
    Enqueue,
    /// It acquired a lock or became the leader.
    Acquire,
    /// It extended its lease, or failed to.
    Extend,
    /// It released a lock or stepped down.
    Release,
    /// It learned it lost a lock or its leadership.
    Lost,
    /// A watch woke it up.
    Wake,
    /// A queue's offer, take, claim or empty listing.
    Queue,
    /// A barrier's arrival, pass, leave or left.
    Barrier,
    /// The store applied a write based on what the register held.
    Write,
    /// The store applied a write based on a stale read (a lost update).
    StaleWrite,
    /// The store refused a write (a fenced store and an old token).
    Refused,
    /// A server's event a story tells (a session or key expired, a restart, a failover).
    Server,
    /// An event of a user's own recipe.
    User,
    /// The run stopped before this client finished its workload.
    Unfinished,
}

/// Every event that is a mark, in history order.
pub(crate) fn of(history: &History) -> Vec<Mark> {
    let retold = timeline::Retold::of(history);
    history
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let told = retold.describe(i, e);
            let (lane, what) = kind(e, told.is_some())?;
            let told = told.unwrap_or_else(|| own_words(e));
            Some(Mark {
                lane: lane.to_string(),
                what,
                at: e.time_ms,
                title: format!("{} ms  {lane}: {told}", e.time_ms),
            })
        })
        .collect()
}

/// Whose lane the event is drawn on and as what, if it is a mark (a server's event is one
/// when the timeline tells it).
fn kind(e: &Event, told: bool) -> Option<(&str, MarkKind)> {
    let on_own = |what| Some((e.node.as_str(), what));
    match (&e.op, e.kind) {
        (Op::Lock(LockOp::Enqueued { .. }) | Op::Election(ElectionOp::Candidate { .. }), _) => {
            on_own(MarkKind::Enqueue)
        }
        (Op::Lock(LockOp::Acquire { .. }) | Op::Election(ElectionOp::Lead { .. }), Kind::Ok) => {
            on_own(MarkKind::Acquire)
        }
        (Op::Lock(LockOp::Extend { .. }), Kind::Ok | Kind::Fail) => on_own(MarkKind::Extend),
        (
            Op::Lock(LockOp::Release { .. }) | Op::Election(ElectionOp::StepDown { .. }),
            Kind::Invoke,
        ) => on_own(MarkKind::Release),
        (Op::Lock(LockOp::Lost { .. }) | Op::Election(ElectionOp::LostLead { .. }), _) => {
            on_own(MarkKind::Lost)
        }
        (Op::Client(ClientOp::Wake { .. }), _) => on_own(MarkKind::Wake),
        (
            Op::Queue(QueueOp::Offer { .. } | QueueOp::Take { .. } | QueueOp::Claim { .. }),
            Kind::Ok | Kind::Info,
        )
        | (Op::Queue(QueueOp::Empty { .. }), _) => on_own(MarkKind::Queue),
        (
            Op::Barrier(BarrierOp::Enter { .. } | BarrierOp::Leave { .. }),
            Kind::Invoke | Kind::Ok,
        ) => on_own(MarkKind::Barrier),
        (
            Op::Store(StoreOp::StoreWrite {
                accepted,
                based_on,
                current,
                ..
            }),
            _,
        ) => on_own(match (accepted, based_on == current) {
            (false, _) => MarkKind::Refused,
            (true, false) => MarkKind::StaleWrite,
            (true, true) => MarkKind::Write,
        }),
        (Op::Server(_), _) if told => on_own(MarkKind::Server),
        (Op::User(event), _) if !event.routine => on_own(MarkKind::User),
        (Op::Harness(HarnessOp::Unfinished { client }), _) => {
            Some((client.as_str(), MarkKind::Unfinished))
        }
        _ => None,
    }
}

/// Words for a mark the text timeline does not tell.
fn own_words(e: &Event) -> String {
    match &e.op {
        Op::Client(ClientOp::Wake { path, event, .. }) => {
            format!("a watch on {path} wakes it up ({event:?})")
        }
        Op::Store(StoreOp::StoreWrite {
            client,
            value,
            token,
            ..
        }) => format!(
            "store accepts {client}'s write of {value}{}",
            token.map_or(String::new(), |t| format!(" (token {t})"))
        ),
        Op::Election(ElectionOp::Candidate { election, node, .. }) => {
            format!("stands for {election} (node {node})")
        }
        Op::Lock(LockOp::Enqueued { lock, node, .. }) => format!("queues for {lock} (node {node})"),
        op => format!("{} {}", op.name().replace('_', " "), e.kind.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::event;
    use crate::history::WatchEvent;

    /// A server's mark is drawn for what the timeline tells, in its words: a push onto a
    /// list another client wrote last is no mark, a pop of another client's item is.
    #[test]
    fn a_servers_marks_follow_the_timelines_retelling() {
        use crate::redis::events::{KeyChange, RedisEvent};
        let change = |client: &str, command: &str, before: &str, after: Option<&str>| {
            let change = KeyChange {
                client: client.into(),
                command: command.into(),
                key: "q".into(),
                before: Some(before.into()),
                owner: Some("p1".into()),
                after: after.map(Into::into),
                ttl_ms: None,
                result: "1".into(),
            };
            RedisEvent::KeyChanged(change).into()
        };
        let history = History {
            events: vec![
                event(
                    1,
                    "redis1",
                    Kind::Info,
                    change("p1", "RPUSH", "", Some("list[a]")),
                ),
                event(
                    2,
                    "redis1",
                    Kind::Info,
                    change("p2", "RPUSH", "list[a]", Some("list[a, b]")),
                ),
                event(
                    3,
                    "redis1",
                    Kind::Info,
                    change("c1", "LPOP", "list[a, b]", Some("list[b]")),
                ),
            ],
        };
        let titles: Vec<String> = of(&history).into_iter().map(|m| m.title).collect();
        assert_eq!(
            titles,
            [r#"3 ms  redis1: c1 LPOP q took "a" (pushed by p1)"#]
        );
    }

    #[test]
    fn marks_say_what_the_timeline_says_or_words_of_their_own() {
        let write = |based_on, accepted| {
            Op::Store(StoreOp::StoreWrite {
                client: "c1".into(),
                based_on,
                current: 3,
                value: based_on + 1,
                token: None,
                accepted,
            })
        };
        let wake = Op::Client(ClientOp::Wake {
            lock: Some("/l".into()),
            path: "/l/n-1".into(),
            event: WatchEvent::NodeDeleted,
        });
        let history = History {
            events: vec![
                event(5, "c1", Kind::Ok, Op::Lock(LockOp::acquire("/l", Some(7)))),
                event(6, "c1", Kind::Invoke, Op::Lock(LockOp::acquire("/l", None))),
                event(9, "c2", Kind::Info, wake),
                event(10, "store", Kind::Info, write(3, true)),
                event(11, "store", Kind::Info, write(0, true)),
                event(12, "store", Kind::Info, write(0, false)),
            ],
        };
        let marks = of(&history);
        let marks: Vec<(&str, MarkKind, &str)> = marks
            .iter()
            .map(|m| (m.lane.as_str(), m.what, m.title.as_str()))
            .collect();
        assert_eq!(
            marks,
            [
                ("c1", MarkKind::Acquire, "5 ms  c1: acquires /l (token 7)"),
                (
                    "c2",
                    MarkKind::Wake,
                    "9 ms  c2: a watch on /l/n-1 wakes it up (NodeDeleted)"
                ),
                (
                    "store",
                    MarkKind::Write,
                    "10 ms  store: store accepts c1's write of 4"
                ),
                (
                    "store",
                    MarkKind::StaleWrite,
                    "11 ms  store: store accepts c1's write of 1 (it read 0; the register held 3)"
                ),
                (
                    "store",
                    MarkKind::Refused,
                    "12 ms  store: store refuses c1's write of 1 (it read 0; the register held 3)"
                ),
            ]
        );
    }
}
