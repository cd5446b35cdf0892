//! The commands' happy paths and their statuses: list, run, explore, replay, the default
//! exploration; trace files that are written, replayed and never silently overwritten.

use super::support::*;
use locksim::{params, scenario};
use serde_json::{Value, json};
use std::path::Path;

#[test]
fn list_names_every_scenario_and_parameter() {
    let s = Scratch::new("list");
    let ran = s.run(&["list"]);
    assert_eq!(ran.status, 0);
    for sc in scenario::builtins() {
        assert!(
            ran.stdout.contains(sc.name.as_ref()),
            "list lacks {}",
            sc.name
        );
    }
    let every_param: Vec<&str> = params::GROUPS
        .iter()
        .flat_map(|g| g.params)
        .map(|p| p.key)
        .collect();
    for param in &every_param {
        assert!(ran.stdout.contains(param), "list lacks {param}");
    }

    let v = s.json(&["list"], 0);
    let names: Vec<&str> = v["scenarios"]
        .as_array()
        .expect("scenarios array")
        .iter()
        .map(|sc| sc["name"].as_str().expect("scenario name"))
        .collect();
    let expected: Vec<&str> = scenario::builtins()
        .iter()
        .map(|sc| sc.name.as_ref())
        .collect();
    assert_eq!(names, expected);
    let params = v["params"].as_array().expect("params array");
    assert_eq!(params.len(), every_param.len());
    let clients = params
        .iter()
        .find(|p| p["name"] == "clients")
        .expect("clients listed");
    assert_eq!(
        clients["default"],
        params::Params::default().workload.clients
    );
    assert_eq!(clients["group"], "workload");
    assert!(params.iter().all(|p| p.get("default").is_some()), "{v}");
}

#[test]
fn list_of_one_scenario_shows_its_checkers_and_only_its_parameters() {
    let s = Scratch::new("list_one");
    let v = s.json(&["list", "zk-lock-herd"], 0);
    let scenarios = v["scenarios"].as_array().expect("scenarios array");
    assert_eq!(scenarios.len(), 1);
    assert_eq!(scenarios[0]["name"], "zk-lock-herd");
    let herd = scenarios[0]["checkers"]
        .as_array()
        .expect("checkers")
        .iter()
        .find(|c| c["property"] == "herd")
        .expect("herd checked");
    assert_eq!(
        herd["reads"],
        json!(["lock", "queue", "client", "zookeeper"])
    );
    let scenario = scenario::find("zk-lock-herd").unwrap();
    let expected: Vec<&str> = scenario
        .program
        .param_groups()
        .iter()
        .flat_map(|g| g.params)
        .map(|p| p.key)
        .collect();
    let listed: Vec<&str> = v["params"]
        .as_array()
        .expect("params array")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(listed, expected);
    let text = s.run(&["list", "zk-lock-herd"]).stdout;
    assert!(
        text.contains("herd      reads lock, queue, client, zookeeper events"),
        "{text}"
    );
    assert!(!text.contains("zk-lock-simple"), "{text}");
}

/// Targeted faults are explained where they can be drawn: in the full listing and for a
/// scenario with a profile that sets `targeted_max`, not for one without.
#[test]
fn list_documents_targeted_faults_where_profiles_use_them() {
    let s = Scratch::new("list_targeted");
    for args in [&["list"][..], &["list", "zk-lock-vanished"]] {
        let text = s.run(args).stdout;
        for needle in [
            "Targeted faults",
            "\"target\": {\"role\": \"blocked\"}",
            "\"on\": {\"event\": \"step\", \"step\": \"exists\"}",
            "predecessor_of",
            "enqueued, acquired, woken, step",
        ] {
            assert!(text.contains(needle), "{args:?} lacks {needle}: {text}");
        }
        let v = s.json(args, 0);
        assert!(v["targeted_faults"].as_str().is_some(), "{args:?}: {v}");
    }
    assert!(
        !s.run(&["list", "redlock"])
            .stdout
            .contains("Targeted faults")
    );
    assert!(s.json(&["list", "redlock"], 0)["targeted_faults"].is_null());
}

#[test]
fn list_of_a_scenario_shows_its_profiles_and_their_defaults() {
    let s = Scratch::new("list_profiles");
    let v = s.json(&["list", "redlock"], 0);
    let profiles = v["scenarios"][0]["profiles"]
        .as_array()
        .expect("profiles array");
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["full", "own-assumptions"]);
    let pause = v["params"]
        .as_array()
        .expect("params array")
        .iter()
        .find(|p| p["name"] == "pause_max_ms")
        .expect("pause_max_ms listed");
    assert_eq!(pause["default"], 400, "the default profile's value");
    let text = s.run(&["list", "redlock"]).stdout;
    assert!(text.contains("own-assumptions"), "{text}");
    let text = s.run(&["list", "zk-double-barrier"]).stdout;
    assert!(
        text.contains("sets: nothing (the parameters' defaults)"),
        "a profile that sets nothing says so: {text}"
    );
    assert!(
        text.contains("sets: zk_servers=3 follower_lag_ms=50"),
        "{text}"
    );

    let own = s.json(
        &[
            "run",
            "redlock",
            "--seed",
            "1",
            "--profile",
            "own-assumptions",
            "--set",
            "pause_max_ms=7",
        ],
        0,
    );
    assert_eq!(own["params"]["persistence"], "aof-always", "{own}");
    assert_eq!(
        own["params"]["pause_max_ms"], 7,
        "--set applies on top: {own}"
    );
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
    assert_eq!(files_in(&s.0.join("found")), 2, "the trace and its picture");

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
    assert_eq!(
        files_in(&s.0.join("found")),
        4,
        "two traces, each with its picture"
    );
}

pub fn files_in(dir: &Path) -> usize {
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
    for scenario in locksim::scenario::builtins() {
        let row = findings
            .iter()
            .find(|f| f["scenario"] == *scenario.name)
            .unwrap_or_else(|| panic!("{} is missing from {v}", scenario.name));
        assert_eq!(row["as_expected"], true, "{row}");
        let found = row["violations"].as_array().expect("violations");
        assert_eq!(found.is_empty(), scenario.flaw.is_empty(), "{row}");
        // Correct recipes over seeds, flawed variants by a guided campaign (Z17 over seeds:
        // campaign 0 does not find it within the budget).
        let guided = !scenario.flaw.is_empty() && scenario.name != "zk-double-barrier-rejoin";
        assert_eq!(row["guided"].is_object(), guided, "{row}");
        assert_eq!(row["seeds"].is_string(), !guided, "{row}");
        assert!(row["runs"].as_u64().is_some_and(|r| r >= 1), "{row}");
        // The findings' traces went into ./traces of the working directory.
        if let Some(trace) = row["trace"].as_str() {
            assert!(trace.starts_with("traces/"), "{row}");
            assert!(s.0.join(trace).exists(), "{row}");
        }
        assert_eq!(row["trace"].is_string(), !scenario.flaw.is_empty(), "{row}");
    }
}

#[test]
fn overrides_are_judged_as_a_combination() {
    // Each alone is outside latency_min_ms <= latency_max_ms against the defaults (1..3).
    let s = Scratch::new("combination");
    let args = [
        "run",
        "zk-lock",
        "--seed",
        "1",
        "--set",
        "faults=none",
        "--set",
        "latency_min_ms=5",
        "--set",
        "latency_max_ms=10",
    ];
    let v = s.json(&args, 0);
    assert_eq!(
        (
            &v["params"]["latency_min_ms"],
            &v["params"]["latency_max_ms"]
        ),
        (&json!(5), &json!(10))
    );
}

#[test]
fn seeds_up_to_the_largest_give_the_same_answer_with_any_jobs() {
    let s = Scratch::new("top_seeds");
    let top = format!("{}..{}", u64::MAX - 2, u64::MAX);
    for jobs in ["1", "2"] {
        let args = ["explore", "zk-lock-herd", "--seeds", &top, "--jobs", jobs];
        let v = s.json(&args, 1);
        assert_eq!(v["seed"], json!(u64::MAX - 2), "--jobs {jobs}: {v}");
        assert_eq!(v["seeds_run"], 1, "--jobs {jobs}: {v}");
        let clean = ["explore", "zk-lock", "--seeds", &top, "--jobs", jobs];
        let v = s.json(&clean, 0);
        assert_eq!(v["seeds_run"], 2, "--jobs {jobs}: {v}");
    }
    assert!(
        !s.0.join("traces").exists(),
        "ad-hoc traces stay out of traces/"
    );
    let mut traces: Vec<_> = std::fs::read_dir(s.0.join("locksim-traces"))
        .expect("traces written")
        .map(|e| e.expect("entry").file_name().into_string().unwrap())
        .collect();
    traces.sort();
    let name = format!("zk-lock-herd-{}", u64::MAX - 2);
    assert_eq!(traces, [format!("{name}.html"), format!("{name}.json")]);
}

#[test]
fn replay_timeline_tells_the_pause_and_the_overlap_by_true_time() {
    let s = Scratch::new("timeline");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/zk-lock-8.json");
    let ran = s.run(&["replay", trace.to_str().unwrap(), "--timeline"]);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{}", ran.stdout))
    };
    let acquired = at("c4       acquires /locksim/lock (token");
    let paused = at("harness  fault: pause c4 for 324 ms");
    // The expiry names the client whose session it was, and the lock node it took along.
    let expired = at(
        "zk1      c4's session 0x100000000000003 expired; its ephemeral \
                      /locksim/lock/_c_5ab0d8f3f088b3a6-lock-0000000008 deleted",
    );
    let overlap =
        at("!!       VIOLATION mutex: c4 and c1 both held /locksim/lock during 383..400 ms");
    assert!(acquired < paused && paused < expired && expired < overlap);

    let fenced = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/zk-lock-8-fenced.json");
    let v = s.json(&["replay", fenced.to_str().unwrap(), "--timeline"], 0);
    let timeline = v["timeline"].as_array().expect("a timeline");
    assert!(
        timeline
            .iter()
            .any(|l| l.as_str().unwrap().contains("fault: pause c4")),
        "{v}"
    );
}

/// Issue 21: the first line of a run names only the parameters that differ from the
/// scenario's defaults (its default profile's included); `--verbose` names them all.
#[test]
fn a_runs_first_line_names_only_the_parameters_set() {
    let s = Scratch::new("first_line");
    let first = |args: &[&str]| {
        let ran = s.run(args);
        ran.stdout.lines().next().unwrap_or_default().to_string()
    };
    let plain = first(&["run", "redlock", "--seed", "3", "--set", "faults=none"]);
    assert_eq!(
        plain,
        "run redlock seed=3 faults=none (the rest at defaults)"
    );
    let defaults = first(&["run", "zk-lock", "--seed", "3"]);
    assert_eq!(
        defaults,
        "run zk-lock seed=3 (default parameters; --verbose lists them)"
    );
    let own = first(&[
        "run",
        "redlock",
        "--seed",
        "3",
        "--profile",
        "own-assumptions",
    ]);
    assert!(
        own.contains(" pause_max_ms=100 ") && !own.contains("latency_min_ms"),
        "{own}"
    );
    let all = first(&[
        "run",
        "redlock",
        "--seed",
        "3",
        "--set",
        "faults=none",
        "-v",
    ]);
    assert!(
        all.contains("latency_min_ms=1 ") && all.contains("faults=none") && all.len() > 200,
        "{all}"
    );
    assert!(!all.contains("(the rest at defaults)"), "{all}");
}

/// Lazy stepping (the default) and eager stepping give the same run; bench counts the host
/// steps each made and skipped.
#[test]
fn eager_stepping_gives_the_same_run_and_bench_counts_the_skipped_steps() {
    let s = Scratch::new("stepping");
    let digest = |stepping| {
        let ran = s.run_env(
            &[("LOCKSIM_STEPPING", stepping)],
            &["--json", "run", "redlock", "--seed", "4"],
        );
        assert_eq!(ran.status, 0, "{}", ran.stderr);
        ran.json()["digest"].as_str().unwrap().to_string()
    };
    assert_eq!(digest("lazy"), digest("eager"));
    let polls = |stepping| {
        let ran = s.run_env(
            &[("LOCKSIM_STEPPING", stepping)],
            &["--json", "bench", "--runs", "2", "--trials", "1"],
        );
        assert_eq!(ran.status, 0, "{}", ran.stderr);
        let bench = ran.json();
        // Two runs of five clients, eight rounds each: the same locks taken either way.
        assert_eq!(bench["acquisitions"], 80, "{bench}");
        assert!(
            bench["per_acquisition_us"].as_f64().unwrap() > 0.0,
            "{bench}"
        );
        bench["polls"].clone()
    };
    let (lazy, eager) = (polls("lazy"), polls("eager"));
    assert_eq!(eager["skipped"], 0, "{eager}");
    assert!(lazy["skipped"].as_u64().unwrap() > 0, "{lazy}");
    assert_eq!(
        lazy["made"].as_u64().unwrap() + lazy["skipped"].as_u64().unwrap(),
        eager["made"].as_u64().unwrap(),
        "{lazy} {eager}"
    );
    assert_eq!(lazy["eager_hosts"], 0, "{lazy}");
    assert_eq!(eager["eager_hosts"], 7, "{eager}: zk1, store, c1..c5");
}

/// `explore --guided` finds, shrinks and writes a trace that `replay` reproduces; its JSON
/// counts runs and coverage, and is the same on one job and two.
#[test]
fn a_guided_exploration_writes_a_trace_that_replays_and_the_same_on_any_jobs() {
    let s = Scratch::new("guided");
    let traces = "t";
    let args = |jobs| {
        [
            "explore",
            "zk-lock-stale-session",
            "--guided",
            "--runs",
            "200",
            "--campaign",
            "5",
            "--jobs",
            jobs,
            "--traces",
            traces,
        ]
    };
    let one = s.json(&args("1"), 1);
    let two = s.json(&args("2"), 1);
    for key in [
        "runs",
        "seed",
        "corpus_digest",
        "transitions",
        "faults",
        "coverage",
        "fresh",
        "mutations",
    ] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert!(one["runs"].as_u64().unwrap() >= 1);
    // The run that found is counted as found by its source, a fresh plan or its mutations.
    let found = |t: &Value| t["found"].as_u64().unwrap();
    let by_mutants: u64 = one["mutations"].as_array().unwrap().iter().map(found).sum();
    assert!(found(&one["fresh"]) + by_mutants >= 1, "{one}");
    // Its flaws: a node adopted from an abandoned session breaks mutex, and wakes a herd.
    let property = one["violations"][0]["property"].as_str().unwrap();
    assert!(["mutex", "herd"].contains(&property), "{property}");
    let trace = one["violations"][0]["trace"].as_str().unwrap();
    let replayed = s.json(&["replay", trace], 0);
    assert_eq!(replayed["digest_matches"], json!(true), "{replayed}");
}

/// `compare` counts, for each side, the runs to the first finding, as `explore` and
/// `explore --guided` do.
#[test]
fn compare_counts_runs_to_a_finding_on_both_sides() {
    let s = Scratch::new("compare");
    let compare = |more: &[&str]| {
        let args = ["compare", "redis-lock", "--samples", "2"];
        s.json(&[&args[..], &["--runs", "30"], more].concat(), 0)
    };
    let v = compare(&[]);
    let row = &v["scenarios"][0];
    assert_eq!(row["scenario"], "redis-lock");
    let explored = s.json(&["explore", "redis-lock", "--seeds", "30..60"], 1);
    assert_eq!(
        row["random"]["found_at"][1],
        json!(explored["seeds_run"]),
        "{row}"
    );
    let guided = s.json(
        &[
            "explore",
            "redis-lock",
            "--guided",
            "--runs",
            "30",
            "--campaign",
            "1",
        ],
        1,
    );
    assert_eq!(row["guided"]["found_at"][1], guided["runs"], "{row}");
    // With --rate both sides go on to the end of every sample and count what they found,
    // from the same first findings.
    let rated = compare(&["--rate", "--svg", "compare.svg"]);
    let svg = std::fs::read_to_string(s.0.join("compare.svg")).expect("--svg writes it");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("redis-lock"), "{svg}");
    assert_eq!(svg.matches("<polyline").count(), 2, "a curve a side: {svg}");
    let rated = &rated["scenarios"][0];
    for side in ["random", "guided"] {
        assert_eq!(rated[side]["found_at"], row[side]["found_at"], "{rated}");
        let failed: u64 = rated[side]["failed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_u64().unwrap())
            .sum();
        assert!(failed >= 2, "{rated}");
        let per_1000 = rated[side]["per_1000_runs"].as_f64().unwrap();
        assert!(
            (per_1000 - failed as f64 * 1000.0 / 60.0).abs() < 1e-9,
            "{rated}"
        );
    }
    assert!(row["random"].get("failed").is_none(), "{row}");
    // The guided side says where its findings came from: fresh plans first, then each
    // mutation; every finding counted against at least one of them.
    let sources = rated["guided"]["sources"].as_array().unwrap();
    assert_eq!(sources[0]["source"], "fresh", "{rated}");
    let found: u64 = sources.iter().map(|t| t["found"].as_u64().unwrap()).sum();
    let failed: u64 = rated["guided"]["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_u64().unwrap())
        .sum();
    assert!(found >= failed, "{rated}");
    assert!(rated["random"].get("sources").is_none(), "{rated}");
    assert_bad_input(&s, &["compare", "nope"], "unknown scenario 'nope'");
    assert_bad_input(&s, &["compare", "zk-lock", "--samples", "0"], "--samples");
    assert_bad_input(
        &s,
        &["compare", "zk-lock", "--svg", "nowhere/compare.svg"],
        "nowhere is not a directory",
    );
}

/// `explore --every-property` over seeds where a herd finding comes before a two-leader one
/// lists both first seeds in `by_property`, each with its own trace that `replay` reproduces
/// to its digest; the top-level finding stays the lowest seed's, and the same first seeds
/// come on one job as on two.
#[test]
fn explore_every_property_lists_each_propertys_first_seed_and_trace() {
    let s = Scratch::new("every_property");
    let args = |jobs: &'static str| {
        [
            "explore",
            "zk-election-stale-node",
            "--seeds",
            "850..880",
            "--every-property",
            "--jobs",
            jobs,
        ]
    };
    let v = s.json(&args("2"), 1);
    let firsts: Vec<(String, u64, String)> = v["by_property"]
        .as_array()
        .expect("by_property array")
        .iter()
        .map(|f| {
            let trace = f["violations"][0]["trace"].as_str().expect("its trace");
            (
                f["property"].to_string(),
                f["seed"].as_u64().unwrap(),
                trace.to_string(),
            )
        })
        .collect();
    let seeds: Vec<(&str, u64)> = firsts.iter().map(|(p, s, _)| (p.as_str(), *s)).collect();
    assert_eq!(seeds, [("\"herd\"", 858), ("\"leader\"", 874)], "{v}");
    assert_eq!(v["seed"], 858, "the lowest is the finding: {v}");
    for (property, seed, trace) in &firsts {
        let name = format!(
            "zk-election-stale-node-{seed}-{}.json",
            property.trim_matches('"')
        );
        assert!(trace.ends_with(&name), "{trace}");
        let r = s.json(&["replay", trace], 0);
        assert_eq!(r["reproduced"], true, "{r}");
        assert_eq!(r["digest_matches"], true, "{r}");
    }
    let on_one = s.json(&args("1"), 1);
    assert_eq!(on_one["by_property"], v["by_property"]);
    let text = s.run(&args("2"));
    assert!(
        text.stdout
            .contains("first violation of each property (after 30 seeds): herd at seed 858, leader at seed 874"),
        "{}",
        text.stdout
    );
}
