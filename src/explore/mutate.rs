//! How the guided search changes a plan: mutations of its genes (`sim::gene`), each drawn
//! from the swarm's own vocabulary (`swarm::occurrence`, `swarm::targeted`) and held to the
//! profile's bounds (`gene::conform`), so a mutant is a plan the profile could have drawn.
//!
//! A mutation may be confined to what comes after an instant (the branch point: the first
//! time its parent reached something new), so the mutant replays its parent's run up to
//! there and differs only after it.

use crate::recorder::{Sent, ServerLog};
use crate::sim::fault::{Fault, Role, Target};
use crate::sim::gene::{self, Gene};
use crate::sim::swarm::{self, SwarmConfig};
use crate::sim::vocab::FaultKind;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

mod carried;
mod squeeze;

pub(crate) use carried::{carried, everywhere};
pub(crate) use squeeze::squeezable;

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
    /// Lose the reply to a request the parent's run sent, drawn by its client and kind, so
    /// a rare request is aimed at as often as a frequent one. The campaign also adds one to
    /// fresh plans, drawn from a corpus run's requests (`guided::Campaign::aimed`).
    Aim,
    /// Lose the reply to one of the next requests of a client after a reply it lost in the
    /// parent's run (the look that would settle what happened), and perhaps its retry's. At
    /// the profile's count of lost replies it gives up another that struck before the
    /// branch point if it must, so its mutant may differ from its parent before there. The
    /// campaign runs it on a new seed (`guided::Campaign::draw`).
    FollowUp,
    /// Close the least margin the parent's servers measured (`squeeze`): stall the
    /// follower whose read came nearest to missing its session's write, from just before
    /// the write was due there until after the read; or make the read that came nearest to
    /// missing a node a session's end deleted late (a delay on its link, or a pause of the
    /// waiter at its step), from its request before on.
    Squeeze,
}

impl Mutation {
    /// Every mutation, in the order the bandit keeps their weights.
    pub(crate) const ALL: [Mutation; 14] = [
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
        Mutation::Aim,
        Mutation::FollowUp,
        Mutation::Squeeze,
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
            Mutation::Aim => "aim",
            Mutation::FollowUp => "follow-up",
            Mutation::Squeeze => "squeeze",
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

/// What a mutation works from: the parent's genes and what its run's servers told (the
/// requests they answered, the margins they measured), the instant its changes start at,
/// and a second plan to splice with.
pub(crate) struct Parent<'a> {
    pub genes: &'a [Gene],
    pub log: &'a ServerLog,
    pub from_ms: u64,
    pub other: &'a [Gene],
}

/// Applies `mutation` to the parent's genes, touching only genes at or after its `from_ms`
/// and adding none before it; `new_kind` is the kind an inserted or changed fault is drawn
/// as. The result is held to the profile's bounds.
pub(crate) fn apply(
    cfg: &SwarmConfig,
    mutation: Mutation,
    parent: &Parent<'_>,
    new_kind: NewKind,
    rng: &mut ChaCha8Rng,
) -> Vec<Gene> {
    let (from_ms, other) = (parent.from_ms, parent.other);
    let phase = cfg.fault_phase_ms.max(1);
    let from_ms = from_ms.min(phase - 1);
    let mut genes = parent.genes.to_vec();
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
        Mutation::Aim if aim(cfg, &mut genes, from_ms, parent.log, false, rng) => {}
        Mutation::FollowUp if aim(cfg, &mut genes, from_ms, parent.log, true, rng) => {}
        Mutation::Squeeze if squeeze::squeeze(cfg, &mut genes, parent.log, from_ms, rng) => {}
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

/// Adds a lost reply aimed at a request of `requests` answered at or after `from_ms`, armed
/// after the same client's previous request of its kind so that it strikes that one. With
/// `follow`, one of the next four kinds of request of a client after a reply it lost (how
/// it settles what happened), drawn by how rare its kind is in the run, half the time with
/// the next request of that kind too (a retry); else a request drawn by (client, kind), then
/// by occurrence. A plan at the profile's count of lost replies gives up others
/// (`make_room`). False when there is nothing to aim at, or the profile loses no replies.
fn aim(
    cfg: &SwarmConfig,
    genes: &mut Vec<Gene>,
    from_ms: u64,
    requests: &ServerLog,
    follow: bool,
    rng: &mut ChaCha8Rng,
) -> bool {
    let sent = requests.sent();
    let loseable = |s: &Sent| {
        s.at_ms >= from_ms
            && cfg.servers.iter().any(|server| {
                server.name == requests.name(s.server) && server.lose_ops.contains(&s.op)
            })
    };
    if !cfg.kinds.contains(&FaultKind::LoseReply) {
        return false;
    }
    // The requests to lose, and whether the next of the first one's kind is lost too (a
    // retry: the parent's run sent none when its look went through, so it is aimed at
    // whatever the client sends next of that kind).
    let (target, again, followed) = if follow {
        let follow_ups = follow_ups(requests, loseable);
        if follow_ups.is_empty() {
            return false;
        }
        // Drawn by the rarity of its kind in the run: the look that settles what a lost
        // reply did is a request a client sends after a loss and seldom otherwise.
        let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
        for s in sent {
            *counts.entry(s.op).or_default() += 1;
        }
        let weights: Vec<f64> = follow_ups
            .iter()
            .map(|&(_, j)| 1.0 / f64::from(counts[sent[j].op]))
            .collect();
        let (lost, next) = follow_ups[weighted(&weights, rng)];
        (next, rng.random_bool(0.5), Some(lost))
    } else {
        let kinds: BTreeSet<(u16, &str)> = sent
            .iter()
            .filter(|s| loseable(s))
            .map(|s| (s.client, s.op))
            .collect();
        let Some(&(client, op)) = kinds.iter().nth(rng.random_range(0..kinds.len().max(1))) else {
            return false;
        };
        let at: Vec<usize> = (0..sent.len())
            .filter(|&i| sent[i].client == client && sent[i].op == op && loseable(&sent[i]))
            .collect();
        (at[rng.random_range(0..at.len())], false, None)
    };
    if !make_room(
        cfg,
        genes,
        from_ms,
        requests,
        followed,
        1 + usize::from(again),
        rng,
    ) {
        return false;
    }
    let aimed = sent[target];
    let same = |s: &&Sent| s.client == aimed.client && s.op == aimed.op && s.server == aimed.server;
    let armed_ms = sent[..target]
        .iter()
        .rev()
        .find(same)
        .map_or(from_ms, |previous| previous.at_ms + 1)
        .clamp(from_ms, aimed.at_ms);
    let lose = |at_ms| {
        Gene::at(
            at_ms,
            Fault::LoseReply {
                node: requests.name(aimed.server).to_string(),
                op: aimed.op.to_string(),
                client: requests.name(aimed.client).to_string(),
            },
        )
    };
    genes.push(lose(armed_ms));
    if again {
        genes.push(lose(aimed.at_ms + 1));
    }
    true
}

/// An index of `weights` drawn in proportion to its weight (the last when rounding leaves
/// none).
pub(crate) fn weighted(weights: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let mut at = rng.random::<f64>() * weights.iter().sum::<f64>();
    weights
        .iter()
        .position(|w| {
            at -= w;
            at < 0.0
        })
        .unwrap_or(weights.len().saturating_sub(1))
}

/// The requests of `requests` that `loseable` admits among the next four kinds a client
/// sent after each reply it lost.
fn follow_ups(requests: &ServerLog, loseable: impl Fn(&Sent) -> bool) -> Vec<(usize, usize)> {
    let sent = requests.sent();
    let mut follow_ups = Vec::new();
    for (i, lost) in sent.iter().enumerate().filter(|(_, s)| s.lost) {
        let mut kinds: Vec<&str> = Vec::new();
        for (j, next) in sent.iter().enumerate().skip(i + 1) {
            if next.client != lost.client || kinds.contains(&next.op) {
                continue;
            }
            kinds.push(next.op);
            if loseable(next) {
                follow_ups.push((i, j));
            }
            if kinds.len() == 4 {
                break;
            }
        }
    }
    follow_ups
}

/// Makes room for `more` lost replies within the profile's count, giving up as few as it
/// must: first those that never struck in the parent's run (anywhere: one that never struck
/// changed nothing of it, so its run up to `from_ms` stays the same), then others after
/// `from_ms`, and for a follow-up, last, others before it, never the one that lost the
/// `followed` request's reply. False when it cannot.
fn make_room(
    cfg: &SwarmConfig,
    genes: &mut Vec<Gene>,
    from_ms: u64,
    requests: &ServerLog,
    followed: Option<usize>,
    more: usize,
    rng: &mut ChaCha8Rng,
) -> bool {
    let max = cfg.per_kind_max.max(1) as usize;
    let struck = strikes(genes, requests);
    // Each lost reply's gene with the tier it is given up in (lowest first).
    let mut losing: Vec<(usize, u8)> = (0..genes.len())
        .filter(|&i| genes[i].kind(cfg) == FaultKind::LoseReply)
        .filter_map(|i| {
            let tier = match struck[i] {
                None => 0,
                Some(r) if Some(r) == followed => return None,
                Some(_) if genes[i].at_ms >= from_ms => 1,
                Some(_) if followed.is_some() => 2,
                Some(_) => return None,
            };
            Some((i, tier))
        })
        .collect();
    let count = genes
        .iter()
        .filter(|g| g.kind(cfg) == FaultKind::LoseReply)
        .count();
    let Some(over) = (count + more).checked_sub(max) else {
        return true;
    };
    if more > max || over > losing.len() {
        return false;
    }
    let mut gone = Vec::new();
    for _ in 0..over {
        let lowest = losing
            .iter()
            .map(|&(_, t)| t)
            .min()
            .expect("enough to give up");
        let among: Vec<usize> = (0..losing.len())
            .filter(|&k| losing[k].1 == lowest)
            .collect();
        gone.push(losing.remove(among[rng.random_range(0..among.len())]).0);
    }
    gone.sort_unstable();
    for i in gone.into_iter().rev() {
        genes.remove(i);
    }
    true
}

/// For each gene, the request of `requests` whose reply it lost in that run, if any: a server
/// keeps the lost replies armed at it in the order they were armed, and the first that
/// matches a reply loses it.
fn strikes(genes: &[Gene], requests: &ServerLog) -> Vec<Option<usize>> {
    let mut armed: Vec<usize> = (0..genes.len())
        .filter(|&i| matches!(genes[i].fault, Fault::LoseReply { .. }))
        .collect();
    armed.sort_by_key(|&i| genes[i].at_ms);
    let mut struck = vec![None; genes.len()];
    for (r, lost) in requests.sent().iter().enumerate().filter(|(_, s)| s.lost) {
        let hit = armed.iter().position(|&i| {
            let Fault::LoseReply { node, op, client } = &genes[i].fault else {
                return false;
            };
            genes[i].at_ms <= lost.at_ms
                && requests.name(lost.server) == node
                && requests.name(lost.client) == client
                && (op == "any" || op == lost.op)
        });
        if let Some(k) = hit {
            struck[armed.remove(k)] = Some(r);
        }
    }
    struck
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::seed::Seeds;
    use crate::sim::swarm::test_config;

    fn lose(at_ms: u64, op: &str, client: &str) -> Gene {
        Gene::at(
            at_ms,
            Fault::LoseReply {
                node: "zk1".into(),
                op: op.into(),
                client: client.into(),
            },
        )
    }

    /// c1's create at 30 ms lost, then its reconnect's pings and its two syncs; c2 creates
    /// throughout.
    fn requests() -> ServerLog {
        let mut sent: Vec<(u64, &str, &'static str)> = [10, 20, 40, 60, 80, 100]
            .into_iter()
            .map(|at| (at, "c2", "create"))
            .collect();
        sent.extend([
            (30, "c1", "create"),
            (35, "c1", "ping"),
            (45, "c1", "sync"),
            (55, "c1", "sync"),
            (65, "c1", "create"),
        ]);
        sent.sort();
        let mut log = ServerLog::default();
        for (at, client, op) in sent {
            log.push(at, "zk1", client, op, at == 30);
        }
        log
    }

    fn aimed(mutation: Mutation, genes: &[Gene], from_ms: u64, seed: u64) -> Vec<Gene> {
        let cfg = test_config();
        let log = requests();
        let parent = Parent {
            genes,
            log: &log,
            from_ms,
            other: &[],
        };
        apply(
            &cfg,
            mutation,
            &parent,
            None,
            &mut Seeds::new(seed).stream("t"),
        )
    }

    /// The lost replies `mutation` added to `parent`, as (client, op, armed at).
    fn added(mutation: Mutation, parent: &[Gene], seed: u64) -> Vec<(String, String, u64)> {
        aimed(mutation, parent, 31, seed)
            .into_iter()
            .filter(|g| !parent.contains(g))
            .map(|g| match g.fault {
                Fault::LoseReply { op, client, .. } => (client, op, g.at_ms),
                other => panic!("not a lost reply: {other:?}"),
            })
            .collect()
    }

    /// `aim` loses the reply to a request of the parent's run after the branch point, armed
    /// after the client's request of that kind before it, so it strikes exactly that one:
    /// c1's first sync from the branch point on, its second after the first.
    #[test]
    fn aim_strikes_a_request_the_parent_sent() {
        let parent = [lose(25, "create", "c1")];
        let mut seen = BTreeSet::new();
        for seed in 0..200 {
            let added = added(Mutation::Aim, &parent, seed);
            let [(client, op, at)] = &added[..] else {
                panic!("one lost reply added: {added:?}")
            };
            let expected = match (client.as_str(), op.as_str(), *at) {
                ("c1", "sync", 31 | 46) | ("c1", "create", 31) => true,
                ("c2", "create", at) => [31, 41, 61, 81].contains(&at),
                _ => false,
            };
            assert!(expected, "aimed at no request of the run: {added:?}");
            seen.insert(added[0].clone());
        }
        assert!(seen.contains(&("c1".into(), "sync".into(), 46)), "{seen:?}");
        assert!(
            seen.contains(&("c2".into(), "create".into(), 81)),
            "{seen:?}"
        );
    }

    /// `follow-up` loses what c1 sent after its lost create (its sync, or its next create),
    /// sometimes the next request of that kind too (its retry, which the parent's run never
    /// sent), never a request of c2, which lost nothing; the sync, which c1 sent only after
    /// its loss, far more often than the create every client sends.
    #[test]
    fn follow_up_loses_what_a_client_sent_after_its_lost_reply() {
        let parent = [lose(25, "create", "c1")];
        let mut seen: BTreeMap<Vec<(String, String, u64)>, u32> = BTreeMap::new();
        for seed in 0..200 {
            *seen
                .entry(added(Mutation::FollowUp, &parent, seed))
                .or_default() += 1;
        }
        let at = |op: &str, at| (String::from("c1"), String::from(op), at);
        let [sync, sync_retry, create, create_retry] = [
            vec![at("sync", 31)],
            vec![at("sync", 31), at("sync", 46)],
            vec![at("create", 31)],
            vec![at("create", 31), at("create", 66)],
        ]
        .map(|added| seen.remove(&added).unwrap_or(0));
        assert!(seen.is_empty(), "{seen:?}");
        assert!(sync > 0 && sync_retry > 0, "the retry lost too, sometimes");
        assert!(
            sync + sync_retry > 2 * (create + create_retry),
            "{sync} {sync_retry} {create} {create_retry}"
        );
    }

    /// A follow-up with no room left before the branch point gives up another client's lost
    /// replies there, never the one it follows.
    #[test]
    fn follow_up_gives_up_other_lost_replies_but_the_one_it_follows() {
        let mut log = ServerLog::default();
        for (at, client, op, lost) in [
            (10, "c2", "create", true),
            (20, "c2", "create", true),
            (30, "c1", "create", true),
            (45, "c1", "sync", false),
        ] {
            log.push(at, "zk1", client, op, lost);
        }
        let parent = [
            lose(5, "any", "c2"),
            lose(15, "create", "c2"),
            lose(25, "create", "c1"),
        ];
        for seed in 0..50 {
            let from = Parent {
                genes: &parent,
                log: &log,
                from_ms: 31,
                other: &[],
            };
            let cfg = test_config();
            let rng = &mut Seeds::new(seed).stream("t");
            let genes = apply(&cfg, Mutation::FollowUp, &from, None, rng);
            assert!(genes.contains(&parent[2]), "{genes:?}");
            assert!(genes.contains(&lose(31, "sync", "c1")), "{genes:?}");
            assert!(genes.len() <= 3, "{genes:?}");
        }
    }

    /// A server loses the first reply that matches the lost replies armed at it, in the
    /// order they were armed: the earlier `any` strikes c2's create, and the later `create`
    /// strikes nothing (c2's next lost reply is not a create).
    #[test]
    fn each_lost_reply_strikes_the_first_match_after_it_was_armed() {
        let mut log = ServerLog::default();
        log.push(10, "zk1", "c2", "create", true);
        log.push(12, "zk1", "c2", "sync", true);
        log.push(14, "zk1", "c1", "create", false);
        let genes = [
            lose(8, "create", "c2"),
            lose(5, "any", "c2"),
            lose(11, "any", "c2"),
            lose(1, "create", "c1"),
        ];
        assert_eq!(strikes(&genes, &log), [None, Some(0), Some(1), None]);
    }

    /// At the profile's count of lost replies, `aim` gives up one that never struck and keeps
    /// the one that did.
    #[test]
    fn aim_keeps_the_lost_reply_that_struck() {
        let parent = [
            lose(25, "create", "c1"),
            lose(40, "sync", "c2"),
            lose(50, "any", "c2"),
        ];
        for seed in 0..50 {
            let genes = aimed(Mutation::Aim, &parent, 26, seed);
            assert_eq!(genes.len(), 3, "{genes:?}");
            assert!(genes.contains(&parent[0]), "{genes:?}");
        }
    }

    /// A profile that loses no replies, or a run with nothing after the branch point, gets
    /// another fault instead.
    #[test]
    fn aim_with_nothing_to_aim_at_inserts() {
        let genes = aimed(Mutation::FollowUp, &[], 900, 1);
        assert!(
            genes
                .iter()
                .all(|g| g.kind(&test_config()) != FaultKind::LoseReply || g.at_ms >= 900)
        );
    }
}
