//! Bad input of every kind: exit status 2, one line on stderr (or one JSON object), nothing
//! written.

use crate::support::*;
use serde_json::{Value, json};

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
