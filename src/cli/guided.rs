//! `locksim explore SCENARIO --guided`: one campaign (`explore::guided`), or with `--shard
//! I/N` one shard's sub-campaign of it (`explore::shard`), whose report `merge` reads; and
//! what a merge of a campaign's shards prints.

use super::explore::{outcome_json, print_broken, print_shrunk, status_of, write_trace};
use super::identity::Identity;
use super::progress::Progress;
use super::report::{self, Reached};
use super::{Output, Status, params_line};
use crate::explore::guided::{self, GuidedSpec, Tally};
use crate::explore::{Outcome, Shard};
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::path::Path;

/// `locksim explore SCENARIO --guided`: the campaign of `spec` (or, given a `shard`, its
/// sub-campaign with its share of the runs; see `explore::shard`), stopping at its first
/// finding, whose plan is shrunk and whose trace is written into `traces` as `explore`
/// writes it.
pub(super) fn explore_guided(
    out: &Output,
    spec: GuidedSpec,
    shard: Option<Shard>,
    identity: &Identity,
    traces: &Path,
) -> Status {
    let (campaign, runs) = (spec.campaign, spec.runs);
    let (own, share) = match shard {
        Some(s) if s.count() > runs => {
            return out.bad_input(&format!(
                "--shard {s}: {} shards over {runs} runs would leave some without a run",
                s.count()
            ));
        }
        Some(s) => (s.campaign(campaign), s.runs(runs)),
        None => (campaign, runs),
    };
    let spec = GuidedSpec {
        campaign: own,
        runs: share,
        ..spec
    };
    if !out.json {
        let shard = shard.map_or(String::new(), |s| {
            format!(" shard={s} (campaign {own}, {share} runs)")
        });
        outln!(
            "explore {} guided campaign={campaign} runs={runs}{shard} jobs={} {}",
            spec.scenario.name,
            spec.jobs,
            params_line(out, &spec.scenario, &spec.params)
        );
    }
    let progress = Progress::new(out, share);
    let found = guided::guided(&spec, &progress);
    progress.finish();
    let trace = match &found.outcome {
        Outcome::Violation(f) => match write_trace(f, None, traces) {
            Ok(p) => Some(p),
            Err(e) => return out.error(&e, Status::HarnessError),
        },
        _ => None,
    };
    let mut json = outcome_json(&found.outcome, trace.as_deref());
    json["scenario"] = json!(spec.scenario.name);
    json["guided"] = json!({ "campaign": campaign, "budget": runs });
    if let Some(s) = shard {
        json["shard"] =
            json!({ "index": s.index(), "count": s.count(), "campaign": own, "runs": share });
    }
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
    json["fresh"] = tally_json(&found.fresh);
    json["mutations"] = json!(
        found
            .mutations
            .iter()
            .map(|(m, tally)| {
                let mut row = tally_json(tally);
                row["mutation"] = json!(m);
                row
            })
            .collect::<Vec<_>>()
    );
    out.emit(report::json(json, &found.outcome, identity), || {
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

/// What a source of a campaign's runs made, reached and found, as JSON.
pub(super) fn tally_json(tally: &Tally) -> Value {
    json!({ "made": tally.made, "new": tally.new, "found": tally.found })
}

/// One shard's sub-campaign, as a merge shows it.
#[derive(Debug, PartialEq)]
pub(super) struct Member {
    pub shard: Shard,
    pub reached: Reached,
    /// The seed of its finding, if it found something.
    pub found: Option<u64>,
}

/// A merged campaign (`merge` of `explore --guided --shard I/N`): each shard's sub-campaign
/// and the verdict of the ensemble, the finding of the lowest-indexed shard that found one.
pub(super) struct Ensemble<'a> {
    pub scenario: &'a Scenario,
    pub campaign: u64,
    pub budget: u64,
    /// Every shard, in order.
    pub members: &'a [Member],
    /// The runs of every shard.
    pub runs: u64,
    pub outcome: &'a Outcome,
    pub trace: Option<&'a Path>,
}

impl Ensemble<'_> {
    /// What `explore --guided --json` prints of a campaign, its `runs` those of every
    /// shard, with `shards`, an `ensemble` entry per shard in order, and `found_by`, the
    /// index of the shard whose finding it is.
    pub fn json(&self) -> Value {
        let mut v = outcome_json(self.outcome, self.trace);
        v["scenario"] = json!(self.scenario.name);
        v["guided"] = json!({ "campaign": self.campaign, "budget": self.budget });
        v["runs"] = json!(self.runs);
        v["shards"] = json!(self.members.len());
        v["ensemble"] = self
            .members
            .iter()
            .map(|m| {
                let mut e = json!({
                    "index": m.shard.index(), "campaign": m.shard.campaign(self.campaign),
                    "budget": m.shard.runs(self.budget), "runs": m.reached.runs,
                    "corpus": m.reached.corpus, "transitions": m.reached.transitions,
                    "corpus_digest": m.reached.corpus_digest,
                });
                if let Some(seed) = m.found {
                    e["seed"] = json!(seed);
                }
                e
            })
            .collect();
        if let Some(m) = self.finder() {
            v["found_by"] = json!(m.shard.index());
        }
        v
    }

    /// A line per shard, then the verdict.
    pub fn print(&self) {
        for m in self.members {
            let found = m
                .found
                .map_or(String::new(), |seed| format!(", found seed {seed}"));
            outln!(
                "  shard {}: campaign {}, {} of {} runs, corpus {}, {} transitions{found}",
                m.shard,
                m.shard.campaign(self.campaign),
                m.reached.runs,
                m.shard.runs(self.budget),
                m.reached.corpus,
                m.reached.transitions
            );
        }
        let over = format!("{} runs over {} shards", self.runs, self.members.len());
        match self.outcome {
            Outcome::Violation(f) => {
                let at = self.finder().map_or(String::new(), |m| {
                    format!(" at run {} of shard {}", m.reached.runs, m.shard)
                });
                outln!("  violation{at} (seed {}; {over})", f.spec.seed);
                print_shrunk(f, self.trace);
            }
            Outcome::Clean => outln!("  no violations in {over}"),
            broken => print_broken(broken),
        }
    }

    /// The lowest-indexed shard that found something: the one whose finding it is.
    fn finder(&self) -> Option<&Member> {
        self.members.iter().find(|m| m.found.is_some())
    }
}
