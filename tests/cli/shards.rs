//! `explore --shard I/N` and `merge`: the merged shards give exactly what one `explore` over
//! the whole range gives (the acceptance), and `merge` refuses shards that do not
//! make one exploration.

use super::support::{Scratch, assert_bad_input};
use serde_json::Value;

/// Runs `explore` over `seeds` in one scratch directory, and its 4 shards then `merge` in
/// another (the shards' traces in a directory of their own, so the merge writes its trace
/// itself); both exit alike and print the same JSON, the merge's count of shards aside.
/// Returns the whole run's JSON.
fn merged_equals_whole(test: &str, scenario: &str, seeds: &str) -> Value {
    let whole = Scratch::new(&format!("{test}-whole"));
    let one = whole.run(&["--json", "explore", scenario, "--seeds", seeds]);
    let sharded = Scratch::new(&format!("{test}-shards"));
    let mut files = Vec::new();
    for i in 1..=4 {
        let shard = format!("{i}/4");
        let args = [
            "--json",
            "explore",
            scenario,
            "--seeds",
            seeds,
            "--shard",
            &shard,
            "--traces",
            "shard-traces",
        ];
        let ran = sharded.run(&args);
        assert!(
            ran.status <= 1,
            "shard {shard}: {}{}",
            ran.stdout,
            ran.stderr
        );
        let report = ran.json();
        assert_eq!(report["shard"]["index"], i, "{report}");
        files.push(sharded.write(&format!("shard-{i}.json"), &ran.stdout));
    }
    let mut args = vec!["--json", "merge"];
    args.extend(files.iter().rev().map(|f| f.to_str().unwrap()));
    let merged = sharded.run(&args);
    assert_eq!(
        merged.status, one.status,
        "{scenario} {seeds}: {}",
        merged.stderr
    );
    let (one, mut merged) = (one.json(), merged.json());
    assert_eq!(
        merged.as_object_mut().unwrap().remove("shards"),
        Some(4.into())
    );
    assert_eq!(merged, one, "{scenario} {seeds}");
    if let Some(trace) = one["violations"][0]["trace"].as_str() {
        let read = |s: &Scratch| std::fs::read_to_string(s.0.join(trace)).unwrap();
        assert_eq!(
            read(&sharded),
            read(&whole),
            "the merge writes the trace one run writes"
        );
    }
    one
}

#[test]
fn redlock_over_0_to_400_merges_to_the_lowest_failing_seed_of_one_run() {
    let one = merged_equals_whole("redlock400", "redlock", "0..400");
    assert_eq!(
        (one["seed"].as_u64(), one["seeds_run"].as_u64()),
        (Some(23), Some(24)),
        "{one}"
    );
    assert_eq!(
        one["trace"]["expect"]["violations"],
        serde_json::json!(["mutex"])
    );
    assert_eq!(
        one["faults"].as_array().map(Vec::len),
        Some(2),
        "shrunk: {one}"
    );
}

#[test]
fn zk_lock_over_0_to_400_merges_clean() {
    let one = merged_equals_whole("zklock400", "zk-lock", "0..400");
    assert_eq!(
        (
            one["seeds_run"].as_u64(),
            one["violations"].as_array().map(Vec::len)
        ),
        (Some(400), Some(0))
    );
}

/// Redlock's lowest failing seed in 0..24 (23) is in the last shard: the counts of the
/// three clean shards before it add up.
#[test]
fn a_finding_in_the_last_shard_counts_every_seed_before_it() {
    let one = merged_equals_whole("last", "redlock", "0..24");
    assert_eq!(
        (one["seed"].as_u64(), one["seeds_run"].as_u64()),
        (Some(23), Some(24))
    );
}

/// zk-rwlock sees readers share the lock in every seed: the merged count is over all.
#[test]
fn witnesses_add_up_over_the_shards() {
    let one = merged_equals_whole("witnessed", "zk-rwlock", "0..12");
    assert_eq!(one["witnessed"][0]["seeds"], 12, "{one}");
}

#[test]
fn a_shard_report_names_the_exploration_it_is_part_of() {
    let s = Scratch::new("shard_report");
    let v = s.json(
        &[
            "explore",
            "zk-lock",
            "--seeds",
            "0..10",
            "--shard",
            "2/3",
            "--set",
            "clients=3",
        ],
        0,
    );
    assert_eq!(
        v["shard"],
        serde_json::json!({ "index": 2, "count": 3, "seeds": "3..6" })
    );
    assert_eq!(
        (v["seeds"].as_str(), v["seeds_run"].as_u64()),
        (Some("0..10"), Some(3))
    );
    assert_eq!(v["params"]["clients"], 3);
    let every = s.json(&["list"], 0)["params"].as_array().unwrap().len();
    assert_eq!(
        v["params"].as_object().unwrap().len(),
        every,
        "every parameter: {v}"
    );
    assert_eq!(v["locksim_version"], env!("CARGO_PKG_VERSION"));
    let text = s.run(&["explore", "zk-lock", "--seeds", "0..10", "--shard", "2/3"]);
    assert!(
        text.stdout
            .starts_with("explore zk-lock seeds=0..10 shard=2/3 (seeds 3..6) jobs="),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("no violations in 3 seeds"),
        "{}",
        text.stdout
    );
}

#[test]
fn bad_shards_are_refused() {
    let s = Scratch::new("bad_shard");
    for (shard, needle) in [
        ("0/4", "shard 0/4: the index must be within 1..=4"),
        ("5/4", "shard 5/4: the index must be within 1..=4"),
        ("1/0", "the number of shards must be at least 1"),
        ("x", "expected I/N"),
    ] {
        assert_bad_input(
            &s,
            &["explore", "zk-lock", "--seeds", "0..8", "--shard", shard],
            needle,
        );
    }
    assert_bad_input(
        &s,
        &["explore", "zk-lock", "--seeds", "0..3", "--shard", "1/4"],
        "4 shards over 3 seeds",
    );
}

#[test]
fn merge_refuses_shards_that_do_not_make_one_exploration() {
    let s = Scratch::new("merge_refuses");
    let shard = |name: &str, seeds: &str, shard: &str, set: &str| {
        let ran = s.run(&[
            "--json", "explore", "zk-lock", "--seeds", seeds, "--shard", shard, "--set", set,
        ]);
        assert_eq!(ran.status, 0, "{}", ran.stderr);
        s.write(name, &ran.stdout);
    };
    shard("a1.json", "0..4", "1/2", "faults=none");
    shard("a2.json", "0..4", "2/2", "faults=none");
    shard("b2.json", "0..6", "2/2", "faults=none");
    shard("c2.json", "0..4", "2/2", "clients=3");
    shard("d3.json", "0..4", "3/3", "faults=none");
    s.write("junk.json", "{\"scenario\": \"zk-lock\"}");
    s.write("broken.json", "{");
    let merge = |files: &[&str], needle: &str| {
        assert_bad_input(&s, &[&["merge"], files].concat(), needle);
    };
    merge(&["a1.json"], "missing shard 2/2 (seeds 2..4)");
    merge(
        &["a1.json", "a2.json", "a1.json"],
        "shard 1/2 given twice: a1.json and a1.json",
    );
    merge(
        &["a1.json", "b2.json"],
        "a1.json and b2.json are shards of different explorations: seeds (0..4 vs 0..6)",
    );
    merge(
        &["a1.json", "c2.json"],
        "different explorations: parameter clients",
    );
    merge(&["a1.json", "d3.json"], "number of shards (2 vs 3)");
    merge(&["a1.json", "nowhere.json"], "nowhere.json: No such file");
    merge(&["a1.json", "junk.json"], "junk.json: not a shard report");
    merge(&["broken.json"], "broken.json: not a shard report");
    let ok = s.run(&["merge", "a2.json", "a1.json"]);
    assert_eq!(ok.status, 0, "{}", ok.stderr);
    assert!(
        ok.stdout.contains("no violations in 4 seeds"),
        "{}",
        ok.stdout
    );
}

/// `explore --guided --shard I/2` of `scenario`'s campaign `campaign` of `runs` runs, each
/// shard's report written to `guided-I.json` in `s`; returns the reports.
fn guided_shards(s: &Scratch, scenario: &str, (campaign, runs): (&str, &str)) -> Vec<Value> {
    (1..=2)
        .map(|i| {
            let shard = format!("{i}/2");
            let args = [
                "--json",
                "explore",
                scenario,
                "--guided",
                "--campaign",
                campaign,
                "--runs",
                runs,
                "--shard",
                &shard,
                "--traces",
                "shard-traces",
            ];
            let ran = s.run(&args);
            assert!(ran.status <= 1, "{shard}: {}{}", ran.stdout, ran.stderr);
            s.write(&format!("guided-{i}.json"), &ran.stdout);
            ran.json()
        })
        .collect()
}

/// Shard 1 of a campaign is the campaign itself cut to its share: here campaign 2 finds its
/// flaw within the first 100 runs, so shard 1/2 finds what the unsharded campaign finds,
/// and so does the merge, which counts the runs of both shards. `--shard 1/1` is the
/// unsharded campaign.
#[test]
fn a_guided_campaign_sharded_two_ways_merges_to_the_finding_of_its_first_shard() {
    let s = Scratch::new("guided_shards");
    let campaign = ["explore", "zk-lock-stale-session", "--guided"];
    let budget = ["--campaign", "2", "--runs", "200", "--traces", "whole"];
    let whole = s.json(&[&campaign[..], &budget].concat(), 1);
    let alone = s.json(&[&campaign[..], &budget, &["--shard", "1/1"]].concat(), 1);
    for key in [
        "runs",
        "seed",
        "faults",
        "corpus_digest",
        "transitions",
        "trace",
    ] {
        assert_eq!(alone[key], whole[key], "{key}");
    }
    assert_eq!(
        alone["shard"],
        serde_json::json!({ "index": 1, "count": 1, "campaign": 2, "runs": 200 })
    );
    let shards = guided_shards(&s, "zk-lock-stale-session", ("2", "200"));
    assert_eq!(shards[0]["seed"], whole["seed"], "{}", shards[0]);
    assert_eq!(shards[0]["shard"]["runs"], 100);
    assert_ne!(shards[1]["shard"]["campaign"], 2, "{}", shards[1]);
    let merged = s.json(&["merge", "guided-2.json", "guided-1.json"], 1);
    for key in ["seed", "faults", "trace", "guided", "params"] {
        assert_eq!(merged[key], whole[key], "{key}");
    }
    let runs = |v: &Value| v["runs"].as_u64().unwrap();
    assert_eq!(runs(&merged), runs(&shards[0]) + runs(&shards[1]));
    assert_eq!(
        (merged["shards"].as_u64(), merged["found_by"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        merged["ensemble"][1]["corpus_digest"],
        shards[1]["corpus_digest"]
    );
    let trace = merged["violations"][0]["trace"].as_str().unwrap();
    assert!(trace.starts_with("locksim-traces/"), "{trace}");
    let read = |p: &str| std::fs::read_to_string(s.0.join(p)).unwrap();
    let whole_trace = whole["violations"][0]["trace"].as_str().unwrap();
    assert_eq!(read(trace), read(whole_trace), "the merge writes its trace");
    assert_bad_input(
        &s,
        &["merge", "guided-1.json"],
        &format!(
            "missing shard 2/2 (campaign {}, 100 runs)",
            shards[1]["shard"]["campaign"]
        ),
    );
}

/// A correct recipe's campaign sharded two ways merges clean over the runs of both; a guided
/// shard does not merge with a range shard, nor with another campaign's.
#[test]
fn a_clean_guided_campaign_merges_clean_and_refuses_other_shards() {
    let s = Scratch::new("guided_clean");
    guided_shards(&s, "zk-lock", ("3", "32"));
    let merged = s.run(&["merge", "guided-1.json", "guided-2.json"]);
    assert_eq!(merged.status, 0, "{}", merged.stderr);
    assert!(
        merged
            .stdout
            .starts_with("merge zk-lock guided campaign=3 runs=32 shards=2 "),
        "{}",
        merged.stdout
    );
    assert!(
        merged.stdout.contains("  shard 2/2: campaign ")
            && merged
                .stdout
                .contains("no violations in 32 runs over 2 shards"),
        "{}",
        merged.stdout
    );
    let range = s.run(&[
        "--json", "explore", "zk-lock", "--seeds", "0..4", "--shard", "2/2",
    ]);
    s.write("range-2.json", &range.stdout);
    assert_bad_input(
        &s,
        &["merge", "guided-1.json", "range-2.json"],
        "guided-1.json and range-2.json are shards of different explorations: \
         a guided shard (campaign 3) and a range shard (seeds 0..4)",
    );
    let other = s.run(&[
        "--json",
        "explore",
        "zk-lock",
        "--guided",
        "--campaign",
        "4",
        "--runs",
        "32",
        "--shard",
        "2/2",
    ]);
    s.write("other-2.json", &other.stdout);
    assert_bad_input(
        &s,
        &["merge", "guided-1.json", "other-2.json"],
        "different explorations: campaign (3 vs 4)",
    );
    assert_bad_input(
        &s,
        &[
            "explore", "zk-lock", "--guided", "--runs", "2", "--shard", "1/3",
        ],
        "--shard 1/3: 3 shards over 2 runs would leave some without a run",
    );
}
