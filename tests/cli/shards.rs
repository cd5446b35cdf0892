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
