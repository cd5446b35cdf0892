//! Checkers: each property is a pure function of the History (one file each).
//!
//! `check` first validates the history; a malformed one is a harness bug, reported as
//! `Malformed` and never judged, so a recorder mistake cannot pose as a system bug (or hide
//! one). Checkers judge by true simulated time and history order, never by clock readings.
//!
//! - `checker`: the seam each property's checker implements
//! - `property`: which properties exist and their names
//! - `violation`: what a broken property is reported as
//! - `malformed`: the history's own rules and their breaches
//! - `mutex`, `rw_exclusion`, `resource`, `herd`, `liveness`, `fifo`, `leader`, `queue`,
//!   `barrier`, `read_your_writes`: one checker each

mod barrier;
mod checker;
mod fifo;
mod herd;
mod leader;
mod liveness;
mod malformed;
mod mutex;
mod property;
mod queue;
mod read_your_writes;
mod resource;
mod rw_exclusion;
#[cfg(test)]
pub(crate) mod test_history;
mod violation;

pub use checker::{Checker, Reads, Witness};
pub(crate) use leader::terms_by_election;
pub use malformed::{Malformed, MalformedReason, validate};
pub use mutex::{Hold, Point, lock_holds};
pub use property::{BadPropertyName, Property, UnknownProperty};
pub use violation::Violation;

use crate::history::History;
use crate::sim::param::{Param, ParamValue, ParamValues};
use std::fmt;
use std::sync::Arc;

/// What checkers need to know of a run besides its history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckConfig {
    /// How long after the heal (or after it started wanting, if later) a client may wait
    /// for a lock before that counts as a liveness violation.
    pub liveness_bound_ms: u64,
    /// The run's values of the parameters its scenario declared (`param` reads them).
    pub params: ParamValues,
}

impl CheckConfig {
    /// This run's value of a parameter of your own scenario, as the recipe read it with
    /// `Node::param`: a checker judging "at most `permits` holders" reads `permits` here.
    pub fn param<T: ParamValue>(&self, param: Param<T>) -> T {
        self.params.get(param)
    }
}

/// Validates `history`, then runs the built-in checkers of `properties` (see `check_with`).
pub fn check(
    history: &History,
    properties: &[Property],
    cfg: &CheckConfig,
) -> Result<Vec<Violation>, Malformed> {
    let builtin = Checkers::default();
    let checkers = builtin
        .judging(properties)
        .expect("every built-in property has a checker");
    check_with(history, &checkers, cfg)
}

/// Validates `history`, then runs `checkers` in their order (as `Checkers::judging` gives
/// them: by property, each once), each checker's violations in the order it documents.
pub fn check_with(
    history: &History,
    checkers: &[&dyn Checker],
    cfg: &CheckConfig,
) -> Result<Vec<Violation>, Malformed> {
    validate(history)?;
    Ok(checkers
        .iter()
        .flat_map(|c| c.check(history, cfg))
        .collect())
}

/// What `checkers` saw of the freedom their properties leave (readers sharing a lock), in
/// their order; for a history `check_with` accepted.
pub fn witnesses(history: &History, checkers: &[&dyn Checker]) -> Vec<Witness> {
    checkers
        .iter()
        .filter_map(|c| {
            c.witness(history).map(|detail| Witness {
                property: c.property(),
                detail,
            })
        })
        .collect()
}

/// The checkers of a scenario's own properties, beside the built-in ones: what a run of it
/// can be judged by.
#[derive(Clone, Default)]
pub struct Checkers(Vec<Arc<dyn Checker>>);

impl Checkers {
    /// Adds `checker`; it judges its property in place of any checker added before for it
    /// (and of a built-in one).
    pub fn add(&mut self, checker: Arc<dyn Checker>) {
        self.0.retain(|c| c.property() != checker.property());
        self.0.push(checker);
    }

    /// The checker of each of `properties`, in property order and each once: the scenario's
    /// own first, then the built-in. Err: a property nothing here judges.
    pub fn judging(&self, properties: &[Property]) -> Result<Vec<&dyn Checker>, NoChecker> {
        let mut wanted = properties.to_vec();
        wanted.sort();
        wanted.dedup();
        wanted
            .into_iter()
            .map(|property| {
                self.0
                    .iter()
                    .map(|c| c.as_ref())
                    .find(|c| c.property() == property)
                    .or_else(|| builtin_checker(property))
                    .ok_or(NoChecker(property))
            })
            .collect()
    }
}

impl fmt::Debug for Checkers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|c| c.property()))
            .finish()
    }
}

/// A property that no checker of the scenario, nor a built-in one, judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoChecker(pub Property);

impl fmt::Display for NoChecker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no checker judges property `{}` (give the scenario one: Experiment::check)",
            self.0
        )
    }
}

impl std::error::Error for NoChecker {}

/// Every built-in checker, in `Property::BUILTIN` order.
const CHECKERS: [&dyn Checker; 10] = [
    &mutex::Mutex,
    &rw_exclusion::RwExclusion,
    &resource::Resource,
    &herd::Herd,
    &liveness::Liveness,
    &fifo::Fifo,
    &leader::Leader,
    &queue::QueueChecker,
    &barrier::Barrier,
    &read_your_writes::ReadYourWrites,
];

/// The built-in checker of `property`, if it is a built-in property.
pub fn builtin_checker(property: Property) -> Option<&'static dyn Checker> {
    CHECKERS.into_iter().find(|c| c.property() == property)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HarnessOp, Op};
    use test_history::*;

    fn cfg() -> CheckConfig {
        CheckConfig {
            liveness_bound_ms: 1000,
            ..CheckConfig::default()
        }
    }

    /// c1 and c2 both hold L1 (mutex) and c3 waits from before the heal to the end (liveness).
    fn two_holders_and_a_starved_waiter() -> History {
        let mut h = HistoryBuilder::default();
        for client in ["c1", "c2", "c3"] {
            h.at(0, client).invoke(acquire(L1));
        }
        h.at(10, "c1").ok(acquire(L1));
        h.at(20, "c2").ok(acquire(L1));
        h.at(100, "harness").info(Op::Harness(HarnessOp::Heal));
        h.at(5000, "harness").info(Op::Harness(HarnessOp::End));
        h.build()
    }

    fn properties_of(violations: &[Violation]) -> Vec<Property> {
        violations.iter().map(|v| v.property).collect()
    }

    #[test]
    fn runs_only_the_chosen_checkers() {
        let h = two_holders_and_a_starved_waiter();
        let mutex_only = check(&h, &[Property::MUTEX], &cfg()).unwrap();
        assert_eq!(properties_of(&mutex_only), [Property::MUTEX]);
        let none = check(&h, &[Property::HERD, Property::FIFO], &cfg()).unwrap();
        assert_eq!(none, []);
    }

    #[test]
    fn output_order_follows_all_and_ignores_repeats() {
        let h = two_holders_and_a_starved_waiter();
        let asked = [Property::LIVENESS, Property::MUTEX, Property::LIVENESS];
        let v = check(&h, &asked, &cfg()).unwrap();
        assert_eq!(properties_of(&v), [Property::MUTEX, Property::LIVENESS]);
        assert_eq!(v[1].clients, ["c3"]);
        let mut all = check(&h, &Property::BUILTIN, &cfg()).unwrap();
        assert_eq!(all.remove(1).property, Property::RW_EXCLUSION, "{all:?}");
        assert_eq!(all, v);
    }

    #[test]
    fn malformed_history_is_an_error_not_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(10, "c1").ok(acquire(L1));
        h.at(10, "c2").invoke(acquire(L1));
        h.at(10, "c2").ok(acquire(L1));
        let err = check(&h.build_unchecked(), &Property::BUILTIN, &cfg()).unwrap_err();
        assert_eq!(
            err,
            Malformed {
                index: 0,
                reason: MalformedReason::CompletionWithoutInvoke
            }
        );
    }

    #[test]
    fn every_property_has_one_checker_in_all_order() {
        let order: Vec<Property> = CHECKERS.iter().map(|c| c.property()).collect();
        assert_eq!(order, Property::BUILTIN);
        for property in Property::BUILTIN {
            let checker = builtin_checker(property).unwrap();
            assert_eq!(checker.property(), property);
            assert!(!checker.reads().is_empty());
        }
    }

    #[test]
    fn empty_history_has_no_violations() {
        assert_eq!(
            check(&History::default(), &Property::BUILTIN, &cfg()),
            Ok(vec![])
        );
    }
}
