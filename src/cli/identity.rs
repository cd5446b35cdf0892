//! What makes shard reports parts of one exploration: its identity (scenario, the whole
//! search, every parameter, properties, the build), written into every `explore --json` and
//! compared by `merge`.

use crate::check::Property;
use crate::explore::Shard;
use crate::params::Params;
use crate::scenario::Scenario;
use serde_json::{Map, Value, json};
use std::ops::Range;

/// What makes two explorations the same one: the runs of each seed depend on these alone.
/// (`--jobs` is not among them: the result is the same whatever it is.)
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Identity {
    pub scenario: String,
    /// The whole search, of which a shard does one part.
    pub search: Search,
    /// Every parameter, resolved (a profile and `--set` leave their mark here).
    pub params: Map<String, Value>,
    pub properties: Vec<Property>,
    pub check_determinism: bool,
    pub build: Build,
}

/// Which build ran it: another version may run a seed differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Build {
    pub locksim_version: String,
    /// Built without `--cfg tokio_unstable`, for people: it does not make another build,
    /// since both run every seed the same.
    pub tokio_unseeded: bool,
}

impl Build {
    /// This binary.
    pub fn this() -> Build {
        Build {
            locksim_version: env!("CARGO_PKG_VERSION").into(),
            tokio_unseeded: !cfg!(tokio_unstable),
        }
    }
}

/// What an exploration searches, of which a shard does one part (`explore::shard`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Search {
    /// A range of seeds (`--seeds`): a shard explores one block of it.
    Seeds(Range<u64>),
    /// A guided campaign (`--guided`): a shard runs one sub-campaign of it.
    Guided {
        /// The campaign's seed (`--campaign`).
        campaign: u64,
        /// Its budget, in runs (`--runs`).
        budget: u64,
    },
}

impl Search {
    /// What `shard` of it holds, for naming a missing shard: "seeds 100..200", "campaign
    /// 1234, 16 runs".
    pub(super) fn part(&self, shard: Shard) -> String {
        match self {
            Search::Seeds(seeds) => {
                let block = shard.seeds(seeds);
                format!("seeds {}..{}", block.start, block.end)
            }
            Search::Guided { campaign, budget } => format!(
                "campaign {}, {} runs",
                shard.campaign(*campaign),
                shard.runs(*budget)
            ),
        }
    }

    /// The first thing in which `other` is another search, as "what (this vs that)";
    /// a range and a campaign are named as such, for they never merge.
    fn difference(&self, other: &Search) -> Option<String> {
        match (self, other) {
            (Search::Seeds(a), Search::Seeds(b)) => (a != b)
                .then(|| format!("seeds ({}..{} vs {}..{})", a.start, a.end, b.start, b.end)),
            (
                Search::Guided {
                    campaign: a,
                    budget: x,
                },
                Search::Guided {
                    campaign: b,
                    budget: y,
                },
            ) => match (a != b, x != y) {
                (true, _) => Some(format!("campaign ({a} vs {b})")),
                (false, true) => Some(format!("runs ({x} vs {y})")),
                (false, false) => None,
            },
            (a, b) => Some(format!("{} and {}", a.kind(), b.kind())),
        }
    }

    /// "a range shard (seeds 0..400)", "a guided shard (campaign 5)".
    fn kind(&self) -> String {
        match self {
            Search::Seeds(r) => format!("a range shard (seeds {}..{})", r.start, r.end),
            Search::Guided { campaign, .. } => format!("a guided shard (campaign {campaign})"),
        }
    }
}

impl Identity {
    /// The identity of `search` of `scenario`, run with these parameters and properties
    /// by this build.
    pub fn new(
        scenario: &Scenario,
        params: &Params,
        properties: &[Property],
        check_determinism: bool,
        search: &Search,
    ) -> Identity {
        let Ok(Value::Object(params)) = serde_json::to_value(params) else {
            unreachable!("params serialise to an object")
        };
        Identity {
            scenario: scenario.name.to_string(),
            search: search.clone(),
            params,
            properties: properties.to_vec(),
            check_determinism,
            build: Build::this(),
        }
    }

    /// The first thing in which `other` is another exploration, as "what (this vs that)".
    pub fn difference(&self, other: &Identity) -> Option<String> {
        let differ = |what: &str, a: String, b: String| Some(format!("{what} ({a} vs {b})"));
        if self.scenario != other.scenario {
            return differ("scenario", self.scenario.clone(), other.scenario.clone());
        }
        if let Some(what) = self.search.difference(&other.search) {
            return Some(what);
        }
        let keys = self.params.keys().chain(other.params.keys());
        if let Some(key) = keys
            .into_iter()
            .find(|k| self.params.get(*k) != other.params.get(*k))
        {
            let value =
                |p: &Map<String, Value>| p.get(key).map_or("unset".into(), Value::to_string);
            return differ(
                &format!("parameter {key}"),
                value(&self.params),
                value(&other.params),
            );
        }
        let names = |p: &[Property]| p.iter().map(|p| p.name()).collect::<Vec<_>>().join(",");
        if self.properties != other.properties {
            return differ(
                "properties",
                names(&self.properties),
                names(&other.properties),
            );
        }
        if self.check_determinism != other.check_determinism {
            let on = |b: bool| if b { "with" } else { "without" }.to_string();
            return differ(
                "--check-determinism",
                on(self.check_determinism),
                on(other.check_determinism),
            );
        }
        self.build.difference(&other.build)
    }

    /// Adds its fields to an exploration's JSON object.
    pub fn extend(&self, v: &mut Value) {
        v["params"] = Value::Object(self.params.clone());
        v["properties"] = json!(self.properties);
        v["check_determinism"] = json!(self.check_determinism);
        v["locksim_version"] = json!(self.build.locksim_version);
        v["tokio_unseeded"] = json!(self.build.tokio_unseeded);
    }
}

impl Build {
    /// The first thing in which `other` is another build, as "what (this vs that)". A build
    /// with `--cfg tokio_unstable` and one without are the same build here: they draw the
    /// same randomness, so they run every seed the same.
    pub fn difference(&self, other: &Build) -> Option<String> {
        (self.locksim_version != other.locksim_version).then(|| {
            format!(
                "locksim version ({} vs {})",
                self.locksim_version, other.locksim_version
            )
        })
    }
}
