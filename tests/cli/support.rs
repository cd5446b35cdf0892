//! What every CLI test uses: a scratch directory to run `locksim` in, its result, and
//! hand-written traces.

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// A fresh directory per test (named by test and process), removed when the test ends.
/// Commands run inside it, so a default `traces/` never lands in the source tree.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("locksim-cli-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    /// Every path below the scratch directory, sorted.
    pub fn files(&self) -> Vec<PathBuf> {
        fn walk(dir: &std::path::Path, found: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("read scratch dir") {
                let path = entry.expect("dir entry").path();
                if path.is_dir() && !path.is_symlink() {
                    walk(&path, found);
                }
                found.push(path);
            }
        }
        let mut found = Vec::new();
        walk(&self.0, &mut found);
        found.sort();
        found
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write scratch file");
        path
    }

    pub fn run(&self, args: &[&str]) -> Ran {
        self.run_env(&[], args)
    }

    /// `run` with environment variables set.
    pub fn run_env(&self, vars: &[(&str, &str)], args: &[&str]) -> Ran {
        let out = Command::new(env!("CARGO_BIN_EXE_locksim"))
            .envs(vars.iter().copied())
            .args(args)
            .current_dir(&self.0)
            .output()
            .expect("run locksim");
        let ran = Ran {
            status: out.status.code().expect("locksim exited by a signal"),
            stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        };
        assert!(
            !ran.stdout.contains("panicked") && !ran.stderr.contains("panicked"),
            "locksim {args:?} panicked:\n{}",
            ran.stderr
        );
        ran
    }

    /// Runs with `--json` and checks the status.
    pub fn json(&self, args: &[&str], status: i32) -> Value {
        let ran = self.run(&[&["--json"], args].concat());
        assert_eq!(
            ran.status, status,
            "locksim --json {args:?}: {}",
            ran.stderr
        );
        ran.json()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// stdout must be exactly one JSON object.
    pub fn json(&self) -> Value {
        assert_eq!(self.stdout.lines().count(), 1, "stdout: {}", self.stdout);
        let value: Value = serde_json::from_str(&self.stdout).expect("stdout is JSON");
        assert!(value.is_object(), "not an object: {value}");
        value
    }
}

/// Bad input: status 2 and one line on stderr mentioning `needle`; with `--json`, one
/// `{"error", "status": 2}` object on stdout instead.
pub fn assert_bad_input(scratch: &Scratch, args: &[&str], needle: &str) {
    let before = scratch.files();
    let ran = scratch.run(args);
    assert_eq!(
        ran.status, 2,
        "locksim {args:?}: {}{}",
        ran.stdout, ran.stderr
    );
    assert_eq!(
        ran.stderr.lines().count(),
        1,
        "locksim {args:?} stderr: {}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(needle),
        "locksim {args:?}: stderr {:?} lacks {needle:?}",
        ran.stderr
    );
    assert!(
        ran.stdout.is_empty(),
        "locksim {args:?}: stdout {}",
        ran.stdout
    );
    let v = scratch.json(args, 2);
    assert_eq!(v["status"], 2, "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains(needle)),
        "locksim --json {args:?}: {v}"
    );
    assert_eq!(scratch.files(), before, "locksim {args:?} wrote files");
}

/// A hand-written trace: zk-lock-noguid, partial params, no digest, one lost create reply
/// (which orphans c1's node, so nobody gets the lock again).
pub fn noguid_trace(expect: &[&str]) -> Value {
    json!({
        "format": "locksim-trace/1",
        "scenario": "zk-lock-noguid",
        "seed": 7,
        "params": { "clients": 3 },
        "faults": [{ "at_ms": 300, "fault": "lose_reply", "node": "zk1", "op": "create", "client": "c1" }],
        "expect": { "violations": expect },
    })
}

/// `noguid_trace` with one field replaced (or removed, for `Value::Null`).
pub fn noguid_with(key: &str, value: Value) -> String {
    let mut trace = noguid_trace(&["liveness"]);
    let map = trace.as_object_mut().expect("trace is an object");
    match value {
        Value::Null => map.remove(key),
        v => map.insert(key.to_string(), v),
    };
    trace.to_string()
}
