//! `locksim merge FILES…`: the shard reports of one exploration (`explore --shard I/N
//! --json`) combined into exactly the verdict one run over the whole range gives; or those
//! of one guided campaign (`explore --guided --shard I/N --json`) into the verdict of its
//! ensemble of sub-campaigns.
//!
//! `combine` is the pure core: it refuses reports that do not make one exploration (range
//! shards and guided shards never make one), then walks the shards in order (see
//! `explore::shard`). Of a range, the first shard that did not run clean has the whole
//! range's lowest failing seed; if none failed, the counts and witnesses add up. Of a
//! campaign, the verdict is the finding of the lowest-indexed shard that found something,
//! whatever order the shards finished in, and the runs are those of every shard, which ran
//! side by side. `merge` reads the files, replays the finding (the run of its seed with its
//! shrunk plan, which must give the digest the shard saw), writes its trace as `explore`
//! would, and prints what `explore` prints (for a campaign, each shard's line first).

use super::explore::{Explored, explored_json, print_explored, status_of, write_trace};
use super::guided::{Ensemble, Member};
use super::identity::{Build, Identity, Search};
use super::report::{self, Part, Reported, ShardReport};
use super::{Output, Status, check_traces_dir, params_line};
use crate::check::Property;
use crate::explore::{Exploration, ExploreSpec, Finding, Outcome, Shard, Witnessed};
use crate::scenario;
use crate::trace::Trace;
use crate::world::run;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The whole exploration's verdict, from its shards.
#[derive(Debug, PartialEq)]
pub(super) struct Merged {
    pub identity: Identity,
    pub shards: u64,
    /// Runs, as the whole counts them: of a range, the seeds one run would have run (all
    /// of them when clean, else those up to the lowest failing seed); of a campaign, every
    /// run of every shard.
    pub runs: u64,
    pub outcome: Reported,
    /// Of a clean range, per property, over every seed (as for one run); else empty.
    pub witnessed: Vec<Witnessed>,
    /// Of a campaign, each shard's sub-campaign in order; empty for a range.
    pub members: Vec<Member>,
    /// The file whose finding it is.
    pub source: Option<PathBuf>,
}

/// Why shard reports do not make one exploration.
#[derive(Debug, PartialEq)]
pub(super) enum MergeError {
    /// Two reports are of different explorations: what differs.
    Mismatch {
        a: PathBuf,
        b: PathBuf,
        what: String,
    },
    /// A report was made by another build than this one.
    Build { path: PathBuf, what: String },
    /// One shard given twice.
    Overlap {
        shard: Shard,
        a: PathBuf,
        b: PathBuf,
    },
    /// Shards not given, of `search`: each is named with what it holds.
    Missing { search: Search, missing: Vec<Shard> },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Mismatch { a, b, what } => write!(
                f,
                "{} and {} are shards of different explorations: {what}",
                a.display(),
                b.display()
            ),
            MergeError::Build { path, what } => write!(
                f,
                "{} was made by another build than this locksim: {what}; merge with the build that explored",
                path.display()
            ),
            MergeError::Overlap { shard, a, b } => {
                write!(
                    f,
                    "shard {shard} given twice: {} and {}",
                    a.display(),
                    b.display()
                )
            }
            MergeError::Missing { search, missing } => {
                let list: Vec<String> = missing
                    .iter()
                    .map(|s| format!("{s} ({})", search.part(*s)))
                    .collect();
                let s = if missing.len() == 1 { "" } else { "s" };
                write!(f, "missing shard{s} {}", list.join(", "))
            }
        }
    }
}

/// Combines the reports of one exploration's shards, made by `build`, into its verdict.
pub(super) fn combine(
    reports: Vec<(PathBuf, ShardReport)>,
    build: &Build,
) -> Result<Merged, MergeError> {
    let Some((first_path, first)) = reports.first() else {
        unreachable!("merge takes at least one file")
    };
    if let Some(what) = first.identity.build.difference(build) {
        return Err(MergeError::Build {
            path: first_path.clone(),
            what,
        });
    }
    let count = first.shard.count();
    let mut by_index: BTreeMap<u64, (PathBuf, ShardReport)> = BTreeMap::new();
    for (path, r) in reports.iter().cloned() {
        let what = first.identity.difference(&r.identity).or_else(|| {
            (r.shard.count() != count)
                .then(|| format!("number of shards ({count} vs {})", r.shard.count()))
        });
        if let Some(what) = what {
            return Err(MergeError::Mismatch {
                a: first_path.clone(),
                b: path,
                what,
            });
        }
        if let Some((a, _)) = by_index.get(&r.shard.index()) {
            return Err(MergeError::Overlap {
                shard: r.shard,
                a: a.clone(),
                b: path,
            });
        }
        by_index.insert(r.shard.index(), (path, r));
    }
    let missing: Vec<Shard> = (1..=count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| Shard::new(i, count).expect("within 1..=count"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            search: first.identity.search.clone(),
            missing,
        });
    }
    let mut merged = Merged {
        identity: first.identity.clone(),
        shards: count,
        runs: 0,
        outcome: Reported::Clean,
        witnessed: Vec::new(),
        members: Vec::new(),
        source: None,
    };
    let mut witnessed: BTreeMap<Property, Witnessed> = BTreeMap::new();
    for (path, r) in by_index.into_values() {
        let verdict = merged.source.is_none() && r.outcome != Reported::Clean;
        match r.part {
            Part::Block {
                seeds_run,
                witnessed: seen,
            } => {
                merged.runs += seeds_run;
                for w in seen {
                    add(&mut witnessed, w);
                }
            }
            Part::Campaign(reached) => {
                merged.runs += reached.runs;
                merged.members.push(Member {
                    shard: r.shard,
                    reached,
                    found: r.outcome.seed(),
                });
            }
        }
        if verdict {
            merged.identity = r.identity;
            merged.outcome = r.outcome;
            merged.source = Some(path);
            if matches!(merged.identity.search, Search::Seeds(_)) {
                // As one run over the range: the seeds above the lowest failing one never ran.
                return Ok(merged);
            }
        }
    }
    if merged.outcome == Reported::Clean {
        merged.witnessed = witnessed.into_values().collect();
    }
    Ok(merged)
}

/// Adds a shard's count of a witness, keeping the lowest seed's detail.
fn add(witnessed: &mut BTreeMap<Property, Witnessed>, w: Witnessed) {
    match witnessed.get_mut(&w.property) {
        None => {
            witnessed.insert(w.property, w);
        }
        Some(sum) => {
            sum.seeds += w.seeds;
            if w.first_seed < sum.first_seed {
                sum.first_seed = w.first_seed;
                sum.detail = w.detail;
            }
        }
    }
}

/// `locksim merge FILES…`: reads the shard reports, combines them, replays and writes the
/// finding's trace into `traces`, and prints (and exits) as `explore` over the whole range,
/// or for a campaign's shards, as `explore --guided` with a line per shard.
pub fn merge(out: &Output, files: &[PathBuf], traces: &Path) -> Status {
    let reports: Result<Vec<(PathBuf, ShardReport)>, String> = files
        .iter()
        .map(|p| ShardReport::read(p).map(|r| (p.clone(), r)))
        .collect();
    let merged = match reports.and_then(|r| combine(r, &Build::this()).map_err(|e| e.to_string())) {
        Ok(m) => m,
        Err(e) => return out.bad_input(&e),
    };
    let scenario = match scenario::find(&merged.identity.scenario) {
        Ok(s) => s,
        Err(e) => return out.bad_input(&e.to_string()),
    };
    let params = match scenario.params_from_json(&Value::Object(merged.identity.params.clone())) {
        Ok(p) => p,
        Err(e) => return out.bad_input(&format!("{}: {e}", scenario.name)),
    };
    if let Err(e) = check_traces_dir(traces) {
        return out.bad_input(&e);
    }
    let rerun = match &merged.identity.search {
        Search::Seeds(seeds) => Some(ExploreSpec {
            scenario: scenario.clone(),
            params: params.clone(),
            properties: merged.identity.properties.clone(),
            seeds: seeds.clone(),
            jobs: 1,
            check_determinism: merged.identity.check_determinism,
        }),
        Search::Guided { .. } => None,
    };
    let source = merged.source.clone().unwrap_or_default();
    let outcome = match replayed(merged.outcome, &source, rerun.as_ref()) {
        Ok(o) => o,
        Err(e) => return out.error(&e, Status::HarnessError),
    };
    let trace = match &outcome {
        Outcome::Violation(f) => match write_trace(f, None, traces) {
            Ok(p) => Some(p),
            Err(e) => return out.error(&e, Status::HarnessError),
        },
        _ => None,
    };
    let first_line = format!(
        "merge {} {} shards={} {}",
        scenario.name,
        match &merged.identity.search {
            Search::Seeds(s) => format!("seeds={}..{}", s.start, s.end),
            Search::Guided { campaign, budget } =>
                format!("guided campaign={campaign} runs={budget}"),
        },
        merged.shards,
        params_line(out, scenario, &params)
    );
    let status = status_of(&outcome);
    match merged.identity.search.clone() {
        Search::Seeds(seeds) => {
            let explored = Explored {
                scenario: scenario.clone(),
                seeds,
                shard: None,
                exploration: Exploration {
                    seeds_run: merged.runs,
                    outcome,
                    witnessed: merged.witnessed,
                    by_property: Vec::new(),
                },
                trace,
                by_property: None,
            };
            let v = explored_json(&explored);
            let mut v = report::json(v, &explored.exploration.outcome, &merged.identity);
            v["shards"] = json!(merged.shards);
            out.emit(v, || {
                outln!("{first_line}");
                print_explored(&explored)
            });
        }
        Search::Guided { campaign, budget } => {
            let ensemble = Ensemble {
                scenario,
                campaign,
                budget,
                members: &merged.members,
                runs: merged.runs,
                outcome: &outcome,
                trace: trace.as_deref(),
            };
            out.emit(
                report::json(ensemble.json(), &outcome, &merged.identity),
                || {
                    outln!("{first_line}");
                    ensemble.print()
                },
            );
        }
    }
    status
}

/// The whole exploration's outcome from the shard's report: a violation is replayed (its
/// seed with its shrunk plan) and must show the digest the shard saw; a harness error is
/// run again, as the seed's run of `rerun`, to have it as the error it is. A guided shard's
/// report does not hold the plan of the run that failed (`rerun` is None): its harness error
/// is the merge's, as the shard reported it.
fn replayed(
    reported: Reported,
    source: &Path,
    rerun: Option<&ExploreSpec>,
) -> Result<Outcome, String> {
    let from = source.display();
    match reported {
        Reported::Clean => Ok(Outcome::Clean),
        Reported::Nondeterminism { seed, detail } => Ok(Outcome::Nondeterminism { seed, detail }),
        Reported::HarnessError { seed, message } => {
            match rerun.map(|s| run::run(&s.spec_for(seed))) {
                Some(Err(error)) => Ok(Outcome::HarnessError { seed, error }),
                Some(Ok(_)) => Err(format!(
                    "{from}: the harness error at seed {seed} ({message}) did not recur when run again here"
                )),
                None => Err(format!("{from}: harness error at seed {seed}: {message}")),
            }
        }
        Reported::Violation {
            trace,
            faults_before_shrink,
        } => {
            let run_spec = trace.spec(source).map_err(|e| e.to_string())?;
            let report =
                run::run(&run_spec).map_err(|e| format!("{from}: seed {}: {e}", trace.seed))?;
            let again = Trace::of(&run_spec, &report);
            if again.digest != trace.digest || again.expect != trace.expect {
                return Err(format!(
                    "{from}: its finding at seed {} did not replay here (history digest {}, the shard saw {})",
                    trace.seed,
                    report.digest,
                    trace.digest.as_deref().unwrap_or("none")
                ));
            }
            Ok(Outcome::Violation(Box::new(Finding {
                spec: run_spec,
                report,
                original_faults: faults_before_shrink,
            })))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::report::Reached;
    use serde_json::{Map, Value};

    fn identity() -> Identity {
        let mut params = Map::new();
        params.insert("clients".into(), Value::from(5));
        Identity {
            scenario: "zk-lock".into(),
            search: Search::Seeds(0..400),
            params,
            properties: vec![Property::MUTEX, Property::LIVENESS],
            check_determinism: false,
            build: Build::this(),
        }
    }

    fn witnessed(seeds: u64, first_seed: u64) -> Witnessed {
        Witnessed {
            property: Property::MUTEX,
            seeds,
            first_seed,
            detail: format!("seen at {first_seed}"),
        }
    }

    /// Shard `index` of 4 over 0..400: clean with a witness in every other seed, or
    /// failing at `fails` (a divergence: it needs no trace).
    fn shard(index: u64, fails: Option<u64>) -> (PathBuf, ShardReport) {
        let shard = Shard::new(index, 4).unwrap();
        let block = shard.seeds(&(0..400));
        let (seeds_run, outcome, witnessed) = match fails {
            None => (100, Reported::Clean, vec![witnessed(50, block.start + 1)]),
            Some(seed) => {
                let detail = format!("diverged at {seed}");
                (
                    seed - block.start + 1,
                    Reported::Nondeterminism { seed, detail },
                    vec![],
                )
            }
        };
        let report = ShardReport {
            identity: identity(),
            shard,
            outcome,
            part: Part::Block {
                seeds_run,
                witnessed,
            },
        };
        (PathBuf::from(format!("shard-{index}.json")), report)
    }

    fn clean() -> Vec<(PathBuf, ShardReport)> {
        (1..=4).map(|i| shard(i, None)).collect()
    }

    fn refused(reports: Vec<(PathBuf, ShardReport)>) -> String {
        combine(reports, &Build::this()).unwrap_err().to_string()
    }

    #[test]
    fn clean_shards_add_up_their_seeds_and_witnesses_in_any_order() {
        let mut reports = clean();
        reports.reverse();
        let m = combine(reports, &Build::this()).unwrap();
        assert_eq!(
            (m.runs, m.shards, &m.outcome, &m.source),
            (400, 4, &Reported::Clean, &None)
        );
        assert_eq!(m.witnessed, [witnessed(200, 1)]);
        assert_eq!(m.identity, identity());
    }

    #[test]
    fn the_first_failing_shard_in_order_has_the_verdict_and_counts_the_seeds_before_it() {
        let mut reports = clean();
        reports[1] = shard(2, Some(150));
        reports[3] = shard(4, Some(300));
        reports.swap(1, 3);
        let m = combine(reports, &Build::this()).unwrap();
        assert_eq!(m.runs, 151, "100 of shard 1, then 100..=150");
        assert_eq!(m.outcome.seed(), Some(150));
        assert_eq!(m.source, Some(PathBuf::from("shard-2.json")));
        assert!(m.witnessed.is_empty(), "as one failing run: none");
    }

    #[test]
    fn shards_of_other_explorations_are_refused_naming_what_differs() {
        let mut reports = clean();
        reports[2]
            .1
            .identity
            .params
            .insert("clients".into(), Value::from(3));
        assert_eq!(
            refused(reports),
            "shard-1.json and shard-3.json are shards of different explorations: parameter clients (5 vs 3)"
        );
        let mut reports = clean();
        reports[3].1.identity.search = Search::Seeds(0..800);
        assert!(refused(reports).ends_with("seeds (0..400 vs 0..800)"));
        let mut reports = clean();
        reports[1].1.shard = Shard::new(2, 5).unwrap();
        assert!(refused(reports).ends_with("number of shards (4 vs 5)"));
        let mut reports = clean();
        reports[1].1.identity.build.locksim_version = "0.0.1".into();
        assert!(refused(reports).ends_with(&format!(
            "locksim version ({} vs 0.0.1)",
            env!("CARGO_PKG_VERSION")
        )));
    }

    #[test]
    fn shards_of_another_build_are_refused() {
        let other = Build {
            locksim_version: "9.9.9".into(),
            ..Build::this()
        };
        let e = combine(clean(), &other).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "shard-1.json was made by another build than this locksim: locksim version"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_shard_given_twice_is_refused() {
        let mut reports = clean();
        reports.push((PathBuf::from("again.json"), shard(3, None).1));
        assert_eq!(
            refused(reports),
            "shard 3/4 given twice: shard-3.json and again.json"
        );
    }

    #[test]
    fn missing_shards_are_named_with_their_seeds() {
        let reports: Vec<_> = clean()
            .into_iter()
            .filter(|(_, r)| r.shard.index() % 2 == 1)
            .collect();
        assert_eq!(
            refused(reports),
            "missing shards 2/4 (seeds 100..200), 4/4 (seeds 300..400)"
        );
        assert_eq!(
            refused(vec![shard(1, None)]),
            "missing shards 2/4 (seeds 100..200), 3/4 (seeds 200..300), 4/4 (seeds 300..400)"
        );
        let three: Vec<_> = clean().into_iter().take(3).collect();
        assert_eq!(refused(three), "missing shard 4/4 (seeds 300..400)");
    }

    /// Shard `index` of 4 of campaign 7 of 40 runs (10 each): clean, or finding at run
    /// `found` a divergence (it needs no trace) at seed 1000 + `index`.
    fn guided(index: u64, found: Option<u64>) -> (PathBuf, ShardReport) {
        let shard = Shard::new(index, 4).unwrap();
        let (runs, outcome) = match found {
            None => (10, Reported::Clean),
            Some(run) => {
                let seed = 1000 + index;
                let detail = format!("diverged at run {run}");
                (run, Reported::Nondeterminism { seed, detail })
            }
        };
        let report = ShardReport {
            identity: Identity {
                search: Search::Guided {
                    campaign: 7,
                    budget: 40,
                },
                ..identity()
            },
            shard,
            outcome,
            part: Part::Campaign(Reached {
                runs,
                corpus: index as usize,
                transitions: 100,
                corpus_digest: format!("digest {index}"),
            }),
        };
        (PathBuf::from(format!("guided-{index}.json")), report)
    }

    #[test]
    fn of_a_campaign_the_lowest_indexed_shard_that_found_has_the_verdict_and_every_run_counts() {
        let mut reports: Vec<_> = (1..=4).map(|i| guided(i, None)).collect();
        reports[3] = guided(4, Some(2));
        reports[1] = guided(2, Some(6));
        reports.reverse();
        let m = combine(reports, &Build::this()).unwrap();
        assert_eq!(
            m.outcome.seed(),
            Some(1002),
            "shard 2, though 4 found sooner"
        );
        assert_eq!(m.source, Some(PathBuf::from("guided-2.json")));
        assert_eq!(m.runs, 10 + 6 + 10 + 2, "the runs of every shard");
        let members: Vec<_> = m
            .members
            .iter()
            .map(|m| (m.shard.index(), m.found))
            .collect();
        assert_eq!(
            members,
            [(1, None), (2, Some(1002)), (3, None), (4, Some(1004))]
        );
        assert!(m.witnessed.is_empty());
        let clean = combine((1..=4).map(|i| guided(i, None)).collect(), &Build::this()).unwrap();
        assert_eq!(
            (clean.runs, &clean.outcome, &clean.source),
            (40, &Reported::Clean, &None)
        );
    }

    #[test]
    fn a_campaign_s_missing_shards_are_named_with_their_campaigns() {
        let reports = vec![guided(1, None), guided(3, None), guided(4, None)];
        let two = Shard::new(2, 4).unwrap().campaign(7);
        assert_eq!(
            refused(reports),
            format!("missing shard 2/4 (campaign {two}, 10 runs)")
        );
    }

    #[test]
    fn range_shards_and_guided_shards_are_refused_together() {
        let reports = vec![shard(1, None), guided(2, None)];
        assert_eq!(
            refused(reports),
            "shard-1.json and guided-2.json are shards of different explorations: \
             a range shard (seeds 0..400) and a guided shard (campaign 7)"
        );
        let mut other = guided(2, None);
        other.1.identity.search = Search::Guided {
            campaign: 7,
            budget: 44,
        };
        assert!(refused(vec![guided(1, None), other]).ends_with("runs (40 vs 44)"));
    }
}
