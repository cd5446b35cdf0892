//! Bad input of every kind: exit status 2, one line on stderr (or one JSON object), nothing
//! written.

use super::support::*;
use serde_json::{Value, json};

/// Bad arguments for every command, each with a piece of the one line it must print.
const BAD_ARGUMENTS: &[(&[&str], &str)] = &[
    (&["frobnicate"], "frobnicate"),
    (&["--colour"], "--colour"),
    (&["list", "zk-lock", "extra"], "extra"),
    (&["list", "zk-nope"], "unknown scenario 'zk-nope'"),
    (&["run"], "SCENARIO"),
    (&["run", "zk-nope"], "unknown scenario 'zk-nope'"),
    (&["run", "zk\nlock"], "unknown scenario 'zk\\nlock'"),
    (&["run", "zk-lock", "--seed", "-1"], "-1"),
    (
        &["run", "zk-lock", "--seed", "18446744073709551616"],
        "18446744073709551616",
    ),
    (&["run", "zk-lock", "--check", "mutex,nope"], "nope"),
    (
        &["run", "zk-lock", "--set", "a\nb=1"],
        "unknown parameter 'a\\nb'",
    ),
    (
        &["run", "zk-lock", "--set", "colour=red"],
        "unknown parameter 'colour'",
    ),
    (
        &["run", "zk-lock", "--set", "clients=abc"],
        "'abc' for clients",
    ),
    (&["run", "zk-lock", "--set", "clients=0"], "clients"),
    (&["run", "zk-lock", "--set", "faults=meteor"], "meteor"),
    (
        &["run", "zk-lock", "--set", "clients"],
        "expected key=value",
    ),
    (
        &[
            "run",
            "zk-lock",
            "--set",
            "clock_jump_max_ms=18446744073709551615",
        ],
        "clock_jump_max_ms",
    ),
    (
        &["run", "zk-lock", "--set", "rounds=4294967296"],
        "for rounds",
    ),
    (
        &["run", "zk-lock", "--set", "latency_min_ms=5"],
        "latency_min_ms=5 must not exceed",
    ),
    (
        &[
            "run",
            "zk-lock",
            "--set",
            "latency_max_ms=5000",
            "--set",
            "faults=none",
        ],
        "latency_max_ms=5000 is too long",
    ),
    (
        &[
            "run",
            "zk-lock",
            "--set",
            "hold_ms=3600000",
            "--set",
            "rounds=10000",
            "--set",
            "clients=32",
        ],
        "lower hold_ms, rounds or clients",
    ),
    (
        &["run", "zk-lock", "--set", "hold_ms=60000"],
        "above the most locksim runs",
    ),
    (
        &["run", "zk-lock", "--set", "run_limit_ms=100"],
        "must exceed fault_phase_ms",
    ),
    (
        &["run", "zk-lock", "--traces", "/dev/null"],
        "/dev/null is not a directory",
    ),
    (
        &["run", "zk-lock", "--traces", "/proc/locksim/traces"],
        "cannot write trace files",
    ),
    (&["explore"], "SCENARIO"),
    (
        &["explore", "zk-nope", "--seeds", "0..2"],
        "unknown scenario",
    ),
    (&["explore", "zk-lock", "--seeds", "5..2"], "5..2"),
    (&["explore", "zk-lock", "--seeds", "abc"], "abc"),
    (&["explore", "zk-lock", "--seeds", "1-3"], "1-3"),
    (
        &["explore", "zk-lock", "--seeds", "0..18446744073709551616"],
        "18446744073709551616",
    ),
    (&["explore", "zk-lock", "--jobs", "0"], "1..=256"),
    (&["explore", "zk-lock", "--jobs", "4294967296"], "1..=256"),
    (
        &["explore", "zk-lock", "--jobs", "18446744073709551615"],
        "1..=256",
    ),
    (
        &["explore", "zk-lock", "--set", "latency_max_ms=5000"],
        "too long",
    ),
    (
        &["explore", "zk-lock", "--traces", "/dev/null"],
        "/dev/null is not a directory",
    ),
    (
        &["explore", "zk-lock", "--traces", "/proc/x"],
        "cannot write trace files into /proc/x",
    ),
    (
        &["explore", "redlock", "--profile", "gentle"],
        "unknown profile 'gentle' for redlock (known: full, own-assumptions)",
    ),
    (
        &["run", "zk-rwlock", "--profile", "full"],
        "unknown profile 'full': zk-rwlock has no profiles",
    ),
    (
        &["bench", "--scenario", "redlock", "--set", "ttl_ms=0"],
        "ttl_ms",
    ),
    (&["replay"], "FILE"),
    (&["replay", "missing.json"], "missing.json"),
    (&["bench", "--runs", "0"], "--runs"),
    (&["bench", "--trials", "0"], "--trials"),
    (&["bench", "--trials", "101"], "--trials"),
    (&["bench", "--runs", "abc"], "abc"),
    (
        &["bench", "--scenario", "zk-nope"],
        "unknown scenario 'zk-nope'",
    ),
    (&["serve"], "zk"),
    (&["serve", "etcd"], "etcd"),
    (&["serve", "redis", "--port", "70000"], "70000"),
    (&["serve", "redis", "--bind", "nowhere"], "nowhere"),
    (
        &["serve", "redis", "--bind", "192.0.2.1"],
        "cannot listen on 192.0.2.1:6379",
    ),
    (&["serve", "redis", "--expiry-clock", "sundial"], "sundial"),
    (&["serve", "zk", "--port", "70000"], "70000"),
    (&["serve", "zk", "--tick-ms", "0"], "--tick-ms"),
    (&["serve", "zk", "--bind", "nowhere"], "nowhere"),
    (
        &[
            "serve",
            "zk",
            "--min-session-timeout-ms",
            "9000",
            "--max-session-timeout-ms",
            "8000",
        ],
        "must not exceed the maximum",
    ),
    (
        &[
            "serve",
            "zk",
            "--tick-ms",
            "600000",
            "--max-session-timeout-ms",
            "1000",
        ],
        "the minimum session timeout (1200000 ms) must not exceed the maximum (1000 ms)",
    ),
    (
        &[
            "serve",
            "zk",
            "--min-session-timeout-ms",
            "18446744073709551615",
        ],
        "is not in 0..=2147483647",
    ),
];

#[test]
fn bad_arguments_for_every_command_are_one_line_status_2_and_write_nothing() {
    let s = Scratch::new("bad_arguments");
    s.write("a-file", "not a directory");
    for (args, needle) in BAD_ARGUMENTS {
        let args: Vec<String> = args.iter().map(|a| a.replace("\\n", "\n")).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_bad_input(&s, &args, needle);
    }
    assert_bad_input(
        &s,
        &["explore", "zk-lock", "--traces", "a-file"],
        "a-file is not a directory",
    );
    for dir in ["traces", "locksim-traces"] {
        assert!(!s.0.join(dir).exists(), "bad input must not write {dir}");
    }
}

/// `--every-property` goes on over a whole range of seeds only: a campaign stops at its
/// first finding, and `merge` combines one finding per shard.
#[test]
fn every_property_with_guided_or_shard_is_one_line_and_status_2() {
    let s = Scratch::new("every_property_bad");
    let herd = ["explore", "zk-lock-herd", "--every-property"];
    assert_bad_input(&s, &[&herd[..], &["--guided"]].concat(), "not --guided");
    assert_bad_input(
        &s,
        &[&herd[..], &["--shard", "1/2"]].concat(),
        "--every-property does not go with --shard",
    );
    assert_bad_input(
        &s,
        &[&herd[..], &["--guided", "--shard", "1/2"]].concat(),
        "--every-property",
    );
    assert_bad_input(
        &s,
        &["run", "zk-lock-herd", "--every-property"],
        "--every-property",
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
            "fault #0: 'store' cannot lose the reply to a 'create' (it loses no replies)",
        ),
        (
            "lose-reply-op-unknown",
            fault(
                json!({"at_ms": 10, "fault": "lose_reply", "node": "zk1", "op": "Create", "client": "c1"}),
            ),
            "fault #0: 'zk1' cannot lose the reply to a 'Create' (it can: any, create, delete, set_data, multi, set_acl, sync, exists, get_data, get_children, get_acl, get_ephemerals, get_all_children_number, multi_read, check_watches, remove_watches, add_watch, set_watches, auth, whoami, reconfig, ping, close_session)",
        ),
        (
            "unknown-step",
            fault(
                json!({"at_ms": 10, "fault": "pause_before", "node": "c1", "step": "lunch", "for_ms": 5}),
            ),
            "fault #0: no client program declares a step 'lunch' (declared: write, release, exists)",
        ),
        (
            "failover-without-replica",
            fault(json!({"at_ms": 10, "fault": "failover", "node": "zk1"})),
            "fault #0: 'zk1' is not a server with a replica to fail over to",
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

/// `LOCKSIM_STEPPING` is `lazy` or `eager`; anything else is bad input before any run.
#[test]
fn a_bad_stepping_is_one_line_and_status_2() {
    let s = Scratch::new("bad-stepping");
    let bad = [("LOCKSIM_STEPPING", "sideways")];
    let ran = s.run_env(&bad, &["run", "zk-lock", "--seed", "1"]);
    assert_eq!(ran.status, 2, "{}", ran.stderr);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("LOCKSIM_STEPPING=sideways"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    let ran = s.run_env(&bad, &["--json", "bench", "--runs", "1"]);
    assert_eq!(ran.status, 2, "{}", ran.stderr);
    let v = ran.json();
    assert!(
        v["error"].as_str().unwrap().contains("lazy or eager"),
        "{v}"
    );
}
