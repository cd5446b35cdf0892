//! `locksim explore SCENARIO --guided`: one campaign (`explore::guided`).

use super::explore::{
    jobs_default, outcome_json, print_broken, print_shrunk, status_of, write_trace,
};
use super::progress::Progress;
use super::{Options, Output, Status, params_line, setup};
use crate::explore::Outcome;
use crate::explore::guided::{self, GuidedSpec};
use serde_json::json;

/// `locksim explore SCENARIO --guided`: a campaign of `runs` runs from the campaign seed
/// (`explore::guided`) on `jobs` threads, stopping at its first finding, whose plan is shrunk
/// and whose trace is written as `explore` writes it.
pub fn explore_guided(
    out: &Output,
    scenario: &str,
    (campaign, runs): (u64, u64),
    jobs: Option<usize>,
    opts: &Options,
) -> Status {
    let (scenario, params, properties) = match setup(scenario, opts) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e),
    };
    let jobs = jobs_default(jobs);
    if !out.json {
        outln!(
            "explore {} guided campaign={campaign} runs={runs} jobs={jobs} {}",
            scenario.name,
            params_line(out, scenario, &params)
        );
    }
    let progress = Progress::new(out, runs);
    let spec = GuidedSpec {
        scenario: scenario.clone(),
        params,
        properties,
        campaign,
        runs,
        jobs,
        check_determinism: opts.check_determinism,
    };
    let found = guided::guided(&spec, &progress);
    progress.finish();
    let trace = match &found.outcome {
        Outcome::Violation(f) => match write_trace(f, &opts.traces) {
            Ok(p) => Some(p),
            Err(e) => return out.error(&e, Status::HarnessError),
        },
        _ => None,
    };
    let mut json = outcome_json(&found.outcome, trace.as_deref());
    json["scenario"] = json!(scenario.name);
    json["guided"] = json!({ "campaign": campaign, "budget": runs });
    json["runs"] = json!(found.runs);
    json["corpus"] = json!(found.corpus);
    json["corpus_digest"] = json!(found.corpus_digest);
    json["transitions"] = json!(found.transitions);
    json["coverage"] = json!(
        found
            .curve
            .iter()
            .map(|(r, t)| json!({ "runs": r, "transitions": t }))
            .collect::<Vec<_>>()
    );
    json["mutations"] = json!(
        found
            .mutations
            .iter()
            .map(|(m, wins, tries)| json!({ "mutation": m, "new": wins, "made": tries }))
            .collect::<Vec<_>>()
    );
    out.emit(json, || {
        let covered = format!("corpus {}, {} transitions", found.corpus, found.transitions);
        match &found.outcome {
            Outcome::Violation(f) => {
                outln!(
                    "  violation at run {} (seed {}; {covered})",
                    found.runs,
                    f.spec.seed
                );
                print_shrunk(f, trace.as_deref());
            }
            Outcome::Clean => outln!("  no violations in {} runs ({covered})", found.runs),
            broken => print_broken(broken),
        }
    });
    status_of(&found.outcome)
}
