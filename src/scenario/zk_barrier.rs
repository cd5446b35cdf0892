//! The ZooKeeper barrier scenarios: `zk1`, the store (which nobody uses), and clients that
//! run the barrier workload over the barrier (c1 coordinates) or the double barrier.

use super::{Program, zk};
use crate::params::{self, Faults, Group, Network, ParamError, Params, Zookeeper};
use crate::recipes::zk::barrier::{self, BarrierError, ZkBarrier};
use crate::recipes::zk::double_barrier::{self, ZkDoubleBarrier};
use crate::recipes::zk::host::ZkHost;
use crate::sim::node::Node;
use crate::sim::software::Hosts;
use crate::workload::barrier::{PAUSE_STEPS, Workload, run_client};
use std::rc::Rc;

#[derive(Debug, Clone, Copy)]
pub(super) enum ZkBarrierProgram {
    /// The barrier, coordinated by c1.
    Single(barrier::Flavor),
    Double(double_barrier::Flavor),
}

impl ZkBarrierProgram {
    /// One round at worst once healed: the spread of arrivals, the work, and a few round
    /// trips for each of enter and leave (create, list, watch, wake, delete) and ticks.
    fn round_ms(p: &Params) -> u64 {
        p.barrier.arrive_max_ms
            + p.workload.hold_ms
            + 16 * p.network.slowest_link_ms()
            + 2 * p.zookeeper.zk_tick_ms
    }
}

impl Program for ZkBarrierProgram {
    fn param_groups(&self) -> &'static [Group] {
        &[
            Network::GROUP,
            Faults::GROUP,
            params::Workload::GROUP,
            params::Barrier::GROUP,
            Zookeeper::GROUP,
        ]
    }

    fn hosts(&self, params: &Params) -> Hosts {
        let (program, params) = (*self, params.clone());
        Hosts {
            servers: zk::servers(&params),
            clients: params.client_names(),
            pause_steps: PAUSE_STEPS,
            wait_steps: &[],
            program: Rc::new(move |node| Box::pin(client(node, params.clone(), program))),
        }
    }

    /// A process waits for the slowest: its session and the slowest's may each take a
    /// timeout to resolve, the slowest may still be finishing the round before, then the
    /// round itself.
    fn liveness_bound(&self, p: &Params) -> u64 {
        3 * p.zookeeper.session_timeout_ms + 2 * Self::round_ms(p)
    }

    /// After the fault phase, long enough for every round to complete and for one liveness
    /// bound to pass.
    fn run_limit(&self, p: &Params, liveness_bound_ms: u64) -> u64 {
        p.faults.fault_phase_ms
            + liveness_bound_ms
            + u64::from(p.workload.rounds) * Self::round_ms(p)
            + p.zookeeper.session_timeout_ms
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        zk::validate_latency(p)
    }
}

/// The software of client host `node`: the barrier workload over `program`'s barrier, which
/// waits for every client.
async fn client(node: Node, params: Params, program: ZkBarrierProgram) {
    let host = ZkHost::new(&node, zk::zk_config(&node, &params));
    let work = Workload {
        rounds: params.workload.rounds,
        count: params.workload.clients,
        hold_ms: params.workload.hold_ms,
        arrive_max_ms: params.barrier.arrive_max_ms,
    };
    let session = async || host.session().await.map_err(BarrierError::from);
    match program {
        ZkBarrierProgram::Single(flavor) => {
            let coordinator = params.client_names().first() == Some(&node.name);
            run_client(&node, &work, async || {
                let client = session().await?;
                ZkBarrier::new(client, &node, flavor, coordinator, work.count, work.rounds).await
            })
            .await
        }
        ZkBarrierProgram::Double(flavor) => {
            run_client(&node, &work, async || {
                Ok(ZkDoubleBarrier::new(
                    session().await?,
                    &node,
                    flavor,
                    work.count,
                ))
            })
            .await
        }
    }
}
