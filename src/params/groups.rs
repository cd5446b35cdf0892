//! The parameter groups, one struct per subject, each field documented beside it. The
//! `group!` macro turns each doc comment into the line `locksim list` prints and each
//! range into a check, so a parameter's type, default, range and doc are written once.

use super::MAX_RUN_LIMIT_MS;
use crate::redis::clock::ExpiryClock;
use crate::redis::sim_host::Persistence;
use crate::sim::vocab::FaultKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

const HOUR: u64 = 3_600_000;
const YEAR: u64 = 365 * 24 * HOUR;

/// One parameter as `locksim list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamDoc {
    /// Its key, as `--set` and trace files name it.
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
    /// Its subject, as `locksim list` heads it.
    pub name: &'static str,
    /// Its parameters, in the order `locksim list` shows them.
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
            /// Its parameters and their docs, for `locksim list`.
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
        /// each client-server link gets its own fixed extra one-way latency, drawn per link
        /// from the seed up to this (clients nearer some servers than others)
        link_spread_ms: u64 = 0, 0..=60_000;
    }
}

impl Network {
    /// The longest one-way latency a client-server link can have.
    pub fn slowest_link_ms(&self) -> u64 {
        self.latency_max_ms + self.link_spread_ms
    }

    /// The settings that make up `slowest_link_ms`, for an error message.
    pub fn slowest_link_text(&self) -> String {
        match self.link_spread_ms {
            0 => format!("latency_max_ms={}", self.latency_max_ms),
            _ => format!(
                "latency_max_ms + link_spread_ms = {}",
                self.slowest_link_ms()
            ),
        }
    }
}

group! {
    /// What the swarm generator may do during the fault phase, and how hard.
    Faults "faults" {
        /// fault kinds the swarm may use: all, none, or a comma list (partition, loss, delay,
        /// crash, pause, clock_jump, clock_drift, lose_reply, failover, stall_apply, isolate);
        /// kinds no server of the scenario admits are left out
        faults: FaultSelection = FaultSelection::All;
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
        /// most targeted faults (pauses aimed at a role when an event happens, see `locksim
        /// list`) the swarm adds to a run, unless faults=none; 0: none
        targeted_max: u32 = 0, 0..=1_000;
        /// longest targeted pause of a waiter behind another (it holds nothing and nothing on
        /// its way grants it the lock, so it may be paused past its session); targeted
        /// pauses of other roles stay within pause_max_ms, one per run
        targeted_pause_max_ms: u64 = 300, 0..=HOUR;
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
    /// Who reads and who writes under a shared (read/write) lock.
    SharedLock "shared lock" {
        /// clients c1..cW take the write lock (and write the register); the others take the
        /// read lock (and only read it)
        writers: u32 = 2, 0..=32;
    }
}

group! {
    /// What each candidate of a leader election does.
    Election "election" {
        /// terms each candidate serves: it runs for leader, leads (reads the register, works
        /// hold_ms, writes value + 1 with its token), steps down, and runs again
        terms: u32 = 4, 1..=10_000;
    }
}

group! {
    /// Who offers and who takes on a queue.
    Queue "queue" {
        /// producers p1..pP, each offering its own items, one after another
        producers: u32 = 2, 1..=16;
        /// items each producer offers
        items: u32 = 5, 1..=1_000;
        /// consumers c1..cC, which between them take as many items as were offered
        consumers: u32 = 3, 1..=16;
    }
}

group! {
    /// How processes meet at a barrier (the barrier waits for all `clients`).
    Barrier "barrier" {
        /// each process arrives at each round's barrier after a random delay up to this, so
        /// that arrivals spread out and a pass before the last arrival shows
        arrive_max_ms: u64 = 20, 0..=HOUR;
    }
}

group! {
    /// The simulated ZooKeeper and its clients' sessions.
    Zookeeper "zookeeper" {
        /// ZooKeeper session timeout the clients request
        session_timeout_ms: u64 = 200, 1..=HOUR;
        /// ZooKeeper tickTime (sessions expire on tick boundaries; clamp 2..20 ticks)
        zk_tick_ms: u64 = 20, 1..=60_000;
        /// every node's sequence counter starts here (ZooKeeper: 0); near 2147483647 the
        /// counter wraps to negative numbers within a run (Z6)
        seq_start: u32 = 0, 0..=2_147_483_647;
        /// how often the server deletes empty containers and expired TTL nodes
        /// (znode.container.checkIntervalMs)
        container_check_ms: u64 = 60_000, 1..=HOUR;
        /// allow TTL nodes (zookeeper.extendedTypesEnabled); off, createTTL is Unimplemented
        extended_types: bool = false;
        /// servers zk1..zkN: 1 serves alone; 3 or 5 are an ensemble first led by zkN (and
        /// by whom it elects when that is lost), whose followers serve reads from what they
        /// have applied
        zk_servers: u32 = 1, 1..=5;
        /// each follower applies a committed write this long after it learns of the commit,
        /// its lag drawn from the seed between 0 and this
        follower_lag_ms: u64 = 10, 0..=HOUR;
    }
}

group! {
    /// The simulated Redis masters and the Redis locks' knobs.
    Redis "redis" {
        /// Redlock's independent masters redis1..redisN (the single-node lock uses redis1)
        redis_nodes: u32 = 5, 1..=9;
        /// the lock's time to live
        ttl_ms: u64 = 200, 1..=HOUR;
        /// a client gives up on one node's answer after this (small against the TTL)
        request_timeout_ms: u64 = 10, 1..=HOUR;
        /// a client that failed retries after a random delay up to this
        retry_delay_max_ms: u64 = 20, 1..=HOUR;
        /// extensions of one grant a holder may attempt, each by majority within the
        /// validity left, when its work would end in the validity's last third or past it;
        /// 0 = never extend
        max_extensions: u32 = 3, 0..=1_000;
        /// the clock key deadlines live on: wall (Redis) or monotonic (antirez's fix)
        expiry_clock: ExpiryClock = ExpiryClock::Wall;
        /// what survives a crash: none, aof-everysec or aof-always
        persistence: PersistenceMode = PersistenceMode::None;
        /// AOF everysec syncs this often (Redis: every second)
        fsync_every_ms: u64 = 1_000, 1..=HOUR;
        /// a restarted server stays unreachable this long (antirez: longer than the TTL)
        restart_delay_ms: u64 = 0, 0..=HOUR;
        /// each master has an asynchronous replica that a failover promotes
        replica: bool = false;
        /// how far the replica lags behind its master
        replication_lag_ms: u64 = 5, 0..=HOUR;
    }
}

impl Redis {
    /// What survives a crash, as the Redis family takes it.
    pub(crate) fn persistence(&self) -> Persistence {
        match self.persistence {
            PersistenceMode::None => Persistence::None,
            PersistenceMode::AofEverysec => Persistence::AofEverysec {
                fsync_every_ms: self.fsync_every_ms,
            },
            PersistenceMode::AofAlways => Persistence::AofAlways,
        }
    }
}

/// What survives a crash, as `persistence` names it (`fsync_every_ms` is the period of
/// `aof-everysec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PersistenceMode {
    /// Nothing: a crashed server restarts empty.
    None,
    /// An append-only file synced every `fsync_every_ms`.
    AofEverysec,
    /// An append-only file synced before every reply.
    AofAlways,
}

/// The fault kinds the swarm may draw from, as `faults` names them: `all`, `none`, or a
/// comma list. `all` stays a word in trace files, so it keeps meaning every kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultSelection {
    /// Every kind.
    All,
    /// No fault at all.
    None,
    /// These kinds, in the order given.
    Only(Vec<FaultKind>),
}

impl FaultSelection {
    /// The kinds it selects.
    pub fn kinds(&self) -> Vec<FaultKind> {
        match self {
            FaultSelection::All => FaultKind::ALL.to_vec(),
            FaultSelection::None => Vec::new(),
            FaultSelection::Only(kinds) => kinds.clone(),
        }
    }
}

impl fmt::Display for FaultSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultSelection::All => f.write_str("all"),
            FaultSelection::None => f.write_str("none"),
            FaultSelection::Only(kinds) => {
                let names: Vec<_> = kinds.iter().map(|k| k.name()).collect();
                f.write_str(&names.join(","))
            }
        }
    }
}

impl FromStr for FaultSelection {
    type Err = String;
    fn from_str(s: &str) -> Result<FaultSelection, String> {
        match s.trim() {
            "all" => Ok(FaultSelection::All),
            "none" | "" => Ok(FaultSelection::None),
            list => list
                .split(',')
                .map(|k| k.trim().parse())
                .collect::<Result<_, _>>()
                .map(FaultSelection::Only),
        }
    }
}

impl Serialize for FaultSelection {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FaultSelection {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}
