//! The catalogues in `docs/catalogue.md`, ZooKeeper's (Z1–Z17) and Redis's (R1–R8): every
//! row's trace replays to the verdict the row states and the row's scenario and settings are
//! the trace's; in the Redis catalogue each contrast between two rows differs in nothing but
//! the setting it names, so a flipped verdict is that setting's.

use locksim::check::Property;
use locksim::trace::{Trace, replay};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The guide that holds both catalogues.
const CATALOGUE: &str = "docs/catalogue.md";
const SECTION: &str = "## The Redis catalogue (R1–R8)";
const ZK_SECTION: &str = "## The ZooKeeper catalogue (Z1–Z17)";

/// Two rows whose traces differ in exactly `differs` (parameter names, and `scenario` when
/// the recipe is the setting); the same seed and fault plan otherwise. `flips`: whether the
/// catalogue gives them different verdicts (a contrast may also show that a setting does not
/// matter, as a lease-based ZooKeeper lock without fencing fails R1 as Redlock does).
struct Contrast {
    row: &'static str,
    base: &'static str,
    variant: &'static str,
    differs: &'static [&'static str],
    flips: bool,
}

const CONTRASTS: &[Contrast] = &[
    // Fencing side by side (issue 9 §3): the same pause, the same seed.
    Contrast {
        row: "R1",
        base: "r1-pause-redlock",
        variant: "r1-pause-zk-lock",
        differs: &["scenario"],
        flips: false,
    },
    Contrast {
        row: "R1",
        base: "r1-pause-zk-lock",
        variant: "r1-pause-zk-lock-fenced",
        differs: &["fencing"],
        flips: true,
    },
    Contrast {
        row: "R2",
        base: "r2-pause-in-flight-redlock",
        variant: "r2-pause-in-flight-redlock-novalidity",
        differs: &["scenario"],
        flips: true,
    },
    Contrast {
        row: "R3",
        base: "r3-delay-redlock",
        variant: "r3-delay-zk-lock",
        differs: &["scenario"],
        flips: true,
    },
    Contrast {
        row: "R3",
        base: "r3-delay-zk-lock",
        variant: "r3-delay-zk-lock-fenced",
        differs: &["fencing"],
        flips: true,
    },
    Contrast {
        row: "R4",
        base: "r4-clock-jump-wall",
        variant: "r4-clock-jump-monotonic",
        differs: &["expiry_clock"],
        flips: true,
    },
    Contrast {
        row: "R5",
        base: "r5-crash-none",
        variant: "r5-crash-aof-everysec",
        differs: &["persistence"],
        flips: false,
    },
    Contrast {
        row: "R5",
        base: "r5-crash-none",
        variant: "r5-crash-aof-always",
        differs: &["persistence"],
        flips: true,
    },
    Contrast {
        row: "R5",
        base: "r5-crash-none",
        variant: "r5-crash-restart-delay",
        differs: &["restart_delay_ms"],
        flips: true,
    },
    Contrast {
        row: "R6",
        base: "r6-failover-lagging",
        variant: "r6-failover-replicated",
        differs: &["replication_lag_ms"],
        flips: true,
    },
    Contrast {
        row: "R7",
        base: "r7-split-votes-redlock",
        variant: "r7-split-votes-redlock-fixed-retry",
        differs: &["scenario"],
        flips: true,
    },
    Contrast {
        row: "R8",
        base: "r8-release-redis-lock-del",
        variant: "r8-release-redis-lock",
        differs: &["scenario"],
        flips: true,
    },
];

/// One line of a catalogue table.
#[derive(Debug)]
struct Row {
    row: String,
    scenario: String,
    /// `key=value` settings the row names.
    settings: Vec<(String, String)>,
    trace: String,
    verdict: Vec<Property>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn load(name: &str) -> Trace {
    let path = root().join("traces").join(format!("{name}.json"));
    Trace::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The Redis catalogue's rows.
fn redis_rows() -> Vec<Row> {
    rows_of(SECTION, "| R")
}

/// The table under `heading`, up to the next heading: its lines that start with `start`.
fn rows_of(heading: &str, start: &str) -> Vec<Row> {
    let catalogue = std::fs::read_to_string(root().join(CATALOGUE)).expect(CATALOGUE);
    let section = catalogue
        .split_once(heading)
        .unwrap_or_else(|| panic!("{CATALOGUE} has a section '{heading}'"))
        .1;
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter(|line| line.starts_with(start))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 5, "a catalogue row has five cells: {line}");
            let mut words = cells[1].split_whitespace().map(|w| w.trim_matches('`'));
            let scenario = words.next().expect("a scenario").to_string();
            let settings = words
                .map(|w| {
                    let (k, v) = w
                        .split_once('=')
                        .unwrap_or_else(|| panic!("key=value: {w}"));
                    (k.to_string(), v.to_string())
                })
                .collect();
            let verdict = match cells[3] {
                "none" => vec![],
                list => list
                    .split(", ")
                    .map(|p| p.parse().unwrap_or_else(|e| panic!("{line}: {e}")))
                    .collect(),
            };
            Row {
                row: cells[0].to_string(),
                scenario,
                settings,
                trace: cells[2].trim_matches('`').to_string(),
                verdict,
            }
        })
        .collect()
}

/// `r<digits>-...json`: the catalogue's naming, which no saved finding
/// (`<scenario>-<seed>.json`) has.
fn is_catalogue_file(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('r') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with('-') && name.ends_with(".json")
}

fn param_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn every_catalogue_row_replays_to_its_verdict() {
    let rows = redis_rows();
    assert!(rows.len() >= 16, "the catalogue table lists its rows");
    replays_to_verdicts(&rows);
}

#[test]
fn every_zookeeper_catalogue_row_replays_to_its_verdict() {
    let rows = rows_of(ZK_SECTION, "| Z");
    let listed: BTreeSet<&str> = rows.iter().map(|r| r.row.as_str()).collect();
    for entry in (1..=16).map(|n| format!("Z{n}")) {
        let entry = entry.as_str();
        assert!(listed.contains(entry), "{entry} has a row");
    }
    replays_to_verdicts(&rows);
}

/// Each row's trace names the row's scenario and settings, expects its verdict, and replays
/// to it with the digest it recorded.
fn replays_to_verdicts(rows: &[Row]) {
    for row in rows {
        let path = root().join(&row.trace);
        let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.scenario, row.scenario, "{}: scenario", row.trace);
        for (key, value) in &row.settings {
            let actual = trace
                .params
                .get(key)
                .unwrap_or_else(|| panic!("{}: no parameter {key}", row.trace));
            assert_eq!(&param_text(actual), value, "{}: {key}", row.trace);
        }
        assert_eq!(
            trace.expect.violations, row.verdict,
            "{}: the file expects what the catalogue says",
            row.trace
        );
        let replayed = replay(&trace, &path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            replayed.violated, row.verdict,
            "{} ({} {}): verdict",
            row.trace, row.row, row.scenario
        );
        assert_eq!(replayed.digest_matches, Some(true), "{}: digest", row.trace);
    }
}

#[test]
fn each_contrast_differs_only_in_its_setting() {
    let rows = redis_rows();
    let verdict_of = |name: &str| {
        let file = format!("traces/{name}.json");
        let row = rows
            .iter()
            .find(|r| r.trace == file)
            .unwrap_or_else(|| panic!("{file} is a row of the catalogue"));
        row.verdict.clone()
    };
    for c in CONTRASTS {
        let (base, variant) = (load(c.base), load(c.variant));
        let what = format!("{} {} -> {}", c.row, c.base, c.variant);
        assert_eq!(base.seed, variant.seed, "{what}: seed");
        assert_eq!(base.faults, variant.faults, "{what}: fault plan");
        assert_eq!(base.properties, variant.properties, "{what}: properties");
        let mut differs: BTreeSet<&str> = base
            .params
            .iter()
            .filter(|(k, v)| variant.params.get(*k) != Some(v))
            .map(|(k, _)| k.as_str())
            .chain(
                variant
                    .params
                    .keys()
                    .filter(|k| !base.params.contains_key(*k))
                    .map(String::as_str),
            )
            .collect();
        if base.scenario != variant.scenario {
            differs.insert("scenario");
        }
        let named: BTreeSet<&str> = c.differs.iter().copied().collect();
        assert_eq!(differs, named, "{what}: what differs");
        assert_eq!(
            verdict_of(c.base) != verdict_of(c.variant),
            c.flips,
            "{what}: whether the verdict flips"
        );
    }
}

#[test]
fn every_catalogue_trace_is_a_row_and_every_row_is_in_a_contrast() {
    let rows = redis_rows();
    let in_catalogue: BTreeSet<String> = rows.iter().map(|r| r.trace.clone()).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(root().join("traces"))
        .expect("traces/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| is_catalogue_file(name))
        .map(|name| format!("traces/{name}"))
        .collect();
    assert_eq!(
        in_catalogue, on_disk,
        "catalogue traces and docs/catalogue.md rows"
    );
    let contrasted: BTreeSet<String> = CONTRASTS
        .iter()
        .flat_map(|c| [c.base, c.variant])
        .map(|name| format!("traces/{name}.json"))
        .collect();
    let alone: BTreeSet<String> = in_catalogue.difference(&contrasted).cloned().collect();
    assert!(alone.is_empty(), "rows without a contrast: {alone:?}");
}

/// Issue 9 §3, side by side: under one pause or delay plan Redlock loses the resource and
/// zk-lock with czxid fencing keeps it.
#[test]
fn fencing_keeps_the_resource_where_redlock_loses_it() {
    for (redlock, fenced) in [
        ("r1-pause-redlock", "r1-pause-zk-lock-fenced"),
        ("r3-delay-redlock", "r3-delay-zk-lock-fenced"),
    ] {
        let (r, z) = (load(redlock), load(fenced));
        assert_eq!(
            (r.seed, &r.faults),
            (z.seed, &z.faults),
            "{redlock}: same plan"
        );
        assert_eq!(z.params.get("fencing"), Some(&Value::Bool(true)));
        let violated = |name: &str, t: &Trace| {
            let path = root().join("traces").join(format!("{name}.json"));
            replay(t, &path).unwrap_or_else(|e| panic!("{e}")).violated
        };
        assert!(
            violated(redlock, &r).contains(&Property::RESOURCE),
            "{redlock}"
        );
        assert!(
            !violated(fenced, &z).contains(&Property::RESOURCE),
            "{fenced}"
        );
    }
}
