//! The squeeze: a run whose servers measured a margin (`recorder::Margin`) came that near
//! to a flaw, and what the margin measures was that much early. Making it late by more than
//! the margin, from just before the instant the margin counts from, closes it:
//! - where a follower's read had 7 ms to spare after applying its session's write, a stall
//!   of its apply from 1 ms before the write was due until after the read makes the read
//!   miss the write;
//! - where a read found another session's node 4 ms before that session's end deleted it,
//!   a delay of 5 ms or more on the reader's link, from its request before the read until
//!   the read was sent, makes the read find the node gone, while what the reader listed
//!   before still showed it.
//!
//! The run is the same up to the fault, so what the run did next with the read it now
//! misses is what the recipe does with it.

use crate::recorder::{Late, Margin, ServerLog};
use crate::sim::fault::{Fault, Target, Trigger};
use crate::sim::gene::Gene;
use crate::sim::swarm::SwarmConfig;
use crate::sim::vocab::FaultKind;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The stall beyond the margin, at most: a read's time to spare is measured to the ms, and
/// the recipe's next step may come a little later than the read.
const BEYOND_MS: u64 = 20;

/// The fault that closes a margin: when it starts, and the least it must make late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing<'a> {
    /// A stall of the margin's server's apply, from before the write was due there.
    Stall { start: u64, at_least: u64 },
    /// A delay of every message between `client` and the margin's server, from the
    /// client's request before the read until the read was sent.
    Delay {
        client: &'a str,
        start: u64,
        at_least: u64,
        span: u64,
    },
    /// A pause of the waiter that next reaches a step only a waiter reaches (such as its
    /// look at its predecessor), armed from the reader's request before the read: for a
    /// margin longer than a delay may add.
    Pause { start: u64, at_least: u64 },
}

impl Closing<'_> {
    fn start(&self) -> u64 {
        match *self {
            Closing::Stall { start, .. }
            | Closing::Delay { start, .. }
            | Closing::Pause { start, .. } => start,
        }
    }

    /// Whether the profile has faults of its kind.
    fn allowed(&self, cfg: &SwarmConfig) -> bool {
        match self {
            Closing::Stall { .. } => cfg.kinds.contains(&FaultKind::StallApply),
            Closing::Delay { .. } => cfg.kinds.contains(&FaultKind::Delay),
            Closing::Pause { .. } => cfg.targeted_max > 0 && !cfg.kinds.is_empty(),
        }
    }

    /// Whether `gene` counts against the same bound (`bound`) as this fault.
    fn counts(&self, cfg: &SwarmConfig, gene: &Gene) -> bool {
        match self {
            Closing::Stall { .. } => gene.kind(cfg) == FaultKind::StallApply,
            Closing::Delay { .. } => gene.kind(cfg) == FaultKind::Delay,
            Closing::Pause { .. } => gene.fault.is_targeted(),
        }
    }

    fn bound(&self, cfg: &SwarmConfig) -> usize {
        match self {
            Closing::Stall { .. } | Closing::Delay { .. } => cfg.per_kind_max.max(1) as usize,
            Closing::Pause { .. } => cfg.targeted_max as usize,
        }
    }

    /// The fault, past the margin by up to the bound its kind allows.
    fn gene(&self, cfg: &SwarmConfig, margin: &Margin, rng: &mut ChaCha8Rng) -> Gene {
        let fault = match *self {
            Closing::Stall { at_least, .. } => Fault::StallApply {
                node: margin.node.clone(),
                for_ms: (at_least + rng.random_range(1..=BEYOND_MS)).min(cfg.crash_down_max_ms),
            },
            Closing::Delay {
                client,
                at_least,
                span,
                ..
            } => Fault::Delay {
                a: client.to_string(),
                b: margin.node.clone(),
                ms: rng.random_range(at_least..=cfg.delay_max_ms),
                for_ms: span,
            },
            Closing::Pause { at_least, .. } => Fault::PauseRole {
                target: Target::Blocked,
                on: Some(Trigger::Step {
                    step: cfg.wait_steps[rng.random_range(0..cfg.wait_steps.len())].clone(),
                }),
                for_ms: (at_least + rng.random_range(1..=BEYOND_MS)).min(cfg.targeted_pause_max_ms),
            },
        };
        Gene::at(self.start(), fault)
    }
}

/// The fault that closes `margin` (no earlier than `from_ms`, within the fault phase), if
/// the profile has its kind and it fits the profile's bounds.
fn closing<'a>(cfg: &SwarmConfig, margin: &'a Margin, from_ms: u64) -> Option<Closing<'a>> {
    let ms = u64::try_from(margin.ms).ok()?;
    let closing = match &margin.late {
        Late::Apply => {
            let stallable = cfg
                .servers
                .iter()
                .any(|s| s.name == margin.node && s.stalls_apply);
            let start = margin.at_ms.checked_sub(ms + 1)?;
            (stallable && ms + 2 <= cfg.crash_down_max_ms).then_some(Closing::Stall {
                start,
                at_least: ms + 1,
            })?
        }
        Late::Requests {
            client,
            since_ms,
            reader,
        } => {
            let span = margin.at_ms.checked_sub(*since_ms)? + 1;
            let delay = Closing::Delay {
                client,
                start: *since_ms,
                at_least: ms + 1,
                span,
            };
            let pause = Closing::Pause {
                start: *since_ms,
                at_least: ms + 1,
            };
            let delays = ms < cfg.delay_max_ms && span <= cfg.delay_span_max_ms();
            let pauses = *reader && ms < cfg.targeted_pause_max_ms && !cfg.wait_steps.is_empty();
            match (delays && delay.allowed(cfg), pauses) {
                (true, _) => delay,
                (false, true) => pause,
                (false, false) => return None,
            }
        }
    };
    let start = closing.start();
    (closing.allowed(cfg) && start >= from_ms && start < cfg.fault_phase_ms).then_some(closing)
}

/// The name of the margin of `log` a squeeze of a plan from `from_ms` on would close (the
/// least closable), if any.
pub(crate) fn squeezable(cfg: &SwarmConfig, log: &ServerLog, from_ms: u64) -> Option<&'static str> {
    log.margins()
        .iter()
        .filter(|m| closing(cfg, m, from_ms).is_some())
        .min_by_key(|m| m.ms)
        .map(|m| m.name)
}

/// Adds to `genes` the fault that closes the least closable margin of `log`, from `from_ms`
/// on, giving up faults of its kind that start no earlier than it, the latest first, while
/// the plan is at the profile's count of that kind. False when no margin can be closed, or
/// no room made (the mutation then falls back as any other does).
pub(super) fn squeeze(
    cfg: &SwarmConfig,
    genes: &mut Vec<Gene>,
    log: &ServerLog,
    from_ms: u64,
    rng: &mut ChaCha8Rng,
) -> bool {
    let closable = log
        .margins()
        .iter()
        .filter_map(|m| Some((m, closing(cfg, m, from_ms)?)))
        .min_by_key(|(m, _)| m.ms);
    let Some((margin, closing)) = closable else {
        return false;
    };
    let count = |genes: &[Gene]| genes.iter().filter(|g| closing.counts(cfg, g)).count();
    while count(genes) >= closing.bound(cfg) {
        let Some(later) = genes
            .iter()
            .rposition(|g| closing.counts(cfg, g) && g.at_ms >= closing.start())
        else {
            return false;
        };
        genes.remove(later);
    }
    genes.push(closing.gene(cfg, margin, rng));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::seed::Seeds;
    use crate::sim::swarm::{SwarmServer, test_config};

    /// zk1 a follower whose apply can stall, zk3 the leader.
    fn config() -> SwarmConfig {
        let member = |name: &str, stalls_apply| SwarmServer {
            name: name.into(),
            reply_ops: vec!["create"],
            lose_ops: vec!["create"],
            fails_over: false,
            stalls_apply,
            ensemble_member: true,
        };
        SwarmConfig {
            servers: vec![member("zk1", true), member("zk3", false)],
            ..test_config()
        }
    }

    fn log(margins: &[(&str, u64, i64)]) -> ServerLog {
        let mut log = ServerLog::default();
        for (i, &(node, at_ms, ms)) in margins.iter().enumerate() {
            let name = ["a", "b", "c"][i];
            log.margin(Margin {
                name,
                at_ms,
                ms,
                node: node.into(),
                late: Late::Apply,
            });
        }
        log
    }

    fn stall(at_ms: u64, for_ms: u64) -> Gene {
        Gene::at(
            at_ms,
            Fault::StallApply {
                node: "zk1".into(),
                for_ms,
            },
        )
    }

    fn squeezed(cfg: &SwarmConfig, genes: &[Gene], log: &ServerLog, from_ms: u64) -> Vec<Gene> {
        let mut genes = genes.to_vec();
        let mut rng = Seeds::new(3).stream("campaign");
        assert!(squeeze(cfg, &mut genes, log, from_ms, &mut rng));
        genes
    }

    #[test]
    fn the_least_closable_margin_gets_a_stall_from_just_before_it_until_past_it() {
        let cfg = config();
        // The leader's margin is least but cannot be stalled; zk1's 7 ms can.
        let log = log(&[("zk1", 300, 7), ("zk3", 200, 2), ("zk1", 400, 30)]);
        assert!(squeezable(&cfg, &log, 0).is_some());
        for _ in 0..20 {
            let genes = squeezed(&cfg, &[], &log, 0);
            let [gene] = genes.as_slice() else {
                panic!("{genes:?}")
            };
            assert_eq!(gene.at_ms, 292);
            let Fault::StallApply { node, for_ms } = &gene.fault else {
                panic!("{gene:?}")
            };
            assert_eq!(node, "zk1");
            assert!((9..=8 + BEYOND_MS).contains(for_ms), "{for_ms}");
        }
    }

    #[test]
    fn a_margin_already_closed_or_out_of_reach_is_not_squeezed() {
        let cfg = config();
        let no = |log: &ServerLog, from_ms| {
            let mut genes = Vec::new();
            let mut rng = Seeds::new(3).stream("campaign");
            squeezable(&cfg, log, from_ms).is_none()
                && !squeeze(&cfg, &mut genes, log, from_ms, &mut rng)
        };
        assert!(no(&log(&[("zk1", 300, -4)]), 0), "the read missed already");
        assert!(
            no(&log(&[("zk3", 300, 7)]), 0),
            "the leader's apply cannot stall"
        );
        assert!(no(&log(&[("zk1", 300, 7)]), 293), "before the branch point");
        assert!(no(&log(&[("zk1", 1200, 7)]), 0), "after the fault phase");
        assert!(
            no(&log(&[("zk1", 600, 250)]), 0),
            "longer than a stall may last"
        );
        let without = SwarmConfig {
            kinds: vec![FaultKind::Crash],
            ..config()
        };
        let mut rng = Seeds::new(3).stream("campaign");
        let log = log(&[("zk1", 300, 7)]);
        assert!(!squeeze(&without, &mut Vec::new(), &log, 0, &mut rng));
    }

    /// A request of c1 at zk3, at 300 ms, its previous one at 296, `ms` from a read's miss:
    /// its read found a node `ms` before a session's end deleted it (`reader`), or another
    /// session's first look at the node it created came `ms` after.
    fn requests(ms: i64, reader: bool) -> ServerLog {
        let mut log = ServerLog::default();
        log.margin(Margin {
            name: match reader {
                true => "read-before-end",
                false => "create-before-read",
            },
            at_ms: 300,
            ms,
            node: "zk3".into(),
            late: Late::Requests {
                client: "c1".into(),
                since_ms: 296,
                reader,
            },
        });
        log
    }

    fn read_before_end(ms: i64) -> ServerLog {
        requests(ms, true)
    }

    #[test]
    fn a_read_before_a_session_end_or_a_create_before_a_look_gets_its_link_delayed_past_it() {
        let cfg = config();
        for log in (0..20).flat_map(|_| [requests(6, true), requests(6, false)]) {
            let genes = squeezed(&cfg, &[], &log, 0);
            let [gene] = genes.as_slice() else {
                panic!("{genes:?}")
            };
            assert_eq!(gene.at_ms, 296, "from the request before the read");
            let Fault::Delay { a, b, ms, for_ms } = &gene.fault else {
                panic!("{gene:?}")
            };
            assert_eq!((a.as_str(), b.as_str(), *for_ms), ("c1", "zk3", 5));
            assert!((7..=cfg.delay_max_ms).contains(ms), "{ms}");
        }
        let no = |cfg: &SwarmConfig, ms, from_ms| {
            squeezable(cfg, &read_before_end(ms), from_ms).is_none()
        };
        assert!(
            no(&cfg, cfg.delay_max_ms as i64, 0),
            "more than a delay adds"
        );
        assert!(no(&cfg, 6, 297), "before the branch point");
        let without = SwarmConfig {
            kinds: vec![FaultKind::StallApply],
            ..config()
        };
        assert!(no(&without, 6, 0), "the profile delays nothing");
    }

    #[test]
    fn a_read_before_an_end_beyond_a_delay_gets_a_blocked_pause_at_a_wait_step() {
        let cfg = SwarmConfig {
            targeted_max: 3,
            wait_steps: vec!["exists".into()],
            ..config()
        };
        for _ in 0..20 {
            let genes = squeezed(&cfg, &[], &read_before_end(50), 0);
            let [gene] = genes.as_slice() else {
                panic!("{genes:?}")
            };
            assert_eq!(gene.at_ms, 296, "armed from the request before the read");
            let Fault::PauseRole {
                target: Target::Blocked,
                on: Some(Trigger::Step { step }),
                for_ms,
            } = &gene.fault
            else {
                panic!("{gene:?}")
            };
            assert_eq!(step, "exists");
            assert!((51..=50 + BEYOND_MS).contains(for_ms), "{for_ms}");
        }
        let no = |cfg: &SwarmConfig, ms| squeezable(cfg, &read_before_end(ms), 0).is_none();
        assert!(no(&config(), 50), "no targeted pauses, no wait step");
        assert!(
            squeezable(&cfg, &requests(50, false), 0).is_none(),
            "a create is no waiter's look: a pause at a wait step does not make it late"
        );
        assert!(
            no(&cfg, cfg.targeted_pause_max_ms as i64),
            "longer than it may pause"
        );
    }

    #[test]
    fn at_the_profile_s_count_of_stalls_a_later_one_makes_room() {
        let cfg = config();
        let log = log(&[("zk1", 300, 7)]);
        let early = [stall(10, 5), stall(20, 5), stall(30, 5)];
        let mut rng = Seeds::new(3).stream("campaign");
        assert!(!squeeze(&cfg, &mut early.to_vec(), &log, 0, &mut rng));
        let genes = squeezed(&cfg, &[stall(10, 5), stall(20, 5), stall(500, 5)], &log, 0);
        let at: Vec<u64> = genes.iter().map(|g| g.at_ms).collect();
        assert_eq!(at, [10, 20, 292]);
    }
}
