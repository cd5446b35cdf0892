//! The fault vocabulary: one row per fault tag (`FAULTS`), and what everything that names
//! or sorts faults reads instead of a list of its own: `Fault::name` and the trace reader
//! (`trace::schema`) the tags and their order, the swarm and the `faults` parameter the
//! kinds (`FaultKind`), the guided search a gene's kind (`Gene::kind`), the timeline and the
//! page how long a fault acts (`Lasts`).
//!
//! Adding a fault is a row here, its variant of `Fault` (fields, `tag`, text), its reading in
//! `trace::schema` and its effect in the world's driver; the compiler points at the rest.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A fault's tag: which variant of `Fault` it is, as trace files name it (`FAULTS` spells
/// it). A targeted `Fault::PauseRole` is a `pause` too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultTag {
    /// `Fault::Partition`.
    Partition,
    /// `Fault::PartitionOneway`.
    PartitionOneway,
    /// `Fault::Repair`.
    Repair,
    /// `Fault::RepairAll`.
    RepairAll,
    /// `Fault::Loss`.
    Loss,
    /// `Fault::Delay`.
    Delay,
    /// `Fault::Crash`.
    Crash,
    /// `Fault::Restart`.
    Restart,
    /// `Fault::Pause` and `Fault::PauseRole`.
    Pause,
    /// `Fault::PauseBefore`.
    PauseBefore,
    /// `Fault::ClockJump`.
    ClockJump,
    /// `Fault::ClockDrift`.
    ClockDrift,
    /// `Fault::LoseReply`.
    LoseReply,
    /// `Fault::Failover`.
    Failover,
    /// `Fault::StallApply`.
    StallApply,
}

/// The fault kinds the generators draw, each as the `faults` parameter names it: a kind's
/// faults are the rows of `FAULTS` that name it (a partition and its repair), except
/// `isolate`, whose faults are partitions between two servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A client cut off from a server, then repaired.
    Partition,
    /// Message loss on a client's link to a server.
    Loss,
    /// Extra latency on a client's link to a server.
    Delay,
    /// A server crashed, then restarted.
    Crash,
    /// A client frozen, at a time or before a step of its program.
    Pause,
    /// A client's or a server's wall clock stepped.
    ClockJump,
    /// A client's or a server's clocks set drifting.
    ClockDrift,
    /// A server that drops a client's connection instead of replying.
    LoseReply,
    /// A server's replica promoted to master.
    Failover,
    /// A follower of a ZooKeeper ensemble that stops applying for a while.
    StallApply,
    /// A member of an ensemble cut off from every other member, then repaired: a leader
    /// so cut off loses its quorum, and the others elect a new one.
    Isolate,
}

/// How long a fault acts once applied, as the timeline and the page draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lasts {
    /// A moment: nothing to draw but its instant.
    Moment,
    /// Its own `for_ms` from when it is applied.
    ForMs,
    /// Until a later fault of the plan undoes it (`Fault::undoes`), or the heal.
    UntilUndone,
    /// From when it strikes, which the history tells (`HarnessOp::Paused`), not the plan.
    WhenStruck,
    /// To the end of the run.
    ToEnd,
}

/// One fault tag's row of the vocabulary.
#[derive(Debug, Clone, Copy)]
pub struct FaultRow {
    /// The tag; rows are in tag order (checked when compiled).
    pub tag: FaultTag,
    /// Its name in trace files: serde's name of its variant (a test holds them together).
    pub name: &'static str,
    /// The swarm kind its faults are occurrences of.
    pub kind: FaultKind,
    /// How long it acts.
    pub lasts: Lasts,
}

const fn row(tag: FaultTag, name: &'static str, kind: FaultKind, lasts: Lasts) -> FaultRow {
    FaultRow {
        tag,
        name,
        kind,
        lasts,
    }
}

/// Every fault tag, in the order trace readers list them.
pub const FAULTS: [FaultRow; 15] = {
    use FaultKind as K;
    use FaultTag as T;
    use Lasts as L;
    [
        row(T::Partition, "partition", K::Partition, L::UntilUndone),
        row(
            T::PartitionOneway,
            "partition_oneway",
            K::Partition,
            L::UntilUndone,
        ),
        row(T::Repair, "repair", K::Partition, L::Moment),
        row(T::RepairAll, "repair_all", K::Partition, L::Moment),
        row(T::Loss, "loss", K::Loss, L::ForMs),
        row(T::Delay, "delay", K::Delay, L::ForMs),
        row(T::Crash, "crash", K::Crash, L::UntilUndone),
        row(T::Restart, "restart", K::Crash, L::Moment),
        row(T::Pause, "pause", K::Pause, L::ForMs),
        row(T::PauseBefore, "pause_before", K::Pause, L::WhenStruck),
        row(T::ClockJump, "clock_jump", K::ClockJump, L::Moment),
        row(T::ClockDrift, "clock_drift", K::ClockDrift, L::ToEnd),
        row(T::LoseReply, "lose_reply", K::LoseReply, L::Moment),
        row(T::Failover, "failover", K::Failover, L::Moment),
        row(T::StallApply, "stall_apply", K::StallApply, L::Moment),
    ]
};

/// `FaultTag::row` indexes `FAULTS` by the tag.
const _: () = {
    let mut i = 0;
    while i < FAULTS.len() {
        assert!(FAULTS[i].tag as usize == i, "FAULTS is in tag order");
        i += 1;
    }
};

impl FaultTag {
    /// Every tag, in `FAULTS` order.
    pub const ALL: [FaultTag; FAULTS.len()] = {
        let mut all = [FaultTag::Partition; FAULTS.len()];
        let mut i = 0;
        while i < FAULTS.len() {
            all[i] = FAULTS[i].tag;
            i += 1;
        }
        all
    };

    /// Its row of the vocabulary.
    pub const fn row(self) -> &'static FaultRow {
        &FAULTS[self as usize]
    }

    /// Its name in trace files.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The swarm kind its faults are occurrences of.
    pub const fn kind(self) -> FaultKind {
        self.row().kind
    }

    /// How long it acts.
    pub const fn lasts(self) -> Lasts {
        self.row().lasts
    }
}

impl FaultKind {
    /// Every kind, in the order the swarm draws them.
    pub(crate) const ALL: [FaultKind; 11] = [
        FaultKind::Partition,
        FaultKind::Loss,
        FaultKind::Delay,
        FaultKind::Crash,
        FaultKind::Pause,
        FaultKind::ClockJump,
        FaultKind::ClockDrift,
        FaultKind::LoseReply,
        FaultKind::Failover,
        FaultKind::StallApply,
        FaultKind::Isolate,
    ];

    /// The kind as the `faults` parameter spells it: the name of its first row (the fault
    /// it draws, where it also draws an undoing), and `isolate` for the partitions that cut
    /// a member off from its ensemble.
    pub(crate) const fn name(self) -> &'static str {
        if let FaultKind::Isolate = self {
            return "isolate";
        }
        let mut i = 0;
        while i < FAULTS.len() {
            if FAULTS[i].kind as usize == self as usize {
                return FAULTS[i].name;
            }
            i += 1;
        }
        panic!("every kind but isolate has a row")
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FaultKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown fault kind '{s}' (known: {})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The swarm draws the kinds in the order their first rows come, `isolate` last, so a
    /// new row's kind has its place in `ALL` where the table puts it.
    #[test]
    fn kinds_come_in_the_order_of_their_first_rows() {
        let mut firsts: Vec<FaultKind> = Vec::new();
        for row in &FAULTS {
            if !firsts.contains(&row.kind) {
                firsts.push(row.kind);
            }
        }
        firsts.push(FaultKind::Isolate);
        assert_eq!(firsts, FaultKind::ALL);
        let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "partition",
                "loss",
                "delay",
                "crash",
                "pause",
                "clock_jump",
                "clock_drift",
                "lose_reply",
                "failover",
                "stall_apply",
                "isolate"
            ]
        );
    }

    #[test]
    fn serde_names_the_kinds_as_the_parameter_does() {
        for kind in FaultKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
        }
    }
}
