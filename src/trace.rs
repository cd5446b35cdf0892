//! Trace files: everything needed to rebuild a run (scenario, params, seed, explicit fault
//! plan) plus what it is expected to show. `cargo test` replays every file in `traces/`;
//! users write them by hand (without a digest) to script a scenario.

use crate::check::Property;
use crate::params::{ParamError, Params};
use crate::scenario::{self, UnknownScenario};
use crate::sim::fault::FaultPlan;
use crate::sim::run::{self, RunError, RunReport, RunSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "locksim-trace/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub format: String,
    pub scenario: String,
    pub seed: u64,
    /// Parameters; missing ones take today's defaults (files written by locksim list all).
    #[serde(default)]
    pub params: serde_json::Value,
    /// Properties judged; absent means the scenario's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<Property>>,
    pub faults: FaultPlan,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locksim_version: Option<String>,
    pub expect: Expect,
    /// History digest of the recorded run; when present, replay must reproduce it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The properties the run violates (empty: none).
    pub violations: Vec<Property>,
}

#[derive(Debug)]
pub enum TraceError {
    Io(PathBuf, std::io::Error),
    Parse(PathBuf, serde_json::Error),
    Format(PathBuf, String),
    Scenario(PathBuf, UnknownScenario),
    Params(PathBuf, ParamError),
    Run(PathBuf, RunError),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TraceError::Parse(p, e) => write!(f, "{}: not a trace file: {e}", p.display()),
            TraceError::Format(p, v) => {
                write!(
                    f,
                    "{}: unsupported format '{v}' (expected '{FORMAT}')",
                    p.display()
                )
            }
            TraceError::Scenario(p, e) => write!(f, "{}: {e}", p.display()),
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
            scenario: spec.scenario.name.into(),
            seed: spec.seed,
            params: serde_json::to_value(&spec.params).expect("params serialise"),
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

    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError::Io(path.into(), e))?;
        // The format first: a file from another version should say so, not fail on a field
        // this version does not know.
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
            && let Some(format) = value.get("format").and_then(|f| f.as_str())
            && format != FORMAT
        {
            return Err(TraceError::Format(path.into(), format.to_string()));
        }
        serde_json::from_str(&text).map_err(|e| TraceError::Parse(path.into(), e))
    }

    /// Rebuilds the run from the file alone.
    pub fn spec(&self, path: &Path) -> Result<RunSpec, TraceError> {
        let scenario =
            scenario::find(&self.scenario).map_err(|e| TraceError::Scenario(path.into(), e))?;
        let params = if self.params.is_null() {
            Params::default()
        } else {
            Params::from_json(&self.params).map_err(|e| TraceError::Params(path.into(), e))?
        };
        Ok(RunSpec {
            scenario,
            params,
            seed: self.seed,
            plan: self.faults.clone(),
            properties: self
                .properties
                .clone()
                .unwrap_or_else(|| scenario.properties.to_vec()),
        })
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("trace serialises");
        text.push('\n');
        text
    }

    /// Whether `other` records the same run (its note or formatting may differ).
    fn same_run(&self, other: &Trace) -> bool {
        (
            &self.scenario,
            self.seed,
            &self.params,
            &self.properties,
            &self.faults,
            &self.digest,
        ) == (
            &other.scenario,
            other.seed,
            &other.params,
            &other.properties,
            &other.faults,
            &other.digest,
        )
    }

    /// Writes to `dir/<scenario>-<seed>.json`; never overwrites a file: an existing trace of
    /// the same run is reused as it is (a user's note survives), any other file makes it pick
    /// `-2`, `-3`, ... Returns the path of the trace.
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let text = self.to_json();
        for n in 1.. {
            let name = match n {
                1 => format!("{}-{}.json", self.scenario, self.seed),
                _ => format!("{}-{}-{n}.json", self.scenario, self.seed),
            };
            let path = dir.join(name);
            match std::fs::read_to_string(&path) {
                Ok(existing) => match serde_json::from_str::<Trace>(&existing) {
                    Ok(t) if self.same_run(&t) => return Ok(path),
                    _ => continue,
                },
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::write(&path, &text)?;
                    return Ok(path);
                }
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
    }
}

/// The set of violated properties, in `Property::ALL` order.
pub fn violated(report: &RunReport) -> Vec<Property> {
    let set: BTreeSet<Property> = report.violations.iter().map(|v| v.property).collect();
    set.into_iter().collect()
}

/// What replaying a trace showed.
#[derive(Debug)]
pub struct Replay {
    pub report: RunReport,
    pub violated: Vec<Property>,
    pub verdict_matches: bool,
    /// None when the trace has no digest.
    pub digest_matches: Option<bool>,
}

pub fn replay(trace: &Trace, path: &Path) -> Result<Replay, TraceError> {
    let spec = trace.spec(path)?;
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
    })
}
