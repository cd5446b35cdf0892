//! The parameter groups, one struct per subject, each field documented beside it. The
//! `group!` macro turns each doc comment into the line `locksim list` prints and each
//! range into a check, so a parameter's type, default, range and doc are written once.

use super::MAX_RUN_LIMIT_MS;
use serde::{Deserialize, Serialize};

const HOUR: u64 = 3_600_000;
const YEAR: u64 = 365 * 24 * HOUR;

/// One parameter as `locksim list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamDoc {
    pub key: &'static str,
    /// Its doc comment's lines, joined.
    pub doc: &'static str,
}

impl ParamDoc {
    /// The doc as one line of text.
    pub fn text(&self) -> &'static str {
        self.doc.trim()
    }
}

/// A subject's parameters, as scenarios say which they use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub name: &'static str,
    pub params: &'static [ParamDoc],
}

/// A numeric parameter's value and its allowed range, for validation.
pub(super) type Range = (&'static str, u64, u64, u64);

macro_rules! group {
    (
        $(#[doc = $gdoc:literal])*
        $name:ident $label:literal {
            $(
                $(#[doc = $doc:literal])+
                $field:ident: $ty:ty = $default:expr $(, $lo:literal ..= $hi:expr)?;
            )*
        }
    ) => {
        $(#[doc = $gdoc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct $name {
            $($(#[doc = $doc])+ pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $name {
            pub const GROUP: Group = Group {
                name: $label,
                params: &[$(ParamDoc {
                    key: stringify!($field),
                    doc: concat!($($doc),+),
                }),*],
            };

            pub(super) fn ranges(&self) -> Vec<Range> {
                vec![$($((stringify!($field), u64::from(self.$field), $lo, $hi),)?)*]
            }
        }
    };
}

group! {
    /// The links between hosts.
    Network "network" {
        /// minimum one-way network latency
        latency_min_ms: u64 = 1, 0..=60_000;
        /// maximum one-way network latency
        latency_max_ms: u64 = 3, 0..=60_000;
    }
}

group! {
    /// What the swarm generator may do during the fault phase, and how hard.
    Faults "faults" {
        /// fault kinds the swarm may use: all, none, or a comma list (partition, loss, delay,
        /// crash, pause, clock_jump, clock_drift, lose_reply, failover); kinds no server of
        /// the scenario admits are left out
        faults: String = "all".into();
        /// faults start within this window; then the heal phase repairs everything
        fault_phase_ms: u64 = 600, 0..=HOUR;
        /// longest partition or loss burst between a client and a server
        partition_max_ms: u64 = 50, 0..=HOUR;
        /// longest client process pause (above the session timeout or TTL a holder can lose
        /// its lock)
        pause_max_ms: u64 = 100, 0..=HOUR;
        /// longest time a crashed server stays down
        crash_down_max_ms: u64 = 300, 0..=HOUR;
        /// largest extra link delay
        delay_max_ms: u64 = 10, 0..=HOUR;
        /// largest initial offset of a node's wall clock from true time, either direction
        clock_skew_max_ms: u64 = 1_000, 0..=YEAR;
        /// largest wall clock step, either direction
        clock_jump_max_ms: u64 = 10_000, 0..=YEAR;
        /// largest clock drift rate
        clock_drift_max_ppm: u64 = 20_000, 0..=500_000;
        /// most occurrences of one fault kind in a run
        faults_per_kind_max: u32 = 3, 0..=1_000;
    }
}

group! {
    /// What each client does, and the bounds a run is judged by.
    Workload "workload" {
        /// number of client hosts c1..cN contending for the lock
        clients: u32 = 5, 1..=32;
        /// lock acquisitions each client makes
        rounds: u32 = 8, 1..=10_000;
        /// time a holder works inside its critical section
        hold_ms: u64 = 10, 0..=HOUR;
        /// the store rejects accesses whose token is below the highest it accepted
        fencing: bool = false;
        /// a wanting client must get the lock within this after healing (0: derived by the
        /// scenario)
        liveness_bound_ms: u64 = 0, 0..=24 * HOUR;
        /// hard end of the run in simulated time (0: derived by the scenario)
        run_limit_ms: u64 = 0, 0..=MAX_RUN_LIMIT_MS;
    }
}

group! {
    /// The simulated ZooKeeper and its clients' sessions.
    Zookeeper "zookeeper" {
        /// ZooKeeper session timeout the clients request
        session_timeout_ms: u64 = 200, 1..=HOUR;
        /// ZooKeeper tickTime (sessions expire on tick boundaries; clamp 2..20 ticks)
        zk_tick_ms: u64 = 20, 1..=60_000;
    }
}
