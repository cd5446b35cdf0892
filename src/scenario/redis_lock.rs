//! The Redis lock scenarios: the profiles of the single-instance lock and Redlock and of
//! their flawed variants, and the lock workload over a flavor of locksim's Redis lock, which
//! `RedisProgram` runs (as it runs a user's lock).

use super::Profile;
use crate::params::Params;
use crate::recipes::redis::decide::Flavor;
use crate::recipes::redis::lock::{RedisLock, RedisLockConfig};
use crate::sim::node::Node;
use crate::workload::lock::{self as workload, Workload};
use std::cell::RefCell;
use std::rc::Rc;

/// The key every client contends for (and the lock's name in the history, a user's lock's
/// too).
pub(super) const KEY: &str = "locksim:lock";

/// The swarm's reach for the Redis locks: everything Kleppmann raised, or only what
/// Redlock's own argument allows. A profile sets parameters, fixed for a whole run, so what
/// survives a crash is one mode per run: the full profile keeps the worst (no persistence)
/// and `--set persistence=...` reaches the others.
pub(super) const PROFILES: &[Profile] = &[
    Profile {
        name: "full",
        summary: "every fault kind: client pauses shorter and longer than the TTL (up to \
                  twice it), clock jumps both ways and drift on masters and clients, \
                  crashes (restarting empty: persistence=none here; --set \
                  persistence=aof-everysec or aof-always for the other modes), partitions, \
                  delay, loss, lost replies of a SET (an acquire) or of the release \
                  script; failovers only with --set replica=true, as Redlock's masters \
                  have no replicas",
        settings: &["pause_max_ms=400"],
    },
    Profile {
        name: "own-assumptions",
        summary: "what Redlock's argument assumes away stays away: no clock jumps or \
                  failovers; pauses at most half the TTL, so a holder's remaining validity \
                  outlasts them; drift at most 0.5% per clock, so two clocks differ by no \
                  more than the 1% the drift allowance covers; fsync always (or --set \
                  persistence=none --set restart_delay_ms=200, the delayed restart)",
        settings: &[
            "faults=partition,loss,delay,crash,pause,clock_drift,lose_reply",
            "pause_max_ms=100",
            "clock_drift_max_ppm=5000",
            "persistence=aof-always",
        ],
    },
];

/// `redlock-novalidity`'s question: a quorum whose votes took longer than the TTL.
pub(super) const NO_VALIDITY_PROFILES: &[Profile] = &[
    Profile {
        name: "slow-votes",
        summary: "votes that take longer than the TTL, and nothing else: link delays up to \
                  twice the TTL, a per-node timeout above them (Redlock asks for one small \
                  against the TTL); redlock under the same settings turns such a late quorum \
                  down",
        settings: &[
            "faults=delay",
            "delay_max_ms=400",
            "request_timeout_ms=1000",
        ],
    },
    PROFILES[0],
    PROFILES[1],
];

/// `redlock-nounlock`'s question: contention alone, no faults.
pub(super) const NO_UNLOCK_PROFILES: &[Profile] = &[
    Profile {
        name: "contention",
        summary: "five clients contend for the lock and nothing fails",
        settings: &["faults=none"],
    },
    PROFILES[0],
    PROFILES[1],
];

/// `redlock-fixed-retry`'s question: clients whose attempts stay in step.
pub(super) const FIXED_RETRY_PROFILES: &[Profile] = &[
    Profile {
        name: "lockstep",
        summary: "three clients start together and nothing fails; no jitter: each \
                  client-master link has its own fixed latency (link_spread_ms), so masters \
                  are nearer some clients than others and a contended attempt can split the \
                  votes",
        settings: &[
            "faults=none",
            "latency_min_ms=1",
            "latency_max_ms=1",
            "link_spread_ms=3",
            "clients=3",
        ],
    },
    PROFILES[0],
    PROFILES[1],
];

/// The lock workload of a Redis lock scenario.
pub(super) fn workload_of(params: &Params) -> Workload {
    Workload {
        lock_name: KEY.into(),
        mode: None,
        rounds: params.workload.rounds,
        hold_ms: params.workload.hold_ms,
        store_timeout_ms: params.redis.ttl_ms,
    }
}

/// The software of client host `node`: the lock workload over a Redis lock.
pub(super) async fn client(node: Node, params: Params, config: RedisLockConfig, flavor: Flavor) {
    let rng = Rc::new(RefCell::new(node.rng()));
    let work = workload_of(&params);
    workload::run_client(&node, &work, async || {
        Ok(RedisLock::new(
            node.clone(),
            config.clone(),
            flavor,
            rng.clone(),
        ))
    })
    .await;
}
