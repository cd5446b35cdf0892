//! The seam every property's checker implements: a pure function of the history that says
//! which families of events it reads.

use super::{CheckConfig, Property, Violation};
use crate::history::History;
use serde::Serialize;
use std::fmt;

/// What a checker saw a run do that its property allows and that shows the property was put
/// to the test (see `Checker::witness`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Witness {
    /// The property whose freedom it saw used.
    pub property: Property,
    /// What it saw, for people ("2 readers held /l together at 261 ms: c3, c5").
    pub detail: String,
}

/// A family of history events a checker reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reads {
    /// The world's own events: faults, the heal, the end.
    Harness,
    /// What clients record of their sessions and of the watches that woke them.
    Client,
    /// What clients record of their lock recipe.
    Lock,
    /// What clients record of their leader election recipe.
    Election,
    /// What clients record of their queue recipe.
    Queue,
    /// What clients do to the protected resource and what the store did.
    Store,
    /// What clients record of their barrier recipe.
    Barrier,
    /// A server family's events, by family name ("zookeeper").
    Server(&'static str),
    /// Events of the user's own (`Node::record_event`).
    User,
}

impl fmt::Display for Reads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reads::Harness => f.write_str("harness"),
            Reads::Client => f.write_str("client"),
            Reads::Lock => f.write_str("lock"),
            Reads::Election => f.write_str("election"),
            Reads::Queue => f.write_str("queue"),
            Reads::Store => f.write_str("store"),
            Reads::Barrier => f.write_str("barrier"),
            Reads::Server(family) => f.write_str(family),
            Reads::User => f.write_str("user"),
        }
    }
}

/// One property's checker. It judges by true simulated time and history order, never by
/// clock readings, and reports violations in the order it documents.
pub trait Checker: Send + Sync {
    /// The property it judges: verdicts, reports and trace files name it.
    fn property(&self) -> Property;

    /// The event families it reads: a history without them gives it nothing to judge.
    fn reads(&self) -> &'static [Reads];

    /// Every violation of its property in `history` (which `check::validate` accepted).
    fn check(&self, history: &History, cfg: &CheckConfig) -> Vec<Violation>;

    /// What the run showed of the freedom the property leaves (readers sharing a lock), so
    /// that runs without a violation can be told from runs that never tried: None when it
    /// saw none, or when the property leaves none.
    fn witness(&self, _history: &History) -> Option<String> {
        None
    }
}
