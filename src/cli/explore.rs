//! `locksim explore` (over seeds; `guided.rs` runs a campaign), and what it shares with the
//! default run (`default_run.rs`).

use super::identity::{Identity, Search};
use super::progress::Progress;
use super::report;
use super::{
    Options, Output, Status, faults, params_line, print_violations, setup, violations_json,
};
use crate::check::Property;
use crate::explore::guided::GuidedSpec;
use crate::explore::{self, Exploration, ExploreSpec, Finding, Outcome, Shard};
use crate::scenario::Scenario;
use crate::trace::Trace;
use serde_json::{Value, json};
use std::ops::Range;
use std::path::{Path, PathBuf};

pub(super) fn jobs_default(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What one exploration found, for printing and JSON.
pub(super) struct Explored {
    pub scenario: Scenario,
    /// The whole range (of which a shard explored one block).
    pub seeds: Range<u64>,
    /// The shard it is, if it is one.
    pub shard: Option<Shard>,
    pub exploration: Exploration,
    pub trace: Option<PathBuf>,
    /// With `--every-property`, the trace of each of `exploration.by_property`, in its
    /// order; None without it.
    pub by_property: Option<Vec<PathBuf>>,
}

/// Explores `spec` (on after a finding, to each property's first, when `every_property`)
/// and writes the traces of what it found into `traces`.
pub(super) fn explore_one(
    spec: &ExploreSpec,
    every_property: bool,
    traces: &Path,
    progress: &Progress,
) -> Result<Explored, String> {
    let exploration = match every_property {
        true => explore::explore_every_property(spec, progress),
        false => explore::explore_observed(spec, progress),
    };
    let by_property = exploration
        .by_property
        .iter()
        .map(|(p, f)| write_trace(f, Some(*p), traces))
        .collect::<Result<Vec<PathBuf>, String>>()?;
    let trace = match (&exploration.outcome, by_property.first()) {
        (Outcome::Violation(_), Some(first)) => Some(first.clone()),
        (Outcome::Violation(f), None) => Some(write_trace(f, None, traces)?),
        _ => None,
    };
    Ok(Explored {
        scenario: spec.scenario.clone(),
        seeds: spec.seeds.clone(),
        shard: None,
        exploration,
        trace,
        by_property: every_property.then_some(by_property),
    })
}

/// Writes the finding's trace into `traces` (named for `property` too, when it is that
/// property's first finding of `--every-property`); returns its path.
pub(super) fn write_trace(
    f: &Finding,
    property: Option<Property>,
    traces: &Path,
) -> Result<PathBuf, String> {
    let trace = Trace::of(&f.spec, &f.report);
    match property {
        Some(p) => trace.save_for(traces, p),
        None => trace.save(traces),
    }
    .and_then(|p| crate::html::write_beside(&p, &trace, &f.report).map(|_| p))
    .map_err(|e| format!("cannot write trace into {}: {e}", traces.display()))
}

pub(super) fn explored_json(e: &Explored) -> Value {
    let mut v = outcome_json(&e.exploration.outcome, e.trace.as_deref());
    v["scenario"] = json!(e.scenario.name);
    v["seeds"] = json!(format!("{}..{}", e.seeds.start, e.seeds.end));
    v["seeds_run"] = json!(e.exploration.seeds_run);
    v["witnessed"] = e.exploration.witnessed.iter().map(|w| json!({
        "property": w.property, "seeds": w.seeds, "first_seed": w.first_seed, "detail": w.detail,
    })).collect();
    if let Some(traces) = &e.by_property {
        let firsts = e.exploration.by_property.iter().zip(traces);
        v["by_property"] = firsts
            .map(|((p, f), trace)| {
                let mut found = outcome_json(&Outcome::Violation(Box::new(f.clone())), Some(trace));
                found["property"] = json!(p);
                found
            })
            .collect();
    }
    if let Some(shard) = e.shard {
        let block = shard.seeds(&e.seeds);
        v["shard"] = json!({ "index": shard.index(), "count": shard.count(),
                             "seeds": format!("{}..{}", block.start, block.end) });
    }
    v
}

/// What an exploration found, as JSON fields: `violations` (empty unless it found one),
/// and for a finding its `seed` and more (its shrunk plan, or the error).
pub(super) fn outcome_json(outcome: &Outcome, trace: Option<&Path>) -> Value {
    let (violations, mut extra) = match outcome {
        Outcome::Violation(f) => (
            violations_json(&f.report, f.spec.seed, trace),
            json!({ "seed": f.spec.seed, "faults_before_shrink": f.original_faults, "faults": f.spec.plan,
                    "replay": trace.map(|p| format!("locksim replay {}", p.display())) }),
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
    extra["violations"] = json!(violations);
    extra
}

pub(super) fn status_of(outcome: &Outcome) -> Status {
    match outcome {
        Outcome::Clean => Status::Clean,
        Outcome::Violation(_) => Status::Violation,
        Outcome::HarnessError { .. } | Outcome::Nondeterminism { .. } => Status::HarnessError,
    }
}

pub(super) fn print_explored(e: &Explored) {
    match &e.exploration.outcome {
        Outcome::Clean => {
            outln!("  no violations in {} seeds", e.exploration.seeds_run);
            for line in witnessed_lines(e) {
                outln!("  {line}");
            }
        }
        Outcome::Violation(_) if let Some(traces) = &e.by_property => print_firsts(e, traces),
        Outcome::Violation(f) => print_finding(f, e),
        broken => print_broken(broken),
    }
}

/// Each property's first finding (`--every-property`): a line naming them all, then each
/// as a finding prints.
fn print_firsts(e: &Explored, traces: &[PathBuf]) {
    outln!(
        "  first violation of each property (after {} seeds): {}",
        e.exploration.seeds_run,
        e.exploration.first_seeds()
    );
    for ((p, f), trace) in e.exploration.by_property.iter().zip(traces) {
        outln!("  {p}, first at seed {}:", f.spec.seed);
        print_shrunk(f, Some(trace));
    }
}

/// A harness error or a divergence, on its line (nothing for a clean run or a violation).
pub(super) fn print_broken(outcome: &Outcome) {
    match outcome {
        Outcome::HarnessError { seed, error } => {
            outln!("  HARNESS ERROR at seed {seed}: {error}")
        }
        Outcome::Nondeterminism { seed, detail } => {
            outln!("  NON-DETERMINISM at seed {seed}: {detail}")
        }
        Outcome::Clean | Outcome::Violation(_) => {}
    }
}

/// What the checkers saw put to the test, a line per property: "rw-exclusion seen in 1873
/// of 2000 seeds (seed 0: ...)".
pub(super) fn witnessed_lines(e: &Explored) -> Vec<String> {
    e.exploration
        .witnessed
        .iter()
        .map(|w| {
            format!(
                "{} seen in {} of {} seeds (seed {}: {})",
                w.property, w.seeds, e.exploration.seeds_run, w.first_seed, w.detail
            )
        })
        .collect()
}

fn print_finding(f: &Finding, e: &Explored) {
    outln!(
        "  violation at seed {} (after {} seeds)",
        f.spec.seed,
        e.exploration.seeds_run
    );
    print_shrunk(f, e.trace.as_deref());
}

/// A finding's violations, its shrunk plan and where its trace is.
pub(super) fn print_shrunk(f: &Finding, trace: Option<&Path>) {
    print_violations(&f.report);
    outln!(
        "  fault plan shrunk from {} to {}:",
        f.original_faults,
        faults(f.spec.plan.0.len())
    );
    for t in &f.spec.plan.0 {
        outln!("    at {:>5} ms: {}", t.at_ms, t.fault);
    }
    if let Some(p) = trace {
        outln!(
            "  trace: {}\n  picture: {}\n  replay: locksim replay {}",
            p.display(),
            p.with_extension("html").display(),
            p.display()
        );
    }
}

/// `locksim explore SCENARIO`: explores `search`, a range of seeds (`explore_seeds`) or a
/// guided campaign (`guided::explore_guided`), or given a `shard` its part of it (see
/// `explore::shard`), on `jobs` threads (default: the cores); over a whole range, on after
/// a finding to each property's first when `every_property`. Its JSON carries what `merge`
/// needs: the identity of the whole exploration, and the finding's trace.
pub fn explore(
    out: &Output,
    scenario: &str,
    search: Search,
    shard: Option<Shard>,
    jobs: Option<usize>,
    every_property: bool,
    opts: &Options,
) -> Status {
    if every_property && !matches!(search, Search::Seeds(_)) {
        return out.bad_input(
            "--every-property goes with a range of seeds, not --guided: a campaign stops at its first finding",
        );
    }
    if every_property && shard.is_some() {
        return out.bad_input(
            "--every-property does not go with --shard: merge combines each shard's lowest failing seed, not each property's",
        );
    }
    let (scenario, params, properties) = match setup(scenario, opts) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e),
    };
    let check_determinism = opts.check_determinism;
    let identity = Identity::new(scenario, &params, &properties, check_determinism, &search);
    let (scenario, jobs) = (scenario.clone(), jobs_default(jobs));
    match search {
        Search::Seeds(seeds) => {
            let spec = ExploreSpec {
                scenario,
                params,
                properties,
                seeds,
                jobs,
                check_determinism,
            };
            let traces = &opts.traces;
            explore_seeds(out, spec, shard, every_property, &identity, traces)
        }
        Search::Guided { campaign, budget } => {
            let spec = GuidedSpec {
                scenario,
                params,
                properties,
                campaign,
                runs: budget,
                jobs,
                check_determinism,
            };
            super::guided::explore_guided(out, spec, shard, &identity, &opts.traces)
        }
    }
}

/// Runs the seeds of `spec` (or, given a `shard`, its block of them), stops at the lowest
/// failing seed (with `--every-property`, goes on to each property's first), shrinks its
/// plan and writes its trace into `--traces`.
fn explore_seeds(
    out: &Output,
    spec: ExploreSpec,
    shard: Option<Shard>,
    every_property: bool,
    identity: &Identity,
    traces: &Path,
) -> Status {
    let seeds = spec.seeds.clone();
    let block = match shard {
        Some(s) if s.count() > seeds.end - seeds.start => {
            return out.bad_input(&format!(
                "--shard {s}: {} shards over {} seeds would leave some without a seed",
                s.count(),
                seeds.end - seeds.start
            ));
        }
        Some(s) => s.seeds(&seeds),
        None => seeds.clone(),
    };
    let seeds_len = usize::try_from(block.end - block.start).unwrap_or(usize::MAX);
    let spec = ExploreSpec {
        jobs: spec.jobs.min(seeds_len),
        seeds: block.clone(),
        ..spec
    };
    if !out.json {
        let shard = shard.map_or(String::new(), |s| {
            format!(" shard={s} (seeds {}..{})", block.start, block.end)
        });
        let every = if every_property {
            " every-property"
        } else {
            ""
        };
        outln!(
            "explore {} seeds={}..{}{shard}{every} jobs={} {}",
            spec.scenario.name,
            seeds.start,
            seeds.end,
            spec.jobs,
            params_line(out, &spec.scenario, &spec.params)
        );
    }
    let progress = Progress::new(out, block.end - block.start);
    if every_property {
        progress.by_property();
    }
    let explored = explore_one(&spec, every_property, traces, &progress);
    progress.finish();
    let explored = match explored {
        Ok(e) => Explored {
            seeds: seeds.clone(),
            shard,
            ..e
        },
        Err(e) => return out.error(&e, Status::HarnessError),
    };
    let v = explored_json(&explored);
    out.emit(
        report::json(v, &explored.exploration.outcome, identity),
        || print_explored(&explored),
    );
    status_of(&explored.exploration.outcome)
}
