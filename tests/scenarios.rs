//! The harness finds every flawed variant's flaw, and finds nothing in the correct recipe
//! under the faults it is meant to survive.

use locksim::check::Property;
use locksim::explore::{Exploration, ExploreSpec, Outcome, explore};
use locksim::params::Params;
use locksim::scenario;
use locksim::sim::fault::Fault;
use locksim::timeline::timeline;
use locksim::trace;
use locksim::zk::events::{ZnodeChange, znode_change};

fn params(overrides: &[&str]) -> Params {
    Params::default()
        .overridden(overrides)
        .expect("valid overrides")
}

fn explore_seeds(
    name: &str,
    overrides: &[&str],
    check: &[Property],
    seeds: std::ops::Range<u64>,
) -> Exploration {
    let scenario = scenario::find(name).expect("known scenario");
    explore(&ExploreSpec {
        scenario: scenario.clone(),
        params: params(overrides),
        properties: if check.is_empty() {
            scenario.properties.to_vec()
        } else {
            check.to_vec()
        },
        seeds,
        jobs: 2,
        check_determinism: false,
    })
}

/// The faults of a finding's shrunk plan.
fn shrunk_faults(e: &Exploration) -> Vec<&Fault> {
    match &e.outcome {
        Outcome::Violation(f) => f.spec.plan().faults().iter().map(|t| &t.fault).collect(),
        other => panic!("no finding: {other:?}"),
    }
}

/// The properties the first finding violates; panics with the outcome if there is none.
fn found(e: &Exploration) -> Vec<Property> {
    match &e.outcome {
        Outcome::Violation(f) => trace::violated(&f.report),
        other => panic!("expected a violation, got {other:?}"),
    }
}

fn assert_clean(e: &Exploration) {
    match &e.outcome {
        Outcome::Clean => {}
        Outcome::Violation(f) => panic!(
            "seed {} violated {:?} with plan {:?}",
            f.spec.seed(),
            f.report.violations(),
            f.spec.plan()
        ),
        other => panic!("{other:?}"),
    }
}

/// Runs `finding`'s seed and plan on scenario `name`, judged by all it promises, and
/// asserts it runs clean: the fix of the flaw the finding showed.
fn runs_clean_as(finding: &locksim::explore::Finding, name: &str) {
    let fixed = scenario::find(name).unwrap();
    let spec = locksim::world::run::RunSpec::new(
        fixed,
        finding.spec.params().clone(),
        finding.spec.seed(),
        finding.spec.plan().clone(),
    );
    let report = locksim::world::run::run(&spec).unwrap();
    assert!(
        report.violations().is_empty(),
        "{name}: {:?}",
        report.violations()
    );
}

#[test]
fn herd_variant_wakes_every_waiter() {
    let e = explore_seeds("zk-lock-herd", &["faults=none"], &[], 0..10);
    assert_eq!(found(&e), vec![Property::HERD]);
}

#[test]
fn simple_lock_shows_herd_and_fifo() {
    let e = explore_seeds("zk-lock-simple", &["faults=none"], &[Property::HERD], 0..10);
    assert_eq!(found(&e), vec![Property::HERD]);
    let e = explore_seeds("zk-lock-simple", &["faults=none"], &[Property::FIFO], 0..50);
    assert_eq!(found(&e), vec![Property::FIFO]);
}

#[test]
fn noguid_variant_deadlocks_on_a_lost_create_reply_and_the_recipe_does_not() {
    // Lost replies alone (the swarm's `any`: whatever request is on the wire), so the one
    // that matters, a create's, is not crowded out by every other fault.
    let e = explore_seeds("zk-lock-noguid", &["faults=lose_reply"], &[], 0..300);
    assert_eq!(found(&e), vec![Property::LIVENESS]);
    let faults = shrunk_faults(&e);
    assert!(
        faults.iter().any(|f| matches!(f, Fault::LoseReply { .. })),
        "the shrunk plan keeps the lost reply: {:?}",
        faults
    );
    let seeds = 0..e.seeds_run.max(100);
    assert_clean(&explore_seeds("zk-lock", &[], &[Property::LIVENESS], seeds));
}

#[test]
fn sorting_the_line_by_name_lets_a_newcomer_take_the_lock_from_its_holder() {
    let e = explore_seeds(
        "zk-lock-name-sort",
        &["faults=none"],
        &[Property::MUTEX],
        0..20,
    );
    assert_eq!(found(&e), vec![Property::MUTEX]);
    assert!(shrunk_faults(&e).is_empty(), "no fault needed");
}

#[test]
fn sorting_the_line_as_plain_integers_breaks_mutex_once_the_counter_wraps() {
    let wrap = ["seq_start=2147483640", "faults=none"];
    let e = explore_seeds("zk-lock-int-sort", &wrap, &[Property::MUTEX], 0..20);
    assert_eq!(found(&e), vec![Property::MUTEX]);
    assert!(shrunk_faults(&e).is_empty(), "no fault needed");
    let e = explore_seeds("zk-lock-int-sort", &["faults=none"], &[], 0..20);
    assert_clean(&e);
    for correct in ["zk-lock", "zk-rwlock", "zk-election", "zk-queue"] {
        assert_clean(&explore_seeds(
            correct,
            &["seq_start=2147483640"],
            &[],
            0..100,
        ));
    }
}

#[test]
fn forgetting_a_node_whose_delete_failed_orphans_it_and_retrying_does_not() {
    let e = explore_seeds("zk-lock-release-forgets", &[], &[], 0..200);
    assert_eq!(found(&e), vec![Property::LIVENESS]);
    let faults = shrunk_faults(&e);
    assert!(
        faults.iter().any(|f| matches!(f, Fault::Crash { .. })),
        "the connection is lost during a release: {faults:?}"
    );
    let seeds = 0..e.seeds_run.max(50);
    assert_clean(&explore_seeds("zk-lock", &[], &[Property::LIVENESS], seeds));
}

#[test]
fn taking_a_disconnect_for_the_predecessors_deletion_breaks_mutex() {
    let e = explore_seeds("zk-lock-session-event", &[], &[Property::MUTEX], 0..200);
    assert_eq!(found(&e), vec![Property::MUTEX]);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    let e = explore_seeds("zk-lock-session-event", &["faults=none"], &[], 0..20);
    assert_clean(&e);
}

/// On three servers (writes through the leader, reads from lagging followers, clients
/// moving between servers as faults strike them) the correct recipes still hold under their
/// fault profile, and the flawed controls are still found.
#[test]
fn on_a_three_server_ensemble_the_recipes_hold_and_their_flaws_are_still_found() {
    let three = ["zk_servers=3"];
    for name in [
        "zk-lock",
        "zk-election",
        "zk-queue",
        "zk-barrier",
        "zk-double-barrier",
    ] {
        assert_clean(&explore_seeds(name, &three, &[], 0..60));
    }
    let flawed = [
        ("zk-lock-herd", Property::HERD),
        ("zk-lock-noguid", Property::LIVENESS),
        ("zk-queue-delete-first", Property::QUEUE),
        ("zk-rwlock-higher-writer", Property::LIVENESS),
    ];
    for (name, flaw) in flawed {
        let e = explore_seeds(name, &three, &[], 0..20);
        assert!(found(&e).contains(&flaw), "{name}: {:?}", found(&e));
    }
}

#[test]
fn correct_recipe_survives_its_fault_profile() {
    assert_clean(&explore_seeds("zk-lock", &[], &[], 0..300));
}

#[test]
fn the_shared_lock_lets_readers_share_it_and_survives_its_fault_profile() {
    let e = explore_seeds("zk-rwlock", &[], &[], 0..200);
    assert_clean(&e);
    let [seen] = e.witnessed.as_slice() else {
        panic!("one property with a witness: {:?}", e.witnessed)
    };
    assert_eq!(seen.property, Property::RW_EXCLUSION);
    assert!(
        seen.seeds > 150,
        "readers shared the lock in {} of 200 seeds",
        seen.seeds
    );
    assert!(
        seen.detail.contains("readers held /locksim/lock together"),
        "{}",
        seen.detail
    );
    // The same runs judged by `mutex`: readers together are what it forbids.
    let e = explore_seeds("zk-rwlock", &["faults=none"], &[Property::MUTEX], 0..5);
    assert_eq!(found(&e), vec![Property::MUTEX]);
}

#[test]
fn a_reader_waiting_behind_a_later_writer_deadlocks_with_it() {
    let e = explore_seeds("zk-rwlock-higher-writer", &["faults=none"], &[], 0..20);
    assert_eq!(found(&e), vec![Property::LIVENESS]);
    assert_clean(&explore_seeds("zk-rwlock", &["faults=none"], &[], 0..20));
    // With writers only, no reader can wait behind one: the flaw needs both modes.
    let writers_only = ["faults=none", "writers=5"];
    assert_clean(&explore_seeds(
        "zk-rwlock-higher-writer",
        &writers_only,
        &[],
        0..20,
    ));
}

/// Runs the correct double barrier on a control's finding: its seed and shrunk plan.
fn recipe_on_finding(e: &Exploration) -> Vec<locksim::check::Violation> {
    let Outcome::Violation(f) = &e.outcome else {
        panic!("no finding: {:?}", e.outcome)
    };
    let recipe = scenario::find("zk-double-barrier").unwrap();
    let spec =
        locksim::world::run::RunSpec::generated(recipe, f.spec.params().clone(), f.spec.seed())
            .with_plan(f.spec.plan().clone());
    locksim::world::run::run(&spec)
        .expect("the run completes")
        .violations()
        .to_vec()
}

#[test]
fn the_barriers_hold_under_their_fault_profile() {
    assert_clean(&explore_seeds("zk-barrier", &[], &[], 0..150));
    assert_clean(&explore_seeds("zk-double-barrier", &[], &[], 0..150));
}

#[test]
fn the_double_barrier_holds_through_session_expiries_as_documented() {
    // Pauses three times the session timeout: processes re-enter after an expiry before
    // they passed enter, and drop out (their node gone with the session) after.
    let long_pauses = ["pause_max_ms=600", "faults=pause"];
    assert_clean(&explore_seeds(
        "zk-double-barrier",
        &long_pauses,
        &[],
        0..60,
    ));
}

/// Found by a guided campaign (`explore zk-double-barrier --guided --runs 2000 --campaign
/// 0`, run 1,686): c1's session ends after the barrier opened with its node counted, before
/// c1 saw `ready`. Its node's deletion was its leave as far as the others can tell, and c2
/// passes the leave; c1, on a new session, must not join again and work beside nobody.
#[test]
fn a_process_whose_session_ended_after_the_barrier_opened_does_not_join_it_again() {
    use locksim::history::{BarrierOp, Kind, Op};
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    let link = |a: &str| (a.to_string(), "zk1".to_string());
    let at = |at_ms, fault| TimedFault { at_ms, fault };
    let ((c1, zk), (c2, zk2), (c3, zk3)) = (link("c1"), link("c2"), link("c3"));
    let plan = FaultPlan::new(vec![
        at(
            70,
            Fault::Delay {
                a: c2.clone(),
                b: zk2.clone(),
                ms: 8,
                for_ms: 141,
            },
        ),
        at(
            115,
            Fault::Partition {
                a: c1.clone(),
                b: zk.clone(),
            },
        ),
        at(137, Fault::Repair { a: c1, b: zk }),
        at(
            158,
            Fault::Loss {
                a: c2,
                b: zk2,
                rate: 0.34,
                for_ms: 26,
            },
        ),
        at(223, Fault::Partition { a: c3, b: zk3 }),
    ]);
    let recipe = scenario::find("zk-double-barrier").unwrap();
    let spec = RunSpec::generated(recipe, params(&[]), 4_691_905_793_288_301_687).with_plan(plan);
    let report = run(&spec).expect("the run completes");
    let told = timeline(report.history(), report.violations(), spec.plan()).join("\n");
    assert_eq!(report.violations(), [], "{told}");
    // The run is the one found: c1 enters round 1 again after its session ended, and
    // passes without a node.
    let c1_in_r1: Vec<(Kind, String)> =
        report
            .history()
            .events
            .iter()
            .filter(|e| e.node == "c1")
            .filter_map(|e| match &e.op {
                Op::Barrier(
                    BarrierOp::Enter { barrier, .. } | BarrierOp::Joined { barrier, .. },
                ) if barrier.ends_with("/r1") => Some((e.kind, e.op.name())),
                _ => None,
            })
            .collect();
    let step = |kind, op: &str| (kind, op.to_string());
    assert_eq!(
        c1_in_r1,
        [
            step(Kind::Invoke, "enter"),
            step(Kind::Info, "joined"),
            step(Kind::Fail, "enter"),
            step(Kind::Invoke, "enter"),
            step(Kind::Ok, "enter"),
        ]
    );
}

#[test]
fn creating_its_node_again_after_an_old_sessions_node_went_enters_a_round_being_left() {
    let rejoin = scenario::find("zk-double-barrier-rejoin").unwrap();
    let closing = rejoin.params::<&str>(None, &[]).unwrap();
    assert_eq!(
        closing.zookeeper.zk_servers, 3,
        "its default profile is closing"
    );
    let e = explore(&ExploreSpec {
        scenario: rejoin.clone(),
        params: closing,
        properties: rejoin.properties.to_vec(),
        seeds: 0..300,
        jobs: 2,
        check_determinism: false,
    });
    assert_eq!(found(&e), vec![Property::BARRIER]);
    let faults = shrunk_faults(&e);
    // A partition shrinks with its repair (it shrank to three partitions, their repairs
    // dropped), so four cuts, repaired as the generated plan repaired them.
    let cuts = faults.iter().filter(|f| !matches!(f, Fault::Repair { .. }));
    assert!(cuts.count() <= 4, "{faults:?}");
    assert!(
        faults.iter().any(|f| matches!(f, Fault::Partition { a, b }
            if a.starts_with("zk") && b.starts_with("zk"))),
        "the leader loses its quorum: {faults:?}"
    );
    assert_eq!(recipe_on_finding(&e), [], "the recipe looks at ready again");
}

#[test]
fn a_barrier_looked_at_before_it_is_armed_is_taken_for_lifted() {
    let e = explore_seeds("zk-barrier-unarmed", &[], &[], 0..200);
    assert_eq!(found(&e), vec![Property::BARRIER]);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert_clean(&explore_seeds("zk-barrier", &[], &[], 0..e.seeds_run));
}

#[test]
fn counting_children_instead_of_waiting_for_ready_strands_a_late_lister() {
    let e = explore_seeds(
        "zk-double-barrier-no-ready",
        &["faults=lose_reply"],
        &[],
        0..100,
    );
    assert!(found(&e).contains(&Property::LIVENESS), "{:?}", found(&e));
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert_eq!(recipe_on_finding(&e), [], "the recipe waits for ready");
}

#[test]
fn reentering_under_a_new_name_after_nodeexists_leaves_a_node_that_counts() {
    let e = explore_seeds("zk-double-barrier-reenter", &[], &[], 0..100);
    assert!(found(&e).contains(&Property::LIVENESS), "{:?}", found(&e));
    let faults = shrunk_faults(&e);
    assert!(faults.len() <= 3, "{faults:?}");
    assert!(
        faults.iter().any(|f| matches!(f, Fault::LoseReply { .. })),
        "the create's reply is lost: {faults:?}"
    );
    assert_eq!(recipe_on_finding(&e), [], "the recipe finds its own node");
}

#[test]
fn election_candidates_all_watching_the_lowest_node_are_a_herd() {
    let e = explore_seeds("zk-election-herd", &[], &[], 0..10);
    assert_eq!(found(&e), vec![Property::HERD]);
    assert!(shrunk_faults(&e).is_empty(), "no fault needed");
}

#[test]
fn the_election_keeps_one_leader_under_pauses_shorter_than_the_session() {
    let election = scenario::find("zk-election").unwrap();
    assert_eq!(election.params::<&str>(None, &[]).unwrap(), params(&[]));
    assert_clean(&explore_seeds("zk-election", &[], &[], 0..150));
}

#[test]
fn a_hand_over_slower_than_the_bound_after_the_heal_is_a_leaderless_election() {
    // Each hand-over takes a few round trips; a bound of 1 ms after an early heal is broken.
    let tight = ["faults=none", "fault_phase_ms=100", "liveness_bound_ms=1"];
    let e = explore_seeds("zk-election", &tight, &[Property::LEADER], 0..1);
    let Outcome::Violation(f) = &e.outcome else {
        panic!("{:?}", e.outcome)
    };
    assert!(
        f.report.violations()[0]
            .detail
            .contains("had candidates running and no leader"),
        "{:?}",
        f.report.violations()
    );
    let roomy = ["faults=none", "fault_phase_ms=100"];
    assert_clean(&explore_seeds(
        "zk-election",
        &roomy,
        &[Property::LEADER],
        0..1,
    ));
}

#[test]
fn a_candidate_whose_create_reply_was_lost_finds_its_node_by_its_guid() {
    use locksim::history::{ElectionOp, Op};
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    let scenario = scenario::find("zk-election").unwrap();
    let lose = |client: &str| TimedFault {
        at_ms: 0,
        fault: Fault::LoseReply {
            node: "zk1".into(),
            op: "create".into(),
            client: client.into(),
        },
    };
    let clients = ["c1", "c2", "c3", "c4", "c5"];
    let spec = RunSpec::generated(scenario, params(&["faults=none"]), 3)
        .with_plan(FaultPlan::new(clients.iter().map(|c| lose(c)).collect()));
    let report = run(&spec).expect("the run completes");
    assert!(
        report.completed() && report.violations().is_empty(),
        "{:?}",
        report.violations()
    );
    let history = &report.history();
    // A lost reply is only one to a create the server applied, so the directory's creates
    // take at most two of the five; the others strike candidate nodes. Those candidates learn
    // their node from the listing, after a reconnect: later than a reply's one-way latency.
    let created_at = |node: &str| {
        history
            .events
            .iter()
            .find(|e| e.op.name() == "znode_created" && format!("{:?}", e.op).contains(node))
            .map(|e| e.time_ms)
    };
    let late = history
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Election(ElectionOp::Candidate { node, .. }) => Some((e.time_ms, node)),
            _ => None,
        })
        .filter(|(at, node)| created_at(node).is_some_and(|c| at - c > 3))
        .count();
    assert!(late >= 3, "{late} candidates learned their node late");
    // Every candidate node the server created is one a client stood with: none orphaned.
    let created = history
        .events
        .iter()
        .filter(|e| e.op.name() == "znode_created")
        .filter(|e| format!("{:?}", e.op).contains("/locksim/election/"))
        .count();
    let stood = history
        .events
        .iter()
        .filter(|e| matches!(e.op, Op::Election(ElectionOp::Candidate { .. })))
        .count();
    assert_eq!(created, stood);
    assert_eq!(stood, clients.len() * 4, "one candidacy per term");
}

/// Crashing `node` of a three-server ensemble at 300 ms (it restarts with the heal, at
/// 600 ms) under zk-lock, which must complete clean: the run, and the epochs its members
/// started leading, by member.
fn zk_lock_with_a_crashed(node: &str) -> (locksim::world::run::RunReport, Vec<(String, u32)>) {
    use locksim::history::Op;
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    use locksim::zk::events::ZkEvent;
    let crash = TimedFault {
        at_ms: 300,
        fault: Fault::Crash { node: node.into() },
    };
    let spec = RunSpec::generated(
        scenario::find("zk-lock").unwrap(),
        params(&["faults=none", "zk_servers=3"]),
        3,
    )
    .with_plan(FaultPlan::new(vec![crash]));
    let report = run(&spec).expect("the run completes");
    assert!(
        report.completed() && report.violations().is_empty(),
        "{:?}",
        report.violations()
    );
    let leading = report
        .history()
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(event) => match event.read::<ZkEvent>() {
                Some(ZkEvent::Leading { epoch }) => Some((e.node.clone(), epoch)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    (report, leading)
}

#[test]
fn a_crashed_leader_is_replaced_by_the_next_election_and_the_lock_goes_on() {
    let (report, leading) = zk_lock_with_a_crashed("zk3");
    // zk1 and zk2 hold the same log: the higher id wins. zk3, back, follows it.
    assert_eq!(leading, vec![("zk2".to_string(), 2)]);
    // Locks taken in the new epoch carry its zxids.
    let last = holds_tokens(report.history()).last().copied().unwrap_or(0);
    assert_eq!(last >> 32, 2, "token {last:#x}");
}

#[test]
fn a_crashed_follower_rejoins_its_leader_without_a_new_epoch() {
    let (_, leading) = zk_lock_with_a_crashed("zk1");
    assert_eq!(leading, vec![]);
}

/// The leader is cut off from one follower, then from the other, until the heal: it must
/// step down within syncLimit of its last follower falling silent, as 3.8's does, and its
/// clients move to the new leader's side. Its writes to the first one block for good (the
/// cut link drops them, and their room in the stream is never given back): a link that
/// noticed silence only between writes kept zk3 leading its own clients, who waited in the
/// barrier for ever while the others expired their sessions.
#[test]
fn a_leader_cut_off_from_its_followers_steps_down_though_its_writes_to_one_block() {
    use locksim::history::Op;
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    use locksim::zk::events::ZkEvent;
    let barrier = scenario::find("zk-barrier").unwrap();
    let cut = |at_ms, a: &str| TimedFault {
        at_ms,
        fault: Fault::Partition {
            a: a.into(),
            b: "zk3".into(),
        },
    };
    let params = barrier
        .params::<&str>(None, &["zk_servers=3", "follower_lag_ms=50"])
        .unwrap();
    let spec = RunSpec::generated(barrier, params, 4_546_644_608_150_079_602)
        .with_plan(FaultPlan::new(vec![cut(350, "zk2"), cut(582, "zk1")]));
    let report = run(&spec).expect("the run completes");
    assert!(report.violations().is_empty(), "{:?}", report.violations());
    let epochs: Vec<u32> = report
        .history()
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(event) => match event.read::<ZkEvent>() {
                Some(ZkEvent::Leading { epoch }) => Some(epoch),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(epochs, vec![2], "zk1 and zk2 elect a leader of epoch 2");
}

/// The fencing tokens of every acquire, in order.
fn holds_tokens(history: &locksim::history::History) -> Vec<i64> {
    use locksim::history::{Kind, LockOp, Op};
    history
        .events
        .iter()
        .filter(|e| e.kind == Kind::Ok)
        .filter_map(|e| match &e.op {
            Op::Lock(LockOp::Acquire { token, .. }) => *token,
            _ => None,
        })
        .collect()
}

#[test]
fn a_leader_paused_past_its_session_leads_beside_the_next_and_fencing_saves_the_resource() {
    let long_pauses = ["pause_max_ms=600"];
    let election = scenario::find("zk-election").unwrap();
    let profile = election.params::<&str>(Some("long-pauses"), &[]).unwrap();
    assert_eq!(profile, params(&long_pauses));
    let e = explore_seeds("zk-election", &long_pauses, &[], 0..100);
    assert!(found(&e).contains(&Property::LEADER), "{:?}", found(&e));
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    let fenced = ["pause_max_ms=600", "fencing=true"];
    let e = explore_seeds("zk-election", &fenced, &[Property::LEADER], 0..100);
    assert_eq!(
        found(&e),
        vec![Property::LEADER],
        "fencing guards the store only"
    );
    assert_clean(&explore_seeds(
        "zk-election",
        &fenced,
        &[Property::RESOURCE],
        0..150,
    ));
}

#[test]
fn pause_past_the_session_timeout_breaks_mutex_and_fencing_saves_the_resource() {
    let long_pauses = ["pause_max_ms=600", "faults=pause"];
    let e = explore_seeds("zk-lock", &long_pauses, &[Property::MUTEX], 0..100);
    assert_eq!(found(&e), vec![Property::MUTEX]);
    let e = explore_seeds("zk-lock", &long_pauses, &[Property::RESOURCE], 0..100);
    assert_eq!(
        found(&e),
        vec![Property::RESOURCE],
        "without fencing the zombie's write lands"
    );
    let fenced = ["pause_max_ms=600", "faults=pause", "fencing=true"];
    assert_clean(&explore_seeds(
        "zk-lock",
        &fenced,
        &[Property::RESOURCE],
        0..200,
    ));
}

#[test]
fn a_workload_unfinished_at_the_run_limit_is_a_liveness_violation() {
    // No faults and no slow grant: the clients simply have more work than the run allows.
    // Every checker but liveness reads only what clients recorded, which is all well formed.
    let scenario = scenario::find("zk-lock").unwrap();
    let cut_short = params(&["faults=none", "fault_phase_ms=100", "run_limit_ms=300"]);
    let report = locksim::world::run::run(&locksim::world::run::RunSpec::generated(
        scenario, cut_short, 1,
    ))
    .expect("the run completes");
    assert!(!report.completed());
    let liveness: Vec<_> = report
        .violations()
        .iter()
        .filter(|v| v.property == Property::LIVENESS)
        .collect();
    assert!(!liveness.is_empty(), "{:?}", report.violations());
    assert!(
        liveness.iter().all(|v| v
            .detail
            .contains("had not finished its workload when the run stopped at 300 ms")),
        "{liveness:?}"
    );
    let finished = params(&["faults=none", "fault_phase_ms=100"]);
    let report = locksim::world::run::run(&locksim::world::run::RunSpec::generated(
        scenario, finished, 1,
    ))
    .expect("the run completes");
    assert!(
        report.completed() && report.violations().is_empty(),
        "{:?}",
        report.violations()
    );
}

/// The true time each of `client`'s critical sections spent between its read's ok and its
/// write's invoke: `hold_ms` as its own monotonic clock measures it.
fn holds(history: &locksim::history::History, client: &str) -> Vec<u64> {
    let mut read_at = None;
    let mut holds = Vec::new();
    for e in history.events.iter().filter(|e| e.node == client) {
        match (e.op.name().as_str(), e.kind.name().as_str()) {
            ("read", "ok") => read_at = Some(e.time_ms),
            ("write", "invoke") => holds.extend(read_at.take().map(|r| e.time_ms - r)),
            _ => {}
        }
    }
    holds
}

#[test]
fn client_code_measures_time_by_its_own_node_clock() {
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    let scenario = scenario::find("zk-lock").unwrap();
    let at_start = |fault| TimedFault { at_ms: 0, fault };
    let plan = FaultPlan::new(vec![
        // c1's clocks run 25% fast: its 20 ms hold takes 16 ms of true time.
        at_start(Fault::ClockDrift {
            node: "c1".into(),
            ppm: 250_000,
        }),
        // c2's wall clock steps back a minute: its monotonic timers do not notice.
        at_start(Fault::ClockJump {
            node: "c2".into(),
            by_ms: -60_000,
        }),
    ]);
    let spec = RunSpec::generated(
        scenario,
        params(&["faults=none", "hold_ms=20", "clients=3", "rounds=2"]),
        1,
    )
    .with_plan(plan);
    let report = run(&spec).expect("the run completes");
    assert!(report.completed() && report.violations().is_empty());
    assert_eq!(holds(report.history(), "c1"), [16, 16]);
    assert_eq!(holds(report.history(), "c2"), [20, 20]);
    assert_eq!(holds(report.history(), "c3"), [20, 20]);
}

#[test]
fn exploring_redlock_under_its_full_profile_finds_kleppmanns_pause_and_shrinks_it_to_it() {
    let redlock = scenario::find("redlock").unwrap();
    let e = explore(&ExploreSpec {
        scenario: redlock.clone(),
        params: redlock.params::<&str>(None, &[]).unwrap(),
        properties: redlock.properties.to_vec(),
        seeds: 0..500,
        jobs: 2,
        check_determinism: false,
    });
    assert!(found(&e).contains(&Property::MUTEX), "{:?}", found(&e));
    let faults = shrunk_faults(&e);
    assert!(faults.len() <= 3, "{faults:?}");
    // A holder frozen past its validity on its way to the store or to its release.
    assert!(
        faults
            .iter()
            .any(|f| matches!(f, Fault::PauseBefore { .. })),
        "{faults:?}"
    );
    let Outcome::Violation(finding) = &e.outcome else {
        unreachable!()
    };
    let report = &finding.report;
    let told = timeline(report.history(), report.violations(), report.plan()).join("\n");
    assert!(told.contains("freezes for"), "{told}");
    assert!(told.contains("VIOLATION mutex"), "{told}");
}

#[test]
fn the_redis_locks_hold_without_faults() {
    for name in ["redis-lock", "redlock"] {
        assert_clean(&explore_seeds(name, &["faults=none"], &[], 0..40));
    }
}

#[test]
fn releasing_by_plain_del_deletes_the_next_holders_lock() {
    let e = explore_seeds("redis-lock-del", &["faults=none"], &[Property::MUTEX], 0..5);
    assert_eq!(found(&e), vec![Property::MUTEX]);
}

#[test]
fn a_wall_clock_jump_on_a_master_breaks_redlock_and_a_monotonic_expiry_clock_does_not() {
    let jumps = ["faults=clock_jump", "clock_jump_max_ms=10000"];
    let e = explore_seeds("redlock", &jumps, &[Property::MUTEX], 0..300);
    assert_eq!(found(&e), vec![Property::MUTEX]);
    let faults = shrunk_faults(&e);
    assert!(
        faults.iter().all(|f| matches!(f, Fault::ClockJump { .. })),
        "{:?}",
        faults
    );
    let monotonic = [jumps[0], jumps[1], "expiry_clock=monotonic"];
    let seeds = 0..e.seeds_run.max(100);
    assert_clean(&explore_seeds(
        "redlock",
        &monotonic,
        &[Property::MUTEX],
        seeds,
    ));
}

/// A Redlock control's default profile settings, checked to be what it runs by default: the
/// control and `redlock` are then explored with exactly these, one recipe difference apart.
fn control_settings(name: &str) -> &'static [&'static str] {
    let control = scenario::find(name).unwrap();
    let settings = control.program.profiles()[0].settings;
    assert_eq!(control.params::<&str>(None, &[]).unwrap(), params(settings));
    settings
}

#[test]
fn a_quorum_whose_votes_outlasted_the_ttl_breaks_mutex_unless_validity_is_checked() {
    let slow_votes = control_settings("redlock-novalidity");
    let e = explore_seeds("redlock-novalidity", slow_votes, &[Property::MUTEX], 0..20);
    assert_eq!(found(&e), vec![Property::MUTEX]);
    let faults = shrunk_faults(&e);
    assert!(
        faults.iter().all(|f| matches!(f, Fault::Delay { .. })),
        "only link delays: {:?}",
        faults
    );
    let seeds = 0..e.seeds_run.max(20);
    assert_clean(&explore_seeds(
        "redlock",
        slow_votes,
        &[Property::MUTEX],
        seeds,
    ));
}

#[test]
fn votes_left_in_place_after_a_failed_attempt_stall_the_lock_and_unlocking_does_not() {
    let contention = control_settings("redlock-nounlock");
    let e = explore_seeds("redlock-nounlock", contention, &[Property::LIVENESS], 0..10);
    assert_eq!(found(&e), vec![Property::LIVENESS]);
    let Outcome::Violation(f) = &e.outcome else {
        unreachable!()
    };
    assert!(
        f.spec.plan().faults().is_empty(),
        "no fault needed: {:?}",
        f.spec.plan()
    );
    let seeds = 0..e.seeds_run.max(12);
    assert_clean(&explore_seeds(
        "redlock",
        contention,
        &[Property::LIVENESS],
        seeds,
    ));
}

#[test]
fn clients_retrying_after_the_same_delay_split_the_votes_for_ever_and_random_delays_do_not() {
    let lockstep = control_settings("redlock-fixed-retry");
    let e = explore_seeds(
        "redlock-fixed-retry",
        lockstep,
        &[Property::LIVENESS],
        0..20,
    );
    assert_eq!(found(&e), vec![Property::LIVENESS]);
    let Outcome::Violation(f) = &e.outcome else {
        unreachable!()
    };
    // A livelock, not a slow hand-over: every client still wants the lock at the end.
    let waiting: Vec<_> = f
        .report
        .violations()
        .iter()
        .filter(|v| v.detail.contains("still waiting at the end"))
        .flat_map(|v| v.clients.clone())
        .collect();
    assert_eq!(waiting, ["c1", "c2", "c3"], "{:?}", f.report.violations());
    let seeds = 0..e.seeds_run.max(20);
    assert_clean(&explore_seeds(
        "redlock",
        lockstep,
        &[Property::LIVENESS],
        seeds,
    ));
}

/// What the clients' critical sections came to in one run.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sections {
    extended: usize,
    not_extended: usize,
    lost: usize,
    /// Releases with no write since the acquire.
    released_unwritten: usize,
    accepted_writes: usize,
    refused_writes: usize,
}

/// Runs `name` without faults, two clients two rounds each, and tallies their sections.
fn long_work(name: &str, overrides: &[&str]) -> Sections {
    use locksim::history::{Kind, LockOp, Op, StoreOp};
    use locksim::world::run::{RunSpec, run};
    let mut settings = vec!["faults=none", "ttl_ms=200", "clients=2", "rounds=2"];
    settings.extend(overrides);
    let spec = RunSpec::generated(scenario::find(name).unwrap(), params(&settings), 1);
    let report = run(&spec).expect("the run completes");
    assert!(report.completed(), "{name} {overrides:?}: unfinished");
    assert!(
        report.violations().is_empty(),
        "{name} {overrides:?}: {:?}",
        report.violations()
    );
    let mut tally = Sections::default();
    let mut written = std::collections::BTreeSet::new();
    for e in &report.history().events {
        match (&e.op, e.kind) {
            (Op::Store(StoreOp::Write { .. }), Kind::Invoke) => {
                written.insert(e.node.clone());
            }
            (Op::Lock(LockOp::Release { .. }), Kind::Invoke) if !written.remove(&e.node) => {
                tally.released_unwritten += 1;
            }
            (Op::Lock(LockOp::Extend { .. }), Kind::Ok) => tally.extended += 1,
            (Op::Lock(LockOp::Extend { .. }), Kind::Fail) => tally.not_extended += 1,
            (Op::Lock(LockOp::Lost { .. }), _) => tally.lost += 1,
            (Op::Store(StoreOp::StoreWrite { accepted: true, .. }), _) => {
                tally.accepted_writes += 1
            }
            (
                Op::Store(StoreOp::StoreWrite {
                    accepted: false, ..
                }),
                _,
            ) => tally.refused_writes += 1,
            _ => {}
        }
    }
    tally
}

#[test]
fn a_holder_whose_work_outlasts_the_ttl_keeps_the_lock_by_extending_it_within_its_bound() {
    for name in ["redis-lock", "redlock"] {
        // A validity of about 190 ms, extended every third of it while the work would end in
        // its last third: 300 ms of work takes three extensions per section, the default
        // bound.
        assert_eq!(
            long_work(name, &["hold_ms=300"]),
            Sections {
                extended: 3 * 4,
                accepted_writes: 4,
                ..Sections::default()
            },
            "{name}"
        );
        // Never extending, or too few times for 600 ms, the holder gives the lock up at the
        // first extension refused, writes nothing, and releases.
        assert_eq!(
            long_work(name, &["hold_ms=300", "max_extensions=0"]),
            Sections {
                not_extended: 4,
                released_unwritten: 4,
                ..Sections::default()
            },
            "{name}"
        );
        assert_eq!(
            long_work(name, &["hold_ms=600", "max_extensions=1"]),
            Sections {
                extended: 4,
                not_extended: 4,
                released_unwritten: 4,
                ..Sections::default()
            },
            "{name}"
        );
    }
}

/// The violations' details of the first finding.
fn details(e: &Exploration) -> Vec<String> {
    match &e.outcome {
        Outcome::Violation(f) => f
            .report
            .violations()
            .iter()
            .map(|v| v.detail.clone())
            .collect(),
        other => panic!("expected a violation, got {other:?}"),
    }
}

#[test]
fn the_queue_survives_its_fault_profile() {
    assert_clean(&explore_seeds("zk-queue", &[], &[], 0..200));
}

#[test]
fn queue_consumers_that_list_it_empty_wait_and_are_woken_only_by_offers() {
    // Consumers that find the queue empty (a producer paused, say) wait on the children;
    // the herd check then has wake-ups to judge, and finds no herd.
    let scenario = scenario::find("zk-queue").unwrap();
    let mut wakes = 0;
    for seed in 0..10 {
        let report = locksim::world::run::run(&locksim::world::run::RunSpec::generated(
            scenario,
            Params::default(),
            seed,
        ))
        .expect("the run completes");
        assert!(
            report.completed() && report.violations().is_empty(),
            "seed {seed}: {:?}",
            report.violations()
        );
        wakes += report
            .history()
            .events
            .iter()
            .filter(|e| e.op.name() == "wake")
            .count();
    }
    assert!(wakes > 0, "no consumer waited for an offer in 10 seeds");
}

#[test]
fn claiming_a_queue_item_by_deleting_it_before_reading_it_loses_it() {
    let e = explore_seeds("zk-queue-delete-first", &[], &[Property::QUEUE], 0..20);
    assert_eq!(found(&e), vec![Property::QUEUE]);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert!(
        details(&e)
            .iter()
            .all(|d| d.contains("never taken by the end")),
        "{:?}",
        details(&e)
    );
}

#[test]
fn taking_a_queue_item_whose_delete_found_no_node_hands_it_out_twice() {
    let e = explore_seeds(
        "zk-queue-unconfirmed-delete",
        &[],
        &[Property::QUEUE],
        0..20,
    );
    assert_eq!(found(&e), vec![Property::QUEUE]);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert!(
        details(&e).iter().any(|d| d.contains(" times: by ")),
        "{:?}",
        details(&e)
    );
}

#[test]
fn queue_consumers_waiting_on_the_children_after_losing_the_race_are_a_herd() {
    let e = explore_seeds("zk-queue-herd", &[], &[], 0..20);
    assert_eq!(found(&e), vec![Property::HERD]);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert_clean(&explore_seeds(
        "zk-queue",
        &["faults=none"],
        &[Property::HERD],
        0..20,
    ));
}

/// A scenario's profile's settings, by name.
fn profile(name: &str, profile: Option<&str>) -> Params {
    scenario::find(name)
        .unwrap()
        .params::<&str>(profile, &[])
        .expect("valid profile")
}

fn explore_profile(
    name: &str,
    profile_of: Option<&str>,
    seeds: std::ops::Range<u64>,
) -> Exploration {
    let scenario = scenario::find(name).expect("known scenario");
    // A control is judged by what its flaw breaks; the recipe by all it promises.
    let properties = match &scenario.flaw[..] {
        [] => scenario.properties.to_vec(),
        flaw => flaw.to_vec(),
    };
    explore(&ExploreSpec {
        scenario: scenario.clone(),
        params: profile(name, profile_of),
        properties,
        seeds,
        jobs: 2,
        check_determinism: false,
    })
}

#[test]
fn a_waiter_that_takes_a_vanished_predecessor_for_the_lock_breaks_mutex_under_targeted_pauses() {
    let e = explore_profile("zk-lock-vanished", None, 0..12);
    assert!(found(&e).contains(&Property::MUTEX), "{:?}", e.outcome);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    let Outcome::Violation(finding) = &e.outcome else {
        unreachable!()
    };
    assert!(
        finding
            .spec
            .plan()
            .faults()
            .iter()
            .any(|t| t.fault.is_targeted()),
        "{:?}",
        finding.spec.plan()
    );
    runs_clean_as(finding, "zk-lock");
}

#[test]
fn adopting_a_node_of_the_abandoned_session_breaks_mutex() {
    // Under lost replies (and the profile's targeted pauses), judged by mutex alone: two
    // holders, once the adopted node goes with the session that created it.
    let scenario = scenario::find("zk-lock-stale-session").unwrap();
    let e = explore(&ExploreSpec {
        scenario: scenario.clone(),
        params: profile("zk-lock-stale-session", None)
            .overridden(&["faults=lose_reply"])
            .unwrap(),
        properties: vec![Property::MUTEX],
        seeds: 0..20,
        jobs: 2,
        check_determinism: false,
    });
    assert_eq!(found(&e), vec![Property::MUTEX], "{:?}", e.outcome);
    assert!(shrunk_faults(&e).len() <= 3, "{:?}", shrunk_faults(&e));
    assert_clean(&explore_profile("zk-lock", Some("targeted-short"), 0..20));
}

#[test]
fn a_guid_lookup_on_a_lagging_follower_without_sync_orphans_the_first_node() {
    let e = explore_profile("zk-lock-no-sync", None, 0..400);
    assert_eq!(found(&e), vec![Property::LIVENESS], "{:?}", e.outcome);
    let Outcome::Violation(finding) = &e.outcome else {
        unreachable!()
    };
    // The mechanism: one enqueue's GUID names two nodes, the lookup between them having
    // missed the first on a follower that had not applied it.
    let mut guids = std::collections::BTreeMap::<&str, usize>::new();
    for entry in &finding.report.history().events {
        if let Some((ZnodeChange::Created, path)) = znode_change(&entry.op)
            && let Some((guid, _)) = path.rsplit('/').next().and_then(|n| n.split_once("lock-"))
        {
            *guids.entry(guid).or_default() += 1;
        }
    }
    assert!(guids.values().any(|&n| n == 2), "{guids:?}");
    // The recipe syncs before the lookup: the same plan runs clean.
    runs_clean_as(finding, "zk-lock");
}

#[test]
fn a_client_that_resumes_with_zxid_zero_reads_the_past_on_a_lagging_follower() {
    let e = explore_profile("zk-counter-zero-zxid", None, 0..200);
    assert_eq!(
        found(&e),
        vec![Property::READ_YOUR_WRITES],
        "{:?}",
        e.outcome
    );
    let Outcome::Violation(finding) = &e.outcome else {
        unreachable!()
    };
    // The same plan with the Java client's last-seen zxid: the lagging follower refuses the
    // moved session, which reads on another server, never the past.
    runs_clean_as(finding, "zk-counter");
}

#[test]
fn a_candidate_that_adopts_its_given_up_session_s_node_leads_beside_another() {
    let scenario = scenario::find("zk-election-stale-node").unwrap();
    let e = explore(&ExploreSpec {
        scenario: scenario.clone(),
        params: profile("zk-election-stale-node", None),
        properties: vec![Property::LEADER],
        seeds: 0..1000,
        jobs: 2,
        check_determinism: false,
    });
    assert_eq!(found(&e), vec![Property::LEADER], "{:?}", e.outcome);
    let Outcome::Violation(finding) = &e.outcome else {
        unreachable!()
    };
    // CURATOR-498's fix (the owner check), and the recipe, run the same plan clean.
    for fixed in ["zk-election-stale-node-checked", "zk-election"] {
        runs_clean_as(finding, fixed);
    }
}

#[test]
fn the_recipe_survives_targeted_pauses() {
    assert_clean(&explore_profile("zk-lock", Some("targeted"), 0..40));
}

/// The swarm's lost replies reach reads too: its `any` loses whatever request a client sends
/// next, so over a few seeds of the ZooKeeper lock's default profile a `getChildren` reply is
/// among those lost, as the history records it.
#[test]
fn the_swarm_loses_get_children_replies_too() {
    use locksim::Experiment;
    use locksim::history::Op;
    let lock = Experiment::new(scenario::find("zk-lock").unwrap().clone());
    let lost_get_children = (0..40).find(|&seed| {
        lock.run(seed).history().events.iter().any(|e| match &e.op {
            Op::Server(event) => {
                event.op == "reply_lost"
                    && event.fields.get("request") == Some(&serde_json::json!("get_children"))
            }
            _ => false,
        })
    });
    assert!(
        lost_get_children.is_some(),
        "no getChildren reply lost in seeds 0..40"
    );
}

/// A double barrier whose process is told its session expired while the session lives on
/// (its leader marked it closing, then lost its quorum before the close committed; the next
/// leader tracks it anew): the process, on a new session, finds its old node still there
/// and waits for it to go. Meanwhile the barrier opens with that node counted, so when it
/// goes, the process has left as far as the others can tell; it must look at `ready` again
/// rather than create its node anew and enter after the others passed the leave.
#[test]
fn a_double_barrier_process_whose_old_node_was_counted_does_not_enter_again() {
    use locksim::sim::fault::{FaultPlan, TimedFault};
    use locksim::world::run::{RunSpec, run};
    let barrier = scenario::find("zk-double-barrier").unwrap();
    let at = |at_ms, fault| TimedFault { at_ms, fault };
    let cut = |a: &str, b: &str| Fault::Partition {
        a: a.into(),
        b: b.into(),
    };
    let loss = Fault::Loss {
        a: "c4".into(),
        b: "zk2".into(),
        rate: 0.26,
        for_ms: 23,
    };
    let params = barrier
        .params::<&str>(None, &["zk_servers=3", "follower_lag_ms=50"])
        .unwrap();
    let plan = FaultPlan::new(vec![
        at(472, cut("zk1", "zk3")),
        at(496, loss),
        at(567, cut("zk2", "zk1")),
        at(567, cut("zk2", "zk3")),
    ]);
    let spec = RunSpec::generated(barrier, params, 2_506_995_019_319_001_758).with_plan(plan);
    let report = run(&spec).expect("the run completes");
    assert!(report.violations().is_empty(), "{:?}", report.violations());
}
