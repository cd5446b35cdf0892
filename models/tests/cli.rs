//! The command line: a check prints its verdicts and exits 0 when every property holds, 1
//! when one does not (a CI gate); bad input is one line on stderr, exit 2.

use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_locksim-models"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn check_prints_each_property_and_the_figures() {
    let (code, out, err) = run(&["check", "redis-lock", "--set", "flavor=del"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("release-only-own (always): counterexample in 4 steps"),
        "{out}"
    );
    assert!(out.contains("unique states 18252"), "{out}");
    let (code, out, _) = run(&["check", "redis-lock", "--json"]);
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["properties"][0]["verdict"], "holds");
    assert_eq!(json["unique_states"], 5768);
}

#[test]
fn the_exit_status_gates_ci_and_json_goes_anywhere() {
    let (code, out, err) = run(&["check", "redis-lock"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("release-only-own (always): holds"), "{out}");
    for args in [
        &["--json", "check", "redis-lock", "--set", "flavor=del"][..],
        &["check", "--json", "redis-lock", "--set", "flavor=del"],
        &["check", "redis-lock", "--set", "flavor=del", "--json"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(json["holds"], false, "{args:?}");
        assert_eq!(json["properties"][0]["verdict"], "counterexample");
    }
    let (code, out, _) = run(&["list", "--json"]);
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["models"][0]["name"], "redis-lock");
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.trim_end(),
        format!("locksim-models {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn list_names_every_model_with_its_parameters() {
    let (code, out, _) = run(&["list"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("redis-lock: "), "{out}");
    for param in ["flavor", "clients", "ttl_ms", "run_limit_ms", "pauses"] {
        assert!(out.contains(&format!("--set {param}=")), "{param}: {out}");
    }
}

#[test]
fn list_says_which_flavors_of_the_simulation_a_model_cannot_express() {
    let (_, out, _) = run(&["list"]);
    for flavor in ["fixed-retry", "simple"] {
        let line = format!("  cannot express {flavor}: ");
        assert_eq!(out.matches(&line).count(), 1, "{flavor}: {out}");
    }
    for flavor in [
        "name-sort",
        "int-sort",
        "release-forgets",
        "session-event",
        "vanished",
        "stale-session",
        "no-sync",
    ] {
        assert!(!out.contains(&format!("cannot express {flavor}")), "{out}");
        assert!(out.contains(flavor), "{flavor}: {out}");
    }
    let (_, out, _) = run(&["list", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let unexpressed = |model: usize| -> Vec<String> {
        let list = json["models"][model]["unexpressed"].as_array().unwrap();
        list.iter()
            .map(|u| {
                assert!(!u["why"].as_str().unwrap().is_empty(), "{u}");
                u["flavor"].as_str().unwrap().to_string()
            })
            .collect()
    };
    assert_eq!(json["models"][2]["name"], "zk-lock");
    assert_eq!(unexpressed(2), ["simple"]);
    assert_eq!(unexpressed(1), ["fixed-retry"]);
    assert!(unexpressed(0).is_empty());
}

#[test]
fn a_flawed_zk_flavor_fails_the_gate_and_name_sort_refuses_symmetry() {
    let (code, out, err) = run(&["check", "zk-lock", "--set", "flavor=session-event"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("live-session-mutex (always): counterexample in 7 steps"),
        "{out}"
    );
    let (code, out, _) = run(&["check", "zk-lock", "--set", "expiries=0"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out, err) = run(&[
        "check",
        "zk-lock",
        "--set",
        "flavor=name-sort",
        "--symmetry",
    ]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        err.contains("--symmetry needs interchangeable clients"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn bad_input_is_one_line_on_stderr_and_exit_2() {
    for args in [
        &["check", "no-such-model"][..],
        &["check", "redis-lock", "--set", "nope=1"],
        &["check", "redis-lock", "--set", "clients"],
        &["check", "redis-lock", "--set", "clients=many"],
        &["check", "redis-lock", "--set", "clients=9"],
        &["check", "redis-lock", "--set", "flavor=nounlock"],
        &["check", "redis-lock", "--set", "ttl_ms=250"],
        &["check", "redis-lock", "--set", "ttl_ms=0"],
        &[
            "check",
            "redis-lock",
            "--set",
            "clients=2",
            "--set",
            "clients=3",
        ],
        &["check"],
        &["frobnicate"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn check_with_symmetry_reports_the_same_verdicts_over_fewer_unique_states() {
    let args = ["check", "zk-lock", "--set", "clients=3"];
    let (code, plain, err) = run(&args);
    assert_eq!(code, Some(1), "mutex breaks: {err}");
    let (code, reduced, err) = run(&[&args[..], &["--symmetry"]].concat());
    assert_eq!(code, Some(1), "mutex breaks: {err}");
    assert!(plain.contains("unique states 18483"), "{plain}");
    assert!(reduced.contains("unique states 3201"), "{reduced}");
    assert!(
        reduced.lines().next().unwrap().contains("(symmetry: "),
        "{reduced}"
    );
    // The same verdicts and the same (real, shortest) counterexample, step for step.
    let verdicts = |out: &str| -> Vec<String> {
        out.lines()
            .skip(1)
            .filter(|l| !l.starts_with("states "))
            .map(String::from)
            .collect()
    };
    assert_eq!(verdicts(&plain), verdicts(&reduced));
    assert!(
        reduced.contains("mutex (always): counterexample in 5 steps"),
        "{reduced}"
    );
    let (code, out, _) = run(&["check", "redis-lock", "--symmetry", "--json"]);
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["symmetry"], true);
    assert_eq!(json["properties"][0]["verdict"], "holds");
}

#[test]
fn locksim_spellings_are_accepted_and_the_old_ones_refused_naming_the_new() {
    let (code, out, err) = run(&["check", "redis-lock", "--set", "ttl_ms=200"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("model redis-lock  flavor=recipe  clients=2  ttl_ms=200  "));
    let (code, out, err) = run(&["check", "zk-lock", "--set", "fencing=true"]);
    assert_eq!(code, Some(1), "accepted; mutex breaks under expiry: {err}");
    assert!(out.contains("fencing=true"), "{out}");
    for (args, new) in [
        (&["redis-lock", "--set", "ttl=3"][..], "now spelled ttl_ms"),
        (
            &["redis-lock", "--set", "time=6"],
            "now spelled run_limit_ms",
        ),
        (
            &["redis-lock", "--set", "flavor=plain-del"],
            "now spelled flavor=del",
        ),
        (
            &["redlock", "--set", "instances=3"],
            "now spelled redis_nodes",
        ),
        (
            &["redlock", "--set", "pause-at=any"],
            "now spelled pause_at",
        ),
        (
            &["redlock", "--set", "persist=true"],
            "now spelled persistence",
        ),
        (
            &["redlock", "--set", "flavor=no-validity"],
            "now spelled flavor=novalidity",
        ),
        (
            &["zk-lock", "--set", "fencing=on"],
            "now spelled fencing=true",
        ),
        (
            &["zk-lock", "--set", "lost-replies=1"],
            "now spelled lost_replies",
        ),
    ] {
        let (code, out, err) = run(&[&["check"][..], args].concat());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(new), "{args:?}: {err}");
    }
    let (_, _, err) = run(&["check", "redis-lock", "--set", "ttl_ms=250"]);
    assert_eq!(
        err.trim_end(),
        "redis-lock: --set ttl_ms=250: expected milliseconds from 100 to 2000 in steps of 100 (the model's tick)"
    );
}
