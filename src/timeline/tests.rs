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
fn a_barrier_violation_is_told_from_the_round_its_client_began_to_enter() {
    let cut = TimedFault {
        at_ms: 150,
        fault: Fault::Partition {
            a: "zk1".into(),
            b: "zk3".into(),
        },
    };
    let plan = FaultPlan(vec![cut]);
    let (r0, r1) = ("/b/r0".to_string(), "/b/r1".to_string());
    let enter = |barrier: &String| {
        Op::Barrier(BarrierOp::Enter {
            barrier: barrier.clone(),
            count: 2,
        })
    };
    let leave = |barrier: &String| {
        Op::Barrier(BarrierOp::Leave {
            barrier: barrier.clone(),
        })
    };
    let events = vec![
        event(10, "c1", Kind::Invoke, enter(&r0)),
        event(40, "c1", Kind::Ok, leave(&r0)),
        event(100, "c1", Kind::Invoke, enter(&r1)),
        applied(&plan.0[0]),
        event(250, "c1", Kind::Ok, enter(&r1)),
        event(300, "c1", Kind::Ok, leave(&r1)),
    ];
    let violation = Violation {
        property: Property::BARRIER,
        clients: vec!["c1".into()],
        times_ms: vec![300],
        detail: "c1 passed the leave of /b/r1 at 300 ms while c2 had not finished its work".into(),
    };
    let lines = timeline(&History { events }, &[violation], &plan);
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert!(lines[0].starts_with("    100 ms  c1 "), "{lines:#?}");
    assert!(lines[1].contains("partition zk1 <-> zk3"), "{lines:#?}");
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
        ["      7 ms  c2       acquires k on redis1, redis3, redis4, valid 183 ms by its clock"]
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
