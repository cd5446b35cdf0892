//! How the guided search changes a plan: mutations of its genes (`sim::gene`), each drawn
//! from the swarm's own vocabulary (`swarm::occurrence`, `swarm::targeted`) and held to the
//! profile's bounds (`gene::conform`), so a mutant is a plan the profile could have drawn.
//!
//! A mutation may be confined to what comes after an instant (the branch point: the first
//! time its parent reached something new), so the mutant replays its parent's run up to
//! there and differs only after it.

use crate::sim::fault::{Fault, Role, Target};
use crate::sim::gene::{self, Gene};
use crate::sim::swarm::{self, SwarmConfig};
use crate::sim::vocab::FaultKind;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One way to change a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Mutation {
    /// Move a fault by a few ms.
    ShiftSmall,
    /// Move a fault by up to a quarter of the fault phase.
    ShiftLarge,
    /// Halve, quarter, double or quadruple a fault's length.
    Scale,
    /// Set a fault's length just below or just above a timescale of the recipe.
    Timescale,
    /// Aim a fault at another role or host of the same kind, or a lost reply at another
    /// request.
    Retarget,
    /// Fire a pause at a time instead of an event, at another event, or before a step.
    Retrigger,
    /// Replace a fault by one of another kind at the same time.
    ChangeKind,
    /// Add a fault.
    Insert,
    /// Remove a fault.
    Delete,
    /// Keep the parent's faults before an instant and another plan's after it.
    Splice,
    /// Keep the plan and run it with a new seed: other timings, lags and choices of the
    /// clients and the network under the same faults (the guided search draws the seed).
    Reseed,
}

impl Mutation {
    /// Every mutation, in the order the bandit keeps their weights.
    pub(crate) const ALL: [Mutation; 11] = [
        Mutation::ShiftSmall,
        Mutation::ShiftLarge,
        Mutation::Scale,
        Mutation::Timescale,
        Mutation::Retarget,
        Mutation::Retrigger,
        Mutation::ChangeKind,
        Mutation::Insert,
        Mutation::Delete,
        Mutation::Splice,
        Mutation::Reseed,
    ];

    /// Its name, for reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mutation::ShiftSmall => "shift-small",
            Mutation::ShiftLarge => "shift-large",
            Mutation::Scale => "scale",
            Mutation::Timescale => "timescale",
            Mutation::Retarget => "retarget",
            Mutation::Retrigger => "retrigger",
            Mutation::ChangeKind => "change-kind",
            Mutation::Insert => "insert",
            Mutation::Delete => "delete",
            Mutation::Splice => "splice",
            Mutation::Reseed => "reseed",
        }
    }
}

/// The targets a targeted pause may aim at, as the swarm aims them.
const TARGETS: [Target; 4] = [
    Target::Blocked,
    Target::Holder,
    Target::Waiter,
    Target::PredecessorOf { of: Role::Waiter },
];

/// The kind a new fault is drawn as: one of the profile's kinds, or a targeted pause
/// (`None`) where the profile has them.
pub(crate) type NewKind = Option<FaultKind>;

/// Applies `mutation` to `genes`, touching only genes at or after `from_ms` and adding
/// none before it; `other` is a second plan to splice with, `new_kind` the kind an inserted
/// or changed fault is drawn as. The result is held to the profile's bounds.
pub(crate) fn apply(
    cfg: &SwarmConfig,
    mutation: Mutation,
    genes: &[Gene],
    from_ms: u64,
    other: &[Gene],
    new_kind: NewKind,
    rng: &mut ChaCha8Rng,
) -> Vec<Gene> {
    let phase = cfg.fault_phase_ms.max(1);
    let from_ms = from_ms.min(phase - 1);
    let mut genes = genes.to_vec();
    let movable: Vec<usize> = (0..genes.len())
        .filter(|&i| genes[i].at_ms >= from_ms)
        .collect();
    let pick = |rng: &mut ChaCha8Rng, among: &[usize]| among[rng.random_range(0..among.len())];
    let spanned: Vec<usize> = movable
        .iter()
        .copied()
        .filter(|&i| genes[i].span().is_some())
        .collect();
    match mutation {
        Mutation::Reseed => {}
        Mutation::ShiftSmall | Mutation::ShiftLarge if !movable.is_empty() => {
            let i = pick(rng, &movable);
            let reach = match mutation {
                Mutation::ShiftSmall => 20,
                _ => (phase / 4).max(21),
            };
            let by = rng.random_range(1..=reach);
            let at = genes[i].at_ms;
            genes[i].at_ms = if rng.random_bool(0.5) {
                at.saturating_sub(by).max(from_ms)
            } else {
                (at + by).min(phase - 1)
            };
        }
        Mutation::Scale | Mutation::Timescale if !spanned.is_empty() => {
            let i = pick(rng, &spanned);
            let span = genes[i].span().unwrap_or(1);
            let ms = match (mutation, cfg.timescales.as_slice()) {
                (Mutation::Timescale, scales) if !scales.is_empty() => {
                    let scale = scales[rng.random_range(0..scales.len())];
                    let near = [1, 5, scale / 10 + 1][rng.random_range(0..3)];
                    if rng.random_bool(0.5) {
                        scale.saturating_sub(near)
                    } else {
                        scale + near
                    }
                }
                _ => match rng.random_range(0..4) {
                    0 => span / 4,
                    1 => span / 2,
                    2 => span * 2,
                    _ => span * 4,
                },
            };
            genes[i].set_span(ms.max(1));
        }
        Mutation::Retarget if !movable.is_empty() => {
            let i = pick(rng, &movable);
            retarget(cfg, &mut genes[i].fault, rng);
        }
        Mutation::Retrigger if !movable.is_empty() => {
            let i = pick(rng, &movable);
            retrigger(cfg, &mut genes[i].fault, rng);
        }
        Mutation::ChangeKind if !movable.is_empty() => {
            let i = pick(rng, &movable);
            let at = genes[i].at_ms;
            let drawn = draw(cfg, new_kind, at, rng);
            genes.splice(i..=i, drawn);
        }
        Mutation::Delete if !movable.is_empty() => {
            genes.remove(pick(rng, &movable));
        }
        Mutation::Splice if !other.is_empty() => {
            let cut = rng.random_range(from_ms..phase);
            genes.retain(|g| g.at_ms < cut);
            genes.extend(other.iter().filter(|g| g.at_ms >= cut).cloned());
        }
        _ => {
            // Insert, or a mutation with nothing to act on: a new fault soon after the
            // branch point ("that, and a bit later"), or anywhere after it.
            let at = if rng.random_bool(0.5) {
                from_ms + rng.random_range(0..=phase / 8)
            } else {
                rng.random_range(from_ms..phase)
            };
            genes.extend(draw(cfg, new_kind, at.min(phase - 1), rng));
        }
    }
    gene::conform(cfg, genes)
}

/// A new fault of `kind` at `at_ms`, drawn as the swarm draws it.
fn draw(cfg: &SwarmConfig, kind: NewKind, at_ms: u64, rng: &mut ChaCha8Rng) -> Vec<Gene> {
    match kind {
        Some(kind) => swarm::occurrence(cfg, kind, at_ms, rng),
        None => vec![swarm::targeted(cfg, at_ms, &mut true, rng)],
    }
}

/// Aims `fault` at another role, another host of the same kind, or (a lost reply) another
/// request.
fn retarget(cfg: &SwarmConfig, fault: &mut Fault, rng: &mut ChaCha8Rng) {
    let client = cfg.clients[rng.random_range(0..cfg.clients.len())].clone();
    let server = cfg.servers[rng.random_range(0..cfg.servers.len())]
        .name
        .clone();
    let swap = |host: &mut String| {
        if cfg.is_server(host) {
            *host = server.clone();
        } else {
            *host = client.clone();
        }
    };
    match fault {
        Fault::PauseRole { target, .. } => *target = TARGETS[rng.random_range(0..TARGETS.len())],
        // A link between a client and a server, never one between two servers (`isolate`),
        // which would have to stay between two members.
        Fault::Partition { a, b } | Fault::Loss { a, b, .. } | Fault::Delay { a, b, .. }
            if cfg.is_server(a) != cfg.is_server(b) =>
        {
            if rng.random_bool(0.5) {
                swap(a)
            } else {
                swap(b)
            }
        }
        Fault::Pause { node, .. }
        | Fault::PauseBefore { node, .. }
        | Fault::ClockJump { node, .. }
        | Fault::ClockDrift { node, .. } => swap(node),
        Fault::LoseReply { node, op, .. } if rng.random_bool(0.5) => {
            let ops = cfg
                .servers
                .iter()
                .find(|s| s.name == *node)
                .map_or(&[][..], |s| s.lose_ops.as_slice());
            if !ops.is_empty() {
                *op = ops[rng.random_range(0..ops.len())].to_string();
            }
        }
        Fault::LoseReply { client: c, .. } => *c = client,
        _ => {}
    }
}

/// Fires a pause another way: a targeted one at a time or at another event; a pause of a
/// host at a time or before a step of its program.
fn retrigger(cfg: &SwarmConfig, fault: &mut Fault, rng: &mut ChaCha8Rng) {
    let steps = &cfg.pause_steps;
    let step = |rng: &mut ChaCha8Rng| steps[rng.random_range(0..steps.len())].clone();
    match fault {
        Fault::PauseRole { on, .. } => *on = swarm::trigger(rng.random_range(0..5), steps, rng),
        Fault::Pause { node, for_ms } if !steps.is_empty() => {
            *fault = Fault::PauseBefore {
                node: node.clone(),
                step: step(rng),
                for_ms: *for_ms,
            }
        }
        Fault::PauseBefore { node, for_ms, .. } => {
            *fault = Fault::Pause {
                node: node.clone(),
                for_ms: *for_ms,
            }
        }
        _ => {}
    }
}
