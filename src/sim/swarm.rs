//! Fault-plan generation: the swarm generator (per seed, which kinds are on and how often)
//! and proptest strategies over the same knobs. Both only produce explicit FaultPlans.

use crate::sim::fault::{Fault, FaultPlan, Role, Target, TimedFault, Trigger};
use crate::sim::gene::{self, Gene};
use crate::sim::vocab::FaultKind;
use proptest::prelude::*;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The knobs of plan generation, taken from a scenario's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SwarmConfig {
    /// The kinds a seed may turn on.
    pub(crate) kinds: Vec<FaultKind>,
    /// Faults start within [0, fault_phase_ms); the heal phase follows.
    pub(crate) fault_phase_ms: u64,
    /// The client hosts faults may strike.
    pub(crate) clients: Vec<String>,
    /// The client program's steps a pause can be aimed at; none: pauses strike at a time.
    pub(crate) pause_steps: Vec<String>,
    /// The steps a waiter behind another reaches (`Hosts::wait_steps`), where a `blocked`
    /// pause is aimed; none: any of `pause_steps`.
    pub(crate) wait_steps: Vec<String>,
    /// The server hosts faults may strike.
    pub(crate) servers: Vec<SwarmServer>,
    /// Longest partition, and longest loss; a delay lasts up to four times this or
    /// `delay_max_ms`, whichever is more.
    pub(crate) partition_max_ms: u64,
    /// Longest pause of a client (a targeted one too, unless aimed at a blocked waiter), and
    /// the least gap between two timed pauses of one client.
    pub(crate) pause_max_ms: u64,
    /// Longest time a crashed server stays down.
    pub(crate) crash_down_max_ms: u64,
    /// Most extra latency a delay adds per message.
    pub(crate) delay_max_ms: u64,
    /// Largest clock jump, either way.
    pub(crate) clock_jump_max_ms: u64,
    /// Largest clock drift rate, either way, parts per million.
    pub(crate) clock_drift_max_ppm: u64,
    /// At most this many occurrences of one kind per run.
    pub(crate) per_kind_max: u32,
    /// At most this many targeted pauses per run (unless no kind is on); 0: none, and
    /// nothing drawn for them.
    pub(crate) targeted_max: u32,
    /// Longest targeted pause of a waiter; other roles' stay within `pause_max_ms`.
    pub(crate) targeted_pause_max_ms: u64,
    /// The durations the recipe's behaviour turns on (a session timeout, a lease's TTL, a
    /// heartbeat), which a guided search aims a fault's length just below and just above.
    pub(crate) timescales: Vec<u64>,
}

impl SwarmConfig {
    /// Whether `name` is one of the servers faults may strike.
    pub(crate) fn is_server(&self, name: &str) -> bool {
        self.servers.iter().any(|s| s.name == name)
    }

    /// Longest delay: four times the longest partition or delay, whichever is more.
    pub(crate) fn delay_span_max_ms(&self) -> u64 {
        self.partition_max_ms.max(self.delay_max_ms) * 4
    }
}

/// A server the swarm may fault, with the software faults its family admits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SwarmServer {
    /// Its host name.
    pub(crate) name: String,
    /// The requests whose reply the swarm loses (`lose_reply`); none: it loses no replies.
    pub(crate) reply_ops: Vec<&'static str>,
    /// Every request whose reply it can lose: what the guided search aims a lost reply at.
    pub(crate) lose_ops: Vec<&'static str>,
    /// Whether it has a replica to fail over to.
    pub(crate) fails_over: bool,
    /// Whether it is a follower whose apply can stall.
    pub(crate) stalls_apply: bool,
    /// Whether it is a member of an ensemble, which `isolate` can cut off from the others.
    pub(crate) ensemble_member: bool,
}

/// Whether some server of `servers` admits `kind`, which the swarm may then draw.
pub(crate) fn admitted(kind: FaultKind, servers: &[SwarmServer]) -> bool {
    match kind {
        FaultKind::LoseReply => servers.iter().any(|s| !s.reply_ops.is_empty()),
        FaultKind::Failover => servers.iter().any(|s| s.fails_over),
        FaultKind::StallApply => servers.iter().any(|s| s.stalls_apply),
        FaultKind::Isolate => servers.iter().filter(|s| s.ensemble_member).count() > 1,
        _ => true,
    }
}

/// One fault occurrence drawn from the knobs: a gene (a fault and its undoing), or one for
/// each other member of an ensemble that `isolate` cuts off; none where no server admits
/// the kind.
pub(crate) fn occurrence(
    cfg: &SwarmConfig,
    kind: FaultKind,
    at_ms: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<Gene> {
    let client = cfg.clients[rng.random_range(0..cfg.clients.len())].clone();
    let target = &cfg.servers[rng.random_range(0..cfg.servers.len())];
    let server = target.name.clone();
    let at = Gene::at;
    let undone = |at_ms, fault, undo_ms| Gene {
        undo_ms: Some(undo_ms),
        ..Gene::at(at_ms, fault)
    };
    let mut span = |max: u64| rng.random_range(1..=max.max(1));
    match kind {
        FaultKind::Partition => {
            let d = span(cfg.partition_max_ms);
            vec![undone(
                at_ms,
                Fault::Partition {
                    a: client,
                    b: server,
                },
                d,
            )]
        }
        FaultKind::Loss => {
            let for_ms = span(cfg.partition_max_ms);
            let rate = f64::from(rng.random_range(1..=50u32)) / 100.0;
            vec![at(
                at_ms,
                Fault::Loss {
                    a: client,
                    b: server,
                    rate,
                    for_ms,
                },
            )]
        }
        FaultKind::Delay => {
            let ms = span(cfg.delay_max_ms);
            let for_ms = span(cfg.delay_span_max_ms());
            vec![at(
                at_ms,
                Fault::Delay {
                    a: client,
                    b: server,
                    ms,
                    for_ms,
                },
            )]
        }
        FaultKind::Crash => {
            let d = span(cfg.crash_down_max_ms);
            vec![undone(at_ms, Fault::Crash { node: server }, d)]
        }
        FaultKind::Pause => {
            let for_ms = span(cfg.pause_max_ms);
            let fault = match cfg.pause_steps.as_slice() {
                [] => Fault::Pause {
                    node: client,
                    for_ms,
                },
                steps if rng.random_bool(0.5) => Fault::PauseBefore {
                    node: client,
                    step: steps[rng.random_range(0..steps.len())].clone(),
                    for_ms,
                },
                _ => Fault::Pause {
                    node: client,
                    for_ms,
                },
            };
            vec![at(at_ms, fault)]
        }
        FaultKind::ClockJump => {
            let max = cfg.clock_jump_max_ms.max(1) as i64;
            let node = if rng.random_bool(0.5) { client } else { server };
            let by_ms = rng.random_range(-max..=max);
            vec![at(at_ms, Fault::ClockJump { node, by_ms })]
        }
        FaultKind::ClockDrift => {
            let max = cfg.clock_drift_max_ppm.max(1) as i64;
            let node = if rng.random_bool(0.5) { client } else { server };
            let ppm = rng.random_range(-max..=max);
            vec![at(at_ms, Fault::ClockDrift { node, ppm })]
        }
        FaultKind::LoseReply => {
            let op = match target.reply_ops.as_slice() {
                [] => return vec![],
                [only] => only,
                ops => ops[rng.random_range(0..ops.len())],
            };
            vec![at(
                at_ms,
                Fault::LoseReply {
                    node: server,
                    op: op.to_string(),
                    client,
                },
            )]
        }
        FaultKind::Failover if target.fails_over => {
            vec![at(at_ms, Fault::Failover { node: server })]
        }
        FaultKind::Failover => vec![],
        FaultKind::StallApply if target.stalls_apply => {
            let for_ms = span(cfg.crash_down_max_ms);
            vec![at(
                at_ms,
                Fault::StallApply {
                    node: server,
                    for_ms,
                },
            )]
        }
        FaultKind::StallApply => vec![],
        FaultKind::Isolate if target.ensemble_member => {
            let d = span(cfg.crash_down_max_ms);
            // Named by the first other member; it cuts the server off from every other.
            let Some(other) = cfg
                .servers
                .iter()
                .find(|s| s.ensemble_member && s.name != server)
            else {
                return vec![];
            };
            let cut = Fault::Partition {
                a: server,
                b: other.name.clone(),
            };
            vec![Gene {
                isolate: true,
                ..undone(at_ms, cut, d)
            }]
        }
        FaultKind::Isolate => vec![],
    }
}

/// One targeted pause: a role, a trigger (or none: at its time) and a length. Only a
/// waiter behind another, stopped at a step of its own, may be paused past its session: it
/// holds nothing and no reply on its way can grant it the lock (`Role::Blocked`). Any other role's pause stays within `pause_max_ms`, and a
/// run has at most one (`short_left`), so two never add up to one longer (a woken waiter
/// may have a listing in flight that grants it the lock, and would act on it after its
/// session ended: the holder's pause of Z2).
pub(crate) fn targeted(
    cfg: &SwarmConfig,
    at_ms: u64,
    short_left: &mut bool,
    rng: &mut ChaCha8Rng,
) -> Gene {
    const TARGETS: [Target; 6] = [
        Target::Blocked,
        Target::Blocked,
        Target::Blocked,
        Target::Holder,
        Target::PredecessorOf { of: Role::Waiter },
        Target::Waiter,
    ];
    let mut target = TARGETS[rng.random_range(0..TARGETS.len())];
    if target != Target::Blocked && !std::mem::take(short_left) {
        target = Target::Blocked;
    }
    // A `blocked` pause at a step only a holder reaches strikes nobody.
    let wait_steps = match cfg.wait_steps.as_slice() {
        [] => cfg.pause_steps.as_slice(),
        some => some,
    };
    let on = match rng.random_range(0..8) {
        _ if target == Target::Blocked && !wait_steps.is_empty() => Some(Trigger::Step {
            step: wait_steps[rng.random_range(0..wait_steps.len())].clone(),
        }),
        pick => trigger(pick, &cfg.pause_steps, rng),
    };
    let max = match target {
        Target::Blocked => cfg.targeted_pause_max_ms,
        _ => cfg.pause_max_ms,
    };
    let for_ms = rng.random_range(1..=max.max(1));
    Gene::at(at_ms, Fault::PauseRole { target, on, for_ms })
}

/// The trigger that `pick` draws: none (0: the pause fires at its time), an event (1 to 3),
/// or a step of `steps`, drawn from `rng` (more: none when the program has no steps).
/// Callers weigh the steps by the range they pick from.
pub(crate) fn trigger(pick: u32, steps: &[String], rng: &mut ChaCha8Rng) -> Option<Trigger> {
    match pick {
        0 => None,
        1 => Some(Trigger::Enqueued),
        2 => Some(Trigger::Acquired),
        3 => Some(Trigger::Woken),
        _ if steps.is_empty() => None,
        _ => Some(Trigger::Step {
            step: steps[rng.random_range(0..steps.len())].clone(),
        }),
    }
}

/// Turns drawn occurrences into a plan: drops the undoings that fall after the fault phase
/// (the heal phase undoes everything), and pauses of a node that start less than
/// `pause_max_ms` after its previous pause ended, so that back-to-back pauses never add up
/// to one longer than `pause_max_ms` (two 100 ms pauses 10 ms apart expire a 200 ms session
/// as surely as one 210 ms pause would). A pause aimed at a step may strike later than it
/// is armed, so a node has at most one of those, and none beside a timed one.
pub(crate) fn finish_plan(cfg: &SwarmConfig, mut faults: Vec<TimedFault>) -> FaultPlan {
    faults.retain(|f| f.at_ms < cfg.fault_phase_ms);
    faults.sort_by_key(|f| f.at_ms);
    let mut free_from: BTreeMap<String, u64> = BTreeMap::new();
    faults.retain(|f| match &f.fault {
        Fault::Pause { node, for_ms } => {
            let free = free_from.entry(node.clone()).or_insert(0);
            let keep = f.at_ms >= *free;
            if keep {
                *free = f.at_ms + for_ms + cfg.pause_max_ms;
            }
            keep
        }
        Fault::PauseBefore { node, .. } => {
            let free = free_from.entry(node.clone()).or_insert(0);
            let keep = *free == 0;
            if keep {
                *free = u64::MAX;
            }
            keep
        }
        _ => true,
    });
    FaultPlan(faults)
}

/// Swarm testing: each seed turns on a random subset of the configured kinds, each with its
/// own intensity, so some runs hammer one fault and others mix several.
pub fn swarm(cfg: &SwarmConfig, rng: &mut ChaCha8Rng) -> FaultPlan {
    gene::plan_of(cfg, &swarm_genes(cfg, rng))
}

/// The genes `swarm` draws, before they are expanded into a plan.
pub(crate) fn swarm_genes(cfg: &SwarmConfig, rng: &mut ChaCha8Rng) -> Vec<Gene> {
    let mut faults = Vec::new();
    if cfg.clients.is_empty() || cfg.servers.is_empty() || cfg.fault_phase_ms == 0 {
        return faults;
    }
    for &kind in &cfg.kinds {
        if !rng.random_bool(0.5) {
            continue;
        }
        let count = rng.random_range(1..=cfg.per_kind_max.max(1));
        for _ in 0..count {
            let at_ms = rng.random_range(0..cfg.fault_phase_ms);
            faults.extend(occurrence(cfg, kind, at_ms, rng));
        }
    }
    if cfg.targeted_max > 0 && !cfg.kinds.is_empty() {
        let mut short_left = true;
        for _ in 0..rng.random_range(1..=cfg.targeted_max) {
            let at_ms = rng.random_range(0..cfg.fault_phase_ms);
            faults.push(targeted(cfg, at_ms, &mut short_left, rng));
        }
    }
    faults
}

/// A proptest strategy over plans with the same knobs: a list of occurrences, each a kind,
/// a start time and a seed for its details. Shrinking drops occurrences and moves them.
pub fn plan_strategy(cfg: SwarmConfig) -> impl Strategy<Value = FaultPlan> {
    let kinds = cfg.kinds.clone();
    let max_len = (cfg.per_kind_max as usize * kinds.len()).max(1);
    let phase = cfg.fault_phase_ms.max(1);
    let one = (0..kinds.len().max(1), 0..phase, any::<u64>());
    proptest::collection::vec(one, 0..=max_len).prop_map(move |picks| {
        if cfg.kinds.is_empty() || cfg.clients.is_empty() || cfg.servers.is_empty() {
            return FaultPlan::default();
        }
        let genes: Vec<Gene> = picks
            .into_iter()
            .flat_map(|(k, at_ms, detail)| {
                let mut rng = rand::SeedableRng::seed_from_u64(detail);
                occurrence(&cfg, cfg.kinds[k], at_ms, &mut rng)
            })
            .collect();
        gene::plan_of(&cfg, &genes)
    })
}

/// A profile of every kind on one server and two clients, for tests of what draws from one.
#[cfg(test)]
pub(crate) fn test_config() -> SwarmConfig {
    SwarmConfig {
        kinds: FaultKind::ALL.to_vec(),
        fault_phase_ms: 1000,
        clients: vec!["c1".into(), "c2".into()],
        pause_steps: vec![],
        wait_steps: vec![],
        servers: vec![SwarmServer {
            name: "zk1".into(),
            reply_ops: vec!["create"],
            lose_ops: vec!["create", "sync"],
            fails_over: false,
            stalls_apply: false,
            ensemble_member: false,
        }],
        partition_max_ms: 50,
        pause_max_ms: 100,
        crash_down_max_ms: 200,
        delay_max_ms: 20,
        clock_jump_max_ms: 5000,
        clock_drift_max_ppm: 1000,
        per_kind_max: 3,
        targeted_max: 0,
        targeted_pause_max_ms: 300,
        timescales: vec![200],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::seed::Seeds;
    use crate::sim::software::steps;
    use std::str::FromStr;

    fn cfg() -> SwarmConfig {
        test_config()
    }

    #[test]
    fn swarm_is_a_function_of_the_seed() {
        let a = swarm(&cfg(), &mut Seeds::new(7).stream("faults"));
        let b = swarm(&cfg(), &mut Seeds::new(7).stream("faults"));
        assert_eq!(a, b);
        let differs = (0..20).any(|s| swarm(&cfg(), &mut Seeds::new(s).stream("faults")) != a);
        assert!(differs);
    }

    #[test]
    fn swarm_respects_kinds_phase_and_bounds() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Pause];
        for seed in 0..50 {
            let plan = swarm(&c, &mut Seeds::new(seed).stream("faults"));
            for f in &plan.0 {
                assert!(f.at_ms < 1000);
                match &f.fault {
                    Fault::Pause { for_ms, .. } => assert!((1..=100).contains(for_ms)),
                    other => panic!("kind not enabled: {other}"),
                }
            }
            assert!(plan.0.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
            let mut last_end: BTreeMap<&str, u64> = BTreeMap::new();
            for f in &plan.0 {
                if let Fault::Pause { node, for_ms } = &f.fault {
                    if let Some(end) = last_end.get(node.as_str()) {
                        assert!(f.at_ms >= end + 100, "pauses of {node} too close: {plan:?}");
                    }
                    last_end.insert(node, f.at_ms + for_ms);
                }
            }
        }
    }

    #[test]
    fn a_client_gets_at_most_one_pause_aimed_at_a_step_and_then_no_timed_one() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Pause];
        c.pause_steps = steps(&["write", "release"]);
        let mut aimed = 0;
        for seed in 0..200 {
            let plan = swarm(&c, &mut Seeds::new(seed).stream("faults"));
            for client in &c.clients {
                let pauses: Vec<&Fault> = plan
                    .0
                    .iter()
                    .map(|t| &t.fault)
                    .filter(|f| f.nodes() == [client.as_str()])
                    .collect();
                let at_step = pauses
                    .iter()
                    .filter(|f| matches!(f, Fault::PauseBefore { .. }))
                    .count();
                assert!(at_step == 0 || pauses.len() == 1, "{client}: {pauses:?}");
                aimed += at_step;
            }
        }
        assert!(aimed > 0, "no pause was aimed at a step");
    }

    #[test]
    fn targeted_pauses_are_drawn_only_when_asked_and_hold_no_role_past_pause_max() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Pause];
        c.pause_steps = steps(&["write", "exists"]);
        let plain: Vec<FaultPlan> = (0..50)
            .map(|s| swarm(&c, &mut Seeds::new(s).stream("faults")))
            .collect();
        assert!(
            plain
                .iter()
                .flat_map(|p| &p.0)
                .all(|t| !t.fault.is_targeted())
        );
        c.targeted_max = 3;
        let (mut waiters, mut on_step) = (0, 0);
        for seed in 0..200 {
            let plan = swarm(&c, &mut Seeds::new(seed).stream("faults"));
            let mut short = 0;
            for fault in plan.0.iter().map(|t| &t.fault) {
                if let Fault::PauseRole { target, on, for_ms } = fault {
                    match target {
                        Target::Blocked => waiters += usize::from(*for_ms > c.pause_max_ms),
                        _ => {
                            assert!(*for_ms <= c.pause_max_ms, "{fault}");
                            short += 1;
                        }
                    }
                    on_step += usize::from(matches!(on, Some(Trigger::Step { .. })));
                }
            }
            assert!(short <= 1, "two short targeted pauses: {plan:?}");
        }
        assert!(waiters > 0 && on_step > 0, "{waiters} {on_step}");
    }

    /// A `blocked` pause aims only at the steps a waiter reaches, when there are such steps.
    #[test]
    fn blocked_pauses_aim_at_wait_steps() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Pause];
        c.pause_steps = steps(&["write", "release", "exists"]);
        c.wait_steps = steps(&["exists"]);
        c.targeted_max = 3;
        let mut blocked_steps = std::collections::BTreeSet::new();
        let mut other_steps = std::collections::BTreeSet::new();
        for seed in 0..200 {
            for fault in swarm(&c, &mut Seeds::new(seed).stream("faults")).0 {
                if let Fault::PauseRole {
                    target,
                    on: Some(Trigger::Step { step }),
                    ..
                } = fault.fault
                {
                    match target {
                        Target::Blocked => blocked_steps.insert(step),
                        _ => other_steps.insert(step),
                    };
                }
            }
        }
        assert_eq!(blocked_steps.into_iter().collect::<Vec<_>>(), ["exists"]);
        assert!(other_steps.len() > 1, "{other_steps:?}");
    }

    #[test]
    fn partitions_are_repaired_and_crashes_restarted_within_the_phase_or_by_the_heal() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Partition, FaultKind::Crash];
        let plan = (0..20)
            .map(|s| swarm(&c, &mut Seeds::new(s).stream("faults")))
            .find(|p| !p.0.is_empty())
            .unwrap();
        let count = |name: &str| plan.0.iter().filter(|f| f.fault.name() == name).count();
        assert!(count("partition") >= count("repair") && count("repair") > 0);
        assert!(count("crash") >= count("restart"));
        assert!(plan.0.iter().all(|f| f.at_ms < c.fault_phase_ms));
    }

    #[test]
    fn isolate_cuts_one_member_off_from_every_other_and_nothing_off_a_server_alone() {
        let mut c = cfg();
        c.kinds = vec![FaultKind::Isolate];
        let alone: Vec<FaultPlan> = (0..20)
            .map(|s| swarm(&c, &mut Seeds::new(s).stream("faults")))
            .collect();
        assert!(alone.iter().all(|p| p.0.is_empty()), "{alone:?}");
        c.servers = (1..=3)
            .map(|i| SwarmServer {
                name: format!("zk{i}"),
                ensemble_member: true,
                ..c.servers[0].clone()
            })
            .collect();
        let plan = (0..20)
            .map(|s| swarm(&c, &mut Seeds::new(s).stream("faults")))
            .find(|p| !p.0.is_empty())
            .unwrap();
        let Fault::Partition { a, .. } = &plan.0[0].fault else {
            panic!("{plan:?}")
        };
        let cuts: Vec<&String> = plan.0[..2]
            .iter()
            .filter_map(|f| match &f.fault {
                Fault::Partition { a: x, b } if x == a => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(cuts.len(), 2, "{a} cut off from both others: {plan:?}");
        assert!(cuts.iter().all(|b| *b != a && b.starts_with("zk")));
        assert_eq!(FaultKind::from_str("isolate"), Ok(FaultKind::Isolate));
    }
}
