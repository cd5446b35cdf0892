//! `check MODEL --trace FILE`: a model's counterexample as a locksim trace. The mapping is
//! by meaning, not tick for tick (the simulator's timing is its own): each model maps the
//! fault steps of its path to a fault plan over the scenario its flavor names, the plan runs
//! in the simulator against the real recipe code, and the trace is kept only if that run
//! breaks the property the model's counterexample breaks.

use crate::check::{Transition, shortest_path};
use crate::settings::ParamError;
use locksim::check::Property as SimProperty;
use locksim::params::Params;
use locksim::scenario;
use locksim::sim::fault::FaultPlan;
use locksim::trace::{self, Trace};
use locksim::world::run::{self, RunSpec};
use stateright::{Expectation, Model};
use std::fmt;
use std::hash::Hash;

/// The seed of every exported run: the plan, not the seed, carries the counterexample.
pub const SEED: u64 = 1;

/// Workload rounds of an exported run: enough for the lock to change hands after a pause.
pub const ROUNDS: u32 = 2;

/// A model whose counterexamples map to simulator runs.
pub trait Exportable: Model {
    /// The scenario and parameters the model's configuration stands for, before any fault.
    fn scenario(&self) -> Result<(&'static str, Vec<String>), String>;
    /// The faults of `path` as a plan over a run with `params`; an error names the step
    /// that has no mapping.
    fn faults(&self, path: &[Transition<Self>], params: &Params) -> Result<FaultPlan, String>;
}

/// Why there is no trace.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportError {
    Params(ParamError),
    /// No `always` property of the model has a counterexample.
    NothingToExport,
    /// A property, a flavor or a fault step the export cannot map yet.
    Unmapped(String),
    /// The mapped run could not be built or run.
    Sim(String),
    /// The run did not break the model's property.
    NotReproduced {
        property: &'static str,
        violated: Vec<SimProperty>,
    },
}

impl From<ParamError> for ExportError {
    fn from(e: ParamError) -> Self {
        ExportError::Params(e)
    }
}

impl ExportError {
    /// The exit code: 1 when the simulator did not reproduce the counterexample (or failed),
    /// 2 when the request cannot be served.
    pub fn exit_code(&self) -> u8 {
        match self {
            ExportError::NotReproduced { .. } | ExportError::Sim(_) => 1,
            ExportError::Params(_) | ExportError::NothingToExport | ExportError::Unmapped(_) => 2,
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Params(e) => write!(f, "{e}"),
            ExportError::NothingToExport => {
                write!(f, "no property has a counterexample: nothing to trace")
            }
            ExportError::Unmapped(what) => write!(f, "--trace: {what}"),
            ExportError::Sim(e) => write!(f, "the mapped run failed: {e}"),
            ExportError::NotReproduced { property, violated } => {
                let got: Vec<&str> = violated.iter().map(|p| p.name()).collect();
                write!(
                    f,
                    "the counterexample did not reproduce: the simulator's run broke [{}], not {property}",
                    got.join(", ")
                )
            }
        }
    }
}

/// What an export produced.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The model's property whose counterexample this is.
    pub property: &'static str,
    pub trace: Trace,
}

/// The simulator's property for a model's.
fn sim_property(model_property: &str) -> Option<SimProperty> {
    match model_property {
        "mutex" => Some(SimProperty::MUTEX),
        "fenced-resource" => Some(SimProperty::RESOURCE),
        _ => None,
    }
}

/// The counterexample of the model's first broken `always` property, as a trace whose run
/// breaks the same property.
pub fn export<M>(model: &M) -> Result<Exported, ExportError>
where
    M: Exportable,
    M::State: Clone + Hash + Eq,
    M::Action: Clone,
{
    let (property, path) = model
        .properties()
        .into_iter()
        .filter(|p| p.expectation == Expectation::Always)
        .find_map(|p| shortest_path(model, &p).map(|path| (p.name, path)))
        .ok_or(ExportError::NothingToExport)?;
    let Some(expected) = sim_property(property) else {
        return Err(ExportError::Unmapped(format!(
            "the model's {property} has no simulator property to check"
        )));
    };
    let (name, mut sets) = model.scenario().map_err(ExportError::Unmapped)?;
    sets.push("faults=none".into());
    sets.push(format!("rounds={ROUNDS}"));
    let scenario = scenario::find(name).map_err(|e| ExportError::Sim(e.to_string()))?;
    let params = scenario
        .params(None, &sets)
        .map_err(|e| ExportError::Sim(e.to_string()))?;
    let faults = model
        .faults(&path, &params)
        .map_err(ExportError::Unmapped)?;
    let spec = RunSpec::new(scenario, params, SEED, faults);
    let report = run::run(&spec).map_err(|e| ExportError::Sim(e.to_string()))?;
    let violated = trace::violated(&report);
    if !violated.contains(&expected) {
        return Err(ExportError::NotReproduced { property, violated });
    }
    Ok(Exported {
        property,
        trace: Trace::of(&spec, &report),
    })
}
