//! Shrinking a failing plan to a small one that still breaks one of the same properties.
//!
//! Faults go with what undoes them (a crash with its restart, a partition with its repair:
//! `Fault::undoes`). Removed alone, a restart would leave its server down until the heal,
//! longer than the plan that found the flaw kept it down and than its profile lets a crash
//! last: `zk-lock-no-sync` seed 297 shrank to a crash of zk1 at 208 ms that lasted until the
//! heal at 600 ms, where its profile's `crash_down_max_ms` is 300. A shrunk plan tells a story
//! no harsher than the run that found it.

use super::Finding;
use crate::check::Property;
use crate::world::run::{self, RunReport, RunSpec};
use std::cell::Cell;
use std::collections::BTreeSet;

/// Most runs the shrinker may spend.
const SHRINK_BUDGET: usize = 150;

/// Shrinks a failing plan to a small one that still breaks one of the same properties.
/// Removing faults one at a time alone gets stuck where the failure has several causes (a
/// pause that breaks the lock by itself, among crashes that break it only together): each
/// removal keeps some failure, and the greedy path ends at the wrong one. So it first tries
/// the smallest plans: no fault, each fault alone, then each pair while the budget allows;
/// then it removes faults one at a time from the best plan found, until no single removal
/// keeps it failing (or the budget is spent). A fault is tried, kept and removed with what
/// undoes it (`units`).
pub(super) fn shrink(spec: RunSpec, report: RunReport) -> Finding {
    let wanted: Vec<Property> = report.violations.iter().map(|v| v.property).collect();
    shrink_keeping(spec, report, &wanted)
}

/// `shrink`, keeping one of `wanted` broken (`report` breaks one of them).
pub(super) fn shrink_keeping(spec: RunSpec, report: RunReport, wanted: &[Property]) -> Finding {
    let original_faults = spec.plan.0.len();
    let units = units(&spec);
    let budget = Cell::new(SHRINK_BUDGET);
    let attempt = |kept: &[usize]| {
        budget.set(budget.get().saturating_sub(1));
        let candidate = keeping(&spec, &units, kept);
        match run::run(&candidate) {
            Ok(r) if r.violations.iter().any(|v| wanted.contains(&v.property)) => {
                Some((kept.to_vec(), candidate, r))
            }
            _ => None,
        }
    };
    let n = units.len();
    let singles = (0..n).map(|i| vec![i]);
    let pairs = (0..n).flat_map(|i| (i + 1..n).map(move |j| vec![i, j]));
    let small: Vec<Vec<usize>> = std::iter::once(vec![])
        .chain(singles)
        .chain(pairs)
        .take_while(|kept| kept.len() < n)
        .take(SHRINK_BUDGET / 2)
        .collect();
    let mut best = small.iter().find_map(|kept| attempt(kept)).unwrap_or((
        (0..n).collect(),
        spec.clone(),
        report,
    ));
    let mut progress = true;
    while progress && budget.get() > 0 {
        progress = false;
        let mut i = 0;
        while i < best.0.len() && budget.get() > 0 {
            let mut kept = best.0.clone();
            kept.remove(i);
            match attempt(&kept) {
                Some(smaller) => {
                    best = smaller;
                    progress = true;
                }
                None => i += 1,
            }
        }
    }
    Finding {
        spec: best.1,
        report: best.2,
        original_faults,
    }
}

/// The plan's faults as the shrinker removes them: each that undoes nothing before it, by its
/// index, with the index of the first fault after it that undoes it, if one does. A repair of
/// every link goes with each partition it ends.
fn units(spec: &RunSpec) -> Vec<(usize, Option<usize>)> {
    let faults = &spec.plan.0;
    let undoing =
        |i: usize| (i + 1..faults.len()).find(|&k| faults[k].fault.undoes(&faults[i].fault));
    let undoings: BTreeSet<usize> = (0..faults.len()).filter_map(undoing).collect();
    (0..faults.len())
        .filter(|i| !undoings.contains(i))
        .map(|i| (i, undoing(i)))
        .collect()
}

/// `spec` with the faults of the `kept` units only, in the plan's order.
fn keeping(spec: &RunSpec, units: &[(usize, Option<usize>)], kept: &[usize]) -> RunSpec {
    let mut keep = vec![false; spec.plan.0.len()];
    for &(fault, undoing) in kept.iter().map(|&u| &units[u]) {
        keep[fault] = true;
        if let Some(k) = undoing {
            keep[k] = true;
        }
    }
    let mut candidate = spec.clone();
    candidate.plan.0 = spec
        .plan
        .0
        .iter()
        .zip(keep)
        .filter(|(_, keep)| *keep)
        .map(|(fault, _)| fault.clone())
        .collect();
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::scenario;
    use crate::sim::fault::{Fault, FaultPlan, TimedFault};

    fn at(at_ms: u64, fault: Fault) -> TimedFault {
        TimedFault { at_ms, fault }
    }

    /// A plan whose one fault breaks the lock alone, behind faults that only add noise,
    /// shrinks to that fault; a flaw that needs no fault shrinks to the empty plan.
    #[test]
    fn shrinking_finds_the_smallest_cause() {
        let scenario = scenario::find("zk-lock-noguid").unwrap();
        let params = Params::default().overridden(&["faults=none"]).unwrap();
        let lost = Fault::LoseReply {
            node: "zk1".into(),
            op: "create".into(),
            client: "c2".into(),
        };
        let noise = |ms: u64| Fault::ClockDrift {
            node: format!("c{}", 1 + ms % 5),
            ppm: 1_000,
        };
        let plan = FaultPlan(vec![
            at(5, noise(1)),
            at(10, lost.clone()),
            at(20, noise(2)),
        ]);
        let spec = RunSpec {
            plan,
            ..RunSpec::generated(scenario, params.clone(), 0)
        };
        let report = run::run(&spec).unwrap();
        assert!(
            !report.violations.is_empty(),
            "the lost create orphans c2's node"
        );
        let found = shrink(spec, report);
        assert_eq!(found.spec.plan.0, vec![at(10, lost)]);
        assert_eq!(found.original_faults, 3);

        let herd = scenario::find("zk-lock-herd").unwrap();
        let spec = RunSpec::generated(herd, Params::default(), 0);
        assert!(!spec.plan.0.is_empty());
        let report = run::run(&spec).unwrap();
        assert!(shrink(spec, report).spec.plan.0.is_empty());
    }

    /// Each fault goes with the first later one that undoes it; a repair of every link with
    /// each partition it ends; a restart of a server that did not crash is a fault of its own.
    #[test]
    fn a_fault_is_kept_and_removed_with_what_undoes_it() {
        let node = |n: &str| n.to_string();
        let cut = |a: &str| Fault::Partition {
            a: node(a),
            b: node("zk1"),
        };
        let plan = vec![
            at(10, Fault::Crash { node: node("zk2") }),
            at(20, cut("c1")),
            at(30, cut("c2")),
            at(40, Fault::Restart { node: node("zk2") }),
            at(50, Fault::Restart { node: node("zk3") }),
            at(60, Fault::RepairAll),
        ];
        let spec = RunSpec {
            plan: FaultPlan(plan.clone()),
            ..RunSpec::generated(scenario::find("zk-lock").unwrap(), Params::default(), 0)
        };
        let units = units(&spec);
        assert_eq!(
            units,
            [(0, Some(3)), (1, Some(5)), (2, Some(5)), (4, None)],
            "{plan:?}"
        );
        let kept = |units_kept: &[usize]| keeping(&spec, &units, units_kept).plan.0;
        assert_eq!(kept(&[0]), [plan[0].clone(), plan[3].clone()]);
        assert_eq!(
            kept(&[2, 3]),
            [plan[2].clone(), plan[4].clone(), plan[5].clone()]
        );
        assert_eq!(kept(&[0, 1, 2, 3]), plan);
    }

    /// `zk-lock-no-sync` seed 297 breaks liveness with a crash of zk1 and the restart its
    /// profile gave it; shrunk, the restart stays (it shrank to the crash alone, which left
    /// zk1 down until the heal).
    #[test]
    fn a_crash_shrinks_with_its_restart() {
        let scenario = scenario::find("zk-lock-no-sync").unwrap();
        let params = scenario.params::<&str>(None, &[]).unwrap();
        let spec = RunSpec::generated(scenario, params, 297);
        let report = run::run(&spec).unwrap();
        assert!(!report.violations.is_empty(), "seed 297 finds the flaw");
        let found = shrink(spec.clone(), report);
        let shrunk = &found.spec.plan.0;
        let names: Vec<&str> = shrunk.iter().map(|f| f.fault.name()).collect();
        assert_eq!(names, ["crash", "restart"], "{shrunk:?}");
        assert!(
            shrunk.iter().all(|f| spec.plan.0.contains(f)),
            "as the generated plan had them: {shrunk:?}"
        );
    }
}
