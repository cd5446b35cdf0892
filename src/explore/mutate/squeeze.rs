//! The squeeze: a run whose servers measured a margin (`recorder::Margin`) came that near
//! to a flaw, and the host the margin measures was that much early. Making that host late by
//! more than the margin, from just before the instant the margin counts from, closes it:
//! where a follower's read had 7 ms to spare after applying its session's write, a stall of
//! its apply from 1 ms before the write was due until after the read makes the read miss the
//! write. The run is the same up to the stall, so what the run did next with the read it now
//! misses is what the recipe does with a stale read of its own write.

use crate::recorder::{Margin, ServerLog};
use crate::sim::fault::Fault;
use crate::sim::gene::Gene;
use crate::sim::swarm::SwarmConfig;
use crate::sim::vocab::FaultKind;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The stall beyond the margin, at most: a read's time to spare is measured to the ms, and
/// the recipe's next step may come a little later than the read.
const BEYOND_MS: u64 = 20;

/// The stall that closes `margin` (no earlier than `from_ms`), if the profile stalls that
/// host's apply and the stall fits its bounds: when it starts and how long it lasts.
fn stall(cfg: &SwarmConfig, margin: &Margin, from_ms: u64) -> Option<(u64, u64)> {
    let ms = u64::try_from(margin.ms).ok()?;
    let stallable = cfg
        .servers
        .iter()
        .any(|s| s.name == margin.node && s.stalls_apply);
    let start = margin.at_ms.checked_sub(ms + 1)?;
    let fits = ms + 2 <= cfg.crash_down_max_ms && start >= from_ms;
    (cfg.kinds.contains(&FaultKind::StallApply) && stallable && fits && start < cfg.fault_phase_ms)
        .then_some((start, ms + 1))
}

/// Whether some margin of `log` could be closed by a squeeze of a plan from `from_ms` on.
pub(crate) fn squeezable(cfg: &SwarmConfig, log: &ServerLog, from_ms: u64) -> bool {
    log.margins()
        .iter()
        .any(|m| stall(cfg, m, from_ms).is_some())
}

/// Adds to `genes` the stall that closes the least closable margin of `log`, from `from_ms`
/// on, giving up stalls that start no earlier than it, the latest first, while the plan is
/// at the profile's count of stalls. False when no margin can be closed, or no room made
/// (the mutation then falls back as any other does).
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
        .filter_map(|m| Some((m, stall(cfg, m, from_ms)?)))
        .min_by_key(|(m, _)| m.ms);
    let Some((margin, (start, at_least))) = closable else {
        return false;
    };
    let stalls = |genes: &[Gene]| {
        genes
            .iter()
            .filter(|g| matches!(g.fault, Fault::StallApply { .. }))
            .count()
    };
    while stalls(genes) >= cfg.per_kind_max.max(1) as usize {
        let Some(later) = genes
            .iter()
            .rposition(|g| matches!(g.fault, Fault::StallApply { .. }) && g.at_ms >= start)
        else {
            return false;
        };
        genes.remove(later);
    }
    let beyond = rng.random_range(1..=BEYOND_MS);
    let for_ms = (at_least + beyond).min(cfg.crash_down_max_ms);
    genes.push(Gene::at(
        start,
        Fault::StallApply {
            node: margin.node.clone(),
            for_ms,
        },
    ));
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
        assert!(squeezable(&cfg, &log, 0));
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
            !squeezable(&cfg, log, from_ms) && !squeeze(&cfg, &mut genes, log, from_ms, &mut rng)
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
