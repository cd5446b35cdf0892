//! The committed traces, mutated structurally and replayed in-process: every mutant must end
//! in a verdict or a typed error, never a panic, and a run no longer than locksim's maximum.
//! Mutations drop, retype, overflow, duplicate and nest fields, put unknown names where names
//! go, shift numbers (times out of the fault phase, values out of range) and cut the text short.

use super::runner;
use locksim::params::MAX_RUN_LIMIT_MS;
use locksim::trace::{self, Trace};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// JSON whose objects may hold a key twice (serde_json's Value cannot), printed by hand.
#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    /// The number as written, so extremes such as 1e400 or 18446744073709551616 survive.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn from_value(v: &Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.to_string()),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(a) => Json::Array(a.iter().map(Json::from_value).collect()),
            Value::Object(o) => Json::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), Json::from_value(v)))
                    .collect(),
            ),
        }
    }

    fn text(&self) -> String {
        let quote = |s: &str| serde_json::to_string(s).expect("a string serialises");
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.clone(),
            Json::String(s) => quote(s),
            Json::Array(a) => {
                let items: Vec<String> = a.iter().map(Json::text).collect();
                format!("[{}]", items.join(","))
            }
            Json::Object(o) => {
                let items: Vec<String> = o
                    .iter()
                    .map(|(k, v)| format!("{}:{}", quote(k), v.text()))
                    .collect();
                format!("{{{}}}", items.join(","))
            }
        }
    }

    fn children(&self) -> usize {
        match self {
            Json::Array(a) => a.len(),
            Json::Object(o) => o.len(),
            _ => 0,
        }
    }

    fn child_mut(&mut self, i: usize) -> &mut Json {
        match self {
            Json::Array(a) => &mut a[i],
            Json::Object(o) => &mut o[i].1,
            _ => unreachable!("only containers have children"),
        }
    }

    /// The path (child positions from the root) of every node, root first.
    fn paths(&self) -> Vec<Vec<usize>> {
        let mut paths = vec![vec![]];
        for i in 0..self.children() {
            let child = match self {
                Json::Array(a) => &a[i],
                Json::Object(o) => &o[i].1,
                _ => unreachable!(),
            };
            paths.extend(child.paths().into_iter().map(|mut p| {
                p.insert(0, i);
                p
            }));
        }
        paths
    }
}

const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.5",
    "-0.5",
    "2147483647",
    "2147483648",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "1e300",
    "1e400",
    "-1e400",
];

/// Names that locksim knows in some field, and names it knows nowhere.
const NAMES: &[&str] = &[
    "meteor",
    "zk9",
    "c99",
    "",
    "c1\n",
    "MUTEX",
    "locksim-trace/2",
    "zk-nope",
    "partition",
    "repair_all",
    "lose_reply",
    "clock_drift",
    "create",
    "set_data",
    "c1",
    "c5",
    "zk1",
    "store",
    "mutex",
    "liveness",
    "zk-lock",
    "zk-lock-herd",
];

const KEYS: &[&str] = &[
    "colour", "at_MS", "fault ", "node", "for_ms", "params", "expect",
];

#[derive(Debug, Clone)]
enum Mutation {
    Drop,
    Retype(u8),
    Extreme(usize),
    Duplicate,
    Nest(bool),
    RenameKey(usize),
    Name(usize),
    Shift(i64),
}

impl Mutation {
    fn apply(&self, root: &mut Json, target: usize) {
        let paths = root.paths();
        let path = &paths[target % paths.len()];
        let Some((&last, parent_path)) = path.split_last() else {
            *root = self.replace(root.clone());
            return;
        };
        let mut parent = &mut *root;
        for &i in parent_path {
            parent = parent.child_mut(i);
        }
        match (self, parent) {
            (Mutation::Drop, Json::Array(a)) => {
                a.remove(last);
            }
            (Mutation::Drop, Json::Object(o)) => {
                o.remove(last);
            }
            (Mutation::Duplicate, Json::Array(a)) => a.insert(last, a[last].clone()),
            (Mutation::Duplicate, Json::Object(o)) => o.insert(last, o[last].clone()),
            (Mutation::RenameKey(k), Json::Object(o)) => o[last].0 = KEYS[*k].to_string(),
            (_, parent) => {
                let node = parent.child_mut(last);
                *node = self.replace(node.clone());
            }
        }
    }

    /// What this mutation makes of a node in place.
    fn replace(&self, node: Json) -> Json {
        match self {
            Mutation::Drop | Mutation::Duplicate | Mutation::RenameKey(_) => Json::Null,
            Mutation::Retype(t) => match t % 6 {
                0 => Json::Null,
                1 => Json::Bool(true),
                2 => Json::Number("7".into()),
                3 => Json::String("7".into()),
                4 => Json::Array(vec![]),
                _ => Json::Object(vec![]),
            },
            Mutation::Extreme(i) => Json::Number(EXTREMES[*i].into()),
            Mutation::Nest(true) => Json::Array(vec![node]),
            Mutation::Nest(false) => Json::Object(vec![("value".into(), node)]),
            Mutation::Name(i) => Json::String(NAMES[*i].into()),
            Mutation::Shift(by) => match &node {
                Json::Number(n) => match n.parse::<i128>() {
                    Ok(n) => Json::Number((n + i128::from(*by)).to_string()),
                    Err(_) => node,
                },
                _ => node,
            },
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Drop),
        any::<u8>().prop_map(Mutation::Retype),
        (0..EXTREMES.len()).prop_map(Mutation::Extreme),
        Just(Mutation::Duplicate),
        any::<bool>().prop_map(Mutation::Nest),
        (0..KEYS.len()).prop_map(Mutation::RenameKey),
        (0..NAMES.len()).prop_map(Mutation::Name),
        (-1000i64..1000).prop_map(Mutation::Shift),
    ]
}

fn committed_traces() -> Vec<Json> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("traces/ exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("a committed trace reads");
            Json::from_value(&serde_json::from_str(&text).expect("a committed trace is JSON"))
        })
        .collect()
}

#[test]
fn mutated_traces_replay_to_a_verdict_or_a_typed_error_never_a_panic() {
    let traces = committed_traces();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("trace-mutant-{}.json", std::process::id()));
    let (replayed, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let strategy = (
        0..traces.len(),
        prop::collection::vec((any::<usize>(), mutation()), 1..=2),
        prop::option::weighted(0.05, any::<usize>()),
    );
    let runner = runner(1_000);
    let result = runner.run(&strategy, |(trace, mutations, cut)| {
        let mut json = traces[trace].clone();
        for (target, m) in &mutations {
            m.apply(&mut json, *target);
        }
        let mut text = json.text();
        if let Some(cut) = cut {
            let at = cut % text.len().max(1);
            text.truncate(text.floor_char_boundary(at));
        }
        std::fs::write(&path, &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let outcome = Trace::load(&path).and_then(|t| trace::replay(&t, &path));
        match outcome {
            Ok(r) => {
                replayed.fetch_add(1, Ordering::Relaxed);
                prop_assert!(r.report.end_ms() <= MAX_RUN_LIMIT_MS, "{text}");
            }
            Err(e) => {
                refused.fetch_add(1, Ordering::Relaxed);
                // The CLI prints it as one line (escaping what the file holds); here it must
                // at least say which file it is about.
                let message = e.to_string();
                prop_assert!(message.starts_with(&*path.to_string_lossy()), "{message}");
            }
        }
        Ok(())
    });
    let _ = std::fs::remove_file(&path);
    if let Err(e) = result {
        panic!("{e}");
    }
    let (replayed, refused) = (replayed.into_inner(), refused.into_inner());
    let cases = (replayed + refused) as f64;
    assert!(
        replayed as f64 >= cases / 20.0 && refused as f64 >= cases / 20.0,
        "the mutants should both run and be refused often: {replayed} replayed, {refused} refused"
    );
}
