//! Trace files: everything needed to rebuild a run (scenario, params, seed, explicit fault
//! plan) plus what it is expected to show. `cargo test` replays every file in `traces/`;
//! users write them by hand (without a digest) to script a scenario.
//!
//! Files are written with serde and read by `schema` over `strict_json`, which refuse
//! anything the format does not say; reading is bounded (`MAX_FILE_BYTES`, regular files
//! only) and saving never replaces or follows what is already at a name.
//!
//! A build with `--cfg tokio_unstable` (the workspace's) and one without (a user's crate)
//! draw the same randomness (crates/turmoil), so a trace written by either replays in the
//! other; `tokio_unseeded`, which older files of a build without the flag carry, is read
//! and ignored.

mod schema;
mod strict_json;

use crate::check::{NoChecker, Property};
use crate::params::{ParamError, Params};
use crate::scenario::{self, Scenario, UnknownScenario};
use crate::sim::fault::FaultPlan;
use crate::world::run::{self, RunError, RunReport, RunSpec};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

pub use strict_json::JsonError;

/// The `format` a trace file of this version declares; another is refused by name.
pub const FORMAT: &str = "locksim-trace/1";

/// The largest trace file `load` reads; locksim's own are a few KiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A trace file: a run as data (scenario, parameters, seed, explicit fault plan) with the
/// verdict and history digest it had, so it replays exactly and says what it should show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    /// Always `FORMAT`.
    pub format: String,
    /// The scenario's name: a built-in one, or a user's (replayed through their tests).
    pub scenario: String,
    /// The run's seed, which every random stream derives from.
    pub seed: u64,
    /// Parameters; missing ones take today's defaults (files written by locksim list all).
    pub params: serde_json::Map<String, Value>,
    /// Properties judged; absent means the scenario's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<Property>>,
    /// The faults, explicit: a replay injects these, the swarm draws nothing.
    pub faults: FaultPlan,
    /// The locksim version that wrote it, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locksim_version: Option<String>,
    /// The verdict the run had, which a replay must reproduce.
    pub expect: Expect,
    /// History digest of the recorded run; when present, replay must reproduce it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Free text for people; the only field a user may edit and still have the same trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A trace's expected verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expect {
    /// The properties the run violates (empty: none).
    pub violations: Vec<Property>,
}

/// Why a trace file could not be read, rebuilt or replayed; each names the file.
#[derive(Debug)]
#[non_exhaustive]
pub enum TraceError {
    /// Reading or writing it failed.
    Io(PathBuf, std::io::Error),
    /// A directory, device, FIFO, ...: reading it could block or never end.
    NotAFile(PathBuf),
    /// Larger than `MAX_FILE_BYTES`.
    TooLarge(PathBuf),
    /// The byte offset of the first invalid UTF-8 sequence.
    NotUtf8(PathBuf, usize),
    /// Not JSON, or JSON with duplicate keys or nesting too deep.
    Json(PathBuf, JsonError),
    /// JSON that is not a trace of this format: the field and what is wrong with it.
    Format(PathBuf, String),
    /// A scenario the built-in list does not have (a user's: replay it from their tests).
    Scenario(PathBuf, UnknownScenario),
    /// A property the file names that the scenario has no checker for.
    NoChecker(PathBuf, NoChecker),
    /// Parameters the scenario refuses.
    Params(PathBuf, ParamError),
    /// The replayed run failed in the harness.
    Run(PathBuf, RunError),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TraceError::NotAFile(p) => write!(f, "{}: not a regular file", p.display()),
            TraceError::TooLarge(p) => write!(
                f,
                "{}: larger than {} MiB, the most a trace file may hold",
                p.display(),
                MAX_FILE_BYTES >> 20
            ),
            TraceError::NotUtf8(p, offset) => write!(
                f,
                "{}: not UTF-8 text (invalid byte at offset {offset})",
                p.display()
            ),
            TraceError::Json(p, e @ JsonError::Syntax(_)) => {
                write!(f, "{}: not a trace file: {e}", p.display())
            }
            TraceError::Json(p, e) => write!(f, "{}: {e}", p.display()),
            TraceError::Format(p, v) => {
                write!(
                    f,
                    "{}: unsupported format '{v}' (expected '{FORMAT}')",
                    p.display()
                )
            }
            TraceError::Scenario(p, e) => write!(
                f,
                "{}: {e}; a trace of a scenario of your own replays through your test binary: \
                 LOCKSIM_REPLAY={} cargo test --release",
                p.display(),
                p.display()
            ),
            TraceError::NoChecker(p, e) => write!(f, "{}: {e}", p.display()),
            TraceError::Params(p, e) => write!(f, "{}: {e}", p.display()),
            TraceError::Run(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl Trace {
    /// A trace of a finished run.
    pub fn of(spec: &RunSpec, report: &RunReport) -> Trace {
        Trace {
            format: FORMAT.into(),
            scenario: spec.scenario.name.to_string(),
            seed: spec.seed,
            params: kept_params(spec),
            properties: (spec.properties != spec.scenario.properties)
                .then(|| spec.properties.clone()),
            faults: spec.plan.clone(),
            locksim_version: Some(env!("CARGO_PKG_VERSION").into()),
            expect: Expect {
                violations: violated(report),
            },
            digest: Some(report.digest.clone()),
            note: None,
        }
    }

    /// Reads and checks the file at `path` (at most `MAX_FILE_BYTES`, strict JSON, known
    /// fields only).
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        Trace::from_value(&read_json(path)?, path)
    }

    /// Checks JSON read elsewhere as `load` checks a file (a shard report of `explore`
    /// carries its finding's trace); `path` names where it came from.
    pub(crate) fn from_value(value: &Value, path: &Path) -> Result<Trace, TraceError> {
        // The format first: a file from another version should say so, not fail on a field
        // this version does not know.
        if let Some(format) = value.get("format").and_then(Value::as_str)
            && format != FORMAT
        {
            return Err(TraceError::Format(path.into(), format.to_string()));
        }
        schema::trace(value).map_err(|e| TraceError::Json(path.into(), e))
    }

    /// Rebuilds the run from the file alone, for a built-in scenario.
    pub fn spec(&self, path: &Path) -> Result<RunSpec, TraceError> {
        let scenario =
            scenario::find(&self.scenario).map_err(|e| TraceError::Scenario(path.into(), e))?;
        self.spec_as(scenario, path)
    }

    /// Rebuilds the run from the file as a run of `scenario` (one of the user's, which the
    /// built-in list does not know).
    pub fn spec_as(&self, scenario: &Scenario, path: &Path) -> Result<RunSpec, TraceError> {
        let params = scenario
            .params_from_json(&Value::Object(self.params.clone()))
            .map_err(|e| TraceError::Params(path.into(), e))?;
        let properties = self
            .properties
            .clone()
            .unwrap_or_else(|| scenario.properties.to_vec());
        let named: Vec<Property> = properties
            .iter()
            .chain(&self.expect.violations)
            .copied()
            .collect();
        scenario
            .checkers
            .judging(&named)
            .map_err(|e| TraceError::NoChecker(path.into(), e))?;
        Ok(RunSpec {
            scenario: scenario.clone(),
            params,
            seed: self.seed,
            plan: self.faults.clone(),
            properties,
        })
    }

    /// The file's text: pretty JSON ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("trace serialises");
        text.push('\n');
        text
    }

    /// Whether `other` says the same as this trace, its free-text note aside: then the
    /// file can stand for this trace (and the replay command printed for it works). Params
    /// are compared as a run reads them, so a file written before a parameter existed
    /// (missing keys take today's defaults) stands for a run at that parameter's default;
    /// the scenario's own parameters are compared as written.
    fn same_but_note(&self, other: &Trace) -> bool {
        let resolved = |t: &Trace| {
            let (builtin, own): (serde_json::Map<_, _>, serde_json::Map<_, _>) = t
                .params
                .clone()
                .into_iter()
                .partition(|(key, _)| Params::is_builtin(key));
            Params::from_json(&Value::Object(builtin))
                .ok()
                .map(|params| (params, own))
        };
        let rest = |t: &Trace| Trace {
            note: None,
            params: serde_json::Map::new(),
            ..t.clone()
        };
        rest(self) == rest(other) && resolved(self).is_some() && resolved(self) == resolved(other)
    }

    /// Writes to `dir/<scenario>-<seed>.json`; never replaces or follows what is there: a
    /// regular file holding this trace (a note aside, which survives) is reused as it is,
    /// anything else (another trace, a directory, a symlink, unreadable bytes) makes it pick
    /// `-2`, `-3`, ... Files are created exclusively, so concurrent saves cannot clobber
    /// each other. Returns the path of the trace.
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        self.save_named(dir, &format!("{}-{}", self.scenario, self.seed))
    }

    /// `save`, as `dir/<scenario>-<seed>-<property>.json`: the trace of one property's
    /// first finding (`explore --every-property`), which another property's first finding
    /// at the same seed does not take the name of.
    pub fn save_for(&self, dir: &Path, property: Property) -> std::io::Result<PathBuf> {
        let stem = format!("{}-{}-{}", self.scenario, self.seed, property.name());
        self.save_named(dir, &stem)
    }

    /// `save` under `dir/<stem>.json` (then `<stem>-2.json`, ...).
    fn save_named(&self, dir: &Path, stem: &str) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let text = self.to_json();
        for n in 1.. {
            let name = match n {
                1 => format!("{stem}.json"),
                _ => format!("{stem}-{n}.json"),
            };
            let path = dir.join(name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    if let Err(e) = file.write_all(text.as_bytes()) {
                        // Ours since create_new: leave no half-written trace behind.
                        let _ = std::fs::remove_file(&path);
                        return Err(e);
                    }
                    return Ok(path);
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    if self.recorded_in(&path) {
                        return Ok(path);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
    }

    /// Whether `path` is a regular file, not a symlink, that holds this trace.
    fn recorded_in(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
            && Trace::load(path).is_ok_and(|t| self.same_but_note(&t))
    }
}

/// The JSON of the file at `path`, read as a trace file is: bounded, strict (`read_text`,
/// `strict_json`).
pub(crate) fn read_json(path: &Path) -> Result<Value, TraceError> {
    strict_json::parse(&read_text(path)?).map_err(|e| TraceError::Json(path.into(), e))
}

/// A trace file's text. Only a regular file (or a symlink to one) is opened, since a device
/// may never end and a FIFO blocks until someone writes; at most `MAX_FILE_BYTES` are read.
fn read_text(path: &Path) -> Result<String, TraceError> {
    let io = |e| TraceError::Io(path.into(), e);
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(TraceError::NotAFile(path.into()));
    }
    let mut bytes = Vec::new();
    File::open(path)
        .map_err(io)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(TraceError::TooLarge(path.into()));
    }
    String::from_utf8(bytes)
        .map_err(|e| TraceError::NotUtf8(path.into(), e.utf8_error().valid_up_to()))
}

/// The parameters a trace file keeps: those of the groups its scenario reads, its own, and
/// any other that is not at its default. A replay reads a missing one as its default, so
/// the run is the same, and a Redlock trace does not carry the queue's parameters.
fn kept_params(spec: &RunSpec) -> serde_json::Map<String, Value> {
    let map = |params: &Params| match serde_json::to_value(params) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("Params serialises to an object"),
    };
    let defaults = map(&Params::default());
    let groups = spec.scenario.program.param_groups();
    let read = |key: &str| groups.iter().flat_map(|g| g.params).any(|p| p.key == key);
    map(&spec.params)
        .into_iter()
        .filter(|(key, value)| read(key) || defaults.get(key) != Some(value))
        .collect()
}

/// The set of violated properties, in `Property::BUILTIN` order.
pub fn violated(report: &RunReport) -> Vec<Property> {
    let set: BTreeSet<Property> = report.violations.iter().map(|v| v.property).collect();
    set.into_iter().collect()
}

/// What replaying a trace showed. It checks nothing by itself: call
/// [`Replay::assert_reproduced`] (or read [`Replay::reproduced`]).
///
/// ```
/// use locksim::Experiment;
/// let zk_lock = locksim::scenario::find("zk-lock").unwrap().clone();
/// let trace = std::path::Path::new("traces/zk-lock-8.json");
/// let replay = Experiment::new(zk_lock).replay(trace);
/// replay.assert_reproduced();
/// // The trace records a run that breaks mutual exclusion; its replay does again.
/// assert!(!replay.report.violations().is_empty());
/// ```
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "a replay checks nothing until you call assert_reproduced or read reproduced"]
pub struct Replay {
    /// The replayed run.
    pub report: RunReport,
    /// The properties it violated.
    pub violated: Vec<Property>,
    /// Whether those are the ones the trace expects.
    pub verdict_matches: bool,
    /// None when the trace has no digest.
    pub digest_matches: Option<bool>,
    /// The trace file replayed.
    trace: PathBuf,
    /// The properties the trace expects violated.
    expected: Vec<Property>,
    /// The digest the trace records, if it records one.
    expected_digest: Option<String>,
}

impl Replay {
    /// Whether the replay reproduced its trace: the same violated properties, and the same
    /// digest when the trace records one.
    pub fn reproduced(&self) -> bool {
        self.verdict_matches && self.digest_matches != Some(false)
    }

    /// Panics unless the replay reproduced its trace, naming the file and what differed:
    /// the violated properties, the digest, or both.
    #[track_caller]
    pub fn assert_reproduced(&self) {
        if let Some(differences) = self.differences() {
            panic!(
                "{} did not replay as recorded: {differences}",
                self.trace.display()
            );
        }
    }

    /// What differed from the trace, told in one line; None when nothing did.
    fn differences(&self) -> Option<String> {
        let names = |ps: &[Property]| match ps {
            [] => "none".to_string(),
            ps => ps.iter().map(|p| p.name()).collect::<Vec<_>>().join(", "),
        };
        let mut told = Vec::new();
        if !self.verdict_matches {
            told.push(format!(
                "it violated {} where the trace expects {}",
                names(&self.violated),
                names(&self.expected)
            ));
        }
        if self.digest_matches == Some(false) {
            told.push(format!(
                "its digest is {} where the trace records {} (non-determinism, or the \
                 recipe or locksim changed since the trace was written)",
                self.report.digest,
                self.expected_digest.as_deref().unwrap_or_default()
            ));
        }
        (!told.is_empty()).then(|| told.join("; "))
    }
}

/// Replays a trace of a built-in scenario.
pub fn replay(trace: &Trace, path: &Path) -> Result<Replay, TraceError> {
    replay_spec(trace, trace.spec(path)?, path)
}

/// Replays a trace as a run of `scenario`.
pub fn replay_as(trace: &Trace, scenario: &Scenario, path: &Path) -> Result<Replay, TraceError> {
    replay_spec(trace, trace.spec_as(scenario, path)?, path)
}

fn replay_spec(trace: &Trace, spec: RunSpec, path: &Path) -> Result<Replay, TraceError> {
    let report = run::run(&spec).map_err(|e| TraceError::Run(path.into(), e))?;
    let violated = violated(&report);
    let mut expected = trace.expect.violations.clone();
    expected.sort();
    expected.dedup();
    Ok(Replay {
        verdict_matches: violated == expected,
        digest_matches: trace.digest.as_ref().map(|d| *d == report.digest),
        violated,
        report,
        trace: path.to_path_buf(),
        expected,
        expected_digest: trace.digest.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fault::{Fault, TimedFault};

    /// A fresh directory per test, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("locksim-trace-{test}-{}", std::process::id()));
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

    fn sample(seed: u64, digest: &str) -> Trace {
        Trace {
            format: FORMAT.into(),
            scenario: "zk-lock".into(),
            seed,
            params: serde_json::Map::new(),
            properties: None,
            faults: FaultPlan(vec![TimedFault {
                at_ms: 10,
                fault: Fault::Crash { node: "zk1".into() },
            }]),
            locksim_version: Some("0.1.0".into()),
            expect: Expect { violations: vec![] },
            digest: Some(digest.into()),
            note: None,
        }
    }

    /// Replays the trace at `path` (relative to the crate) and returns it with the run.
    fn replayed(path: &str) -> (Trace, Replay) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = replay(&trace, &path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.verdict_matches && r.digest_matches == Some(true),
            "{}: expected {:?} with digest {:?}, got {:?} with {}",
            path.display(),
            trace.expect.violations,
            trace.digest,
            r.violated,
            r.report.digest
        );
        (trace, r)
    }

    /// A build with `--cfg tokio_unstable` (the workspace's) and one without (a user's
    /// crate) draw the same randomness, so each replays what the other recorded, whichever
    /// of the two runs this test.
    #[test]
    fn a_trace_replays_whichever_tokio_setting_recorded_it() {
        // Recorded with the flag, as every committed trace is.
        let _ = replayed("traces/zk-lock-8.json");
        // Recorded without it by a build that still marked such files `tokio_unseeded`.
        let without = "src/trace/recorded_without_tokio_unstable.json";
        let (old, r) = replayed(without);
        // A trace written now says nothing of the build, and stands for the older file.
        let path = Path::new(without);
        let again = Trace::of(&old.spec(path).unwrap(), &r.report);
        assert!(
            !again.to_json().contains("tokio_unseeded"),
            "{}",
            again.to_json()
        );
        assert!(again.same_but_note(&old), "{again:?}\n{old:?}");
    }

    #[test]
    fn assert_reproduced_passes_a_replay_as_recorded_and_names_what_differed_otherwise() {
        let (mut trace, as_recorded) = replayed("traces/zk-lock-8.json");
        as_recorded.assert_reproduced();
        let digest = as_recorded.report.digest();
        assert_eq!(Some(digest), trace.digest.as_deref());

        trace.expect.violations.clear();
        trace.digest = Some("0000000000000000".into());
        let path = Path::new("traces/zk-lock-8.json");
        let differs = replay(&trace, path).unwrap();
        assert!(!differs.reproduced());
        let panicked = std::panic::catch_unwind(|| differs.assert_reproduced())
            .expect_err("a replay that differs fails the assertion");
        let message = panicked.downcast_ref::<String>().unwrap();
        assert_eq!(
            message,
            &format!(
                "traces/zk-lock-8.json did not replay as recorded: it violated mutex, resource \
                 where the trace expects none; its digest is {} where the trace records \
                 0000000000000000 (non-determinism, or the recipe or locksim changed since the \
                 trace was written)",
                digest
            )
        );
    }

    #[test]
    fn concurrent_saves_of_one_name_never_clobber_each_other() {
        const ROUNDS: u64 = 300;
        let dir = TempDir::new("race");
        let barrier = std::sync::Barrier::new(2);
        // A thread that panicked would leave the other waiting at the barrier: the threads
        // only record, the main thread asserts.
        let saver = |digest: &'static str| {
            let (dir, barrier) = (&dir.0, &barrier);
            move || {
                (0..ROUNDS)
                    .map(|seed| {
                        let trace = sample(seed, digest);
                        barrier.wait();
                        let first = trace.save(dir);
                        // Saving it again finds it, whatever the other thread did meanwhile.
                        let again = trace.save(dir);
                        (trace, first, again)
                    })
                    .collect::<Vec<_>>()
            }
        };
        let saved: Vec<(Trace, PathBuf, PathBuf)> = std::thread::scope(|scope| {
            let a = scope.spawn(saver("aaaaaaaaaaaaaaaa"));
            let b = scope.spawn(saver("bbbbbbbbbbbbbbbb"));
            [a, b]
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .map(|(trace, first, again)| (trace, first.unwrap(), again.unwrap()))
                .collect()
        });
        // Files are never rewritten, so a clobbered one still shows the other's content now.
        for (trace, path, again) in &saved {
            assert_eq!(again, path);
            assert_eq!(std::fs::read_to_string(path).unwrap(), trace.to_json());
        }
        let mut paths: Vec<&PathBuf> = saved.iter().map(|(_, p, _)| p).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), saved.len(), "two traces shared one file");
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), saved.len());
    }

    #[test]
    fn save_reuses_a_file_that_differs_only_in_its_note() {
        let dir = TempDir::new("note");
        let trace = sample(1, "0123456789abcdef");
        let path = trace.save(&dir.0).unwrap();
        let noted = Trace {
            note: Some("seen in CI".into()),
            ..trace.clone()
        };
        std::fs::write(&path, noted.to_json()).unwrap();
        assert_eq!(trace.save(&dir.0).unwrap(), path);
        assert_eq!(Trace::load(&path).unwrap(), noted);
    }

    #[test]
    fn save_does_not_reuse_a_file_whose_other_fields_differ() {
        let dir = TempDir::new("edited");
        let trace = sample(1, "0123456789abcdef");
        let path = trace.save(&dir.0).unwrap();
        let mut edits = vec![
            Trace {
                expect: Expect {
                    violations: vec![Property::MUTEX],
                },
                ..trace.clone()
            },
            Trace {
                locksim_version: None,
                ..trace.clone()
            },
            Trace {
                properties: Some(vec![Property::MUTEX]),
                ..trace.clone()
            },
        ];
        edits[0].note = Some("edited".into());
        // Once the trace went to -2, that file is the one reused.
        for edited in edits {
            std::fs::write(&path, edited.to_json()).unwrap();
            let again = trace.save(&dir.0).unwrap();
            assert_eq!(again, dir.0.join("zk-lock-1-2.json"));
            assert_eq!(Trace::load(&path).unwrap(), edited);
        }
    }

    #[test]
    fn save_reuses_a_file_that_leaves_default_params_out_but_not_one_that_changes_them() {
        let dir = TempDir::new("params");
        let mut full = sample(1, "0123456789abcdef");
        let Value::Object(all) = serde_json::to_value(Params::default()).unwrap() else {
            unreachable!("params serialise to an object")
        };
        full.params = all;
        let path = full.save(&dir.0).unwrap();
        let older = sample(1, "0123456789abcdef");
        std::fs::write(&path, older.to_json()).unwrap();
        assert_eq!(full.save(&dir.0).unwrap(), path, "an older file, same run");
        let mut changed = older.clone();
        changed.params.insert("clients".into(), 3.into());
        std::fs::write(&path, changed.to_json()).unwrap();
        assert_eq!(full.save(&dir.0).unwrap(), dir.0.join("zk-lock-1-2.json"));
    }

    #[test]
    fn a_trace_keeps_the_parameters_its_scenario_reads_and_any_set_elsewhere() {
        let redlock = scenario::find("redlock").unwrap();
        let params = redlock.params(None, &["items=7", "clients=3"]).unwrap();
        let spec = RunSpec::generated(redlock, params.clone(), 1);
        let kept = kept_params(&spec);
        for key in [
            "clients",
            "ttl_ms",
            "pause_max_ms",
            "latency_max_ms",
            "items",
        ] {
            assert!(kept.contains_key(key), "{key} missing: {kept:?}");
        }
        for key in [
            "producers",
            "writers",
            "terms",
            "arrive_max_ms",
            "session_timeout_ms",
        ] {
            assert!(!kept.contains_key(key), "{key} kept: {kept:?}");
        }
        let replayed = redlock.params_from_json(&Value::Object(kept)).unwrap();
        assert_eq!(replayed, params, "a replay reads the same parameters");
    }

    #[test]
    fn save_does_not_reuse_a_symlink_even_to_the_same_trace() {
        let dir = TempDir::new("symlink");
        let trace = sample(1, "0123456789abcdef");
        let elsewhere = dir.0.join("elsewhere");
        let target = trace.save(&elsewhere).unwrap();
        let link = dir.0.join("zk-lock-1.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(trace.save(&dir.0).unwrap(), dir.0.join("zk-lock-1-2.json"));
        assert_eq!(std::fs::read_link(&link).unwrap(), target);
    }

    #[test]
    fn load_reads_up_to_the_size_limit_and_no_further() {
        let dir = TempDir::new("size");
        let text = sample(1, "0123456789abcdef").to_json();
        let pad = MAX_FILE_BYTES as usize - text.len();
        let path = dir.0.join("limit.json");
        std::fs::write(&path, format!("{text}{}", " ".repeat(pad))).unwrap();
        assert!(Trace::load(&path).is_ok());
        std::fs::write(&path, format!("{text}{}", " ".repeat(pad + 1))).unwrap();
        assert!(matches!(Trace::load(&path), Err(TraceError::TooLarge(_))));
    }

    #[test]
    fn load_names_the_first_byte_that_is_not_utf8() {
        let dir = TempDir::new("utf8");
        let path = dir.0.join("latin1.json");
        std::fs::write(&path, b"{\"note\": \"caf\xe9\"}").unwrap();
        assert!(matches!(
            Trace::load(&path),
            Err(TraceError::NotUtf8(_, 13))
        ));
    }
}
