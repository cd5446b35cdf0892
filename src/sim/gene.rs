//! A fault plan as the generators see it: genes, each one drawn fault with its undoing (a
//! partition with its repair, a crash with its restart), and what a profile admits of them.
//!
//! The swarm draws genes and expands them into a plan; the guided search (`explore::guided`)
//! mutates genes and holds each mutant to the same bounds (`conform`), so a mutant never
//! strikes harder than the profile's own plans could: a correct recipe that survives the
//! profile survives its mutants too, and a finding is a finding of the profile.

use crate::sim::fault::{Fault, FaultPlan, Target, TimedFault, Trigger};
use crate::sim::swarm::SwarmConfig;
use crate::sim::vocab::FaultKind;
use std::collections::BTreeMap;

/// One drawn fault: applied at `at_ms`, and undone `undo_ms` later when it is a partition
/// (by its repair) or a crash (by its restart).
#[derive(Debug, Clone, PartialEq)]
pub struct Gene {
    /// When the fault is applied (or, for a targeted one, armed), true ms.
    pub at_ms: u64,
    /// The fault.
    pub fault: Fault,
    /// For a partition or a crash, how long until it is undone; None for the rest.
    pub undo_ms: Option<u64>,
    /// For a partition of one ensemble member from another: cut it off from every other
    /// member (`isolate`), as one fault that moves and lasts as one.
    pub isolate: bool,
}

impl Gene {
    /// A gene with no undoing.
    pub fn at(at_ms: u64, fault: Fault) -> Gene {
        Gene {
            at_ms,
            fault,
            undo_ms: None,
            isolate: false,
        }
    }

    /// Its faults: the fault and its undoing, for an `isolate` one pair for each other member.
    fn expand(&self, cfg: &SwarmConfig) -> Vec<TimedFault> {
        let at = |at_ms, fault| TimedFault { at_ms, fault };
        match (&self.fault, self.undo_ms) {
            (Fault::Partition { a, .. }, Some(ms)) if self.isolate => cfg
                .servers
                .iter()
                .filter(|s| s.ensemble_member && s.name != *a)
                .flat_map(|other| {
                    let (a, b) = (a.clone(), other.name.clone());
                    let cut = Fault::Partition {
                        a: a.clone(),
                        b: b.clone(),
                    };
                    [
                        at(self.at_ms, cut),
                        at(self.at_ms + ms, Fault::Repair { a, b }),
                    ]
                })
                .collect(),
            (Fault::Partition { a, b }, Some(ms)) => vec![
                at(self.at_ms, self.fault.clone()),
                at(
                    self.at_ms + ms,
                    Fault::Repair {
                        a: a.clone(),
                        b: b.clone(),
                    },
                ),
            ],
            (Fault::Crash { node }, Some(ms)) => vec![
                at(self.at_ms, self.fault.clone()),
                at(self.at_ms + ms, Fault::Restart { node: node.clone() }),
            ],
            _ => vec![at(self.at_ms, self.fault.clone())],
        }
    }

    /// The kind of the swarm it is an occurrence of (a partition between two servers is an
    /// `isolate`).
    pub fn kind(&self, cfg: &SwarmConfig) -> FaultKind {
        match &self.fault {
            Fault::Partition { a, b } if cfg.is_server(a) && cfg.is_server(b) => FaultKind::Isolate,
            fault => fault.tag().kind(),
        }
    }

    /// The longest this gene's duration may be under `cfg` (its undoing's delay, or its
    /// `for_ms`); None: it has no duration.
    pub fn max_span(&self, cfg: &SwarmConfig) -> Option<u64> {
        Some(
            match &self.fault {
                Fault::Partition { .. } if self.kind(cfg) == FaultKind::Isolate => {
                    cfg.crash_down_max_ms
                }
                Fault::Partition { .. } | Fault::Loss { .. } => cfg.partition_max_ms,
                Fault::Crash { .. } | Fault::StallApply { .. } => cfg.crash_down_max_ms,
                Fault::Delay { .. } => cfg.delay_span_max_ms(),
                Fault::Pause { .. } | Fault::PauseBefore { .. } => cfg.pause_max_ms,
                Fault::PauseRole {
                    target: Target::Blocked,
                    ..
                } => cfg.targeted_pause_max_ms,
                Fault::PauseRole { .. } => cfg.pause_max_ms,
                _ => return None,
            }
            .max(1),
        )
    }

    /// Its duration: the undoing's delay, or its `for_ms`.
    pub fn span(&self) -> Option<u64> {
        match &self.fault {
            Fault::Partition { .. } | Fault::Crash { .. } => self.undo_ms,
            fault => fault.for_ms(),
        }
    }

    /// Sets its duration to `ms`, if it has one.
    pub fn set_span(&mut self, ms: u64) {
        match &mut self.fault {
            Fault::Partition { .. } | Fault::Crash { .. } => self.undo_ms = Some(ms),
            fault => {
                if let Some(for_ms) = fault.for_ms_mut() {
                    *for_ms = ms;
                }
            }
        }
    }
}

/// The plan `genes` stand for: each expanded, in order, then the swarm's rules applied
/// (`swarm::finish_plan`).
pub fn plan_of(cfg: &SwarmConfig, genes: &[Gene]) -> FaultPlan {
    crate::sim::swarm::finish_plan(cfg, genes.iter().flat_map(|g| g.expand(cfg)).collect())
}

/// `genes` held to what the profile admits, as the swarm draws it: only its kinds, at most
/// `per_kind_max` of each, every duration, rate, jump and drift within its bound, at most
/// `targeted_max` targeted pauses of which at most one not aimed at a blocked waiter, and
/// everything within the fault phase. What is over a bound is brought back to it; genes of
/// a kind that is off, or past a count, are dropped. In time order.
pub fn conform(cfg: &SwarmConfig, mut genes: Vec<Gene>) -> Vec<Gene> {
    genes.retain(|g| g.at_ms < cfg.fault_phase_ms);
    genes.sort_by_key(|g| g.at_ms);
    let mut counts: BTreeMap<FaultKind, u32> = BTreeMap::new();
    let (mut targeted, mut short) = (0, 0);
    genes.retain_mut(|gene| {
        if let Fault::PauseRole { target, .. } = &gene.fault {
            let is_short = *target != Target::Blocked;
            if targeted >= cfg.targeted_max || (is_short && short >= 1) || cfg.kinds.is_empty() {
                return false;
            }
            targeted += 1;
            short += u32::from(is_short);
        } else {
            let kind = gene.kind(cfg);
            let count = counts.entry(kind).or_insert(0);
            if !cfg.kinds.contains(&kind) || *count >= cfg.per_kind_max.max(1) {
                return false;
            }
            *count += 1;
        }
        aim_blocked_at_a_wait_step(cfg, &mut gene.fault);
        if let (Some(span), Some(max)) = (gene.span(), gene.max_span(cfg)) {
            gene.set_span(span.clamp(1, max));
        }
        clamp_magnitudes(cfg, &mut gene.fault);
        true
    });
    genes
}

/// A pause aimed at a blocked waiter fires, as the swarm aims it, at a step a waiter reaches
/// behind another (where the program declares such steps): only there may it outlast a
/// session, as nothing on its way can grant the waiter the lock.
fn aim_blocked_at_a_wait_step(cfg: &SwarmConfig, fault: &mut Fault) {
    let wait_steps = match cfg.wait_steps.as_slice() {
        [] => cfg.pause_steps.as_slice(),
        some => some,
    };
    if let Fault::PauseRole {
        target: Target::Blocked,
        on,
        ..
    } = fault
        && let Some(first) = wait_steps.first()
        && !matches!(on, Some(Trigger::Step { step }) if wait_steps.contains(step))
    {
        *on = Some(Trigger::Step {
            step: first.clone(),
        });
    }
}

/// Rates, jumps and drifts within the swarm's bounds.
fn clamp_magnitudes(cfg: &SwarmConfig, fault: &mut Fault) {
    match fault {
        Fault::Loss { rate, .. } => *rate = rate.clamp(0.01, 0.5),
        Fault::Delay { ms, .. } => *ms = (*ms).clamp(1, cfg.delay_max_ms.max(1)),
        Fault::ClockJump { by_ms, .. } => {
            let max = cfg.clock_jump_max_ms.max(1) as i64;
            *by_ms = (*by_ms).clamp(-max, max);
        }
        Fault::ClockDrift { ppm, .. } => {
            let max = cfg.clock_drift_max_ppm.max(1) as i64;
            *ppm = (*ppm).clamp(-max, max);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;
    use crate::sim::seed::Seeds;
    use crate::world::run::{generate_plan, swarm_config};

    /// What the swarm draws is what the profile admits: `conform` keeps every gene of it, and
    /// the genes expand to the swarm's plan, for every built-in scenario and an ensemble.
    #[test]
    fn the_swarm_draws_only_what_conform_admits() {
        let mut checked = 0;
        for scenario in scenario::builtins() {
            for set in [&[][..], &["zk_servers=3"][..]] {
                let Ok(params) = scenario.params(None, set) else {
                    continue;
                };
                let cfg = swarm_config(scenario, &params);
                for seed in 0..40 {
                    let genes = crate::sim::swarm::swarm_genes(
                        &cfg,
                        &mut Seeds::new(seed).stream("faults"),
                    );
                    let mut sorted = genes.clone();
                    sorted.sort_by_key(|g| g.at_ms);
                    assert_eq!(
                        conform(&cfg, genes.clone()),
                        sorted,
                        "{} seed {seed}",
                        scenario.name
                    );
                    assert_eq!(
                        plan_of(&cfg, &genes),
                        generate_plan(scenario, &params, seed)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn conform_brings_a_gene_back_within_its_bounds() {
        let scenario = scenario::find("zk-lock").unwrap();
        let params = scenario.params::<&str>(Some("targeted"), &[]).unwrap();
        let cfg = swarm_config(scenario, &params);
        let long = |fault| Gene::at(5, fault);
        let genes = vec![
            long(Fault::Pause {
                node: "c1".into(),
                for_ms: 1_000_000,
            }),
            Gene {
                undo_ms: Some(1_000_000),
                ..Gene::at(6, Fault::Crash { node: "zk1".into() })
            },
            long(Fault::PauseRole {
                target: Target::Holder,
                on: None,
                for_ms: 1_000_000,
            }),
            long(Fault::PauseRole {
                target: Target::Waiter,
                on: None,
                for_ms: 3,
            }),
            long(Fault::PauseRole {
                target: Target::Blocked,
                on: Some(Trigger::Acquired),
                for_ms: 1_000_000,
            }),
            Gene::at(cfg.fault_phase_ms, Fault::Crash { node: "zk1".into() }),
        ];
        // The profile's timed pauses are off (targeted ones only): in time order, the
        // holder's pause, the blocked waiter's, the crash.
        assert!(!cfg.kinds.contains(&FaultKind::Pause));
        let held = conform(&cfg, genes);
        assert_eq!(
            held.len(),
            3,
            "one short targeted pause at most, none after the phase: {held:?}"
        );
        assert_eq!(held[0].span(), Some(cfg.pause_max_ms));
        assert_eq!(held[2].span(), Some(cfg.crash_down_max_ms));
        let Fault::PauseRole { on, for_ms, .. } = &held[1].fault else {
            panic!("{held:?}")
        };
        assert_eq!(*for_ms, cfg.targeted_pause_max_ms);
        assert!(
            matches!(on, Some(Trigger::Step { step }) if cfg.wait_steps.contains(step)),
            "a blocked waiter is paused at a step it waits at: {on:?}"
        );
    }
}
