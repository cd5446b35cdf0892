//! A zk-lock counterexample as a locksim scenario and fault plan, where its faults map.

use super::{Action, Phase, ZkLockModel};
use crate::check::Transition;
use crate::export::Exportable;
use locksim::params::Params;
use locksim::recipes::zk::lock::decide::Flavor;
use locksim::sim::fault::{Fault, FaultPlan, TimedFault};

impl Exportable for ZkLockModel {
    fn scenario(&self) -> Result<(&'static str, Vec<String>), String> {
        let scenario = match self.flavor {
            Flavor::Recipe => "zk-lock",
            Flavor::Herd => "zk-lock-herd",
            Flavor::NoGuid => "zk-lock-noguid",
            Flavor::Simple => "zk-lock-simple",
            Flavor::NameSort => "zk-lock-name-sort",
            Flavor::ReleaseForgets => "zk-lock-release-forgets",
            Flavor::SessionEvent => "zk-lock-session-event",
            Flavor::IntSort => "zk-lock-int-sort",
            Flavor::Vanished => "zk-lock-vanished",
            Flavor::StaleSession => "zk-lock-stale-session",
            Flavor::NoSync => "zk-lock-no-sync",
        };
        let mut params = vec![
            format!("clients={}", self.clients),
            format!("fencing={}", self.fencing),
        ];
        if self.seq_start != 0 {
            params.push(format!("seq_start={}", self.seq_start));
        }
        Ok((scenario, params))
    }

    /// A holder's pause past its session timeout becomes `pause_before` its write (or its
    /// release, once it wrote), armed from the start and lasting 2 × the session timeout so
    /// the server expires its session. A lost create reply, or the pause of a client that
    /// does not hold the lock, has no mapping yet.
    fn faults(&self, path: &[Transition<Self>], params: &Params) -> Result<FaultPlan, String> {
        let mut plan = Vec::new();
        for (before, action, _) in path {
            match *action {
                Action::PauseExpire(c) => {
                    let step = match before.clients[usize::from(c)].phase {
                        Phase::Holding { wrote: false } => "write",
                        Phase::Holding { wrote: true } => "release",
                        _ => {
                            return Err(format!(
                                "a pause of c{c} while it does not hold the lock has no mapping yet"
                            ));
                        }
                    };
                    plan.push(TimedFault {
                        at_ms: 0,
                        fault: Fault::PauseBefore {
                            node: format!("c{}", c + 1),
                            step: step.into(),
                            for_ms: 2 * params.zookeeper.session_timeout_ms,
                        },
                    });
                }
                Action::CreateLost(_) => {
                    return Err("a lost create reply has no mapping yet".into());
                }
                Action::DeleteLost(_) => {
                    return Err("a lost delete has no mapping yet".into());
                }
                Action::Disconnect(_) => {
                    return Err("a dropped connection has no mapping yet".into());
                }
                Action::AbandonedExpire(_) => {
                    return Err("an abandoned session's expiry has no mapping yet".into());
                }
                Action::StaleList(_) => {
                    return Err("a read from a lagging follower has no mapping yet".into());
                }
                Action::Create(_)
                | Action::List(_)
                | Action::Exists(_)
                | Action::Event(_)
                | Action::Write(_)
                | Action::Release(_) => {}
            }
        }
        Ok(FaultPlan::new(plan))
    }
}
