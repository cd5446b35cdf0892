//! What every client host does: acquire the lock, read the register, work, write value + 1,
//! release; `rounds` times. Each step is recorded as invoke / ok / fail / info.

use crate::history::{Kind, LockOp, Op, StoreOp};
use crate::recipes::{Grant, Lock, LockError};
use crate::sim::node::Node;
use crate::store::{self, StoreReply, StoreRequest};
use std::cell::Cell;

/// Pause between a failed attempt and the next, so a client does not spin.
const RETRY_MS: u64 = 5;

pub struct Workload {
    pub lock_name: String,
    pub rounds: u32,
    pub hold_ms: u64,
    /// A store request not answered within this has an unknown outcome (turmoil's TCP does
    /// not retransmit, so a lost segment would otherwise hang the holder forever).
    pub store_timeout_ms: u64,
}

/// Runs the workload. `connect` opens a new session and returns a lock bound to it; it is
/// called again whenever the session is lost.
pub async fn run_client<L: Lock>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<L, LockError>,
) {
    let mut lock = reconnect(node, &mut connect).await;
    let lock_op = || {
        Op::Lock(LockOp::Acquire {
            lock: work.lock_name.clone(),
            token: None,
        })
    };
    for _ in 0..work.rounds {
        let grant = loop {
            node.record(Kind::Invoke, lock_op());
            match lock.acquire().await {
                Ok(grant) => {
                    node.record(
                        Kind::Ok,
                        Op::Lock(LockOp::Acquire {
                            lock: work.lock_name.clone(),
                            token: grant.token,
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
        let pending = Cell::new(None);
        let lost = tokio::select! {
            biased;
            _ = lock.lost() => true,
            _ = critical_section(node, work, grant, &pending) => false,
        };
        if let Some(op) = pending.take() {
            // Abandoned mid-operation when the loss was noticed: its outcome is unknown.
            node.record(Kind::Info, op);
        }
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
        node.record(Kind::Invoke, release.clone());
        match lock.release().await {
            Ok(()) => node.record(Kind::Ok, release),
            Err(e) => {
                node.record(Kind::Info, release);
                if e.needs_new_session() {
                    lock = reconnect(node, &mut connect).await;
                }
            }
        }
    }
    lock.close().await;
}

/// Opens a session, retrying until one is had. Recorded as one Connect operation, so a
/// client that never gets a session back shows what it is stuck in.
async fn reconnect<L: Lock>(
    node: &Node,
    connect: &mut impl AsyncFnMut() -> Result<L, LockError>,
) -> L {
    node.record(Kind::Invoke, Op::Lock(LockOp::Connect));
    loop {
        if let Ok(lock) = connect().await {
            node.record(Kind::Ok, Op::Lock(LockOp::Connect));
            return lock;
        }
        node.timer().sleep(RETRY_MS).await;
    }
}

/// Read, work, write value + 1 carrying the fencing token. `pending` holds the store
/// operation under way, so an abandoned one can be closed in the history.
async fn critical_section(node: &Node, work: &Workload, grant: Grant, pending: &Cell<Option<Op>>) {
    let (hold_ms, store_timeout_ms) = (work.hold_ms, work.store_timeout_ms);
    let invoke = |op: Op| {
        node.record(Kind::Invoke, op.clone());
        pending.set(Some(op));
    };
    let complete = |kind: Kind, op: Op| {
        pending.set(None);
        node.record(kind, op);
    };
    invoke(Op::Store(StoreOp::Read { value: None }));
    let timer = node.timer();
    let read = store::call(
        &StoreRequest::Read { token: grant.token },
        &timer,
        store_timeout_ms,
    )
    .await;
    let based_on = match read {
        Ok(StoreReply::Value(v)) => {
            complete(Kind::Ok, Op::Store(StoreOp::Read { value: Some(v) }));
            v
        }
        Ok(_) => return complete(Kind::Fail, Op::Store(StoreOp::Read { value: None })),
        Err(_) => return complete(Kind::Info, Op::Store(StoreOp::Read { value: None })),
    };
    timer.sleep(hold_ms).await;
    let write = Op::Store(StoreOp::Write {
        value: based_on + 1,
        token: grant.token,
    });
    invoke(write.clone());
    let request = StoreRequest::Write {
        based_on,
        value: based_on + 1,
        token: grant.token,
    };
    match store::call(&request, &timer, store_timeout_ms).await {
        Ok(StoreReply::Accepted(true)) => complete(Kind::Ok, write),
        Ok(_) => complete(Kind::Fail, write),
        Err(_) => complete(Kind::Info, write),
    }
}
