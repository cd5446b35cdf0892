//! The library API as a user's test meets it: an experiment on a scenario, its verdict, the
//! report a failed assertion prints, and the replay of the trace it wrote. The built-ins go
//! through the same API.

use locksim::check::{CheckConfig, Checker, Reads, Violation};
use locksim::history::{History, Op};
use locksim::recipes::zk::barrier::{self, ZkBarrier};
use locksim::recipes::zk::double_barrier::{self, ZkDoubleBarrier};
use locksim::scenario;
use locksim::trace::{self, Trace};
use locksim::zk::proto::CreateMode;
use locksim::{Barrier, DoubleBarrier, Experiment, Property, RecipeError, Scenario};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

fn builtin(name: &str) -> Experiment {
    Experiment::new(scenario::find(name).unwrap().clone())
}

/// A fresh trace directory for one test.
fn traces(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("locksim-experiment-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("it should panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn a_finding_is_asserted_reported_and_replayed_from_its_one_trace() {
    let dir = traces("finding");
    let experiment = builtin("redis-lock-del").traces(&dir).jobs(2);
    let found = experiment.explore(0..200);
    let finding = found.assert_violates(Property::MUTEX);
    let written: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(
        written.len(),
        2,
        "only the shrunk finding's trace (and its picture) is written"
    );
    let trace = found.trace().expect("a trace was written");
    assert!(trace.starts_with(&dir));
    assert!(
        trace.with_extension("html").is_file(),
        "its picture beside it"
    );

    let report = panic_message(|| found.assert_clean());
    for part in [
        "expected no violation",
        "VIOLATION mutex",
        "timeline (true time):",
        &format!("trace: {}", trace.display()),
        &format!("picture: {}", trace.with_extension("html").display()),
        "replay: LOCKSIM_REPLAY=",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }

    let replay = experiment.replay(trace);
    replay.assert_reproduced();
    assert_eq!(replay.report.digest(), finding.report.digest());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The guided search through the same API: one line changed from `explore`, the same
/// assertions, a trace that replays, and the same finding on any number of jobs.
#[test]
fn a_guided_campaign_is_asserted_and_replayed_like_an_exploration() {
    let dir = traces("guided");
    // Campaign 2's first finding is the flaw's mutex face (campaign 1's is its herd face).
    let experiment = builtin("zk-lock-stale-session").traces(&dir).campaign(2);
    let found = experiment.clone().jobs(2).explore_guided(200);
    let finding = found.assert_violates(Property::MUTEX);
    let on_one = experiment.clone().jobs(1).explore_guided(200);
    assert_eq!(on_one.seeds_run(), found.seeds_run());
    let trace = found.trace().expect("a trace was written");
    let replay = experiment.replay(trace);
    replay.assert_reproduced();
    assert_eq!(replay.report.digest(), finding.report.digest());
    let report = panic_message(|| found.assert_clean());
    assert!(
        report.contains("guided campaign 2, up to 200 runs"),
        "{report}"
    );

    let clean = builtin("zk-lock").traces(&dir).explore_guided(48);
    clean.assert_clean();
    assert_eq!(clean.seeds_run(), 48);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_clean_exploration_fails_an_expected_violation_with_its_count() {
    let dir = traces("clean");
    let found = builtin("redis-lock")
        .set("faults=none")
        .traces(&dir)
        .explore(0..3);
    found.assert_clean();
    assert_eq!(found.seeds_run(), 3);
    let report = panic_message(|| {
        found.assert_violates(Property::MUTEX);
    });
    assert!(
        report.contains("expected a violation of mutex")
            && report.contains("no violations in 3 runs (seeds 0..3)"),
        "{report}"
    );
    assert!(!dir.exists(), "a clean exploration writes no trace");
}

#[test]
fn bad_settings_are_refused_at_the_call_that_makes_them() {
    let report = panic_message(|| {
        let _ = builtin("redis-lock").profile("fast");
    });
    assert_eq!(
        report,
        "unknown profile 'fast' for redis-lock (known: full, own-assumptions)"
    );
    let report = panic_message(|| {
        let _ = builtin("redis-lock").set("faults=nope");
    });
    assert!(
        report.contains("faults") && report.contains("nope") && report.contains("partition"),
        "names the key, the value and the known kinds: {report}"
    );
    for (bad, names) in [
        ("ttl_ms=-1", "ttl_ms"),
        ("ttl=200", "unknown parameter 'ttl'"),
        ("clients=0", "clients=0 is outside"),
        ("clients", "clients"),
    ] {
        let err = builtin("redis-lock").try_set(bad).unwrap_err().to_string();
        assert!(err.contains(names), "{bad}: {err}");
    }
    // Bounds that relate two settings judge the final combination, in whatever order.
    let both = builtin("zk-lock")
        .set("session_timeout_ms=600")
        .set("latency_max_ms=40");
    assert!(both.params().is_ok());
    let alone = builtin("zk-lock").set("latency_max_ms=40");
    assert!(alone.params().is_err(), "too slow for the default session");
}

/// A property of the test's own, and a checker that finds it broken in every run.
const ALWAYS: Property = Property::new("always");
struct Always;

impl Checker for Always {
    fn property(&self) -> Property {
        ALWAYS
    }
    fn reads(&self) -> &'static [Reads] {
        &[Reads::Harness]
    }
    fn check(&self, _: &History, _: &CheckConfig) -> Vec<Violation> {
        vec![Violation {
            property: ALWAYS,
            clients: vec![],
            times_ms: vec![0],
            detail: "every run".into(),
        }]
    }
}

#[test]
fn a_checker_is_judged_whether_properties_come_before_or_after_it() {
    let before = builtin("zk-lock")
        .properties([Property::MUTEX])
        .check(Always);
    let after = builtin("zk-lock")
        .check(Always)
        .properties([Property::MUTEX]);
    for experiment in [before, after] {
        let report = experiment.run(0);
        let violated = report.violations();
        assert!(
            violated.iter().any(|v| v.property == ALWAYS),
            "{violated:?}"
        );
    }
}

#[test]
fn properties_choose_what_a_run_is_judged_by_and_its_trace_says_so() {
    let dir = traces("properties");
    builtin("redis-lock-del")
        .properties([Property::LIVENESS])
        .traces(&dir)
        .explore(0..30)
        .assert_clean();
    let found = builtin("redis-lock-del")
        .properties([Property::MUTEX])
        .traces(&dir)
        .explore(0..200);
    found.assert_violates(Property::MUTEX);
    let path = found.trace().unwrap();
    let trace = Trace::load(path).unwrap();
    assert_eq!(trace.properties, Some(vec![Property::MUTEX]));
    trace::replay(&trace, path).unwrap().assert_reproduced();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The guide `docs/own-recipes.md` shows the example crate's code as it compiles.
#[test]
fn the_own_recipes_guide_shows_the_example_crates_code_as_it_is() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("docs/own-recipes.md")).unwrap();
    for file in [
        "src/lib.rs",
        "tests/redis_lock.rs",
        "src/semaphore.rs",
        "tests/semaphore.rs",
        "src/zk_lock.rs",
        "tests/zk_lock.rs",
        "src/election.rs",
        "tests/election.rs",
        "src/queue.rs",
        "tests/queue.rs",
        "src/redis_election.rs",
        "tests/redis_election.rs",
        "src/redis_queue.rs",
        "tests/redis_queue.rs",
        "src/tk_lock.rs",
        "tests/tk_lock.rs",
        "src/tk_election.rs",
        "tests/tk_election.rs",
        "src/lease.rs",
        "tests/lease.rs",
    ] {
        let code = std::fs::read_to_string(root.join("examples/user-recipes").join(file)).unwrap();
        // A unit test module at the end of a file is left out of the guide.
        let code = match code.find("\n#[cfg(test)]") {
            Some(at) => format!("{}\n", &code[..at]),
            None => code,
        };
        assert!(
            guide.contains(&format!("```rust\n{code}```")),
            "docs/own-recipes.md does not show examples/user-recipes/{file} as it is"
        );
    }
}

/// README's "Test your own recipe" shows the crate docs' example (which the doc tests run) as
/// a test of the user's own.
#[test]
fn the_readme_example_is_the_crate_docs_example() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let docs: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    let docs = docs.join("\n");
    let example = docs
        .split_once("# Test your own recipe")
        .and_then(|(_, s)| s.split_once("```\n"))
        .and_then(|(_, s)| s.split_once("```"))
        .expect("the crate docs have an example under 'Test your own recipe'")
        .0;
    let body: String = example
        .lines()
        .map(|line| match line {
            "" => "\n".to_string(),
            line => format!("    {line}\n"),
        })
        .collect();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("## Test your own recipe")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a section 'Test your own recipe'");
    assert!(
        section.contains(&format!(
            "```rust\n#[test]\nfn plain_del_breaks_mutual_exclusion() {{\n{body}}}\n```"
        )),
        "README's 'Test your own recipe' does not show the crate docs' example as it is"
    );
}

#[test]
fn fuzzing_shrinks_the_first_failing_case_and_writes_only_its_trace() {
    let dir = traces("fuzz");
    let found = builtin("redis-lock-del").traces(&dir).fuzz();
    let finding = found.assert_violates(Property::MUTEX);
    assert!(finding.spec.plan().faults().len() <= finding.original_faults);
    let written = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        written, 2,
        "one trace and its picture, not one per shrink step"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether this process is the child `run_as_child` started for `test`.
fn is_child(test: &str) -> bool {
    std::env::var_os("LOCKSIM_TEST_CHILD").is_some_and(|t| t == test)
}

/// Runs `test` again in a child process of this test binary, with each of `env` set (or
/// removed, for None), for variables read once per process or that setting here would race
/// the other tests' threads. Returns what it printed: its stdout, then its stderr.
fn run_as_child(test: &str, env: &[(&str, Option<&str>)]) -> String {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args([test, "--nocapture"])
        .env("LOCKSIM_TEST_CHILD", test);
    for (key, value) in env {
        match value {
            Some(value) => child.env(key, value),
            None => child.env_remove(key),
        };
    }
    let out = child.output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `PROPTEST_CASES` is read once per process: a child runs with it set.
#[test]
fn proptest_cases_says_how_many_cases_fuzzing_runs() {
    const TEST: &str = "proptest_cases_says_how_many_cases_fuzzing_runs";
    if is_child(TEST) {
        let found = builtin("redis-lock")
            .set("faults=none")
            .traces(traces("fuzz-child"))
            .fuzz();
        found.assert_clean();
        println!("fuzz ran {} cases", found.seeds_run());
        return;
    }
    for cases in [3, 7] {
        let printed = run_as_child(TEST, &[("PROPTEST_CASES", Some(&cases.to_string()))]);
        assert!(
            printed.contains(&format!("fuzz ran {cases} cases")),
            "{printed}"
        );
    }
}

/// A pinned range replaces the campaign, so a user's guided test runs just the seeds they
/// pinned (a child runs with `LOCKSIM_SEEDS` set, and one with neither variable).
#[test]
fn pinned_seeds_replace_a_guided_campaign() {
    const TEST: &str = "pinned_seeds_replace_a_guided_campaign";
    if is_child(TEST) {
        let found = builtin("redis-lock")
            .set("faults=none")
            .traces(traces("pin-child"))
            .explore_guided(40);
        found.assert_clean();
        println!("guided ran {} runs", found.seeds_run());
        return;
    }
    for (pin, runs) in [(None, 40), (Some("3..7"), 4)] {
        let env = [("LOCKSIM_SEED", None), ("LOCKSIM_SEEDS", pin)];
        let printed = run_as_child(TEST, &env);
        assert!(
            printed.contains(&format!("guided ran {runs} runs")),
            "{pin:?}: {printed}"
        );
    }
}

/// A barrier that lets everyone through at once, and a double barrier that never waits.
struct Open;

impl Barrier for Open {
    async fn enter(&mut self, _round: u32) -> Result<(), RecipeError> {
        Ok(())
    }
}

impl DoubleBarrier for Open {
    async fn enter(&mut self, _round: u32) -> Result<(), RecipeError> {
        Ok(())
    }
    async fn leave(&mut self, _round: u32) -> Result<(), RecipeError> {
        Ok(())
    }
}

#[test]
fn a_users_barriers_are_judged_by_the_barrier_checker() {
    let dir = traces("open-barriers");
    Scenario::zookeeper()
        .barrier_workload(|_, _| async { Ok(Open) })
        .traces(&dir)
        .explore(0..5)
        .assert_violates(Property::BARRIER);
    Scenario::zookeeper()
        .double_barrier_workload(|_, _| async { Ok(Open) })
        .traces(&dir)
        .explore(0..5)
        .assert_violates(Property::BARRIER);
    // locksim's own, given as a user's, holds.
    Scenario::zookeeper()
        .barrier_workload(|node, client| async move {
            let coordinator = node.name == "c1";
            let made = ZkBarrier::new(client, &node, barrier::Flavor::Recipe, coordinator, 4, 2);
            Ok(made.await?)
        })
        .set("clients=4")
        .set("rounds=2")
        .explore(0..100)
        .assert_clean();
    Scenario::zookeeper()
        .double_barrier_workload(|node, client| async move {
            let flavor = double_barrier::Flavor::Recipe;
            Ok(ZkDoubleBarrier::new(client, &node, flavor, 5))
        })
        .explore(0..100)
        .assert_clean();
}

/// What each client of `one_creator_programs` records.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Creation {
    Made { made: bool },
}

/// One client, and only one, made the key.
const ONE_CREATOR: Property = Property::new("one-creator");
struct OneCreator;

impl Checker for OneCreator {
    fn property(&self) -> Property {
        ONE_CREATOR
    }
    fn reads(&self) -> &'static [Reads] {
        &[Reads::User, Reads::Harness]
    }
    fn check(&self, history: &History, _: &CheckConfig) -> Vec<Violation> {
        let makers: Vec<String> = history
            .events
            .iter()
            .filter_map(|e| match &e.op {
                Op::User(event) => match event.read::<Creation>() {
                    Some(Creation::Made { made: true }) => Some(e.node.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        match makers.len() {
            1 => vec![],
            n => vec![Violation {
                property: ONE_CREATOR,
                clients: makers,
                times_ms: vec![history.end_ms()],
                detail: format!("{n} clients made the key"),
            }],
        }
    }
}

/// A plain client program records events of its own for a checker of its own: ZooKeeper's
/// create lets one client make a node, Redis's plain SET lets every client make its key.
#[test]
fn a_client_program_is_judged_by_the_users_checker() {
    Scenario::zookeeper()
        .client_program(|node, client| async move {
            let made = client.create("/k", b"", CreateMode::Persistent).await;
            node.record_event(&Creation::Made { made: made.is_ok() });
        })
        .check(OneCreator)
        .set("faults=none")
        .explore(0..5)
        .assert_clean();
    Scenario::redis(1)
        .client_program(|node| async move {
            let mut conn = locksim::redis::rs::connect(&node, "redis1").await.unwrap();
            let set: Result<(), _> = locksim::redis_rs::cmd("SET")
                .arg("k")
                .arg(&node.name)
                .query_async(&mut conn)
                .await;
            node.record_event(&Creation::Made { made: set.is_ok() });
        })
        .check(OneCreator)
        .set("faults=none")
        .traces(traces("plain-set"))
        .explore(0..5)
        .assert_violates(ONE_CREATOR);
}

/// Digests of `seeds` of `exp`, stepped lazily and eagerly.
fn digests_both_ways(exp: &Experiment, seeds: std::ops::Range<u64>) -> (Vec<String>, Vec<String>) {
    use locksim::world::run::{RunSpec, Stepping, run_stepping};
    let params = exp.params().unwrap();
    let digests = |stepping| {
        seeds
            .clone()
            .map(|seed| {
                let spec = RunSpec::generated(exp.scenario(), params.clone(), seed);
                run_stepping(&spec, stepping).unwrap().digest().to_string()
            })
            .collect::<Vec<_>>()
    };
    (digests(Stepping::Lazy), digests(Stepping::Eager))
}

/// A user's program may wait on tokio's own timers, which the lazy stepper cannot see: its
/// hosts run on every step, and the servers, skipped when idle, answer it as they would if
/// they were not. So do redis-rs's, which keeps a response timeout of its own.
#[test]
fn a_program_on_tokios_own_timers_runs_the_same_lazy_and_eager() {
    use std::time::Duration;
    let zk = Scenario::zookeeper().client_program(|node, client| async move {
        for round in 0..4u64 {
            tokio::time::sleep(Duration::from_millis(3 + round * 7)).await;
            let made = tokio::time::timeout(
                Duration::from_millis(20),
                client.create("/k", b"", CreateMode::Ephemeral),
            )
            .await;
            node.record_event(&Creation::Made {
                made: matches!(made, Ok(Ok(_))),
            });
        }
    });
    let redis = Scenario::redis(1).client_program(|node| async move {
        let Ok(mut conn) = locksim::redis::rs::connect(&node, "redis1").await else {
            return;
        };
        for round in 0..4u64 {
            tokio::time::sleep(Duration::from_millis(5 + round * 11)).await;
            let set: Result<(), _> = locksim::redis_rs::cmd("SET")
                .arg("k")
                .arg(&node.name)
                .arg("PX")
                .arg(30)
                .query_async(&mut conn)
                .await;
            node.record_event(&Creation::Made { made: set.is_ok() });
        }
    });
    for exp in [zk, redis] {
        let (lazy, eager) = digests_both_ways(&exp, 0..30);
        assert_eq!(lazy, eager, "{}", exp.scenario().name);
        let mut distinct = lazy.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() > 20, "{}: seeds differ", exp.scenario().name);
    }
}

/// What client `c1` got back from its stale write, recorded for the test to read.
#[derive(serde::Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum StaleWrite {
    Answered { refused: bool },
}

/// A user's leader writing through the protected store: a lease (`SET NX PX`) with a fencing
/// token from `INCR`, the leader reading the register, then writing at its own step `write`.
/// `c1` leads first and a pause at its `write` outlasts its lease: `c2` leads, reads and
/// writes, and `c1`'s late write is a lost update `resource` finds; with `fencing=true` the
/// store refuses `c1`'s older token, the handle says so, and the run is clean.
#[test]
fn a_users_leader_paused_past_its_lease_is_caught_by_resource_and_stopped_by_fencing() {
    use locksim::history::{HarnessOp, Op};
    use locksim::redis_rs::cmd;
    use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
    use locksim::store::{ProtectedStore, StoreError};
    let leader = |fencing: bool| {
        Scenario::redis(1)
            .client_program(|node| async move {
                let Ok(mut conn) = locksim::redis::rs::connect(&node, "redis1").await else {
                    return;
                };
                let timer = node.timer();
                if node.name == "c2" {
                    timer.sleep(20).await;
                }
                let token = loop {
                    let token: i64 = cmd("INCR")
                        .arg("fence")
                        .query_async(&mut conn)
                        .await
                        .unwrap();
                    let set: Option<String> = cmd("SET")
                        .arg("leader")
                        .arg(&node.name)
                        .arg("NX")
                        .arg("PX")
                        .arg(100)
                        .query_async(&mut conn)
                        .await
                        .unwrap();
                    if set.is_some() {
                        break token;
                    }
                    timer.sleep(10).await;
                };
                let store = ProtectedStore::new(&node);
                let Ok(read) = store.read(Some(token)).await else {
                    return;
                };
                node.step("write").await;
                let refused = store.increment(read).await == Err(StoreError::Refused);
                node.record_event(&StaleWrite::Answered { refused });
            })
            .steps(["write"])
            .clients(2)
            .set("faults=none")
            .set(&format!("fencing={fencing}"))
    };
    let pause = FaultPlan::new(vec![TimedFault {
        at_ms: 0,
        fault: Fault::PauseBefore {
            node: "c1".into(),
            step: "write".into(),
            for_ms: 300,
        },
    }]);
    let refused = |report: &locksim::world::run::RunReport| {
        report.history().events.iter().any(|e| match &e.op {
            Op::User(event) => event.fields.get("refused") == Some(&serde_json::json!(true)),
            _ => false,
        })
    };
    let open = leader(false).run_plan(0, pause.clone());
    let paused = open.history().events.iter().any(|e| {
        matches!(&e.op, Op::Harness(HarnessOp::Paused { node, step, .. })
            if node == "c1" && step == "write")
    });
    assert!(paused, "c1 paused at its write");
    let lost: Vec<_> = open.violations().iter().map(|v| v.property).collect();
    assert_eq!(lost, [Property::RESOURCE], "{:?}", open.violations());
    assert!(!refused(&open));
    let fenced = leader(true).run_plan(0, pause);
    assert!(fenced.violations().is_empty(), "{:?}", fenced.violations());
    assert!(refused(&fenced), "c1's stale token is refused");
    leader(false).explore(0..5).assert_clean();
}

/// `every_property` goes on after the first finding: over seeds where a herd finding comes
/// first and a two-leader run later, it reports both first seeds (those that narrowing
/// `properties` to each finds), the same on one job and two, each in its own trace that
/// replays to its digest; without it the exploration still stops at the herd finding.
#[test]
fn every_property_reports_each_propertys_first_seed_and_its_trace() {
    let dir = traces("every-property");
    let experiment = builtin("zk-election-stale-node").traces(&dir);
    let seeds = 850..880;
    let first_of = |property: Property| {
        let narrowed = experiment.clone().properties([property]).jobs(2);
        narrowed
            .explore(seeds.clone())
            .assert_violates(property)
            .spec
            .seed()
    };
    let (herd, leader) = (first_of(Property::HERD), first_of(Property::LEADER));
    assert!(
        herd < leader,
        "the herd finding comes first: {herd}, {leader}"
    );

    let every = experiment.clone().every_property();
    let on_two = every.clone().jobs(2).explore(seeds.clone());
    let on_one = every.clone().jobs(1).explore(seeds.clone());
    let firsts = |e: &locksim::Explored| -> Vec<(Property, u64)> {
        e.findings().map(|(p, f)| (p, f.spec.seed())).collect()
    };
    assert_eq!(
        firsts(&on_two),
        [(Property::HERD, herd), (Property::LEADER, leader)]
    );
    assert_eq!(
        firsts(&on_one),
        firsts(&on_two),
        "the same on any number of jobs"
    );
    assert_eq!(on_two.violated(), [Property::HERD, Property::LEADER]);
    assert_eq!(
        on_two.finding().unwrap().spec.seed(),
        herd,
        "the lowest is the finding"
    );
    for property in [Property::HERD, Property::LEADER] {
        let finding = on_two.assert_violates(property);
        assert!(trace::violated(&finding.report).contains(&property));
        let trace = on_two.trace_of(property).expect("a trace per property");
        let name = format!("-{}-{}.json", finding.spec.seed(), property.name());
        assert!(
            trace.to_str().unwrap().ends_with(&name),
            "{}",
            trace.display()
        );
        let replay = experiment.replay(trace);
        replay.assert_reproduced();
        assert_eq!(replay.report.digest(), finding.report.digest());
    }
    let report = panic_message(|| on_two.assert_clean());
    assert!(
        report.contains(&format!("herd at seed {herd}, leader at seed {leader}")),
        "{report}"
    );

    let stops = experiment.clone().jobs(2).explore(seeds.clone());
    assert_eq!(stops.violated(), [Property::HERD]);
    assert_eq!(stops.seeds_run(), herd - seeds.start + 1);
    let judged = every.properties([Property::HERD, Property::LEADER]).jobs(2);
    let both = judged.explore(seeds.start..seeds.end + 1000);
    assert_eq!(
        both.seeds_run(),
        leader - seeds.start + 1,
        "it stops once every judged property is found"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
