//! `check MODEL --trace FILE`: the pause counterexamples of redlock and zk-lock become trace
//! files that replay in the simulator with the model's violated property; what has no
//! mapping, and a FILE that exists, are refused without writing.

use locksim::check::Property;
use locksim::trace::{Trace, replay};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory per test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "locksim-models-trace-{test}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn check(args: &[&str], file: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_locksim-models"))
        .arg("check")
        .args(args)
        .arg("--trace")
        .arg(file)
        .output()
        .expect("the binary runs");
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn pause_counterexamples_replay_with_the_same_property() {
    let dir = TempDir::new("pause");
    for (model, scenario) in [("redlock", "redlock"), ("zk-lock", "zk-lock")] {
        let file = dir.0.join(format!("{model}.json"));
        let (code, err) = check(&[model], &file);
        assert_eq!(code, Some(1), "{model}: mutex breaks: {err}");
        assert!(err.contains("mutex counterexample"), "{model}: {err}");
        let trace = Trace::load(&file).unwrap();
        assert_eq!(trace.scenario, scenario);
        assert_eq!(trace.faults.faults().len(), 1, "{model}: one pause");
        assert_eq!(trace.faults.faults()[0].fault.name(), "pause_before");
        let r = replay(&trace, &file).unwrap();
        assert!(r.verdict_matches, "{model}: {:?}", r.violated);
        assert_eq!(r.digest_matches, Some(true), "{model}");
        assert!(r.violated.contains(&Property::MUTEX), "{model}");
        let (code, err) = check(&[model], &file);
        assert_eq!(code, Some(2), "{model}: an existing file is refused");
        assert!(err.contains("already exists"), "{err}");
    }
}

#[test]
fn unmapped_models_and_faults_are_refused_without_writing() {
    let dir = TempDir::new("refused");
    let file = dir.0.join("t.json");
    for (args, says) in [
        (&["redis-lock"][..], "no mapping for this model"),
        (
            &["redlock", "--set", "pauses=0", "--set", "jumps=1"][..],
            "clock jump has no mapping",
        ),
        (
            &["zk-lock", "--set", "expiries=0", "--set", "flavor=noguid"][..],
            "no-orphan has no simulator property",
        ),
    ] {
        let (code, err) = check(args, &file);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!file.exists(), "{args:?} wrote a file");
    }
}
