//! What makes shard reports parts of one exploration: its identity (scenario, the whole
//! range, every parameter, properties, the build), written into every `explore --json` and
//! compared by `merge`.

use crate::check::Property;
use crate::explore::ExploreSpec;
use serde_json::{Map, Value, json};
use std::ops::Range;

/// What makes two explorations the same one: the runs of each seed depend on these alone.
/// (`--jobs` is not among them: the result is the same whatever it is.)
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Identity {
    pub scenario: String,
    /// The whole range, of which a shard explores one block.
    pub seeds: Range<u64>,
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

impl Identity {
    /// The identity of `spec` run over `seeds` (the whole range) by this build.
    pub fn of(spec: &ExploreSpec, seeds: &Range<u64>) -> Identity {
        let Ok(Value::Object(params)) = serde_json::to_value(&spec.params) else {
            unreachable!("params serialise to an object")
        };
        Identity {
            scenario: spec.scenario.name.to_string(),
            seeds: seeds.clone(),
            params,
            properties: spec.properties.clone(),
            check_determinism: spec.check_determinism,
            build: Build::this(),
        }
    }

    /// The first thing in which `other` is another exploration, as "what (this vs that)".
    pub fn difference(&self, other: &Identity) -> Option<String> {
        let differ = |what: &str, a: String, b: String| Some(format!("{what} ({a} vs {b})"));
        let range = |r: &Range<u64>| format!("{}..{}", r.start, r.end);
        if self.scenario != other.scenario {
            return differ("scenario", self.scenario.clone(), other.scenario.clone());
        }
        if self.seeds != other.seeds {
            return differ("seeds", range(&self.seeds), range(&other.seeds));
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
