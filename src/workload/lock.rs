//! The lock workload: acquire the lock, read the register, work, write value + 1, release;
//! `rounds` times. Each step is recorded as invoke / ok / fail / info.

use super::{RETRY_MS, reconnect};
use crate::history::{Kind, LockMode, LockOp, Op};
use crate::recipes::{Grant, Lock, LockError};
use crate::sim::node::Node;
use crate::store::ProtectedStore;

/// The steps a `pause_before` fault can aim at: the store write, just after the check that
/// the lock is still held (Kleppmann's GC pause), and the release, which a holder begins
/// believing it still holds the lock (antirez's release of someone else's lock).
pub(crate) const PAUSE_STEPS: &[&str] = &["write", "release"];

/// What each client does, from the scenario's parameters.
pub(crate) struct Workload {
    /// The lock's name, as the history records it.
    pub(crate) lock_name: String,
    /// How it takes a read/write lock: a reader reads the register and writes nothing.
    /// None for an exclusive lock.
    pub(crate) mode: Option<LockMode>,
    /// How many times it takes the lock before it stops.
    pub(crate) rounds: u32,
    /// The work between the holder's read and its write, ms on the node's clock.
    pub(crate) hold_ms: u64,
    /// A store request not answered within this has an unknown outcome (turmoil's TCP does
    /// not retransmit, so a lost segment would otherwise hang the holder forever).
    pub(crate) store_timeout_ms: u64,
}

/// Runs the workload. `connect` opens a new session and returns a lock bound to it; it is
/// called again whenever the session is lost.
pub(crate) async fn run_client<L: Lock>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<L, LockError>,
) {
    let mut lock = reconnect(node, &mut connect).await;
    let lock_op = || Op::Lock(LockOp::acquire(work.lock_name.as_str(), None));
    for _ in 0..work.rounds {
        let grant = loop {
            node.record(Kind::Invoke, lock_op());
            match lock.acquire().await {
                Ok(grant) => {
                    node.record(
                        Kind::Ok,
                        Op::Lock(LockOp::Acquire {
                            lock: work.lock_name.clone(),
                            mode: work.mode,
                            token: grant.token,
                            granted_by: grant.granted_by.clone(),
                            valid_ms: grant.valid_ms,
                        }),
                    );
                    break grant;
                }
                Err(e) => {
                    // The attempt ends once there is a session to retry on, so a client
                    // stuck reconnecting still shows as wanting the lock (liveness).
                    if e.needs_new_session() {
                        lock = reconnect(node, &mut connect).await;
                    }
                    node.record(Kind::Fail, lock_op());
                    node.timer().sleep(RETRY_MS).await;
                }
            }
        };
        let lost = critical_section(node, work, grant, &mut lock).await == Held::Lost;
        // A holder that gave up its lease (Done without a write) releases it like any other.
        let release = Op::Lock(LockOp::Release {
            lock: work.lock_name.clone(),
        });
        if lost {
            node.record(
                Kind::Info,
                Op::Lock(LockOp::Lost {
                    lock: work.lock_name.clone(),
                }),
            );
            lock = reconnect(node, &mut connect).await;
            continue;
        }
        node.step("release").await;
        give_up(node, release, &mut lock, &mut connect).await;
    }
    lock.close().await;
}

/// Releases what `lock` holds, recorded as `op` (invoke, then ok, or info when the outcome is
/// unknown); a lost session is replaced by a new one.
pub(super) async fn give_up<L: Lock>(
    node: &Node,
    op: Op,
    lock: &mut L,
    connect: &mut impl AsyncFnMut() -> Result<L, LockError>,
) {
    node.record(Kind::Invoke, op.clone());
    match lock.release().await {
        Ok(()) => node.record(Kind::Ok, op),
        Err(e) => {
            node.record(Kind::Info, op);
            if e.needs_new_session() {
                *lock = reconnect(node, connect).await;
            }
        }
    }
}

/// How a critical section ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Held {
    /// Done (or given up: on a failed store access, or on a lease it could not extend over
    /// its work): the holder releases.
    Done,
    /// The recipe said the lock was lost before a store access began.
    Lost,
}

/// Read, work, write value + 1 carrying the fencing token, checking the lock the way a real
/// client can: before each store access, and throughout the work. A store access once begun
/// runs to completion (bounded by the store timeout): a process does not take back a
/// request it is sending, so a pause or a delay that strikes between the check and the
/// request reaching the store lands a write made under a lock that is gone (R1, R3) — the
/// case only a fencing token checked by the store catches.
pub(super) async fn critical_section<L: Lock>(
    node: &Node,
    work: &Workload,
    grant: Grant,
    lock: &mut L,
) -> Held {
    let granted_at = node.timer().now_ms();
    if lost_already(lock).await {
        return Held::Lost;
    }
    let store = ProtectedStore::new(node).timeout_ms(work.store_timeout_ms);
    let Ok(read) = store.read(grant.token).await else {
        return Held::Done;
    };
    // The work races the loss; when the work wins, the lock was not lost: that is the check
    // before the write.
    match hold(node, work, granted_at, grant.valid_ms, lock).await {
        Work::Done if work.mode == Some(LockMode::Read) => return Held::Done,
        Work::Done => {}
        Work::Lost => return Held::Lost,
        Work::GaveUp => return Held::Done,
    }
    node.step("write").await;
    // Refused or unknown, the holder is done with this hold either way.
    let _ = store.increment(read).await;
    Held::Done
}

/// How the work ended.
#[derive(Debug, PartialEq, Eq)]
enum Work {
    Done,
    /// The recipe said the lock was lost.
    Lost,
    /// An extension failed and the lease left ends before the work would: the holder gives
    /// the lock up rather than keep, unused, a lease it knows will not do.
    GaveUp,
}

/// The work, raced by the loss (first, so a loss at the instant the work ends wins). A lease
/// is extended every third of its validity (as Redisson renews its leases) while the work
/// would end in its last third or past it, so a holder keeps two thirds of it at each
/// extension and at least a third when it writes. After a failed extension it stops trying:
/// if the lease left still covers the work it finishes; if not, it gives up at once, rather
/// than sit on a lease whose end a pause could carry it past unaware.
async fn hold<L: Lock>(
    node: &Node,
    work: &Workload,
    granted_at: u64,
    valid_ms: Option<u64>,
    lock: &mut L,
) -> Work {
    let timer = node.timer();
    let done_at = timer.now_ms().saturating_add(work.hold_ms);
    let done = timer.sleep_until(done_at);
    tokio::pin!(done);
    let mut lease_end = valid_ms.map(|v| granted_at.saturating_add(v));
    let mut extend_at = extension_due(granted_at, valid_ms, done_at);
    loop {
        tokio::select! {
            biased;
            _ = lock.lost() => return Work::Lost,
            () = &mut done => return Work::Done,
            () = timer.sleep_until(extend_at.unwrap_or_default()), if extend_at.is_some() => {}
        }
        let extend = |valid_ms| {
            Op::Lock(LockOp::Extend {
                lock: work.lock_name.clone(),
                valid_ms,
            })
        };
        node.record(Kind::Invoke, extend(None));
        extend_at = match lock.extend().await {
            Some(grant) => {
                node.record(Kind::Ok, extend(grant.valid_ms));
                let now = timer.now_ms();
                lease_end = grant.valid_ms.map(|v| now.saturating_add(v));
                extension_due(now, grant.valid_ms, done_at)
            }
            None => {
                node.record(Kind::Fail, extend(None));
                if lease_end.is_some_and(|end| end <= done_at) {
                    return Work::GaveUp;
                }
                None
            }
        };
    }
}

/// When to extend a lease valid for `valid_ms` from `granted_at`: a third of the way through
/// it, if the work, done at `done_at`, would end in its last third or past it; None for a
/// lock that is no lease or a lease that will do.
fn extension_due(granted_at: u64, valid_ms: Option<u64>, done_at: u64) -> Option<u64> {
    let valid_ms = valid_ms?;
    let last_third = granted_at.saturating_add(valid_ms - valid_ms / 3);
    (done_at > last_third).then(|| granted_at.saturating_add(valid_ms / 3))
}

/// Whether the recipe already knows the lock is lost: a check that does not wait.
async fn lost_already<L: Lock>(lock: &mut L) -> bool {
    tokio::select! {
        biased;
        _ = lock.lost() => true,
        () = std::future::ready(()) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::extension_due;

    #[test]
    fn a_lease_is_extended_a_third_through_only_when_the_work_reaches_its_last_third() {
        // Valid 190 ms from 1000: its last third begins at 1127.
        assert_eq!(extension_due(1000, Some(190), 1127), None);
        assert_eq!(extension_due(1000, Some(190), 1128), Some(1063));
        assert_eq!(extension_due(1000, Some(190), 5000), Some(1063));
        assert_eq!(extension_due(1000, None, 5000), None, "no lease");
    }
}
