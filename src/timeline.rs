//! A run told as a short story by true time: one line per event that matters (faults with
//! when they stopped acting, who acquired what with which token, releases, losses, what
//! the store refused or accepted on a stale read, servers' non-routine events), and the
//! violations where they begin. Enough to see why a property broke without reading the JSON.

use crate::check::Violation;
use crate::history::{
    BarrierOp, ElectionOp, Event, HarnessOp, History, Kind, LockMode, LockOp, Op, QueueOp, StoreOp,
};
use crate::sim::fault::{Fault, FaultPlan, SKIPPED, TimedFault};
use crate::sim::vocab::{FaultTag, Lasts};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The lines of the timeline of a run that applied `plan`. With violations, it covers their
/// clients from the last acquire each held before the first violation began, up to the last
/// violation's end, with every fault and server event in that window, and every earlier
/// fault that struck one of those clients (a pause long before can be the whole cause);
/// without, the whole run. A fault's line says when it stopped acting, where that is known.
pub fn timeline(history: &History, violations: &[Violation], plan: &FaultPlan) -> Vec<String> {
    let window = Window::of(history, violations);
    let spans = Spans::of(history, plan);
    let retold = Retold::of(history);
    let mut lines: Vec<(u64, String)> = history
        .events
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            window.shows(e)
                || spans
                    .0
                    .get(i)
                    .is_some_and(|span| window.involves(&span.hosts))
        })
        .filter_map(|(i, e)| {
            let until = match spans.0.get(&i).and_then(|span| span.until_ms) {
                Some(until) => format!(", until {until} ms"),
                None => String::new(),
            };
            retold
                .describe(i, e)
                .map(|what| (e.time_ms, line(e.time_ms, &e.node, &(what + &until))))
        })
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

/// The stretch of a run a story of its violations tells (the HTML picture opens on it too).
pub(crate) struct Window {
    pub(crate) from_ms: u64,
    pub(crate) until_ms: u64,
    /// Whose own events are shown; None: everyone's.
    clients: Option<BTreeSet<String>>,
}

impl Window {
    pub(crate) fn of(history: &History, violations: &[Violation]) -> Window {
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

    /// Whether `hosts` include a client the window is about.
    pub(crate) fn involves(&self, hosts: &[String]) -> bool {
        self.clients
            .as_ref()
            .is_some_and(|clients| hosts.iter().any(|h| clients.contains(h)))
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

/// The faults of a run's history, by event index: whom each struck and when it stopped.
pub(crate) struct Spans(pub(crate) BTreeMap<usize, Span>);

/// One fault as it acted.
pub(crate) struct Span {
    /// Which fault it is (a `pause_before` that struck is a `PauseBefore`).
    pub(crate) tag: FaultTag,
    /// The hosts it struck (for a targeted pause, whom it struck; none when it was skipped).
    pub(crate) hosts: Vec<String>,
    /// When it stopped acting: None for one that acts at once (a clock jump, a lost reply,
    /// a failover) or whose end the plan does not say (a drift).
    pub(crate) until_ms: Option<u64>,
}

impl Spans {
    /// Pairs each fault event with the plan entry it applied: an untargeted one is the next
    /// entry at its time that it tells; a targeted pause is the first entry not yet fired
    /// whose line it extends with whom it struck (`...: c3`). A `pause_before` that struck
    /// names its node.
    pub(crate) fn of(history: &History, plan: &FaultPlan) -> Spans {
        let heal_ms = history
            .events
            .iter()
            .find(|e| matches!(e.op, Op::Harness(HarnessOp::Heal)))
            .map_or_else(|| history.end_ms(), |e| e.time_ms);
        let paused = |at_ms: u64, for_ms: u64| Some((at_ms + for_ms).min(heal_ms));
        let mut next = 0;
        let mut fired = BTreeSet::new();
        let mut spans = BTreeMap::new();
        for (i, e) in history.events.iter().enumerate() {
            let span = match &e.op {
                Op::Harness(HarnessOp::Fault { fault }) => {
                    let untargeted = plan.0[next..].iter().position(|t| {
                        !t.fault.is_targeted()
                            && t.at_ms == e.time_ms
                            && t.fault.to_string() == *fault
                    });
                    let targeted = || {
                        plan.0.iter().enumerate().find_map(|(index, t)| {
                            let Fault::PauseRole { for_ms, .. } = t.fault else {
                                return None;
                            };
                            let struck = fault.strip_prefix(&format!("{}: ", t.fault))?;
                            (!fired.contains(&index)).then_some((index, struck, for_ms))
                        })
                    };
                    if let Some(offset) = untargeted {
                        let index = next + offset;
                        next = index + 1;
                        let hosts = plan.0[index].fault.nodes();
                        Span {
                            tag: plan.0[index].fault.tag(),
                            hosts: hosts.into_iter().map(str::to_string).collect(),
                            until_ms: fault_end(plan, index, heal_ms),
                        }
                    } else if let Some((index, struck, for_ms)) = targeted() {
                        fired.insert(index);
                        if struck == SKIPPED {
                            continue;
                        }
                        Span {
                            tag: FaultTag::Pause,
                            hosts: vec![struck.to_string()],
                            until_ms: paused(e.time_ms, for_ms),
                        }
                    } else {
                        continue;
                    }
                }
                Op::Harness(HarnessOp::Paused { node, for_ms, .. }) => Span {
                    tag: FaultTag::PauseBefore,
                    hosts: vec![node.clone()],
                    until_ms: paused(e.time_ms, *for_ms),
                },
                // A lost reply strikes when the server drops the connection, which may be
                // long after its fault was armed.
                Op::Server(event) if event.op == "reply_lost" => Span {
                    tag: FaultTag::LoseReply,
                    hosts: event
                        .fields
                        .get("client")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .into_iter()
                        .collect(),
                    until_ms: None,
                },
                _ => continue,
            };
            spans.insert(i, span);
        }
        Spans(spans)
    }
}

/// When the fault at `index` of `plan` stopped acting, as its row of the vocabulary says
/// (`Lasts`): its own span's end (a pause, a loss, a delay), the repair or restart that ended
/// it, and at the latest the heal.
fn fault_end(plan: &FaultPlan, index: usize, heal_ms: u64) -> Option<u64> {
    let TimedFault { at_ms, fault } = &plan.0[index];
    let end = match fault.tag().lasts() {
        Lasts::ForMs => at_ms + fault.for_ms()?,
        Lasts::UntilUndone => plan.0[index + 1..]
            .iter()
            .find(|t| t.fault.undoes(fault))
            .map_or(heal_ms, |t| t.at_ms),
        Lasts::Moment | Lasts::WhenStruck | Lasts::ToEnd => return None,
    };
    Some(end.min(heal_ms))
}

/// The server events a story tells in words that need the rest of the history, by index:
/// whose element a command on a shared list, set or hash took or changed (`redis::story`),
/// whose session expired (`zk::story`). None: routine after all, left out. Every other event
/// tells itself (`describe`).
pub(crate) struct Retold(BTreeMap<usize, Option<String>>);

impl Retold {
    pub(crate) fn of(history: &History) -> Retold {
        let mut retold = crate::redis::story::retell(&history.events);
        retold.extend(crate::zk::story::retell(&history.events));
        Retold(retold)
    }

    /// What the `i`th event `e` of the history says, if it is one a timeline tells.
    pub(crate) fn describe(&self, i: usize, e: &Event) -> Option<String> {
        match self.0.get(&i) {
            Some(told) => told.clone(),
            None => describe(e),
        }
    }
}

/// What the event says on its own, if it is one a timeline tells.
pub(crate) fn describe(e: &Event) -> Option<String> {
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
    use crate::check::test_history::event;
    use crate::sim::fault::{Target, TimedFault};

    fn acquire(token: Option<i64>) -> Op {
        Op::Lock(LockOp::acquire("/l", token))
    }

    /// A plan's fault as the history records it when applied.
    fn applied(timed: &TimedFault) -> Event {
        let fault = timed.fault.to_string();
        let op = Op::Harness(HarnessOp::Fault { fault });
        event(timed.at_ms, "harness", Kind::Info, op)
    }

    fn pause(at_ms: u64, node: &str, for_ms: u64) -> TimedFault {
        let node = node.into();
        let fault = Fault::Pause { node, for_ms };
        TimedFault { at_ms, fault }
    }

    /// Kleppmann's story: c1 acquires, is paused, c2 acquires meanwhile.
    fn paused_holder() -> (History, Vec<Violation>, FaultPlan) {
        let plan = FaultPlan(vec![pause(150, "c1", 300)]);
        let events = vec![
            event(10, "c3", Kind::Ok, acquire(Some(1))),
            event(
                20,
                "c3",
                Kind::Invoke,
                Op::Lock(LockOp::Release { lock: "/l".into() }),
            ),
            event(100, "c1", Kind::Ok, acquire(Some(2))),
            applied(&plan.0[0]),
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
        (History { events }, vec![violation], plan)
    }

    #[test]
    fn a_violation_is_told_from_the_holders_acquires_to_its_end() {
        let (history, violations, plan) = paused_holder();
        let lines = timeline(&history, &violations, &plan);
        assert_eq!(
            lines,
            [
                "    100 ms  c1       acquires /l (token 2)",
                "    150 ms  harness  fault: pause c1 for 300 ms, until 450 ms",
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
            timeline(&history, &[], &FaultPlan::default()),
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
            timeline(&history, &[], &FaultPlan::default()),
            [
                "     72 ms  c1       extends k, valid 190 ms by its clock",
                "    141 ms  c1       fails to extend k",
            ]
        );
    }

    #[test]
    fn an_early_fault_that_struck_a_violations_client_is_told_with_its_end() {
        let (mut history, violations, mut plan) = paused_holder();
        let s = |x: &str| x.to_string();
        let early = [
            pause(2, "c1", 40),
            pause(3, "c3", 40),
            TimedFault {
                at_ms: 4,
                fault: Fault::Partition {
                    a: s("c2"),
                    b: s("zk1"),
                },
            },
            TimedFault {
                at_ms: 5,
                fault: Fault::ClockJump {
                    node: s("c2"),
                    by_ms: -500,
                },
            },
            TimedFault {
                at_ms: 6,
                fault: Fault::PauseRole {
                    target: Target::Holder,
                    on: None,
                    for_ms: 30,
                },
            },
            TimedFault {
                at_ms: 7,
                fault: Fault::PauseRole {
                    target: Target::Leader,
                    on: None,
                    for_ms: 30,
                },
            },
            TimedFault {
                at_ms: 60,
                fault: Fault::Repair {
                    a: s("zk1"),
                    b: s("c2"),
                },
            },
        ];
        let paused = HarnessOp::Paused {
            node: s("c2"),
            step: s("write"),
            for_ms: 1_000,
        };
        let fired = |timed: &TimedFault, outcome: &str| {
            let fault = format!("{}: {outcome}", timed.fault);
            let op = Op::Harness(HarnessOp::Fault { fault });
            event(timed.at_ms + 2, "harness", Kind::Info, op)
        };
        history
            .events
            .extend([fired(&early[5], SKIPPED), fired(&early[4], "c2")]);
        history
            .events
            .extend(early.iter().filter(|t| !t.fault.is_targeted()).map(applied));
        history.events.extend([
            event(70, "harness", Kind::Info, Op::Harness(paused)),
            event(800, "harness", Kind::Info, Op::Harness(HarnessOp::Heal)),
        ]);
        history.events.sort_by_key(|e| e.time_ms);
        plan.0.splice(0..0, early);
        let lines = timeline(&history, &violations, &plan);
        assert_eq!(
            lines[..7],
            [
                "      2 ms  harness  fault: pause c1 for 40 ms, until 42 ms",
                "      4 ms  harness  fault: partition c2 <-> zk1, until 60 ms",
                "      5 ms  harness  fault: clock of c2 jumps -500 ms",
                "      8 ms  harness  fault: pause the holder for 30 ms: c2, until 38 ms",
                "     60 ms  harness  fault: repair zk1 <-> c2",
                "     70 ms  harness  c2 freezes for 1000 ms as it reaches its write, until 800 ms",
                "    100 ms  c1       acquires /l (token 2)",
            ],
            "the pauses of c3, who is not in the violation, and of nobody are left out: \
             {lines:#?}"
        );
        assert_eq!(lines.len(), 11, "{lines:#?}");
    }

    /// A lost reply strikes when the server drops the connection: told there, however
    /// early, for a client of the violation, and left out for anyone else.
    #[test]
    fn an_early_lost_reply_of_a_violations_client_is_told_where_it_struck() {
        let (mut history, violations, plan) = paused_holder();
        let lost = |at: u64, client: &str| {
            let op = crate::zk::events::ZkEvent::ReplyLost {
                client: client.into(),
                request: "create".into(),
            };
            event(at, "zk1", Kind::Info, op.into())
        };
        history.events.extend([lost(40, "c2"), lost(41, "c3")]);
        history.events.sort_by_key(|e| e.time_ms);
        let lines = timeline(&history, &violations, &plan);
        assert_eq!(
            lines[0],
            "     40 ms  zk1      drops c2's connection instead of replying to its create"
        );
        assert!(!lines.iter().any(|l| l.contains("c3's")), "{lines:#?}");
    }

    #[test]
    fn without_violations_the_whole_run_is_told() {
        let (history, _, plan) = paused_holder();
        let lines = timeline(&history, &[], &plan);
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
            timeline(&history, &[], &FaultPlan::default()),
            [
                "      1 ms  redis1   key expired key=k",
                r#"      2 ms  redis1   c1 DEL k removed c2's "t""#,
            ]
        );
    }

    /// `client`'s `command` (`"c2 LPOP q"`) changed the key on redis1 from `before` to
    /// `after` (empty: absent), as the host records it: `owner` wrote the whole value last.
    fn key_changed(at: u64, command: &str, [before, owner, after]: [&str; 3]) -> Event {
        let [client, command, key] = command.splitn(3, ' ').collect::<Vec<_>>()[..] else {
            panic!("client, command and key: {command}")
        };
        let value = |v: &str| (!v.is_empty()).then(|| v.to_string());
        let change = crate::redis::events::KeyChange {
            client: client.into(),
            command: command.into(),
            key: key.into(),
            before: value(before),
            owner: value(owner),
            after: value(after),
            ttl_ms: None,
            result: "1".into(),
        };
        let op = crate::redis::events::RedisEvent::KeyChanged(change).into();
        event(at, "redis1", Kind::Info, op)
    }

    /// A shared queue, set and hash: each line names the element or field another client
    /// put there, and changes that touched only one's own (or only added) are left out,
    /// although the host's record names another client as the whole value's last writer.
    #[test]
    fn a_change_to_a_list_set_or_hash_names_the_element_and_who_put_it_there() {
        let q = ["list[p1-3]", "list[p1-3, p2-1]", "list[p1-3, p2-1, p2-2]"];
        let events = vec![
            key_changed(1, "p1 RPUSH q", ["", "", q[0]]),
            key_changed(2, "p2 RPUSH q", [q[0], "p1", q[1]]),
            key_changed(3, "p2 RPUSH q", [q[1], "p2", q[2]]),
            key_changed(4, "c2 LPOP q", [q[2], "p2", "list[p2-1, p2-2]"]),
            key_changed(5, "c1 SADD s", ["", "", "set{m7}"]),
            key_changed(6, "c3 SADD s", ["set{m7}", "c1", "set{m7, m8}"]),
            key_changed(7, "c3 SREM s", ["set{m7, m8}", "c3", "set{m8}"]),
            key_changed(8, "c1 HSET h", ["", "", "hash{f=v1}"]),
            key_changed(9, "c3 HSET h", ["hash{f=v1}", "c1", "hash{f=v1, g=w}"]),
            key_changed(
                10,
                "c3 HSET h",
                ["hash{f=v1, g=w}", "c3", "hash{f=v2, g=w}"],
            ),
        ];
        assert_eq!(
            timeline(&History { events }, &[], &FaultPlan::default()),
            [
                r#"      4 ms  redis1   c2 LPOP q took "p1-3" (pushed by p1)"#,
                r#"      7 ms  redis1   c3 SREM s removed "m7" (added by c1)"#,
                r#"     10 ms  redis1   c3 HSET h overwrote field f ("v1", set by c1) with "v2""#,
            ]
        );
    }

    /// A session's expiry names the client whose lock node that session created, and the
    /// node its expiry deleted.
    #[test]
    fn a_sessions_expiry_names_the_client_that_owned_it() {
        use crate::zk::events::ZkEvent;
        let zk = |at, e: ZkEvent| event(at, "zk1", Kind::Info, e.into());
        let path = "/l/_c_1f-lock-0000000003".to_string();
        let enqueued = LockOp::Enqueued {
            lock: "/l".into(),
            node: "_c_1f-lock-0000000003".into(),
            seq: Some(3),
            mode: None,
        };
        let (session, other) = (0x100000000000003, 0x100000000000004);
        let events = vec![
            zk(
                10,
                ZkEvent::ZnodeCreated {
                    path: path.clone(),
                    session,
                },
            ),
            event(11, "c2", Kind::Info, Op::Lock(enqueued)),
            zk(380, ZkEvent::SessionExpired { session }),
            zk(380, ZkEvent::ZnodeDeleted { path, session }),
            zk(400, ZkEvent::SessionExpired { session: other }),
        ];
        assert_eq!(
            timeline(&History { events }, &[], &FaultPlan::default()),
            [
                "    380 ms  zk1      c2's session 0x100000000000003 expired; its ephemeral \
                 /l/_c_1f-lock-0000000003 deleted",
                "    400 ms  zk1      session 0x100000000000004 expired",
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
            timeline(&history, &[], &FaultPlan::default()),
            ["      4 ms  c2       taken slot=1"]
        );
        let elsewhere = Violation {
            property: crate::check::Property::MUTEX,
            clients: vec!["c1".into()],
            times_ms: vec![4],
            detail: "x".into(),
        };
        let lines = timeline(&history, &[elsewhere], &FaultPlan::default());
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
            timeline(&History { events }, &[violation], &FaultPlan::default()),
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
