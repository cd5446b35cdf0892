//! The registry of named scenarios: a recipe (or a flawed variant of it, named for its
//! flaw), the properties it is judged by, and what the harness should find in it.

use crate::check::Property;
use crate::recipes::zk::lock::Flavor;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    ZkLock(Flavor),
}

#[derive(Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub summary: &'static str,
    pub recipe: Recipe,
    /// What a run is judged by.
    pub properties: &'static [Property],
    /// For a negative control: the properties its flaw breaks (the harness must find them).
    pub flaw: &'static [Property],
}

const LOCK_PROPERTIES: &[Property] = &[
    Property::Mutex,
    Property::Resource,
    Property::Herd,
    Property::Liveness,
    Property::Fifo,
];

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "zk-lock",
        summary: "ZooKeeper recipes-doc lock: GUID-named ephemeral sequential nodes, each waiter watches its predecessor",
        recipe: Recipe::ZkLock(Flavor::Recipe),
        properties: LOCK_PROPERTIES,
        flaw: &[],
    },
    Scenario {
        name: "zk-lock-herd",
        summary: "flawed: every waiter watches the lock directory's children, so each release wakes them all",
        recipe: Recipe::ZkLock(Flavor::Herd),
        properties: LOCK_PROPERTIES,
        flaw: &[Property::Herd],
    },
    Scenario {
        name: "zk-lock-simple",
        summary: "flawed: one fixed ephemeral node; losers watch it and race to recreate it",
        recipe: Recipe::ZkLock(Flavor::Simple),
        properties: LOCK_PROPERTIES,
        flaw: &[Property::Herd, Property::Fifo],
    },
    Scenario {
        name: "zk-lock-noguid",
        summary: "flawed: retries the create after ConnectionLoss without looking for its node, orphaning it",
        recipe: Recipe::ZkLock(Flavor::NoGuid),
        properties: LOCK_PROPERTIES,
        flaw: &[Property::Liveness],
    },
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownScenario(pub String);

impl fmt::Display for UnknownScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = SCENARIOS.iter().map(|s| s.name).collect();
        write!(
            f,
            "unknown scenario '{}' (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

pub fn find(name: &str) -> Result<&'static Scenario, UnknownScenario> {
    SCENARIOS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| UnknownScenario(name.to_string()))
}

/// The hosts of a run: servers first, then the store, then the clients.
pub fn servers(_recipe: Recipe) -> Vec<String> {
    vec!["zk1".to_string()]
}
