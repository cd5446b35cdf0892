//! Trace files as files: what `replay` refuses to read (malformed JSON, out-of-range faults,
//! devices, FIFOs, oversized files) and what saving a trace does when the name is taken by
//! something else (a directory, a foreign file, a dangling symlink, an edited trace).

use super::support::*;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

fn replay_is_bad_input(s: &Scratch, name: &str, text: &str, needle: &str) {
    let path = s.write(&format!("{name}.json"), text);
    assert_bad_input(s, &["replay", path.to_str().unwrap()], needle);
}

#[test]
fn out_of_range_clock_faults_at_i64_min_are_refused() {
    let s = Scratch::new("trace_i64_min");
    let fault = |f: Value| noguid_with("faults", json!([f]));
    for (name, f, needle) in [
        (
            "drift",
            json!({"at_ms": 10, "fault": "clock_drift", "node": "zk1", "ppm": i64::MIN}),
            "ppm must be within",
        ),
        (
            "jump",
            json!({"at_ms": 10, "fault": "clock_jump", "node": "zk1", "by_ms": i64::MIN}),
            "by_ms must be within",
        ),
    ] {
        replay_is_bad_input(&s, name, &fault(f), needle);
    }
}

#[test]
fn a_trace_of_a_users_scenario_points_at_the_users_test_binary() {
    let s = Scratch::new("trace_user_scenario");
    let text = noguid_with("scenario", json!("my-own-lock"));
    let path = s.write("mine.json", &text);
    let args = ["replay", path.to_str().unwrap()];
    assert_bad_input(
        &s,
        &args,
        "unknown scenario 'my-own-lock' (known: zk-lock, ",
    );
    let hint = format!(
        "a trace of a scenario of your own replays through your test binary: \
         LOCKSIM_REPLAY={} cargo test --release",
        path.display()
    );
    assert_bad_input(&s, &args, &hint);
}

#[test]
fn malformed_trace_files_name_the_field() {
    let s = Scratch::new("trace_malformed");
    let fault = |f: Value| noguid_with("faults", json!([f]));
    let good = noguid_trace(&["liveness"]).to_string();
    let cases = [
        (
            "tag-index",
            fault(json!({"at_ms": 10, "fault": 0, "a": "c1", "b": "zk1"})),
            "faults[0].fault: expected a fault name (partition, partition_oneway, ",
        ),
        (
            "repair-all-extra",
            fault(json!({"at_ms": 10, "fault": "repair_all", "node": "zk1"})),
            "faults[0]: unknown field `node`",
        ),
        (
            "ppm-string",
            fault(json!({"at_ms": 10, "fault": "clock_drift", "node": "zk1", "ppm": "x"})),
            "faults[0].ppm: expected an integer, got \"x\"",
        ),
        (
            "missing-for-ms",
            fault(json!({"at_ms": 10, "fault": "pause", "node": "c1"})),
            "faults[0]: missing field `for_ms`",
        ),
        (
            "op",
            fault(
                json!({"at_ms": 10, "fault": "lose_reply", "node": "zk1", "op": 1, "client": "c1"}),
            ),
            "faults[0].op: expected a string, got 1",
        ),
        (
            "faults-object",
            noguid_with("faults", json!({"at_ms": 10})),
            "faults: expected an array",
        ),
        (
            "params-array",
            noguid_with("params", json!([2])),
            "params: expected an object, got [2]",
        ),
        (
            "params-null",
            noguid_with("params", json!(null)).replacen('{', r#"{"params":null,"#, 1),
            "params: expected an object, got null",
        ),
        (
            "seed-negative",
            noguid_with("seed", json!(-1)),
            "seed: expected a non-negative integer, got -1",
        ),
        (
            "violation-index",
            noguid_with("expect", json!({"violations": [0]})),
            "expect.violations[0]: expected a property name (mutex, rw-exclusion, resource, herd, liveness, fifo, leader, queue, barrier, read-your-writes, or the scenario's own: lowercase letters, digits and '-'), got 0",
        ),
        (
            "expect-extra",
            noguid_with("expect", json!({"violations": [], "digest": "x"})),
            "expect: unknown field `digest`",
        ),
        (
            "properties-string",
            noguid_with("properties", json!("mutex")),
            "properties: expected an array, got \"mutex\"",
        ),
        (
            "array",
            format!("[{good}]"),
            "expected a JSON object, got [",
        ),
        (
            "duplicate-top",
            good.replacen('{', r#"{"seed":8,"#, 1),
            "duplicate field `seed`",
        ),
        (
            "duplicate-fault-field",
            good.replacen(r#""node":"zk1""#, r#""node":"zk1","node":"zk2""#, 1),
            "faults[0]: duplicate field `node`",
        ),
        (
            "duplicate-param",
            good.replacen(r#""clients":3"#, r#""clients":3,"clients":4"#, 1),
            "params: duplicate field `clients`",
        ),
        (
            "format-before-fields",
            future_format_with_bad_fields(),
            "unsupported format 'locksim-trace/2'",
        ),
    ];
    for (name, text, needle) in cases {
        replay_is_bad_input(&s, name, &text, needle);
    }
}

/// A trace of another format whose fields this version would also reject.
fn future_format_with_bad_fields() -> String {
    let mut trace = noguid_trace(&["liveness"]);
    trace["format"] = json!("locksim-trace/2");
    trace["seed"] = json!("x");
    trace["faults"][0]["fault"] = json!(0);
    trace.to_string()
}

#[test]
fn replay_reads_only_regular_files_of_bounded_size() {
    let s = Scratch::new("trace_files_only");
    for device in ["/dev/zero", "/dev/urandom"] {
        assert_bad_input(&s, &["replay", device], "not a regular file");
    }
    std::fs::create_dir(s.0.join("dir.json")).unwrap();
    assert_bad_input(&s, &["replay", "dir.json"], "not a regular file");

    let mut big = noguid_trace(&["liveness"]).to_string();
    big.push_str(&" ".repeat(1 << 20));
    s.write("big.json", &big);
    assert_bad_input(&s, &["replay", "big.json"], "larger than 1 MiB");

    std::fs::write(s.0.join("latin1.json"), b"{\"note\": \"caf\xe9\"}").unwrap();
    assert_bad_input(&s, &["replay", "latin1.json"], "not UTF-8");

    // A symlink to a regular trace file is fine.
    s.write("good.json", &noguid_trace(&["liveness"]).to_string());
    std::os::unix::fs::symlink("good.json", s.0.join("link.json")).unwrap();
    assert_eq!(s.json(&["replay", "link.json"], 0)["reproduced"], true);
}

#[test]
fn replay_of_a_fifo_is_refused_without_blocking() {
    let s = Scratch::new("trace_fifo");
    let fifo = s.0.join("fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    // Should locksim open the FIFO, it blocks until a writer comes: play that writer (a
    // read-write open never blocks) every few seconds, so a regression fails, not hangs.
    let (done, finished) = mpsc::channel::<()>();
    let fifo = &fifo;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                finished.recv_timeout(Duration::from_secs(5))
            {
                let _ = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(fifo);
            }
        });
        assert_bad_input(&s, &["replay", "fifo.json"], "not a regular file");
        drop(done);
    });
}

/// `run zk-lock-herd --seed 0` always violates herd, so it always writes its trace.
const HERD_RUN: [&str; 6] = ["run", "zk-lock-herd", "--seed", "0", "--traces", "found"];

/// Runs HERD_RUN and returns the trace path it printed, checked to lie inside `found/`.
fn herd_trace(s: &Scratch) -> String {
    let v = s.json(&HERD_RUN, 1);
    let trace = v["trace"].as_str().expect("a trace path").to_string();
    assert!(trace.starts_with("found/"), "{trace}");
    trace
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("dir entry").file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_directory_at_the_trace_name_is_kept_and_the_trace_goes_next_to_it() {
    let s = Scratch::new("trace_name_dir");
    std::fs::create_dir_all(s.0.join("found/zk-lock-herd-0.json")).unwrap();
    assert_eq!(herd_trace(&s), "found/zk-lock-herd-0-2.json");
    assert!(s.0.join("found/zk-lock-herd-0.json").is_dir());
    let r = s.json(&["replay", "found/zk-lock-herd-0-2.json"], 0);
    assert_eq!(r["reproduced"], true, "{r}");
}

#[test]
fn a_non_utf8_file_at_the_trace_name_is_kept_and_the_trace_goes_next_to_it() {
    let s = Scratch::new("trace_name_latin1");
    std::fs::create_dir(s.0.join("found")).unwrap();
    std::fs::write(s.0.join("found/zk-lock-herd-0.json"), b"caf\xe9").unwrap();
    assert_eq!(herd_trace(&s), "found/zk-lock-herd-0-2.json");
    assert_eq!(
        std::fs::read(s.0.join("found/zk-lock-herd-0.json")).unwrap(),
        b"caf\xe9"
    );
}

#[test]
fn a_dangling_symlink_at_the_trace_name_is_never_followed() {
    let s = Scratch::new("trace_dangling");
    std::fs::create_dir(s.0.join("found")).unwrap();
    let link = s.0.join("found/zk-lock-herd-0.json");
    std::os::unix::fs::symlink("../outside.json", &link).unwrap();
    assert_eq!(herd_trace(&s), "found/zk-lock-herd-0-2.json");
    assert!(!s.0.join("outside.json").exists(), "followed the symlink");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../outside.json")
    );
    assert_eq!(entries(&s.0), ["found"]);
    assert_eq!(
        entries(&s.0.join("found")),
        [
            "zk-lock-herd-0-2.html",
            "zk-lock-herd-0-2.json",
            "zk-lock-herd-0.json"
        ]
    );
}

#[test]
fn a_trace_whose_expectation_was_edited_is_not_reused() {
    let s = Scratch::new("trace_edited_expect");
    let first = herd_trace(&s);
    let path = s.0.join(&first);
    let recorded = std::fs::read_to_string(&path).unwrap();
    let edited = recorded.replace("\"herd\"", "\"mutex\"");
    assert_ne!(edited, recorded);
    std::fs::write(&path, &edited).unwrap();

    let second = herd_trace(&s);
    assert_ne!(second, first);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    assert_eq!(
        std::fs::read_to_string(s.0.join(&second)).unwrap(),
        recorded
    );
    // The replay command printed for the new name reproduces the run.
    let r = s.json(&["replay", &second], 0);
    assert_eq!(r["reproduced"], true, "{r}");
}
