//! What `explore --json` (and `explore --guided --json`) carries beyond its verdict so that
//! `merge` can combine shards: the exploration's identity (`identity`: scenario, every
//! parameter, properties, the whole seed range or the whole campaign, the build) and the
//! finding's trace. `explore` writes it and `merge` reads it, here, so the two never
//! disagree on the format.

use super::identity::{Build, Identity, Search};
use crate::check::Property;
use crate::explore::{Outcome, Shard, Witnessed};
use crate::trace::{self, Trace};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::Path;

/// `explore --json` (or `--guided`): its verdict `v`, with the identity and the trace of
/// `outcome`'s finding (which a merge replays and writes) added.
pub(super) fn json(mut v: Value, outcome: &Outcome, identity: &Identity) -> Value {
    identity.extend(&mut v);
    if let Outcome::Violation(f) = outcome {
        v["trace"] = serde_json::to_value(Trace::of(&f.spec, &f.report)).expect("trace serialises");
    }
    v
}

/// What a shard found, as its report says.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Reported {
    Clean,
    Violation {
        /// The failing run, its plan shrunk.
        trace: Box<Trace>,
        /// Faults in its plan as drawn, before shrinking.
        faults_before_shrink: usize,
    },
    HarnessError {
        seed: u64,
        message: String,
    },
    Nondeterminism {
        seed: u64,
        detail: String,
    },
}

/// One shard's report, read back.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ShardReport {
    pub identity: Identity,
    pub shard: Shard,
    pub outcome: Reported,
    /// What it did of its part of `identity.search`.
    pub part: Part,
}

/// What a shard did, by the kind of search it is part of.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Part {
    /// Its block of seeds.
    Block {
        /// Seeds of its block that ran to completion.
        seeds_run: u64,
        /// For a clean shard, its seeds' witnesses (`Exploration::witnessed`).
        witnessed: Vec<Witnessed>,
    },
    /// Its sub-campaign.
    Campaign(Reached),
}

/// What one guided campaign ran and reached, as its report says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Reached {
    /// Runs made: to its finding, or its whole budget.
    pub runs: u64,
    pub corpus: usize,
    pub transitions: usize,
    pub corpus_digest: String,
}

/// The fields of `explore [--guided] --shard I/N --json` a merge reads whatever the search;
/// the rest is for people.
#[derive(Deserialize)]
struct Raw {
    scenario: String,
    params: Map<String, Value>,
    properties: Vec<Property>,
    check_determinism: bool,
    locksim_version: String,
    tokio_unseeded: bool,
    shard: RawShard,
    seed: Option<u64>,
    faults_before_shrink: Option<usize>,
    trace: Option<Value>,
    harness_error: Option<String>,
    nondeterminism: Option<String>,
}

#[derive(Deserialize)]
struct RawShard {
    index: u64,
    count: u64,
}

/// The fields only a range shard's report has.
#[derive(Deserialize)]
struct RawBlock {
    seeds: String,
    seeds_run: u64,
    witnessed: Vec<RawWitnessed>,
    shard: RawBlockShard,
}

#[derive(Deserialize)]
struct RawBlockShard {
    seeds: String,
}

/// The fields only a guided shard's report has.
#[derive(Deserialize)]
struct RawCampaign {
    guided: RawGuided,
    runs: u64,
    corpus: usize,
    transitions: usize,
    corpus_digest: String,
    shard: RawCampaignShard,
}

#[derive(Deserialize)]
struct RawGuided {
    campaign: u64,
    budget: u64,
}

#[derive(Deserialize)]
struct RawCampaignShard {
    campaign: u64,
    runs: u64,
}

#[derive(Deserialize)]
struct RawWitnessed {
    property: Property,
    seeds: u64,
    first_seed: u64,
    detail: String,
}

impl ShardReport {
    /// Reads the report `explore [--guided] --shard I/N --json` wrote to `path`; the error
    /// is one line naming the file.
    pub fn read(path: &Path) -> Result<ShardReport, String> {
        let value = trace::read_json(path).map_err(|e| match e {
            trace::TraceError::Json(_, e) => format!("{}: not a shard report: {e}", path.display()),
            e => e.to_string(),
        })?;
        ShardReport::from_json(value, path).map_err(|why| {
            format!(
                "{}: not a shard report of `locksim explore [--guided] --shard I/N --json`: {why}",
                path.display()
            )
        })
    }

    /// A report from its JSON, checked to be whole and consistent: its part (block or
    /// sub-campaign) is the one its shard has, and what it found lies in it.
    pub fn from_json(value: Value, path: &Path) -> Result<ShardReport, String> {
        let raw: Raw = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        let shard = Shard::new(raw.shard.index, raw.shard.count).map_err(|e| e.to_string())?;
        let outcome = match (raw.seed, raw.trace, raw.harness_error, raw.nondeterminism) {
            (None, None, None, None) => Reported::Clean,
            (Some(seed), Some(trace), None, None) => Reported::Violation {
                trace: Box::new(Trace::from_value(&trace, path).map_err(|e| format!("trace: {e}"))?),
                faults_before_shrink: raw
                    .faults_before_shrink
                    .ok_or_else(|| "missing field `faults_before_shrink`".to_string())?,
            }
            .checked(seed, &raw.scenario)?,
            (Some(seed), None, Some(message), None) => Reported::HarnessError { seed, message },
            (Some(seed), None, None, Some(detail)) => Reported::Nondeterminism { seed, detail },
            _ => return Err("its finding is neither a violation (seed and trace), a harness error nor a divergence".into()),
        };
        let read = |e: serde_json::Error| e.to_string();
        let (search, part) = match value.get("guided") {
            None => block(
                serde_json::from_value(value).map_err(read)?,
                shard,
                &outcome,
            )?,
            Some(_) => sub_campaign(
                serde_json::from_value(value).map_err(read)?,
                shard,
                &outcome,
            )?,
        };
        Ok(ShardReport {
            identity: Identity {
                scenario: raw.scenario,
                search,
                params: raw.params,
                properties: raw.properties,
                check_determinism: raw.check_determinism,
                build: Build {
                    locksim_version: raw.locksim_version,
                    tokio_unseeded: raw.tokio_unseeded,
                },
            },
            shard,
            outcome,
            part,
        })
    }
}

/// A range shard's part: its block is the one `shard` has of its range, and what it found
/// lies in it.
fn block(raw: RawBlock, shard: Shard, outcome: &Reported) -> Result<(Search, Part), String> {
    let seeds = super::parse_seeds(&raw.seeds).map_err(|e| format!("seeds: {e}"))?;
    let block = shard.seeds(&seeds);
    if super::parse_seeds(&raw.shard.seeds).ok() != Some(block.clone()) {
        return Err(format!(
            "shard {shard} of {}..{} holds seeds {}..{}, not {}",
            seeds.start, seeds.end, block.start, block.end, raw.shard.seeds
        ));
    }
    let ran = match outcome.seed() {
        None => block.end - block.start,
        Some(seed) if block.contains(&seed) => seed - block.start + 1,
        Some(seed) => {
            return Err(format!(
                "seed {seed} is not in its block {}..{}",
                block.start, block.end
            ));
        }
    };
    if raw.seeds_run != ran {
        return Err(format!(
            "seeds_run is {}, its finding says {ran}",
            raw.seeds_run
        ));
    }
    let witnessed = raw
        .witnessed
        .into_iter()
        .map(|w| Witnessed {
            property: w.property,
            seeds: w.seeds,
            first_seed: w.first_seed,
            detail: w.detail,
        })
        .collect();
    let part = Part::Block {
        seeds_run: raw.seeds_run,
        witnessed,
    };
    Ok((Search::Seeds(seeds), part))
}

/// A guided shard's part: its sub-campaign and share of the budget are the ones `shard`
/// has of its campaign, and it made all its runs or stopped within them at its finding.
fn sub_campaign(
    raw: RawCampaign,
    shard: Shard,
    outcome: &Reported,
) -> Result<(Search, Part), String> {
    let RawGuided { campaign, budget } = raw.guided;
    let (own, share) = (shard.campaign(campaign), shard.runs(budget));
    if raw.shard.campaign != own {
        return Err(format!(
            "shard {shard} of campaign {campaign} runs campaign {own}, not {}",
            raw.shard.campaign
        ));
    }
    if share == 0 {
        return Err(format!("shard {shard} of {budget} runs has none of them"));
    }
    if raw.shard.runs != share {
        return Err(format!(
            "shard {shard} of {budget} runs has {share} of them, not {}",
            raw.shard.runs
        ));
    }
    let ran = match outcome {
        Reported::Clean => raw.runs == share,
        _ => (1..=share).contains(&raw.runs),
    };
    if !ran {
        let why = match outcome {
            Reported::Clean => "a clean shard makes all",
            _ => "a finding comes within",
        };
        return Err(format!("runs is {}: {why} its {share} runs", raw.runs));
    }
    let reached = Reached {
        runs: raw.runs,
        corpus: raw.corpus,
        transitions: raw.transitions,
        corpus_digest: raw.corpus_digest,
    };
    Ok((Search::Guided { campaign, budget }, Part::Campaign(reached)))
}

impl Reported {
    /// The seed it failed at; None when clean.
    pub fn seed(&self) -> Option<u64> {
        match self {
            Reported::Clean => None,
            Reported::Violation { trace, .. } => Some(trace.seed),
            Reported::HarnessError { seed, .. } | Reported::Nondeterminism { seed, .. } => {
                Some(*seed)
            }
        }
    }

    /// Itself, if its trace is the run of `seed` of `scenario` the report names.
    fn checked(self, seed: u64, scenario: &str) -> Result<Reported, String> {
        match &self {
            Reported::Violation { trace, .. }
                if trace.seed != seed || trace.scenario != scenario =>
            {
                Err(format!(
                    "its trace is of {} seed {}, its finding of {scenario} seed {seed}",
                    trace.scenario, trace.seed
                ))
            }
            Reported::Violation { trace, .. } if trace.digest.is_none() => {
                Err("its trace has no digest".into())
            }
            _ => Ok(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The report of shard 2/4 of zk-lock over 0..400 that failed at seed 150.
    fn diverged() -> Value {
        json!({
            "scenario": "zk-lock", "seeds": "0..400", "seeds_run": 51, "witnessed": [],
            "params": { "clients": 5 }, "properties": ["mutex"], "check_determinism": true,
            "locksim_version": "0.1.0", "tokio_unseeded": false,
            "shard": { "index": 2, "count": 4, "seeds": "100..200" },
            "seed": 150, "nondeterminism": "digests differ",
        })
    }

    /// The report `v`, edited, read back.
    fn edited(mut v: Value, edit: impl FnOnce(&mut Value)) -> Result<ShardReport, String> {
        edit(&mut v);
        ShardReport::from_json(v, Path::new("s.json"))
    }

    fn read(edit: impl FnOnce(&mut Value)) -> Result<ShardReport, String> {
        edited(diverged(), edit)
    }

    #[test]
    fn a_report_is_read_with_its_identity_shard_and_finding() {
        let r = read(|_| {}).unwrap();
        assert_eq!(r.shard, Shard::new(2, 4).unwrap());
        assert_eq!(r.identity.search, Search::Seeds(0..400));
        assert_eq!(
            r.part,
            Part::Block {
                seeds_run: 51,
                witnessed: vec![]
            }
        );
        assert_eq!(
            r.outcome,
            Reported::Nondeterminism {
                seed: 150,
                detail: "digests differ".into()
            }
        );
        assert_eq!(r.identity.properties, [Property::MUTEX]);
        assert!(r.identity.check_determinism);
    }

    #[test]
    fn reports_of_builds_with_and_without_tokio_unstable_are_of_one_exploration() {
        let with = read(|_| {}).unwrap().identity;
        let without = read(|v| v["tokio_unseeded"] = json!(true))
            .unwrap()
            .identity;
        assert!(without.build.tokio_unseeded);
        assert_eq!(with.difference(&without), None);
        let other = read(|v| v["locksim_version"] = json!("0.0.1"))
            .unwrap()
            .identity;
        assert_eq!(
            with.difference(&other).as_deref(),
            Some("locksim version (0.1.0 vs 0.0.1)")
        );
    }

    #[test]
    fn a_report_that_contradicts_itself_is_refused_with_why() {
        let refused = |edit: fn(&mut Value)| read(edit).unwrap_err();
        assert_eq!(
            refused(|v| v["shard"]["seeds"] = json!("0..100")),
            "shard 2/4 of 0..400 holds seeds 100..200, not 0..100"
        );
        assert_eq!(
            refused(|v| v["seed"] = json!(250)),
            "seed 250 is not in its block 100..200"
        );
        assert_eq!(
            refused(|v| v["seeds_run"] = json!(100)),
            "seeds_run is 100, its finding says 51"
        );
        assert_eq!(
            refused(|v| v["shard"]["index"] = json!(5)),
            "shard 5/4: the index must be within 1..=4"
        );
        assert!(
            refused(|v| v["harness_error"] = json!("boom")).starts_with("its finding is neither")
        );
        assert_eq!(
            refused(|v| {
                v.as_object_mut().unwrap().remove("shard");
            }),
            "missing field `shard`"
        );
    }

    /// The report of shard 2/4 of campaign 5 of 40 runs of zk-lock that ran clean.
    fn guided() -> Value {
        let mut v = diverged();
        let fields = v.as_object_mut().unwrap();
        for key in ["seeds", "seeds_run", "witnessed", "seed", "nondeterminism"] {
            fields.remove(key);
        }
        let own = Shard::new(2, 4).unwrap().campaign(5);
        v["guided"] = json!({ "campaign": 5, "budget": 40 });
        v["shard"] = json!({ "index": 2, "count": 4, "campaign": own, "runs": 10 });
        v["runs"] = json!(10);
        v["corpus"] = json!(3);
        v["transitions"] = json!(120);
        v["corpus_digest"] = json!("00ff");
        v
    }

    fn read_guided(edit: impl FnOnce(&mut Value)) -> Result<ShardReport, String> {
        edited(guided(), edit)
    }

    #[test]
    fn a_guided_report_is_read_with_its_campaign_and_what_it_reached() {
        let r = read_guided(|_| {}).unwrap();
        assert_eq!(
            r.identity.search,
            Search::Guided {
                campaign: 5,
                budget: 40
            }
        );
        let reached = Reached {
            runs: 10,
            corpus: 3,
            transitions: 120,
            corpus_digest: "00ff".into(),
        };
        assert_eq!(
            (r.part, r.outcome),
            (Part::Campaign(reached), Reported::Clean)
        );
        let found = read_guided(|v| {
            v["runs"] = json!(4);
            v["seed"] = json!(99);
            v["nondeterminism"] = json!("digests differ");
        })
        .unwrap();
        assert_eq!(
            found.outcome.seed(),
            Some(99),
            "any seed: a campaign draws its own"
        );
    }

    #[test]
    fn a_guided_report_that_contradicts_itself_is_refused_with_why() {
        let refused = |edit: fn(&mut Value)| read_guided(edit).unwrap_err();
        let own = Shard::new(2, 4).unwrap().campaign(5);
        assert_eq!(
            refused(|v| v["shard"]["campaign"] = json!(5)),
            format!("shard 2/4 of campaign 5 runs campaign {own}, not 5")
        );
        assert_eq!(
            refused(|v| v["shard"]["runs"] = json!(40)),
            "shard 2/4 of 40 runs has 10 of them, not 40"
        );
        assert_eq!(
            refused(|v| v["guided"]["budget"] = json!(1)),
            "shard 2/4 of 1 runs has none of them"
        );
        assert_eq!(
            refused(|v| v["runs"] = json!(9)),
            "runs is 9: a clean shard makes all its 10 runs"
        );
        assert_eq!(
            refused(|v| {
                v["runs"] = json!(11);
                v["seed"] = json!(99);
                v["nondeterminism"] = json!("digests differ");
            }),
            "runs is 11: a finding comes within its 10 runs"
        );
        assert_eq!(
            refused(|v| {
                v.as_object_mut().unwrap().remove("corpus_digest");
            }),
            "missing field `corpus_digest`"
        );
    }
}
