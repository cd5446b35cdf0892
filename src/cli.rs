//! What the `locksim` commands do and print. Text for people, one JSON object with `--json`.
//! Bad input is one line on stderr and exit status 2, never a panic.

use crate::check::Property;
use crate::explore::{self, Exploration, ExploreSpec, Finding, Outcome};
use crate::params::{self, Params};
use crate::scenario::{self, SCENARIOS, Scenario};
use crate::sim::run::{self, RunReport, RunSpec};
use crate::trace::{self, Trace};
use serde_json::{Value, json};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Exit statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Clean = 0,
    Violation = 1,
    BadInput = 2,
    HarnessError = 3,
}

pub struct Output {
    pub json: bool,
}

impl Output {
    fn emit(&self, value: Value, text: impl FnOnce()) {
        if self.json {
            println!("{value}");
        } else {
            text();
        }
    }

    /// Reports bad usage or input: one line on stderr, or one JSON object on stdout.
    pub fn bad_input(&self, message: &str) -> Status {
        self.error(message, Status::BadInput)
    }

    fn error(&self, message: &str, status: Status) -> Status {
        if self.json {
            println!("{}", json!({ "error": message, "status": status as u8 }));
        } else {
            eprintln!("locksim: error: {message}");
        }
        status
    }
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub set: Vec<String>,
    pub check: Vec<Property>,
    pub check_determinism: bool,
    pub traces: PathBuf,
}

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
    let mut params = Params::default();
    for assignment in &opts.set {
        params.set(assignment).map_err(|e| e.to_string())?;
    }
    let properties = if opts.check.is_empty() {
        scenario.properties.to_vec()
    } else {
        opts.check.clone()
    };
    Ok((scenario, params, properties))
}

fn params_line(params: &Params) -> String {
    let Ok(Value::Object(map)) = serde_json::to_value(params) else {
        unreachable!("params are an object")
    };
    map.iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn list(out: &Output) -> Status {
    let defaults = serde_json::to_value(Params::default()).expect("params serialise");
    let scenarios: Vec<Value> = SCENARIOS
        .iter()
        .map(|s| json!({ "name": s.name, "summary": s.summary, "properties": s.properties, "flaw": s.flaw }))
        .collect();
    let params: Vec<Value> = params::DOCS
        .iter()
        .map(|(k, doc)| json!({ "name": k, "default": defaults[k], "doc": doc }))
        .collect();
    out.emit(json!({ "scenarios": scenarios, "params": params }), || {
        println!("Scenarios:");
        for s in SCENARIOS {
            println!("  {:<16} {}", s.name, s.summary);
            let props: Vec<_> = s.properties.iter().map(|p| p.name()).collect();
            print!("  {:<16} checks: {}", "", props.join(", "));
            if !s.flaw.is_empty() {
                let flaw: Vec<_> = s.flaw.iter().map(|p| p.name()).collect();
                print!("; the harness must find: {}", flaw.join(", "));
            }
            println!();
        }
        println!("\nParameters (every scenario; override with --set KEY=VALUE):");
        for (k, doc) in params::DOCS {
            let v = &defaults[*k];
            let v = v.as_str().map_or(v.to_string(), str::to_string);
            println!("  {k:<22} {v:<8} {doc}");
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

fn print_history(report: &RunReport) {
    for e in &report.history.events {
        println!("{}", serde_json::to_string(e).expect("event serialises"));
    }
}

pub fn run(
    out: &Output,
    scenario: &str,
    seed: u64,
    opts: &Options,
    history: bool,
    save: bool,
) -> Status {
    let (scenario, params, properties) = match setup(scenario, opts) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e),
    };
    let spec = RunSpec {
        properties,
        ..RunSpec::generated(scenario, params, seed)
    };
    let report = match run::run(&spec) {
        Ok(r) => r,
        Err(e) => return out.error(&format!("seed {seed}: {e}"), Status::HarnessError),
    };
    if opts.check_determinism {
        match run::run(&spec) {
            Ok(again) => {
                if let Some(detail) = explore::divergence(&report, &again) {
                    return out.error(
                        &format!("non-determinism at seed {seed}: {detail}"),
                        Status::HarnessError,
                    );
                }
            }
            Err(e) => return out.error(&format!("seed {seed}: {e}"), Status::HarnessError),
        }
    }
    let trace_path = if save || !report.violations.is_empty() {
        match Trace::of(&spec, &report).save(&opts.traces) {
            Ok(p) => Some(p),
            Err(e) => {
                return out.error(
                    &format!("cannot write trace into {}: {e}", opts.traces.display()),
                    Status::HarnessError,
                );
            }
        }
    } else {
        None
    };
    let status = if report.violations.is_empty() {
        Status::Clean
    } else {
        Status::Violation
    };
    let value = json!({
        "scenario": scenario.name, "seed": seed, "seeds_run": 1,
        "params": spec.params, "faults": spec.plan,
        "violations": violations_json(&report, seed, trace_path.as_deref()),
        "digest": report.digest, "end_ms": report.end_ms, "completed": report.completed,
        "trace": trace_path.as_ref().map(|p| p.display().to_string()),
    });
    out.emit(value, || {
        if history {
            print_history(&report);
        }
        println!(
            "run {} seed={seed} {}",
            scenario.name,
            params_line(&spec.params)
        );
        for f in &spec.plan.0 {
            println!("  fault at {:>5} ms: {}", f.at_ms, f.fault);
        }
        println!(
            "  ended at {} ms ({}), history digest {}",
            report.end_ms,
            if report.completed {
                "workload done"
            } else {
                "run limit"
            },
            report.digest
        );
        print_violations(&report);
        if let Some(p) = &trace_path {
            println!(
                "  trace: {}\n  replay: locksim replay {}",
                p.display(),
                p.display()
            );
        }
    });
    status
}

fn print_violations(report: &RunReport) {
    if report.violations.is_empty() {
        println!("  no violations");
    }
    for v in &report.violations {
        println!("  VIOLATION {v}");
    }
}

fn jobs_default(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What one exploration found, for printing and JSON.
struct Explored {
    scenario: &'static Scenario,
    seeds: Range<u64>,
    exploration: Exploration,
    trace: Option<PathBuf>,
}

fn explore_one(spec: &ExploreSpec, traces: &Path) -> Result<Explored, String> {
    let exploration = explore::explore(spec);
    let trace = match &exploration.outcome {
        Outcome::Violation(f) => Some(
            Trace::of(&f.spec, &f.report)
                .save(traces)
                .map_err(|e| format!("cannot write trace into {}: {e}", traces.display()))?,
        ),
        _ => None,
    };
    Ok(Explored {
        scenario: spec.scenario,
        seeds: spec.seeds.clone(),
        exploration,
        trace,
    })
}

fn explored_json(e: &Explored) -> Value {
    let (violations, extra) = match &e.exploration.outcome {
        Outcome::Violation(f) => (
            violations_json(&f.report, f.spec.seed, e.trace.as_deref()),
            json!({ "seed": f.spec.seed, "faults_before_shrink": f.original_faults, "faults": f.spec.plan,
                    "replay": e.trace.as_ref().map(|p| format!("locksim replay {}", p.display())) }),
        ),
        Outcome::HarnessError { seed, error } => (
            vec![],
            json!({ "seed": seed, "harness_error": error.to_string() }),
        ),
        Outcome::Nondeterminism { seed, detail } => {
            (vec![], json!({ "seed": seed, "nondeterminism": detail }))
        }
        Outcome::Clean => (vec![], json!({})),
    };
    let mut v = json!({
        "scenario": e.scenario.name, "seeds": format!("{}..{}", e.seeds.start, e.seeds.end),
        "seeds_run": e.exploration.seeds_run, "violations": violations,
    });
    if let (Value::Object(a), Value::Object(b)) = (&mut v, extra) {
        a.extend(b);
    }
    v
}

fn status_of(e: &Explored) -> Status {
    match e.exploration.outcome {
        Outcome::Clean => Status::Clean,
        Outcome::Violation(_) => Status::Violation,
        Outcome::HarnessError { .. } | Outcome::Nondeterminism { .. } => Status::HarnessError,
    }
}

fn print_explored(e: &Explored) {
    match &e.exploration.outcome {
        Outcome::Clean => println!("  no violations in {} seeds", e.exploration.seeds_run),
        Outcome::Violation(f) => print_finding(f, e),
        Outcome::HarnessError { seed, error } => {
            println!("  HARNESS ERROR at seed {seed}: {error}")
        }
        Outcome::Nondeterminism { seed, detail } => {
            println!("  NON-DETERMINISM at seed {seed}: {detail}")
        }
    }
}

fn print_finding(f: &Finding, e: &Explored) {
    println!(
        "  violation at seed {} (after {} seeds)",
        f.spec.seed, e.exploration.seeds_run
    );
    print_violations(&f.report);
    println!(
        "  fault plan shrunk from {} to {} faults:",
        f.original_faults,
        f.spec.plan.0.len()
    );
    for t in &f.spec.plan.0 {
        println!("    at {:>5} ms: {}", t.at_ms, t.fault);
    }
    if let Some(p) = &e.trace {
        println!(
            "  trace: {}\n  replay: locksim replay {}",
            p.display(),
            p.display()
        );
    }
}

pub fn explore(
    out: &Output,
    scenario: &str,
    seeds: Range<u64>,
    jobs: Option<usize>,
    opts: &Options,
) -> Status {
    let (scenario, params, properties) = match setup(scenario, opts) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e),
    };
    let jobs = jobs_default(jobs);
    if jobs == 0 {
        return out.bad_input("--jobs must be at least 1");
    }
    if !out.json {
        println!(
            "explore {} seeds={}..{} jobs={jobs} {}",
            scenario.name,
            seeds.start,
            seeds.end,
            params_line(&params)
        );
    }
    let spec = ExploreSpec {
        scenario,
        params,
        properties,
        seeds,
        jobs,
        check_determinism: opts.check_determinism,
    };
    let explored = match explore_one(&spec, &opts.traces) {
        Ok(e) => e,
        Err(e) => return out.error(&e, Status::HarnessError),
    };
    out.emit(explored_json(&explored), || print_explored(&explored));
    status_of(&explored)
}

/// Seeds per scenario of the default exploration (`locksim` with no command).
pub const DEFAULT_SEEDS: u64 = 500;

pub fn default_exploration(out: &Output) -> Status {
    let jobs = jobs_default(None);
    let mut rows = Vec::new();
    for scenario in SCENARIOS {
        let spec = ExploreSpec {
            scenario,
            params: Params::default(),
            properties: scenario.properties.to_vec(),
            seeds: 0..DEFAULT_SEEDS,
            jobs,
            check_determinism: false,
        };
        match explore_one(&spec, Path::new("traces")) {
            Ok(e) => rows.push(e),
            Err(e) => return out.error(&e, Status::HarnessError),
        }
    }
    let status = rows
        .iter()
        .map(status_of)
        .max_by_key(|s| *s as u8)
        .unwrap_or(Status::Clean);
    out.emit(json!({ "findings": rows.iter().map(explored_json).collect::<Vec<_>>() }), || {
        println!("Explored every scenario, seeds 0..{DEFAULT_SEEDS}, {jobs} jobs, default parameters (see `locksim list`).\n");
        println!("{:<16} {:>5}  {:<28} {:>12}  trace", "scenario", "runs", "violations", "first seed");
        for e in &rows {
            let (found, seed) = match &e.exploration.outcome {
                Outcome::Clean => ("none".to_string(), "-".to_string()),
                Outcome::Violation(f) => (trace::violated(&f.report).iter().map(|p| p.name()).collect::<Vec<_>>().join(", "), f.spec.seed.to_string()),
                Outcome::HarnessError { seed, .. } => ("HARNESS ERROR".into(), seed.to_string()),
                Outcome::Nondeterminism { seed, .. } => ("NON-DETERMINISM".into(), seed.to_string()),
            };
            let trace = e.trace.as_ref().map_or("-".to_string(), |p| p.display().to_string());
            println!("{:<16} {:>5}  {:<28} {:>12}  {trace}", e.scenario.name, e.exploration.seeds_run, found, seed);
        }
        println!("\nFlawed variants (zk-lock-*) are negative controls: finding their flaw is the expected result.");
        println!("Replay a finding with: locksim replay TRACE");
    });
    status
}

pub fn replay(out: &Output, file: &Path, history: bool) -> Status {
    let trace = match Trace::load(file) {
        Ok(t) => t,
        Err(e) => return out.bad_input(&e.to_string()),
    };
    let replayed = match trace::replay(&trace, file) {
        Ok(r) => r,
        Err(
            e @ (trace::TraceError::Run(_, run::RunError::Software(_))
            | trace::TraceError::Run(_, run::RunError::Malformed(_))),
        ) => {
            return out.error(&e.to_string(), Status::HarnessError);
        }
        Err(e) => return out.bad_input(&e.to_string()),
    };
    let reproduced = replayed.verdict_matches && replayed.digest_matches != Some(false);
    let value = json!({
        "scenario": trace.scenario, "seed": trace.seed, "seeds_run": 1, "trace": file.display().to_string(),
        "violations": violations_json(&replayed.report, trace.seed, Some(file)),
        "expected": trace.expect.violations, "verdict_matches": replayed.verdict_matches,
        "digest": replayed.report.digest, "digest_matches": replayed.digest_matches, "reproduced": reproduced,
    });
    out.emit(value, || {
        if history {
            print_history(&replayed.report);
        }
        println!("replay {} (scenario {}, seed {}, {} faults)", file.display(), trace.scenario, trace.seed, trace.faults.0.len());
        print_violations(&replayed.report);
        let names = |ps: &[Property]| if ps.is_empty() { "none".to_string() } else { ps.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ") };
        println!("  verdict: {} (expected {}): {}", names(&replayed.violated), names(&trace.expect.violations), if replayed.verdict_matches { "as recorded" } else { "DIFFERS" });
        match replayed.digest_matches {
            Some(true) => println!("  digest {}: as recorded", replayed.report.digest),
            Some(false) => println!("  digest {}: DIFFERS from {} (non-determinism, or the trace is from another version)", replayed.report.digest, trace.digest.as_deref().unwrap_or("")),
            None => println!("  digest {} (the trace records none)", replayed.report.digest),
        }
    });
    if reproduced {
        Status::Clean
    } else {
        Status::Violation
    }
}

pub fn bench(out: &Output, scenario: &str, runs: u32) -> Status {
    let scenario = match scenario::find(scenario) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e.to_string()),
    };
    if runs == 0 {
        return out.bad_input("--runs must be at least 1");
    }
    let b = crate::bench::measure(scenario, &Params::default(), runs);
    out.emit(serde_json::to_value(&b).expect("bench serialises"), || {
        b.print()
    });
    Status::Clean
}
