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
//!   `barrier`: one checker each

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
mod resource;
mod rw_exclusion;
#[cfg(test)]
mod test_history;
mod violation;

pub use checker::{Checker, Reads, Witness};
pub use malformed::{Malformed, MalformedReason, validate};
pub use property::{Property, UnknownProperty};
pub use violation::Violation;

use crate::history::History;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckConfig {
    /// How long after the heal (or after it started wanting, if later) a client may wait
    /// for a lock before that counts as a liveness violation.
    pub liveness_bound_ms: u64,
}

/// Validates `history`, then runs the checkers for `properties`. Violations come grouped by
/// property in `Property::ALL` order (whatever order `properties` lists them in, and each
/// property once), each checker's in the order it documents.
pub fn check(
    history: &History,
    properties: &[Property],
    cfg: &CheckConfig,
) -> Result<Vec<Violation>, Malformed> {
    validate(history)?;
    Ok(CHECKERS
        .iter()
        .filter(|c| properties.contains(&c.property()))
        .flat_map(|c| c.check(history, cfg))
        .collect())
}

/// What the checkers of `properties` saw of the freedom their properties leave (readers
/// sharing a lock), in `Property::ALL` order; for a history `check` accepted.
pub fn witnesses(history: &History, properties: &[Property]) -> Vec<Witness> {
    CHECKERS
        .iter()
        .filter(|c| properties.contains(&c.property()))
        .filter_map(|c| {
            c.witness(history).map(|detail| Witness {
                property: c.property(),
                detail,
            })
        })
        .collect()
}

/// Every checker, in `Property::ALL` order.
const CHECKERS: [&dyn Checker; 9] = [
    &mutex::Mutex,
    &rw_exclusion::RwExclusion,
    &resource::Resource,
    &herd::Herd,
    &liveness::Liveness,
    &fifo::Fifo,
    &leader::Leader,
    &queue::QueueChecker,
    &barrier::Barrier,
];

/// The checker of `property`.
pub fn checker(property: Property) -> &'static dyn Checker {
    CHECKERS
        .into_iter()
        .find(|c| c.property() == property)
        .expect("every property has a checker")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HarnessOp, Op};
    use test_history::*;

    const CFG: CheckConfig = CheckConfig {
        liveness_bound_ms: 1000,
    };

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
        let mutex_only = check(&h, &[Property::Mutex], &CFG).unwrap();
        assert_eq!(properties_of(&mutex_only), [Property::Mutex]);
        let none = check(&h, &[Property::Herd, Property::Fifo], &CFG).unwrap();
        assert_eq!(none, []);
    }

    #[test]
    fn output_order_follows_all_and_ignores_repeats() {
        let h = two_holders_and_a_starved_waiter();
        let asked = [Property::Liveness, Property::Mutex, Property::Liveness];
        let v = check(&h, &asked, &CFG).unwrap();
        assert_eq!(properties_of(&v), [Property::Mutex, Property::Liveness]);
        assert_eq!(v[1].clients, ["c3"]);
        let mut all = check(&h, &Property::ALL, &CFG).unwrap();
        assert_eq!(all.remove(1).property, Property::RwExclusion, "{all:?}");
        assert_eq!(all, v);
    }

    #[test]
    fn malformed_history_is_an_error_not_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(10, "c1").ok(acquire(L1));
        h.at(10, "c2").invoke(acquire(L1));
        h.at(10, "c2").ok(acquire(L1));
        let err = check(&h.build_unchecked(), &Property::ALL, &CFG).unwrap_err();
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
        assert_eq!(order, Property::ALL);
        for property in Property::ALL {
            assert_eq!(checker(property).property(), property);
            assert!(!checker(property).reads().is_empty());
        }
    }

    #[test]
    fn empty_history_has_no_violations() {
        assert_eq!(check(&History::default(), &Property::ALL, &CFG), Ok(vec![]));
    }
}
