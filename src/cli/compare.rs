//! `locksim compare`: the guided search against random exploration, side by side.

use super::compare_svg;
use super::progress::Progress;
use super::{Output, Status};
use crate::explore::compare::{self, CompareSpec, Comparison, Side};
use crate::scenario;
use serde_json::{Value, json};
use std::path::PathBuf;

/// What `compare` is asked for, besides the scenarios.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Seed ranges and campaigns.
    pub samples: u64,
    /// The runs of each.
    pub runs: u64,
    /// Parallel simulations (default: the cores).
    pub jobs: Option<usize>,
    /// A named profile of each scenario.
    pub profile: Option<String>,
    /// Parameter overrides.
    pub set: Vec<String>,
    /// Go on after findings and count them (`CompareSpec::rate`).
    pub rate: bool,
    /// Where to draw the comparison as an SVG picture.
    pub svg: Option<PathBuf>,
}

/// The budget at which coverage is compared besides the whole one (or the whole one, when
/// that is smaller).
const EARLY_RUNS: u64 = 100;

fn early(runs: u64) -> u64 {
    EARLY_RUNS.min(runs)
}

/// `locksim compare SCENARIO...`: for each scenario, `samples` seed ranges of `runs` seeds and
/// campaigns `0..samples` of `runs` runs, each to its first finding; a table (or JSON) of the
/// runs each side took and the transitions each covered, and with `svg` a picture of them.
pub fn compare(out: &Output, names: &[String], options: &CompareOptions) -> Status {
    let CompareOptions {
        samples,
        runs,
        jobs,
        rate,
        ..
    } = *options;
    if let Some(svg) = &options.svg
        && let Some(dir) = svg.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return out.bad_input(&format!(
            "--svg {}: {} is not a directory",
            svg.display(),
            dir.display()
        ));
    }
    let mut specs = Vec::new();
    for name in names {
        let scenario = match scenario::find(name) {
            Ok(s) => s,
            Err(e) => return out.bad_input(&e.to_string()),
        };
        let params = match scenario.params(options.profile.as_deref(), &options.set) {
            Ok(p) => p,
            Err(e) => return out.bad_input(&format!("{name}: {e}")),
        };
        specs.push(CompareSpec {
            scenario: scenario.clone(),
            params,
            properties: scenario.properties.to_vec(),
            samples,
            runs,
            jobs: super::explore::jobs_default(jobs),
            rate,
        });
    }
    if !out.json {
        outln!(
            "compare random and guided: {samples} samples of {runs} runs (seeds k*{runs}..(k+1)*{runs}, campaigns 0..{samples})"
        );
        let rates = if rate { "   per 1000 runs" } else { "" };
        outln!(
            "{:<28} {:>14} {:>7} {:>14} {:>7}   transitions at {} / {runs} runs{rates}",
            "scenario",
            "random median",
            "found",
            "guided median",
            "found",
            early(runs)
        );
    }
    let progress = Progress::up_to(out, specs.len() as u64 * samples * runs * 2);
    let (mut rows, mut drawn) = (Vec::new(), Vec::new());
    for spec in &specs {
        progress.set_label(spec.scenario.name.to_string());
        let c = compare::compare(spec, &progress);
        if !out.json {
            progress.suspend(|| print_row(spec, &c));
        }
        rows.push(row_json(spec, &c));
        drawn.push((spec.clone(), c));
    }
    progress.finish();
    if let Some(svg) = &options.svg
        && let Err(e) = std::fs::write(svg, compare_svg::draw(&drawn))
    {
        return out.bad_input(&format!("--svg {}: cannot write it: {e}", svg.display()));
    }
    if out.json {
        outln!(
            "{}",
            json!({ "samples": samples, "runs": runs, "rate": rate, "scenarios": rows })
        );
    }
    Status::Clean
}

fn print_row(spec: &CompareSpec, c: &Comparison) {
    let side = |s: &Side| {
        format!(
            "{:>14} {:>7}",
            s.median_runs(spec.runs),
            format!("{}/{}", s.found(), spec.samples)
        )
    };
    let covered = |s: &Side| {
        format!(
            "{} / {}",
            s.median_transitions_at(early(spec.runs)),
            s.median_transitions_at(spec.runs)
        )
    };
    let rates = if spec.rate {
        let rate = |s: &Side| format!("{:.1}", s.rate_per_1000(spec.runs));
        format!("   random {} | guided {}", rate(&c.random), rate(&c.guided))
    } else {
        String::new()
    };
    outln!(
        "{:<28} {} {}   random {} | guided {}{rates}",
        spec.scenario.name,
        side(&c.random),
        side(&c.guided),
        covered(&c.random),
        covered(&c.guided)
    );
    if spec.rate {
        let sources: Vec<String> = c
            .guided
            .sources
            .iter()
            .filter(|(_, t)| t.made > 0)
            .map(|(name, t)| format!("{name} {:.1} of {}", t.found_per_1000(), t.made))
            .collect();
        outln!(
            "  guided, found per 1000 runs by source: {}",
            sources.join(", ")
        );
    }
}

fn side_json(spec: &CompareSpec, s: &Side) -> Value {
    let mut side = json!({
        "median_runs": s.median_runs(spec.runs),
        "found": s.found(),
        "found_at": s.found_at,
        "transitions": { "early_runs": early(spec.runs), "early": s.median_transitions_at(early(spec.runs)),
                         "all": s.median_transitions_at(spec.runs) },
        "coverage": s.curves.iter().map(|c| c.iter().map(|(r, t)| json!([r, t])).collect::<Vec<_>>()).collect::<Vec<_>>(),
    });
    if spec.rate {
        side["failed"] = json!(s.failed);
        side["per_1000_runs"] = json!(s.rate_per_1000(spec.runs));
    }
    if !s.sources.is_empty() {
        side["sources"] = json!(
            s.sources
                .iter()
                .map(
                    |(name, t)| json!({ "source": name, "made": t.made, "new": t.new,
                                         "found": t.found, "found_per_1000": t.found_per_1000() })
                )
                .collect::<Vec<_>>()
        );
    }
    side
}

fn row_json(spec: &CompareSpec, c: &Comparison) -> Value {
    json!({
        "scenario": spec.scenario.name,
        "random": side_json(spec, &c.random),
        "guided": side_json(spec, &c.guided),
    })
}
