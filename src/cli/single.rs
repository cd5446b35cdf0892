//! `locksim run` and `locksim replay`: one run each, printed in full.

use super::{
    Options, Output, Status, faults, params_line, print_history, print_timeline, print_violations,
    setup, violations_json,
};
use crate::check::Property;
use crate::explore;
use crate::html;
use crate::trace::{self, Trace};
use crate::world::run::{self, RunSpec};
use serde_json::json;
use std::path::Path;

/// `locksim run SCENARIO --seed N`: one run with the plan drawn from the seed, its trace
/// written when it found something (or `save` asks), its history printed when `history`
/// asks.
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
        let trace = Trace::of(&spec, &report);
        let saved = trace
            .save(&opts.traces)
            .and_then(|p| html::write_beside(&p, &trace, &report).map(|_| p));
        match saved {
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
        "witnesses": report.witnesses,
        "digest": report.digest, "end_ms": report.end_ms, "completed": report.completed,
        "trace": trace_path.as_ref().map(|p| p.display().to_string()),
        "html": trace_path.as_ref().map(|p| p.with_extension("html").display().to_string()),
    });
    out.emit(value, || {
        if history {
            print_history(&report);
        }
        outln!(
            "run {} seed={seed} {}",
            scenario.name,
            params_line(out, scenario, &spec.params)
        );
        for f in &spec.plan.0 {
            outln!("  fault at {:>5} ms: {}", f.at_ms, f.fault);
        }
        outln!(
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
            outln!(
                "  trace: {}\n  picture: {}\n  replay: locksim replay {}",
                p.display(),
                p.with_extension("html").display(),
                p.display()
            );
        }
    });
    status
}

/// `locksim replay FILE`: rebuilds the run from the trace file alone and says whether its
/// verdict (and history digest) match; `history` and `timeline` print more of it, and
/// `html` names a file to write its picture into.
pub fn replay(
    out: &Output,
    file: &Path,
    history: bool,
    timeline: bool,
    html: Option<&Path>,
) -> Status {
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
    if let Some(page) = html {
        let drawn = html::render(&replayed.report, &html::title(&trace, file));
        if let Err(e) = std::fs::write(page, drawn) {
            return out.bad_input(&format!("cannot write {}: {e}", page.display()));
        }
    }
    let reproduced = replayed.verdict_matches && replayed.digest_matches != Some(false);
    let value = json!({
        "scenario": trace.scenario, "seed": trace.seed, "seeds_run": 1, "trace": file.display().to_string(),
        "violations": violations_json(&replayed.report, trace.seed, Some(file)),
        "expected": trace.expect.violations, "verdict_matches": replayed.verdict_matches,
        "digest": replayed.report.digest, "digest_matches": replayed.digest_matches, "reproduced": reproduced,
        "html": html.map(|p| p.display().to_string()),
        "timeline": (timeline || !replayed.report.violations.is_empty()).then(|| crate::timeline::timeline(&replayed.report.history, &replayed.report.violations, &replayed.report.plan)),
    });
    out.emit(value, || {
        if history {
            print_history(&replayed.report);
        }
        outln!("replay {} (scenario {}, seed {}, {})", file.display(), trace.scenario, trace.seed, faults(trace.faults.0.len()));
        if let Some(page) = html {
            outln!("  picture: {}", page.display());
        }
        print_violations(&replayed.report);
        if timeline && replayed.report.violations.is_empty() {
            outln!("  timeline (true time):");
            print_timeline(&replayed.report);
        }
        let names = |ps: &[Property]| if ps.is_empty() { "none".to_string() } else { ps.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ") };
        outln!("  verdict: {} (expected {}): {}", names(&replayed.violated), names(&trace.expect.violations), if replayed.verdict_matches { "as recorded" } else { "DIFFERS" });
        match replayed.digest_matches {
            Some(true) => outln!("  digest {}: as recorded", replayed.report.digest),
            Some(false) => outln!("  digest {}: DIFFERS from {} (non-determinism, or the trace is from another version)", replayed.report.digest, trace.digest.as_deref().unwrap_or("")),
            None => outln!("  digest {} (the trace records none)", replayed.report.digest),
        }
    });
    if reproduced {
        Status::Clean
    } else {
        Status::Violation
    }
}
