//! End-to-end tests of the `locksim` binary: exit statuses, one-line errors, the JSON shapes,
//! and trace files that are written, replayed and never silently overwritten.
//! Every command runs a few seeds at the default small time scale, so each takes well under
//! a second.

use locksim::{params, scenario};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory per test (named by test and process), removed when the test ends.
/// Commands run inside it, so a default `traces/` never lands in the source tree.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("locksim-cli-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write scratch file");
        path
    }

    fn run(&self, args: &[&str]) -> Ran {
        let out = Command::new(env!("CARGO_BIN_EXE_locksim"))
            .args(args)
            .current_dir(&self.0)
            .output()
            .expect("run locksim");
        let ran = Ran {
            status: out.status.code().expect("locksim exited by a signal"),
            stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        };
        assert!(
            !ran.stdout.contains("panicked") && !ran.stderr.contains("panicked"),
            "locksim {args:?} panicked:\n{}",
            ran.stderr
        );
        ran
    }

    /// Runs with `--json` and checks the status.
    fn json(&self, args: &[&str], status: i32) -> Value {
        let ran = self.run(&[&["--json"], args].concat());
        assert_eq!(
            ran.status, status,
            "locksim --json {args:?}: {}",
            ran.stderr
        );
        ran.json()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// stdout must be exactly one JSON object.
    fn json(&self) -> Value {
        assert_eq!(self.stdout.lines().count(), 1, "stdout: {}", self.stdout);
        let value: Value = serde_json::from_str(&self.stdout).expect("stdout is JSON");
        assert!(value.is_object(), "not an object: {value}");
        value
    }
}

/// Bad input: status 2 and one line on stderr mentioning `needle`; with `--json`, one
/// `{"error", "status": 2}` object on stdout instead.
fn assert_bad_input(scratch: &Scratch, args: &[&str], needle: &str) {
    let ran = scratch.run(args);
    assert_eq!(
        ran.status, 2,
        "locksim {args:?}: {}{}",
        ran.stdout, ran.stderr
    );
    assert_eq!(
        ran.stderr.lines().count(),
        1,
        "locksim {args:?} stderr: {}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(needle),
        "locksim {args:?}: stderr {:?} lacks {needle:?}",
        ran.stderr
    );
    let v = scratch.json(args, 2);
    assert_eq!(v["status"], 2, "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains(needle)),
        "locksim --json {args:?}: {v}"
    );
}

/// A hand-written trace: zk-lock-noguid, partial params, no digest, one lost create reply
/// (which orphans c1's node, so nobody gets the lock again).
fn noguid_trace(expect: &[&str]) -> Value {
    json!({
        "format": "locksim-trace/1",
        "scenario": "zk-lock-noguid",
        "seed": 7,
        "params": { "clients": 3 },
        "faults": [{ "at_ms": 300, "fault": "lose_reply", "node": "zk1", "op": "create", "client": "c1" }],
        "expect": { "violations": expect },
    })
}

/// `noguid_trace` with one field replaced (or removed, for `Value::Null`).
fn noguid_with(key: &str, value: Value) -> String {
    let mut trace = noguid_trace(&["liveness"]);
    let map = trace.as_object_mut().expect("trace is an object");
    match value {
        Value::Null => map.remove(key),
        v => map.insert(key.to_string(), v),
    };
    trace.to_string()
}

#[test]
fn bad_arguments_are_one_line_and_status_2() {
    let s = Scratch::new("bad_arguments");
    assert_bad_input(&s, &["run", "zk-nope"], "unknown scenario 'zk-nope'");
    assert_bad_input(
        &s,
        &["explore", "zk-nope", "--seeds", "0..2"],
        "unknown scenario",
    );
    for (set, needle) in [
        ("colour=red", "unknown parameter 'colour'"),
        ("clients=abc", "'abc' for clients"),
        ("clients=0", "clients"),
        ("faults=meteor", "meteor"),
        ("clients", "expected key=value"),
        (
            "clock_jump_max_ms=18446744073709551615",
            "clock_jump_max_ms",
        ),
    ] {
        assert_bad_input(&s, &["run", "zk-lock", "--set", set], needle);
        assert_bad_input(
            &s,
            &["explore", "zk-lock", "--seeds", "0..2", "--set", set],
            needle,
        );
    }
    for seeds in ["5..2", "abc", "1-3"] {
        assert_bad_input(&s, &["explore", "zk-lock", "--seeds", seeds], seeds);
    }
    assert_bad_input(&s, &["run", "zk-lock", "--check", "mutex,nope"], "nope");
    assert_bad_input(&s, &["run"], "SCENARIO");
    assert_bad_input(&s, &["frobnicate"], "frobnicate");
    assert!(
        !s.0.join("traces").exists(),
        "bad input must not write traces"
    );
}

#[test]
fn bad_trace_files_are_one_line_and_status_2() {
    let s = Scratch::new("bad_traces");
    let fault = |f: Value| noguid_with("faults", json!([f]));
    let cases = [
        (
            "not-json",
            "this is not json".to_string(),
            "not a trace file",
        ),
        ("no-seed", noguid_with("seed", Value::Null), "seed"),
        (
            "format",
            noguid_with("format", json!("locksim-trace/99")),
            "unsupported format 'locksim-trace/99'",
        ),
        (
            "future-format",
            noguid_with("format", json!("locksim-trace/99")).replacen('{', r#"{"regions":2,"#, 1),
            "unsupported format 'locksim-trace/99'",
        ),
        (
            "scenario",
            noguid_with("scenario", json!("zk-nope")),
            "unknown scenario 'zk-nope'",
        ),
        (
            "fault-name",
            fault(json!({"at_ms": 10, "fault": "meteor", "node": "zk1"})),
            "meteor",
        ),
        (
            "server",
            fault(json!({"at_ms": 10, "fault": "crash", "node": "zk9"})),
            "unknown node 'zk9'",
        ),
        (
            "client",
            fault(json!({"at_ms": 10, "fault": "pause", "node": "c99", "for_ms": 5})),
            "unknown node 'c99'",
        ),
        (
            "crash-client",
            fault(json!({"at_ms": 10, "fault": "crash", "node": "c1"})),
            "not a server",
        ),
        (
            "lose-reply-at-store",
            fault(
                json!({"at_ms": 10, "fault": "lose_reply", "node": "store", "op": "create", "client": "c1"}),
            ),
            "not a ZooKeeper server",
        ),
        (
            "late",
            fault(json!({"at_ms": 5000, "fault": "pause", "node": "c1", "for_ms": 5})),
            "fault phase",
        ),
        (
            "params",
            noguid_with("params", json!({"clients": 3, "colour": "red"})),
            "colour",
        ),
        (
            "top-level",
            noguid_with("colour", json!("red")),
            "unknown field `colour`",
        ),
    ];
    for (name, text, needle) in cases {
        let path = s.write(&format!("{name}.json"), &text);
        assert_bad_input(&s, &["replay", path.to_str().unwrap()], needle);
    }
    assert_bad_input(&s, &["replay", "missing.json"], "missing.json");
}

#[test]
fn list_names_every_scenario_and_parameter() {
    let s = Scratch::new("list");
    let ran = s.run(&["list"]);
    assert_eq!(ran.status, 0);
    for sc in scenario::SCENARIOS {
        assert!(ran.stdout.contains(sc.name), "list lacks {}", sc.name);
    }
    for (param, _) in params::DOCS {
        assert!(ran.stdout.contains(param), "list lacks {param}");
    }

    let v = s.json(&["list"], 0);
    let names: Vec<&str> = v["scenarios"]
        .as_array()
        .expect("scenarios array")
        .iter()
        .map(|sc| sc["name"].as_str().expect("scenario name"))
        .collect();
    let expected: Vec<&str> = scenario::SCENARIOS.iter().map(|sc| sc.name).collect();
    assert_eq!(names, expected);
    let params = v["params"].as_array().expect("params array");
    assert_eq!(params.len(), params::DOCS.len());
    let clients = params
        .iter()
        .find(|p| p["name"] == "clients")
        .expect("clients listed");
    assert_eq!(clients["default"], params::Params::default().clients);
    assert!(params.iter().all(|p| p.get("default").is_some()), "{v}");
}

#[test]
fn clean_run_exits_0_with_its_json() {
    let s = Scratch::new("clean_run");
    let args = ["run", "zk-lock", "--seed", "1", "--set", "faults=none"];
    let ran = s.run(&args);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.contains("no violations"), "{}", ran.stdout);

    let v = s.json(&args, 0);
    assert_eq!(v["scenario"], "zk-lock");
    assert_eq!(v["seeds_run"], 1);
    assert_eq!(v["violations"], json!([]));
    assert!(v["digest"].as_str().is_some_and(|d| !d.is_empty()), "{v}");
    assert!(!s.0.join("traces").exists(), "a clean run writes no trace");
}

#[test]
fn check_determinism_passes_on_a_clean_seed() {
    let s = Scratch::new("determinism");
    let args = ["run", "zk-lock", "--seed", "1", "--check-determinism"];
    let ran = s.run(&args);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    let v = s.json(&args, 0);
    assert_eq!(v["violations"], json!([]));
}

#[test]
fn explore_finds_the_herd_and_its_trace_replays_and_is_never_overwritten() {
    let s = Scratch::new("explore_herd");
    let args = [
        "explore",
        "zk-lock-herd",
        "--seeds",
        "0..50",
        "--traces",
        "found",
    ];
    let v = s.json(&args, 1);
    let violations = v["violations"].as_array().expect("violations array");
    let herd = violations
        .iter()
        .find(|x| x["property"] == "herd")
        .expect("a herd violation");
    assert!(
        herd["seed"].is_u64() && herd["detail"].is_string(),
        "{herd}"
    );
    let trace = herd["trace"].as_str().expect("trace path");
    let trace_path = s.0.join(trace);
    assert!(trace_path.starts_with(s.0.join("found")), "{trace}");
    let recorded = std::fs::read_to_string(&trace_path).expect("trace written");

    let r = s.json(&["replay", trace], 0);
    assert_eq!(r["reproduced"], true, "{r}");
    assert_eq!(r["digest_matches"], true, "{r}");

    // The same finding again: the identical file is reused, not duplicated.
    let again = s.json(&args, 1);
    assert_eq!(again["violations"][0]["trace"], trace);
    assert_eq!(files_in(&s.0.join("found")), 1);

    // A note the user added to the trace of the same run is kept; the file is reused.
    let noted = recorded.replace("\"expect\"", "\"note\": \"mine\",\n  \"expect\"");
    assert_ne!(noted, recorded);
    std::fs::write(&trace_path, &noted).unwrap();
    let again = s.json(&args, 1);
    assert_eq!(again["violations"][0]["trace"], trace);
    assert_eq!(std::fs::read_to_string(&trace_path).unwrap(), noted);

    // A file of the same name that records another run is kept; the finding goes to a new name.
    let edited = noted.replace("\"clients\": 5", "\"clients\": 4");
    assert_ne!(edited, noted);
    std::fs::write(&trace_path, &edited).unwrap();
    let third = s.json(&args, 1);
    let new_trace = third["violations"][0]["trace"].as_str().expect("trace");
    assert_ne!(new_trace, trace);
    assert_eq!(std::fs::read_to_string(&trace_path).unwrap(), edited);
    assert_eq!(
        std::fs::read_to_string(s.0.join(new_trace)).unwrap(),
        recorded
    );
    assert_eq!(files_in(&s.0.join("found")), 2);
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).expect("read dir").count()
}

#[test]
fn hand_written_trace_replays_and_a_wrong_expectation_differs() {
    let s = Scratch::new("hand_written");
    let good = s.write("good.json", &noguid_trace(&["liveness"]).to_string());
    let ran = s.run(&["replay", good.to_str().unwrap()]);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    let v = s.json(&["replay", good.to_str().unwrap()], 0);
    assert_eq!(v["reproduced"], true, "{v}");
    assert_eq!(v["digest_matches"], Value::Null, "the file has no digest");

    let wrong = s.write("wrong.json", &noguid_trace(&[]).to_string());
    let ran = s.run(&["replay", wrong.to_str().unwrap()]);
    assert_eq!(ran.status, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.contains("verdict") && ran.stdout.contains("DIFFERS"));
    let v = s.json(&["replay", wrong.to_str().unwrap()], 1);
    assert_eq!(
        (&v["verdict_matches"], &v["reproduced"]),
        (&json!(false), &json!(false))
    );
}

#[test]
fn tampered_digest_differs() {
    let s = Scratch::new("tampered");
    let mut trace = noguid_trace(&["liveness"]);
    trace["digest"] = json!("0123456789abcdef");
    let path = s.write("tampered.json", &trace.to_string());
    let ran = s.run(&["replay", path.to_str().unwrap()]);
    assert_eq!(ran.status, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("digest") && ran.stdout.contains("DIFFERS from 0123456789abcdef"),
        "{}",
        ran.stdout
    );
    let v = s.json(&["replay", path.to_str().unwrap()], 1);
    assert_eq!(v["verdict_matches"], true, "{v}");
    assert_eq!(v["digest_matches"], false, "{v}");
    assert_eq!(v["reproduced"], false, "{v}");
}

#[test]
fn default_exploration_judges_every_scenario_and_exits_zero_when_all_behave() {
    let s = Scratch::new("default_exploration");
    let v = s.json(&[], 0);
    let findings = v["findings"].as_array().expect("findings");
    for scenario in locksim::scenario::SCENARIOS {
        let row = findings
            .iter()
            .find(|f| f["scenario"] == scenario.name)
            .unwrap_or_else(|| panic!("{} is missing from {v}", scenario.name));
        assert_eq!(row["as_expected"], true, "{row}");
        let found = row["violations"].as_array().expect("violations");
        assert_eq!(found.is_empty(), scenario.flaw.is_empty(), "{row}");
    }
    // The findings' traces went into ./traces of the working directory.
    assert!(s.0.join("traces").join("zk-lock-herd-0.json").exists());
}
