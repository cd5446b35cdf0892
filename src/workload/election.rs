//! The election workload: run for leader; as leader do the guarded work (read the register,
//! work, write value + 1 with the leader's token: the lock workload's critical section),
//! then step down and run again; `terms` times. Each step is recorded as invoke / ok / fail
//! / info.

use super::lock::{self, Held, critical_section};
use super::{RETRY_MS, reconnect};
use crate::history::{ElectionOp, Kind, Op};
use crate::recipes::{Election, Grant, Lock, RecipeError};
use crate::sim::node::Node;

/// The steps a `pause_before` fault can aim at: the store write, just after the check that
/// it still leads, and the step down, which a leader begins believing it still leads.
pub(crate) const PAUSE_STEPS: &[&str] = &["write", "step_down"];

/// What each client does, from the scenario's parameters.
pub(crate) struct Workload {
    /// The election's name, as the history records it.
    pub(crate) election: String,
    /// How many times it becomes leader before it stops.
    pub(crate) terms: u32,
    /// The work between the leader's read and its write.
    pub(crate) hold_ms: u64,
    /// A store request not answered within this has an unknown outcome.
    pub(crate) store_timeout_ms: u64,
}

/// Leadership held like a lock, so the leader's work is the lock workload's critical
/// section.
struct Leading<E>(E);

impl<E: Election> Lock for Leading<E> {
    async fn acquire(&mut self) -> Result<Grant, RecipeError> {
        self.0.lead().await
    }

    async fn release(&mut self) -> Result<(), RecipeError> {
        self.0.resign().await
    }

    async fn lost(&mut self) {
        self.0.leadership_lost().await
    }

    async fn close(self) {
        self.0.close().await
    }
}

/// Runs the workload. `connect` opens a new session and returns a candidate bound to it;
/// it is called again whenever the session is lost.
pub(crate) async fn run_client<E: Election>(
    node: &Node,
    work: &Workload,
    mut connect: impl AsyncFnMut() -> Result<E, RecipeError>,
) {
    let mut connect = async || connect().await.map(Leading);
    let guarded = lock::Workload {
        lock_name: work.election.clone(),
        mode: None,
        rounds: work.terms,
        hold_ms: work.hold_ms,
        store_timeout_ms: work.store_timeout_ms,
    };
    let election = || work.election.clone();
    let lead = |token| {
        Op::Election(ElectionOp::Lead {
            election: election(),
            token,
        })
    };
    let mut candidate = reconnect(node, &mut connect).await;
    for _ in 0..work.terms {
        let grant = loop {
            node.record(Kind::Invoke, lead(None));
            match candidate.acquire().await {
                Ok(grant) => {
                    node.record(Kind::Ok, lead(grant.token));
                    break grant;
                }
                Err(e) => {
                    // The run ends once there is a session to run again on, so a client
                    // stuck reconnecting still shows as a running candidate.
                    if e.needs_new_session() {
                        candidate = reconnect(node, &mut connect).await;
                    }
                    node.record(Kind::Fail, lead(None));
                    node.timer().sleep(RETRY_MS).await;
                }
            }
        };
        if critical_section(node, &guarded, grant, &mut candidate).await == Held::Lost {
            let lost = ElectionOp::LostLead {
                election: election(),
            };
            node.record(Kind::Info, Op::Election(lost));
            candidate = reconnect(node, &mut connect).await;
            continue;
        }
        node.step("step_down").await;
        let step_down = Op::Election(ElectionOp::StepDown {
            election: election(),
        });
        lock::give_up(node, step_down, &mut candidate, &mut connect).await;
    }
    candidate.close().await;
}
