//! A run told as a short story by true time: one line per event that matters (faults,
//! who acquired what with which token, releases, losses, what the store refused or
//! accepted on a stale read, servers' non-routine events), and the violations where they
//! begin. Enough to see why a property broke without reading the JSON.

use crate::check::Violation;
use crate::history::{
    BarrierOp, ElectionOp, Event, HarnessOp, History, Kind, LockMode, LockOp, Op, QueueOp, StoreOp,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// The lines of the timeline. With violations, it covers their clients from the last
/// acquire each held before the first violation began, up to the last violation's end,
/// with every fault and server event in that window; without, the whole run.
pub fn timeline(history: &History, violations: &[Violation]) -> Vec<String> {
    let window = Window::of(history, violations);
    let mut lines: Vec<(u64, String)> = history
        .events
        .iter()
        .filter(|e| window.shows(e))
        .filter_map(|e| describe(e).map(|what| (e.time_ms, line(e.time_ms, &e.node, &what))))
        .collect();
    for v in violations {
        let at = v.times_ms.first().copied().unwrap_or(0);
        lines.push((at, line(at, "!!", &format!("VIOLATION {v}"))));
    }
    lines.sort_by_key(|(at, _)| *at);
    lines.into_iter().map(|(_, text)| text).collect()
}

fn line(time_ms: u64, node: &str, what: &str) -> String {
    format!("{time_ms:>7} ms  {node:<8} {what}")
}

struct Window {
    from_ms: u64,
    until_ms: u64,
    /// Whose own events are shown; None: everyone's.
    clients: Option<BTreeSet<String>>,
}

impl Window {
    fn of(history: &History, violations: &[Violation]) -> Window {
        if violations.is_empty() {
            return Window {
                from_ms: 0,
                until_ms: u64::MAX,
                clients: None,
            };
        }
        let times = violations.iter().flat_map(|v| v.times_ms.iter().copied());
        let (start, end) = times.fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        let clients: BTreeSet<String> = violations
            .iter()
            .flat_map(|v| v.clients.iter().cloned())
            .collect();
        let last_acquire = |client: &String| {
            history
                .events
                .iter()
                .filter(|e| &e.node == client && e.kind == Kind::Ok && e.time_ms <= start)
                .filter(|e| {
                    matches!(
                        e.op,
                        Op::Lock(LockOp::Acquire { .. }) | Op::Election(ElectionOp::Lead { .. })
                    )
                })
                .map(|e| e.time_ms)
                .next_back()
        };
        let from_ms = clients
            .iter()
            .filter_map(last_acquire)
            .min()
            .unwrap_or(start)
            .min(start);
        Window {
            from_ms,
            until_ms: end,
            clients: Some(clients),
        }
    }

    fn shows(&self, e: &Event) -> bool {
        if e.time_ms < self.from_ms || e.time_ms > self.until_ms {
            return false;
        }
        let Some(clients) = &self.clients else {
            return true;
        };
        match &e.op {
            Op::Harness(_) | Op::Server(_) => true,
            Op::Store(StoreOp::StoreWrite { client, .. }) => clients.contains(client),
            Op::Client(_)
            | Op::User(_)
            | Op::Lock(_)
            | Op::Election(_)
            | Op::Queue(_)
            | Op::Barrier(_)
            | Op::Store(_) => clients.contains(&e.node),
        }
    }
}

/// What the event says, if it is one a timeline tells.
fn describe(e: &Event) -> Option<String> {
    let token = |t: &Option<i64>| t.map_or(String::new(), |t| format!(" (token {t})"));
    Some(match (&e.op, e.kind) {
        (Op::Harness(HarnessOp::Fault { fault }), _) => format!("fault: {fault}"),
        (Op::Harness(HarnessOp::Paused { node, step, for_ms }), _) => {
            format!("{node} freezes for {for_ms} ms as it reaches its {step}")
        }
        (Op::Harness(HarnessOp::Heal), _) => "heal phase: faults repaired, no new ones".into(),
        (Op::Harness(HarnessOp::Unfinished { client }), _) => {
            format!("{client} had not finished its workload")
        }
        (Op::Harness(HarnessOp::End), _) => "run ends".into(),
        (
            Op::Lock(LockOp::Acquire {
                lock,
                mode,
                token: t,
                granted_by,
                valid_ms,
            }),
            Kind::Ok,
        ) => {
            let lock = match mode {
                Some(LockMode::Read) => format!("{lock} to read"),
                Some(LockMode::Write) => format!("{lock} to write"),
                None => lock.clone(),
            };
            let on = match granted_by.as_slice() {
                [] => String::new(),
                servers => format!(" on {}", servers.join(", ")),
            };
            let valid = valid_ms.map_or(String::new(), |v| format!(", valid {v} ms by its clock"));
            format!("acquires {lock}{}{on}{valid}", token(t))
        }
        (Op::Lock(LockOp::Extend { lock, valid_ms }), Kind::Ok) => {
            let valid = valid_ms.map_or(String::new(), |v| format!(", valid {v} ms by its clock"));
            format!("extends {lock}{valid}")
        }
        (Op::Lock(LockOp::Extend { lock, .. }), Kind::Fail) => format!("fails to extend {lock}"),
        (Op::Lock(LockOp::Release { lock }), Kind::Invoke) => format!("releases {lock}"),
        (Op::Lock(LockOp::Lost { lock }), _) => format!("learns it lost {lock}"),
        (Op::Election(ElectionOp::Lead { election, token: t }), Kind::Ok) => {
            format!("becomes the leader of {election}{}", token(t))
        }
        (Op::Election(ElectionOp::StepDown { election }), Kind::Invoke) => {
            format!("steps down as the leader of {election}")
        }
        (Op::Election(ElectionOp::LostLead { election }), _) => {
            format!("learns it no longer leads {election}")
        }
        (Op::Queue(QueueOp::Offer { queue, item }), Kind::Ok) => {
            format!("offers {item} to {queue}")
        }
        (
            Op::Queue(QueueOp::Take {
                queue,
                item: Some(item),
                node,
            }),
            Kind::Ok,
        ) => format!(
            "takes {item} from {queue}{}",
            node.as_ref()
                .map_or(String::new(), |n| format!(" (node {n})"))
        ),
        (Op::Queue(QueueOp::Take { queue, .. }), Kind::Info) => {
            format!("does not know whether it took an item from {queue}")
        }
        (Op::Queue(QueueOp::Claim { item, node, .. }), _) => {
            format!("asks to take {item} (node {node})")
        }
        (Op::Queue(QueueOp::Empty { queue }), _) => {
            format!("finds {queue} empty and waits for an offer")
        }
        (Op::Barrier(BarrierOp::Enter { barrier, count }), Kind::Invoke) => {
            format!("arrives at {barrier} (waits for {count})")
        }
        (Op::Barrier(BarrierOp::Enter { barrier, .. }), Kind::Ok) => format!("passes {barrier}"),
        (Op::Barrier(BarrierOp::Leave { barrier }), Kind::Invoke) => {
            format!("is done with its work, leaves {barrier}")
        }
        (Op::Barrier(BarrierOp::Leave { barrier }), Kind::Ok) => format!("has left {barrier}"),
        (
            Op::Store(StoreOp::StoreWrite {
                client,
                based_on,
                current,
                value,
                token: t,
                accepted,
            }),
            _,
        ) if !accepted || based_on != current => format!(
            "store {} {client}'s write of {value}{} (it read {based_on}; the register held \
             {current})",
            if *accepted { "accepts" } else { "refuses" },
            token(t)
        ),
        (Op::Server(event) | Op::User(event), _) if !event.routine => {
            if let Some(told) = &event.told {
                return Some(told.clone());
            }
            let fields: Vec<String> = event
                .fields
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => format!("{k}={s}"),
                    other => format!("{k}={other}"),
                })
                .collect();
            format!("{} {}", event.op.replace('_', " "), fields.join(" "))
                .trim_end()
                .to_string()
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Property;

    fn event(time_ms: u64, node: &str, kind: Kind, op: Op) -> Event {
        Event {
            time_ms,
            clock_ms: 0,
            node: node.into(),
            kind,
            op,
        }
    }

    fn acquire(token: Option<i64>) -> Op {
        Op::Lock(LockOp::acquire("/l", token))
    }

    /// Kleppmann's story: c1 acquires, is paused, c2 acquires meanwhile.
    fn paused_holder() -> (History, Vec<Violation>) {
        let fault = |f: &str| {
            Op::Harness(HarnessOp::Fault {
                fault: f.to_string(),
            })
        };
        let events = vec![
            event(10, "c3", Kind::Ok, acquire(Some(1))),
            event(
                20,
                "c3",
                Kind::Invoke,
                Op::Lock(LockOp::Release { lock: "/l".into() }),
            ),
            event(100, "c1", Kind::Ok, acquire(Some(2))),
            event(150, "harness", Kind::Info, fault("pause c1 for 300 ms")),
            event(160, "c3", Kind::Invoke, acquire(None)),
            event(210, "c2", Kind::Ok, acquire(Some(3))),
            event(
                450,
                "c1",
                Kind::Invoke,
                Op::Lock(LockOp::Release { lock: "/l".into() }),
            ),
            event(900, "harness", Kind::Info, Op::Harness(HarnessOp::End)),
        ];
        let violation = Violation {
            property: Property::MUTEX,
            clients: vec!["c1".into(), "c2".into()],
            times_ms: vec![210, 450],
            detail: "c1 and c2 both held /l during 210..450 ms".into(),
        };
        (History { events }, vec![violation])
    }

    #[test]
    fn a_violation_is_told_from_the_holders_acquires_to_its_end() {
        let (history, violations) = paused_holder();
        let lines = timeline(&history, &violations);
        assert_eq!(
            lines,
            [
                "    100 ms  c1       acquires /l (token 2)",
                "    150 ms  harness  fault: pause c1 for 300 ms",
                "    210 ms  c2       acquires /l (token 3)",
                "    210 ms  !!       VIOLATION mutex: c1 and c2 both held /l during 210..450 ms",
                "    450 ms  c1       releases /l",
            ]
        );
    }

    #[test]
    fn a_quorum_grant_tells_where_and_for_how_long() {
        let grant = Op::Lock(LockOp::Acquire {
            lock: "k".into(),
            mode: None,
            token: None,
            granted_by: vec!["redis1".into(), "redis3".into(), "redis4".into()],
            valid_ms: Some(183),
        });
        let history = History {
            events: vec![event(7, "c2", Kind::Ok, grant)],
        };
        assert_eq!(
            timeline(&history, &[]),
            [
                "      7 ms  c2       acquires k on redis1, redis3, redis4, valid 183 ms by its clock"
            ]
        );
    }

    #[test]
    fn an_extension_tells_how_long_it_is_valid_and_a_refused_one_says_so() {
        let extend = |valid_ms| {
            Op::Lock(LockOp::Extend {
                lock: "k".into(),
                valid_ms,
            })
        };
        let history = History {
            events: vec![
                event(70, "c1", Kind::Invoke, extend(None)),
                event(72, "c1", Kind::Ok, extend(Some(190))),
                event(140, "c1", Kind::Invoke, extend(None)),
                event(141, "c1", Kind::Fail, extend(None)),
            ],
        };
        assert_eq!(
            timeline(&history, &[]),
            [
                "     72 ms  c1       extends k, valid 190 ms by its clock",
                "    141 ms  c1       fails to extend k",
            ]
        );
    }

    #[test]
    fn without_violations_the_whole_run_is_told() {
        let (history, _) = paused_holder();
        let lines = timeline(&history, &[]);
        assert_eq!(lines.len(), 7, "{lines:#?}");
        assert!(lines[0].contains("c3       acquires /l (token 1)"));
        assert!(lines[6].ends_with("run ends"));
    }

    #[test]
    fn a_server_event_is_told_in_its_familys_words_when_it_has_them() {
        let server =
            |op: &str| crate::history::ServerEvent::new(&serde_json::json!({"op": op, "key": "k"}));
        let history = History {
            events: vec![
                event(1, "redis1", Kind::Info, Op::Server(server("key_expired"))),
                event(
                    2,
                    "redis1",
                    Kind::Info,
                    Op::Server(server("key_changed").told(r#"c1 DEL k removed c2's "t""#.into())),
                ),
                event(
                    3,
                    "redis1",
                    Kind::Info,
                    Op::Server(crate::history::ServerEvent {
                        routine: true,
                        ..server("key_changed").told("c1 SET k set to \"t\"".into())
                    }),
                ),
            ],
        };
        assert_eq!(
            timeline(&history, &[]),
            [
                "      1 ms  redis1   key expired key=k",
                r#"      2 ms  redis1   c1 DEL k removed c2's "t""#,
            ]
        );
    }

    /// A user's event, as `Node::record_event` records it: told with its fields, among its
    /// client's events (so only when that client is in the story), and read back typed.
    #[test]
    fn a_users_event_is_told_with_its_fields_and_reads_back_typed() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "op", rename_all = "snake_case")]
        enum Permit {
            Taken { slot: u32 },
        }
        let taken = crate::history::ServerEvent::new(&Permit::Taken { slot: 1 });
        assert_eq!(taken.read::<Permit>(), Some(Permit::Taken { slot: 1 }));
        let history = History {
            events: vec![event(4, "c2", Kind::Info, Op::User(taken))],
        };
        assert_eq!(
            timeline(&history, &[]),
            ["      4 ms  c2       taken slot=1"]
        );
        let elsewhere = Violation {
            property: crate::check::Property::MUTEX,
            clients: vec!["c1".into()],
            times_ms: vec![4],
            detail: "x".into(),
        };
        let lines = timeline(&history, &[elsewhere]);
        assert!(lines.iter().all(|l| !l.contains("taken")), "{lines:?}");
    }

    #[test]
    #[should_panic(expected = "tagged with its name under `op`")]
    fn an_event_without_an_op_tag_is_refused_with_the_shape_it_needs() {
        crate::history::ServerEvent::new(&serde_json::json!({"slot": 1}));
    }

    #[test]
    fn two_leaders_are_told_from_the_first_ones_election() {
        let e = "/e".to_string();
        let lead = |token| {
            Op::Election(ElectionOp::Lead {
                election: e.clone(),
                token,
            })
        };
        let events = vec![
            event(5, "c2", Kind::Ok, lead(Some(3))),
            event(10, "c1", Kind::Ok, lead(Some(4))),
            event(
                400,
                "c2",
                Kind::Info,
                Op::Election(ElectionOp::LostLead {
                    election: e.clone(),
                }),
            ),
            event(400, "c2", Kind::Ok, lead(Some(9))),
            event(
                610,
                "c1",
                Kind::Invoke,
                Op::Election(ElectionOp::StepDown {
                    election: e.clone(),
                }),
            ),
        ];
        let violation = Violation {
            property: Property::LEADER,
            clients: vec!["c1".into(), "c2".into()],
            times_ms: vec![400, 610],
            detail: "c1 and c2 both believed they led /e during 400..610 ms".into(),
        };
        assert_eq!(
            timeline(&History { events }, &[violation]),
            [
                "     10 ms  c1       becomes the leader of /e (token 4)",
                "    400 ms  c2       learns it no longer leads /e",
                "    400 ms  c2       becomes the leader of /e (token 9)",
                "    400 ms  !!       VIOLATION leader: c1 and c2 both believed they led /e during \
                 400..610 ms",
                "    610 ms  c1       steps down as the leader of /e",
            ]
        );
    }
}
