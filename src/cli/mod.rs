//! What the `locksim` commands do and print. Text for people, one JSON object with `--json`.
//! Bad input is one line on stderr and exit status 2, never a panic.
//!
//! - `mod.rs`: exit statuses, output mode, options, shared printing; `list` and `bench`
//! - `single.rs`: `run` and `replay`, one run each
//! - `explore.rs`: `explore` over seeds
//! - `default_run.rs`: `locksim` with no command, every scenario searched for a short budget
//! - `guided.rs`: `explore --guided`, one campaign or a shard's sub-campaign
//! - `compare.rs`: `compare`, the guided search against random exploration
//! - `identity.rs`: what makes shard reports parts of one exploration
//! - `report.rs`: what `explore --json` carries for `merge`: identity and the finding's trace
//! - `merge.rs`: `merge`, shard reports combined into one exploration's (or ensemble's) verdict
//! - `progress.rs`: their progress line on stderr
//! - `serve.rs`: `serve zk` and `serve redis`, a simulated server on a real socket
//! - `write.rs`: stdout and stderr that survive a closed pipe or a full disk

/// `println!` for the commands' output, through `write::stdout` (never panics).
macro_rules! outln {
    () => {
        $crate::cli::write::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::write::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the commands' output, through `write::stdout` (never panics).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write::stdout(format_args!($($arg)*))
    };
}

mod compare;
mod compare_svg;
mod default_run;
mod explore;
mod guided;
mod identity;
mod merge;
mod progress;
mod report;
mod serve;
mod single;
pub mod write;

pub use compare::{CompareOptions, compare};
pub use default_run::default_exploration;
pub use explore::explore;
pub use identity::Search;
pub use merge::merge;
pub use serve::{parse_memory, serve_redis, serve_zk};
pub use single::{replay, run};

use crate::check::{self, Property};
use crate::params::{self, Group, Params};
use crate::scenario::{self, Scenario};
use crate::timeline;
use crate::world::run::RunReport;
use serde_json::{Value, json};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Exit statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// No violation (a replay reproduced its trace; every scenario behaved as expected).
    Clean = 0,
    /// A violation found (a replay differed from its trace; a scenario did not behave as
    /// expected).
    Violation = 1,
    /// Bad usage or input: one line on stderr, or one JSON object.
    BadInput = 2,
    /// locksim itself failed (a bug, a limit of the simulation, a trace it could not write).
    HarnessError = 3,
}

/// How the commands print: text for people, or one JSON object.
pub struct Output {
    /// Whether `--json` asked for one JSON object on stdout.
    pub json: bool,
    /// Whether `--quiet` asked for no progress on stderr (it is drawn only when stderr is a
    /// terminal, and never with `--json`).
    pub quiet: bool,
    /// Whether `--verbose` asked for every parameter in a run's or exploration's first line.
    pub verbose: bool,
}

impl Output {
    fn emit(&self, value: Value, text: impl FnOnce()) {
        if self.json {
            outln!("{value}");
        } else {
            text();
        }
    }

    /// Reports bad usage or input: one line on stderr, or one JSON object on stdout.
    pub fn bad_input(&self, message: &str) -> Status {
        self.error(message, Status::BadInput)
    }

    /// One line whatever the message holds: control characters a user typed (a newline in
    /// a scenario name or a `--set` key) are escaped.
    fn error(&self, message: &str, status: Status) -> Status {
        let message = write::one_line(message);
        if self.json {
            outln!("{}", json!({ "error": message, "status": status as u8 }));
        } else {
            write::stderr(format_args!("locksim: error: {message}\n"));
        }
        status
    }
}

/// The options `run` and `explore` share, as the command line gave them.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The scenario's named profile to start from (`--profile`); None: its default one.
    pub profile: Option<String>,
    /// Parameter overrides, `KEY=VALUE` each (`--set`), applied over the profile.
    pub set: Vec<String>,
    /// The properties to judge by (`--check`); empty: the scenario's own.
    pub check: Vec<Property>,
    /// Whether to run each seed twice and compare history digests.
    pub check_determinism: bool,
    /// The directory trace files are written into (`--traces`).
    pub traces: PathBuf,
}

/// Reads `--seeds`: `A..B` with A below B (B excluded).
pub fn parse_seeds(s: &str) -> Result<Range<u64>, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected A..B, got '{s}'"))?;
    let a: u64 = a.trim().parse().map_err(|_| format!("bad seed '{a}'"))?;
    let b: u64 = b.trim().parse().map_err(|_| format!("bad seed '{b}'"))?;
    if a >= b {
        return Err(format!("empty seed range {a}..{b}"));
    }
    Ok(a..b)
}

/// Reads a property's name for `--check`.
pub fn parse_property(s: &str) -> Result<Property, String> {
    s.parse()
        .map_err(|e: crate::check::UnknownProperty| e.to_string())
}

/// The scenario and its parameters with the user's overrides applied.
fn setup(
    scenario: &str,
    opts: &Options,
) -> Result<(&'static Scenario, Params, Vec<Property>), String> {
    let scenario = scenario::find(scenario).map_err(|e| e.to_string())?;
    let params = scenario
        .params(opts.profile.as_deref(), &opts.set)
        .map_err(|e| e.to_string())?;
    check_traces_dir(&opts.traces)?;
    let properties = if opts.check.is_empty() {
        scenario.properties.to_vec()
    } else {
        opts.check.clone()
    };
    Ok((scenario, params, properties))
}

/// Fails before any work when trace files could not be written into `dir`, rather than after
/// a whole exploration. `dir` must be a directory, or not exist yet below one (it is created
/// when the first trace is saved); a probe file is created there and removed, to learn
/// whether writing is allowed. Nothing else is created.
fn check_traces_dir(dir: &Path) -> Result<(), String> {
    let cannot = |why: String| format!("cannot write trace files into {}: {why}", dir.display());
    let mut existing = dir;
    loop {
        match std::fs::metadata(existing) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => return Err(cannot(format!("{} is not a directory", existing.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                existing = match existing.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
            }
            Err(e) => return Err(cannot(e.to_string())),
        }
    }
    let probe = existing.join(format!(".locksim-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| cannot(e.to_string()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The parameters `scenario` uses, as `key=value` words in the order `locksim list` shows:
/// all of them with `--verbose`, else those that differ from the scenario's defaults (its
/// default profile's included), so the line stays short enough to read.
fn params_line(out: &Output, scenario: &Scenario, params: &Params) -> String {
    let value = |p: &Params| serde_json::to_value(p).expect("params serialise");
    let (values, defaults) = match scenario.params::<&str>(None, &[]) {
        Ok(defaults) => (value(params), value(&defaults)),
        Err(_) => unreachable!("a scenario's defaults are valid"),
    };
    let words: Vec<String> = scenario
        .program
        .param_groups()
        .iter()
        .flat_map(|g| g.params)
        .filter(|p| out.verbose || values[p.key] != defaults[p.key])
        .map(|p| {
            let v = &values[p.key];
            format!(
                "{}={}",
                p.key,
                v.as_str().map_or(v.to_string(), str::to_string)
            )
        })
        .collect();
    match (out.verbose, words.is_empty()) {
        (true, _) => words.join(" "),
        (false, true) => "(default parameters; --verbose lists them)".into(),
        (false, false) => format!("{} (the rest at defaults)", words.join(" ")),
    }
}

/// What a targeted fault is, for `locksim list`: the swarm draws them (`targeted_max`), and
/// a trace file may hold them, so a reader of either needs their roles, triggers and shape.
const TARGETED_FAULTS: &str = "\
Targeted faults (drawn when targeted_max > 0; in a trace file, a pause with `target` and `on` in place of `node`):
  {\"at_ms\": 120, \"fault\": \"pause\", \"target\": {\"role\": \"blocked\"}, \"on\": {\"event\": \"step\", \"step\": \"exists\"}, \"for_ms\": 250}
  {\"at_ms\": 0, \"fault\": \"pause\", \"target\": {\"role\": \"predecessor_of\", \"of\": \"waiter\"}, \"on\": {\"event\": \"acquired\"}, \"for_ms\": 80}
  at_ms arms it; without `on` it fires then, with `on` at the first such event after it.
  triggers (on.event): enqueued, acquired, woken, step (with `step`: one the scenario's program declares, e.g. write, release, exists)
  roles (target.role): holder, leader, waiter, blocked (a waiter behind another, at a step), reader, writer,
    predecessor_of (with `of` one of those: the client just ahead of it in line)
  The role is resolved when the fault fires (the event's client if it has the role, else the first in line);
  nobody with the role: skipped. Only blocked pauses may last up to targeted_pause_max_ms.";

/// `locksim list [SCENARIO]`: every scenario and parameter, or only what one scenario uses.
pub fn list(out: &Output, name: Option<&str>) -> Status {
    let (scenarios, groups): (Vec<&Scenario>, &[Group]) = match name {
        None => (scenario::builtins().iter().collect(), params::GROUPS),
        Some(name) => match scenario::find(name) {
            Ok(s) => (vec![s], s.program.param_groups()),
            Err(e) => return out.bad_input(&e.to_string()),
        },
    };
    // One scenario's defaults are those of its default profile.
    let defaults = match scenarios.as_slice() {
        [one] => one.params::<&str>(None, &[]),
        _ => Ok(Params::default()),
    };
    let defaults = match defaults {
        Ok(p) => serde_json::to_value(p).expect("params serialise"),
        Err(e) => return out.error(&e.to_string(), Status::HarnessError),
    };
    let shown = |v: &Value| v.as_str().map_or(v.to_string(), str::to_string);
    let scenarios_json: Vec<Value> = scenarios
        .iter()
        .map(|s| {
            let checkers: Vec<Value> = s
                .properties
                .iter()
                .map(|p| {
                    let reads: Vec<String> =
                        check::builtin_checker(*p).map_or(&[][..], |c| c.reads()).iter().map(|r| r.to_string()).collect();
                    json!({ "property": p, "reads": reads })
                })
                .collect();
            let profiles: Vec<Value> = s
                .program
                .profiles()
                .iter()
                .map(|p| json!({ "name": p.name, "summary": p.summary, "settings": p.settings }))
                .collect();
            json!({ "name": s.name, "summary": s.summary, "properties": s.properties, "flaw": s.flaw, "checkers": checkers, "profiles": profiles })
        })
        .collect();
    let params_json: Vec<Value> = groups
        .iter()
        .flat_map(|g| g.params.iter().map(move |p| (g, p)))
        .map(|(g, p)| json!({ "name": p.key, "group": g.name, "default": defaults[p.key], "doc": p.text() }))
        .collect();
    // One scenario's listing explains targeted faults only if one of its profiles draws them.
    let targeted = name.is_none()
        || scenarios.iter().any(|s| {
            s.program
                .profiles()
                .iter()
                .any(|p| p.settings.iter().any(|k| k.starts_with("targeted_max=")))
        });
    let targeted_json = targeted.then_some(TARGETED_FAULTS);
    out.emit(json!({ "scenarios": scenarios_json, "params": params_json, "targeted_faults": targeted_json }), || {
        outln!("Scenarios:");
        for s in &scenarios {
            outln!("  {:<16} {}", s.name, s.summary);
            let props: Vec<_> = s.properties.iter().map(|p| p.name()).collect();
            out!("  {:<16} checks: {}", "", props.join(", "));
            if !s.flaw.is_empty() {
                let flaw: Vec<_> = s.flaw.iter().map(|p| p.name()).collect();
                out!("; the harness must find: {}", flaw.join(", "));
            }
            outln!();
            if name.is_some() {
                for p in &s.properties {
                    let reads: Vec<String> =
                        check::builtin_checker(*p).map_or(&[][..], |c| c.reads()).iter().map(|r| r.to_string()).collect();
                    outln!("  {:<16}   {:<9} reads {} events", "", p.name(), reads.join(", "));
                }
                let profiles = s.program.profiles();
                if !profiles.is_empty() {
                    outln!("\nProfiles (--profile NAME; the first is the default, --set applies on top):");
                    for p in profiles {
                        outln!("  {:<16} {}", p.name, p.summary);
                        let sets = match p.settings {
                            [] => "nothing (the parameters' defaults)".to_string(),
                            settings => settings.join(" "),
                        };
                        outln!("  {:<16} sets: {sets}", "");
                    }
                }
            }
        }
        match name {
            None => outln!("\nParameters by subject (override with --set KEY=VALUE; `locksim list SCENARIO` shows one scenario's):"),
            Some(name) => outln!("\nParameters {name} uses (override with --set KEY=VALUE):"),
        }
        for group in groups {
            outln!("  {}:", group.name);
            for p in group.params {
                outln!("    {:<22} {:<8} {}", p.key, shown(&defaults[p.key]), p.text());
            }
        }
        if targeted {
            outln!("\n{TARGETED_FAULTS}");
        }
    });
    Status::Clean
}

fn violations_json(report: &RunReport, seed: u64, trace: Option<&Path>) -> Vec<Value> {
    report
        .violations
        .iter()
        .map(|v| json!({ "property": v.property, "seed": seed, "trace": trace.map(|p| p.display().to_string()), "detail": v.detail, "clients": v.clients, "times_ms": v.times_ms }))
        .collect()
}

/// "1 fault", "3 faults".
fn faults(count: usize) -> String {
    format!("{count} fault{}", if count == 1 { "" } else { "s" })
}

fn print_history(report: &RunReport) {
    for e in &report.history.events {
        outln!("{}", serde_json::to_string(e).expect("event serialises"));
    }
}

/// The violations, each on a line, then (if there are any) how they came about; for a clean
/// run, what the checkers saw put to the test.
fn print_violations(report: &RunReport) {
    if report.violations.is_empty() {
        outln!("  no violations");
        for w in &report.witnesses {
            outln!("  seen ({}): {}", w.property, w.detail);
        }
        return;
    }
    for v in &report.violations {
        outln!("  VIOLATION {v}");
    }
    outln!("  timeline (true time):");
    print_timeline(report);
}

fn print_timeline(report: &RunReport) {
    for line in timeline::timeline(&report.history, &report.violations, &report.plan) {
        outln!("  {line}");
    }
}

/// `locksim bench SCENARIO`: `runs` seeds of the scenario against a bare turmoil
/// simulation, best of `trials` (1..=100) each.
pub fn bench(
    out: &Output,
    scenario: &str,
    profile: Option<&str>,
    set: &[String],
    (runs, trials): (u32, u32),
) -> Status {
    let scenario = match scenario::find(scenario) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e.to_string()),
    };
    if runs == 0 {
        return out.bad_input("--runs must be at least 1");
    }
    if !(1..=100).contains(&trials) {
        return out.bad_input("--trials must be within 1..=100");
    }
    let params = match scenario.params(profile, set) {
        Ok(p) => p,
        Err(e) => return out.bad_input(&e.to_string()),
    };
    let b = crate::bench::measure(scenario, &params, runs, trials);
    out.emit(serde_json::to_value(&b).expect("bench serialises"), || {
        outln!("{b}")
    });
    Status::Clean
}
