//! The deployment recipes under deploy/ parse, and their own commands, run here with their 4
//! shards over a small range, give exactly what one `locksim explore` over it prints and
//! exits with. The files' SCENARIO and SEEDS are replaced by a small sweep whose lowest
//! failing seed lies in the last shard; everything else is run as the files write it.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Redlock's lowest failing seed in 0..28 is 27, in shard 4/4 (seeds 21..28).
const SCENARIO: &str = "redlock";
const SEEDS: &str = "0..28";

/// The repository's deploy/ directory.
fn deploy(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(file)
}

/// A fresh directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(test: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("locksim-deploy-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a command exited with and printed.
#[derive(Debug, PartialEq)]
struct Ran {
    status: i32,
    stdout: String,
}

/// Runs `program args` in `dir` with `env` and the built `locksim` first on PATH.
fn run(dir: &Path, program: &str, args: &[&str], env: &BTreeMap<String, String>) -> Ran {
    let bin = Path::new(env!("CARGO_BIN_EXE_locksim")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env)
        .env("PATH", path)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{program} {args:?}: {stderr}");
    Ran {
        status: out.status.code().expect("exited by a signal"),
        stdout: String::from_utf8(out.stdout).unwrap(),
    }
}

/// What one `locksim explore` over the sweep prints (after its first line, which names the
/// command) and exits with: what every recipe's merge must print and exit with. `test`
/// names its directory (tests run at the same time).
fn whole_run(test: &str) -> Ran {
    let dir = Dir::new(&format!("{test}-whole"));
    let ran = run(
        &dir.0,
        "locksim",
        &["explore", SCENARIO, "--seeds", SEEDS],
        &BTreeMap::new(),
    );
    assert_eq!(
        ran.status, 1,
        "redlock breaks mutex in 0..28: {}",
        ran.stdout
    );
    verdict(ran)
}

/// `ran` without its first line (`explore …` or `merge …`).
fn verdict(ran: Ran) -> Ran {
    let rest = ran.stdout.split_once('\n').map_or("", |(_, rest)| rest);
    Ran {
        status: ran.status,
        stdout: rest.to_string(),
    }
}

/// Every YAML document in `file`, as JSON.
fn yaml(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap();
    serde_norway::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{}: {e}", file.display())))
        .collect()
}

/// The sweep's environment: the file's SHARDS, our SCENARIO and SEEDS.
fn sweep_env(shards: &str) -> BTreeMap<String, String> {
    assert_eq!(shards, "4", "the recipes run 4 shards");
    [("SCENARIO", SCENARIO), ("SEEDS", SEEDS), ("SHARDS", shards)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The one step of `job` whose script runs `command`.
fn step_running<'a>(job: &'a Value, command: &str) -> &'a str {
    let runs: Vec<&str> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|r| r.contains(command))
        .collect();
    assert_eq!(runs.len(), 1, "{command}: {runs:?}");
    runs[0]
}

/// The first step of `job` that uses `action` with a `with_key` setting.
fn step_using<'a>(job: &'a Value, action: &str, with_key: &str) -> &'a Value {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"].as_str().is_some_and(|u| u.starts_with(action))
                && !s["with"][with_key].is_null()
        })
        .unwrap_or_else(|| panic!("no {action} step with {with_key}"))
}

#[test]
fn github_actions_shards_upload_their_reports_and_the_merge_job_gives_one_runs_verdict() {
    let [workflow] = &yaml(&deploy("github-actions.yml"))[..] else {
        panic!("one document")
    };
    let env = sweep_env(
        workflow["env"]["SHARDS"]
            .as_u64()
            .unwrap()
            .to_string()
            .as_str(),
    );
    let (shard, merge) = (&workflow["jobs"]["shard"], &workflow["jobs"]["merge"]);
    assert_eq!(
        shard["strategy"]["matrix"]["shard"],
        serde_json::json!([1, 2, 3, 4])
    );
    assert_eq!(merge["needs"], "shard");
    let explore = step_running(shard, "locksim explore");
    let upload = step_using(shard, "actions/upload-artifact", "path")["with"]["path"]
        .as_str()
        .unwrap();
    let download = step_using(merge, "actions/download-artifact", "pattern")["with"].clone();
    assert_eq!(download["merge-multiple"], true);
    let downloaded = download["path"].as_str().unwrap();
    let dir = Dir::new("github");
    std::fs::create_dir_all(dir.0.join(downloaded)).unwrap();
    for i in 1..=4 {
        // Each runner has a directory of its own.
        let runner = dir.0.join(format!("runner-{i}"));
        std::fs::create_dir_all(&runner).unwrap();
        let matrix = |s: &str| s.replace("${{ matrix.shard }}", &i.to_string());
        let script = matrix(explore);
        assert!(!script.contains("${{"), "{script}");
        let ran = run(&runner, "bash", &["-e", "-c", &script], &env);
        assert_eq!(ran.status, 0, "shard {i}");
        let report = matrix(upload);
        std::fs::copy(runner.join(&report), dir.0.join(downloaded).join(&report)).unwrap();
    }
    let ran = run(
        &dir.0,
        "bash",
        &["-e", "-c", step_running(merge, "locksim merge")],
        &env,
    );
    assert_eq!(verdict(ran), whole_run("github"));
}

#[test]
fn gnu_parallel_runs_the_shards_on_one_machine_and_merges_them() {
    let script = deploy("parallel.sh");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(
        text.starts_with("#!/usr/bin/env bash\n"),
        "runs as a script"
    );
    let dir = Dir::new("parallel");
    let syntax = run(
        &dir.0,
        "bash",
        &["-n", script.to_str().unwrap()],
        &BTreeMap::new(),
    );
    assert_eq!(syntax.status, 0, "bash -n");
    let mut env = sweep_env("4");
    env.insert("RESULTS".into(), "reports".into());
    let ran = run(&dir.0, script.to_str().unwrap(), &[], &env);
    for i in 1..=4 {
        assert!(
            dir.0.join(format!("reports/shard-{i}.json")).is_file(),
            "shard {i}"
        );
    }
    assert_eq!(verdict(ran), whole_run("parallel"));
}

/// The container's command and arguments, and its environment.
fn container(job: &Value) -> (Vec<String>, BTreeMap<String, String>) {
    let [c] = &job["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()[..]
    else {
        panic!("one container")
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let command = [strings(&c["command"]), strings(&c["args"])].concat();
    let env = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (command, env)
}

#[test]
fn a_kubernetes_indexed_job_runs_a_shard_per_index_and_the_merge_job_gives_one_runs_verdict() {
    let docs = yaml(&deploy("kubernetes/shards.yaml"));
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["PersistentVolumeClaim", "Job"]);
    let job = &docs[1];
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let (command, file_env) = container(job);
    let mut env = sweep_env(&file_env["SHARDS"]);
    for key in ["completions", "parallelism"] {
        assert_eq!(
            job["spec"][key].as_u64().unwrap().to_string(),
            env["SHARDS"],
            "{key}"
        );
    }
    let dir = Dir::new("kubernetes");
    let results = dir.0.join("results");
    std::fs::create_dir_all(&results).unwrap();
    env.insert("RESULTS".into(), results.to_str().unwrap().into());
    let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
    for index in 0..4 {
        // Each pod has a working directory of its own.
        let pod = dir.0.join(format!("pod-{index}"));
        std::fs::create_dir_all(&pod).unwrap();
        let mut env = env.clone();
        env.insert("JOB_COMPLETION_INDEX".into(), index.to_string());
        assert_eq!(
            run(&pod, &command[0], &args, &env).status,
            0,
            "index {index}"
        );
    }
    let [merge] = &yaml(&deploy("kubernetes/merge.yaml"))[..] else {
        panic!("one document")
    };
    let (command, merge_env) = container(merge);
    assert_eq!(merge_env["RESULTS"], file_env["RESULTS"], "the same volume");
    let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
    let ran = run(&results, &command[0], &args, &env);
    assert_eq!(verdict(ran), whole_run("kubernetes"));
}
