//! Checking a model: stateright explores every state, breadth first, or depth first with
//! symmetry reduction over clients; then each discovery is told as the shortest path to it,
//! step by step in the model's own words.

use crate::progress;
use stateright::{Checker, Expectation, HasDiscoveries, Model, Property, Representative};
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;
use std::time::Instant;

/// A model that can tell its steps to a reader.
pub trait Narrated: Model {
    /// One step: who did what, at which time, and what came of it.
    fn narrate(&self, before: &Self::State, action: &Self::Action, after: &Self::State) -> String;
    /// The clients (by index) that believe they hold the lock in `state`.
    fn believers(&self, state: &Self::State) -> Vec<usize>;
}

/// Who believes it holds the lock, as a step's report says it.
fn beliefs(believers: &[usize]) -> String {
    match believers {
        [] => "nobody believes it holds the lock".into(),
        clients => {
            let names: Vec<String> = clients.iter().map(|c| format!("c{c}")).collect();
            format!("{} believe(s) it holds the lock", names.join(", "))
        }
    }
}

/// What became of one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyOutcome {
    pub name: &'static str,
    pub expectation: Expectation,
    /// For `always`/`eventually`: the counterexample; for `sometimes`: the example.
    pub discovery: Option<Vec<Step>>,
}

impl PropertyOutcome {
    /// Whether the property holds: no counterexample, or (sometimes) an example.
    pub fn holds(&self) -> bool {
        match self.expectation {
            Expectation::Sometimes => self.discovery.is_some(),
            _ => self.discovery.is_none(),
        }
    }

    pub fn verdict(&self) -> &'static str {
        match (&self.expectation, &self.discovery) {
            (Expectation::Sometimes, Some(_)) => "holds",
            (Expectation::Sometimes, None) => "no example",
            (_, None) => "holds",
            (_, Some(_)) => "counterexample",
        }
    }

    pub fn expectation_name(&self) -> &'static str {
        match self.expectation {
            Expectation::Always => "always",
            Expectation::Sometimes => "sometimes",
            Expectation::Eventually => "eventually",
        }
    }
}

/// One step of a path, told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub what: String,
    pub beliefs: String,
}

/// The outcome of a check and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    pub model: &'static str,
    pub params: Vec<(&'static str, String)>,
    pub search: Search,
    pub properties: Vec<PropertyOutcome>,
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    /// Wall time of the exhaustive search (not of telling the paths).
    pub seconds: f64,
}

/// How the state space is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Breadth first over every state; each discovery told as the shortest path to it.
    Plain,
    /// Depth first, exploring once each class of states that differ only by which client is
    /// which (stateright reduces by symmetry only depth first); each discovery told as the
    /// shortest path to it, found breadth first over the classes.
    Symmetry,
}

/// What a search found and what it cost.
pub struct Found<M: Model> {
    /// Per property, in the model's order: the path to its discovery, if any.
    pub paths: Vec<Option<Vec<Transition<M>>>>,
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
}

/// Checks every property of `model` over its whole state space, breadth first, on one
/// thread; with `progress`, a progress line on stderr if it is a terminal (see `progress`).
pub fn check<M>(
    name: &'static str,
    params: Vec<(&'static str, String)>,
    model: M,
    progress: bool,
) -> CheckReport
where
    M: Narrated + Clone + Send + Sync + 'static,
    M::State: Clone + Debug + Hash + Eq + Send + Sync,
    M::Action: Clone + Debug + PartialEq,
{
    let found = search_plain(name, &model, progress);
    report(name, params, &model, Search::Plain, found)
}

/// As `check`, depth first with symmetry reduction over the clients.
pub fn check_symmetric<M>(
    name: &'static str,
    params: Vec<(&'static str, String)>,
    model: M,
    progress: bool,
) -> CheckReport
where
    M: Narrated + Clone + Send + Sync + 'static,
    M::State: Clone + Debug + Hash + Eq + Send + Sync + Representative,
    M::Action: Clone + Debug + PartialEq,
{
    let found = search_symmetric(name, &model, progress);
    report(name, params, &model, Search::Symmetry, found)
}

/// The report of a search: each discovery's path told.
fn report<M: Narrated>(
    name: &'static str,
    params: Vec<(&'static str, String)>,
    model: &M,
    search: Search,
    found: Found<M>,
) -> CheckReport {
    let properties = model
        .properties()
        .into_iter()
        .zip(found.paths)
        .map(|(p, path)| PropertyOutcome {
            name: p.name,
            expectation: p.expectation.clone(),
            discovery: path.map(|path| told(model, &path)),
        })
        .collect();
    CheckReport {
        model: name,
        params,
        search,
        properties,
        states: found.states,
        unique_states: found.unique_states,
        max_depth: found.max_depth,
        seconds: found.seconds,
    }
}

/// Breadth first over every state (it does not stop at the first discovery, so the state
/// counts are those of the whole space); each discovery's path is the shortest to it.
pub fn search_plain<M>(name: &str, model: &M, progress: bool) -> Found<M>
where
    M: Model + Clone + Send + Sync + 'static,
    M::State: Clone + Debug + Hash + Eq + Send + Sync,
    M::Action: Clone + Debug + PartialEq,
{
    let started = Instant::now();
    let checker = model
        .clone()
        .checker()
        .finish_when(HasDiscoveries::AnyOf(BTreeSet::new()))
        .spawn_bfs();
    let checker = progress::watch(name, checker, progress);
    let seconds = started.elapsed().as_secs_f64();
    let paths = model
        .properties()
        .iter()
        .map(|p| {
            checker
                .discovery(p.name)
                .map(|_| shortest_path(model, p).expect("the checker found one"))
        })
        .collect();
    found(&checker, paths, seconds)
}

/// Depth first with symmetry reduction over every class of states. The path stateright keeps
/// for a discovery is real but wanders (hundreds of steps for redlock's pause), so each is
/// told instead as the shortest path to it, breadth first over the classes too.
pub fn search_symmetric<M>(name: &str, model: &M, progress: bool) -> Found<M>
where
    M: Model + Clone + Send + Sync + 'static,
    M::State: Clone + Debug + Hash + Eq + Send + Sync + Representative,
    M::Action: Clone + Debug + PartialEq,
{
    let started = Instant::now();
    let checker = model
        .clone()
        .checker()
        .symmetry()
        .finish_when(HasDiscoveries::AnyOf(BTreeSet::new()))
        .spawn_dfs();
    let checker = progress::watch(name, checker, progress);
    let seconds = started.elapsed().as_secs_f64();
    let paths = model
        .properties()
        .iter()
        .map(|p| {
            checker.discovery(p.name).map(|_| {
                shortest_path_by(model, p, M::State::representative).expect("the checker found one")
            })
        })
        .collect();
    found(&checker, paths, seconds)
}

fn found<M: Model, C: Checker<M>>(
    checker: &C,
    paths: Vec<Option<Vec<Transition<M>>>>,
    seconds: f64,
) -> Found<M> {
    Found {
        paths,
        states: checker.state_count(),
        unique_states: checker.unique_state_count(),
        max_depth: checker.max_depth(),
        seconds,
    }
}

/// Whether `state` is a discovery for `property`: it breaks an `always`, or satisfies a
/// `sometimes` (no model has an `eventually`).
fn is_discovery<M: Model>(model: &M, property: &Property<M>, state: &M::State) -> bool {
    match property.expectation {
        Expectation::Sometimes => (property.condition)(model, state),
        _ => !(property.condition)(model, state),
    }
}

/// How the search reached each state, by the key of its class (the state itself, or its
/// representative under symmetry): from which state by which action (none for an initial
/// state). Only looked up, never iterated, so its order reaches no output: the path printed
/// depends on the breadth-first queue's order alone.
type Parents<M> = HashMap<<M as Model>::State, Option<(<M as Model>::State, <M as Model>::Action)>>;

/// One step of a path: the state before, the action, the state after.
pub type Transition<M> = (
    <M as Model>::State,
    <M as Model>::Action,
    <M as Model>::State,
);

/// A path, told step by step with who believes it holds the lock after each.
fn told<M: Narrated>(model: &M, path: &[Transition<M>]) -> Vec<Step> {
    path.iter()
        .map(|(before, action, after)| Step {
            what: model.narrate(before, action, after),
            beliefs: beliefs(&model.believers(after)),
        })
        .collect()
}

/// The shortest path (breadth first) to a state that is a discovery for `property`: one
/// that breaks an `always`, or satisfies a `sometimes`. A trace export maps its actions.
pub fn shortest_path<M>(model: &M, property: &Property<M>) -> Option<Vec<Transition<M>>>
where
    M: Model,
    M::State: Clone + Hash + Eq,
    M::Action: Clone,
{
    shortest_path_by(model, property, M::State::clone)
}

/// As `shortest_path`, visiting once each class of states with the same `key`. With a
/// symmetry's representative as key it explores only the reduced space, and the path is
/// still real: the queue holds the states the model reached, never representatives, and each
/// class's parent is the state that reached it first. For a model whose properties are blind
/// to the symmetry, the path is as short as without it.
pub fn shortest_path_by<M>(
    model: &M,
    property: &Property<M>,
    key: fn(&M::State) -> M::State,
) -> Option<Vec<Transition<M>>>
where
    M: Model,
    M::State: Clone + Hash + Eq,
    M::Action: Clone,
{
    let mut parent: Parents<M> = HashMap::new();
    let mut queue = VecDeque::new();
    for init in model.init_states() {
        if parent.insert(key(&init), None).is_none() {
            queue.push_back(init);
        }
    }
    while let Some(state) = queue.pop_front() {
        if is_discovery(model, property, &state) {
            return Some(path_to::<M>(&parent, key, state));
        }
        let mut actions = Vec::new();
        model.actions(&state, &mut actions);
        for action in actions {
            let Some(next) = model.next_state(&state, action.clone()) else {
                continue;
            };
            if let Entry::Vacant(class) = parent.entry(key(&next)) {
                class.insert(Some((state.clone(), action)));
                queue.push_back(next);
            }
        }
    }
    None
}

/// The path from an initial state to `last`.
fn path_to<M>(
    parent: &Parents<M>,
    key: fn(&M::State) -> M::State,
    last: M::State,
) -> Vec<Transition<M>>
where
    M: Model,
    M::State: Clone + Hash + Eq,
    M::Action: Clone,
{
    let mut path = Vec::new();
    let mut state = last;
    while let Some(Some((before, action))) = parent.get(&key(&state)) {
        path.push((before.clone(), action.clone(), state));
        state = before.clone();
    }
    path.reverse();
    path
}

impl CheckReport {
    /// Whether every property holds: no `always` or `eventually` property has a
    /// counterexample and every `sometimes` property has an example. `check` exits 0 then, 1
    /// otherwise.
    pub fn holds(&self) -> bool {
        self.properties.iter().all(PropertyOutcome::holds)
    }

    pub fn states_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.states as f64 / self.seconds
        } else {
            0.0
        }
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out += &format!("model {}  {}", self.model, params.join("  "));
        if self.search == Search::Symmetry {
            out += "  (symmetry: depth first, each class of client renamings once)";
        }
        out += "\n";
        for p in &self.properties {
            out += &format!("{} ({}): {}", p.name, p.expectation_name(), p.verdict());
            match &p.discovery {
                Some(steps) if p.expectation != Expectation::Sometimes => {
                    out += &format!(" in {} steps\n", steps.len());
                    for (i, step) in steps.iter().enumerate() {
                        out += &format!("  {:>2}. {}  [{}]\n", i + 1, step.what, step.beliefs);
                    }
                }
                Some(steps) => out += &format!(" (an example in {} steps)\n", steps.len()),
                None => out += "\n",
            }
        }
        out += &format!(
            "states {}  unique states {}  max depth {}  {:.3} s  {:.0} states/s\n",
            self.states,
            self.unique_states,
            self.max_depth,
            self.seconds,
            self.states_per_second()
        );
        out
    }

    pub fn to_json(&self) -> serde_json::Value {
        let params: serde_json::Map<String, serde_json::Value> = self
            .params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone().into()))
            .collect();
        let properties: Vec<serde_json::Value> = self
            .properties
            .iter()
            .map(|p| {
                let steps = p.discovery.as_ref().map(|steps| {
                    steps
                        .iter()
                        .map(|s| serde_json::json!({"what": s.what, "beliefs": s.beliefs}))
                        .collect::<Vec<_>>()
                });
                serde_json::json!({
                    "name": p.name,
                    "expectation": p.expectation_name(),
                    "verdict": p.verdict(),
                    "holds": p.holds(),
                    "path": steps,
                })
            })
            .collect();
        serde_json::json!({
            "model": self.model,
            "params": params,
            "symmetry": self.search == Search::Symmetry,
            "properties": properties,
            "states": self.states,
            "unique_states": self.unique_states,
            "max_depth": self.max_depth,
            "holds": self.holds(),
            "seconds": self.seconds,
            "states_per_second": self.states_per_second(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(expectation: Expectation, found: bool) -> PropertyOutcome {
        let step = Step {
            what: "c0 acts".into(),
            beliefs: beliefs(&[]),
        };
        PropertyOutcome {
            name: "p",
            expectation,
            discovery: found.then(|| vec![step]),
        }
    }

    fn report(properties: Vec<PropertyOutcome>) -> CheckReport {
        CheckReport {
            model: "m",
            params: Vec::new(),
            search: Search::Plain,
            properties,
            states: 1,
            unique_states: 1,
            max_depth: 0,
            seconds: 0.0,
        }
    }

    #[test]
    fn a_report_holds_only_without_counterexample_and_with_every_example() {
        use Expectation::*;
        assert!(report(vec![outcome(Always, false), outcome(Sometimes, true)]).holds());
        assert!(!report(vec![outcome(Always, true), outcome(Sometimes, true)]).holds());
        assert!(!report(vec![outcome(Always, false), outcome(Sometimes, false)]).holds());
        assert_eq!(outcome(Sometimes, false).verdict(), "no example");
    }
}
