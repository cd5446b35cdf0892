//! What every ZooKeeper scenario shares: the hosts `zk1` and the store, the clients'
//! session settings, and the bound the network's latency must keep for clients to connect.

use crate::params::{ParamError, Params};
use crate::recipes::RecipeError;
use crate::recipes::zk::ensure_path;
use crate::recipes::zk::host::ZkHost;
use crate::sim::node::Node;
use crate::sim::software::ServerHost;
use crate::store::StoreFamily;
use crate::zk::client::{ZkClient, ZkConfig};
use crate::zk::server_name;
use crate::zk::sim_host::{Ensemble, ZkFamily};
use std::rc::Rc;

/// A connection needs two round trips (TCP handshake, then ZooKeeper's connect) within the
/// client's connect attempt timeout, a third of the session timeout. A one-way latency above
/// `session_timeout_ms / LATENCY_DIVISOR` never connects: clients would retry forever.
pub const LATENCY_DIVISOR: u64 = 12;

/// The servers: `zk1`..`zkN` (`zk_servers`), which the swarm may fault, and the store,
/// which it leaves alone.
pub(super) fn servers(params: &Params) -> Vec<ServerHost> {
    let z = &params.zookeeper;
    let family = ZkFamily {
        tick_ms: z.zk_tick_ms,
        // At most i32::MAX: the parameter's range.
        seq_start: i32::try_from(z.seq_start).unwrap_or(i32::MAX),
        container_check_ms: z.container_check_ms,
        extended_types: z.extended_types,
        member: None,
    };
    let ensemble = Ensemble::new(z.zk_servers, z.follower_lag_ms);
    let mut hosts: Vec<ServerHost> = (1..=z.zk_servers)
        .map(|id| ServerHost {
            name: server_name(id),
            family: Rc::new(ZkFamily {
                member: ensemble.member(id),
                ..family.clone()
            }),
            swarmed: true,
        })
        .collect();
    hosts.push(ServerHost {
        name: "store".into(),
        family: Rc::new(StoreFamily {
            fencing: params.workload.fencing,
        }),
        swarmed: false,
    });
    hosts
}

/// The glue of client host `node` to the recipes, with the scenario's session settings and
/// its servers.
pub(super) fn zk_host(node: &Node, params: &Params) -> ZkHost {
    zk_host_with(node, params, zk_config(node, params))
}

/// The glue of client host `node` to the recipes, with session settings `config` and the
/// scenario's servers.
pub(super) fn zk_host_with(node: &Node, params: &Params, config: ZkConfig) -> ZkHost {
    let servers = (1..=params.zookeeper.zk_servers).map(server_name).collect();
    ZkHost::new(node, config).with_servers(servers)
}

/// The slowest one leg of a client's request takes, the unit the ZooKeeper scenarios' bounds
/// count in: the slowest link with one server. On an ensemble a write also crosses the
/// forward, proposal, acknowledgement and commit links and waits for a follower's apply,
/// which this spreads over the request's two legs.
pub(super) fn leg_ms(p: &Params) -> u64 {
    let link = p.network.slowest_link_ms();
    match p.zookeeper.zk_servers {
        0 | 1 => link,
        _ => 3 * link + p.zookeeper.follower_lag_ms.div_ceil(2),
    }
}

/// What `writes` requests in a row cost on an ensemble, each two legs (`leg_ms`): a
/// scenario's setup, say, that its waiters wait behind. Nothing with one server, where
/// the bounds' slack has always covered such a setup (and a bound that changed would change
/// the run's length, and the digests of committed traces).
pub(super) fn ensemble_writes_ms(p: &Params, writes: u64) -> u64 {
    match p.zookeeper.zk_servers {
        0 | 1 => 0,
        _ => writes * 2 * leg_ms(p),
    }
}

/// What an ensemble adds to the wait after the heal (0 for a server alone): its members
/// link up again (a silent link is given up after five ticks, as `sim_peers` does) before
/// they serve, and a client may try each other server, one connect attempt (a third of the
/// session timeout) each, before it finds one that serves.
pub(super) fn ensemble_recovery_ms(p: &Params) -> u64 {
    let others = u64::from(p.zookeeper.zk_servers.saturating_sub(1));
    match others {
        0 => 0,
        _ => others * p.zookeeper.session_timeout_ms / 3 + 5 * p.zookeeper.zk_tick_ms,
    }
}

/// The client's session settings at the scenario's time scale: attempts time out and
/// back off within a fraction of the session timeout, as they do at ZooKeeper's scale.
pub(super) fn zk_config(node: &Node, params: &Params) -> ZkConfig {
    ZkConfig {
        connect_attempt_timeout_ms: params.zookeeper.session_timeout_ms / 3,
        reconnect_backoff_ms: params.zookeeper.zk_tick_ms,
        timer: node.timer(),
        ..ZkConfig::with_session_timeout(params.zookeeper.session_timeout_ms as u32)
    }
}

/// A new session of `host` for a user's recipe, with `dir` (where the recipe works) made
/// if missing.
pub(super) async fn session_in(host: &ZkHost, dir: &str) -> Result<ZkClient, RecipeError> {
    let client = host
        .session()
        .await
        .map_err(|_| RecipeError::ConnectionLoss)?;
    ensure_path(&client, dir).await?;
    Ok(client)
}

/// Refuses an ensemble without a majority of a whole number of servers, and a network
/// whose slowest link no client could connect over.
pub(super) fn validate(p: &Params) -> Result<(), ParamError> {
    if p.zookeeper.zk_servers.is_multiple_of(2) {
        return Err(ParamError::Invalid(format!(
            "zk_servers={} is even: use 1, 3 or 5 (an ensemble of 2n servers survives no more \
             failures than one of 2n - 1)",
            p.zookeeper.zk_servers
        )));
    }
    validate_latency(p)
}

/// Refuses a network whose slowest link no client could connect over.
fn validate_latency(p: &Params) -> Result<(), ParamError> {
    if p.network.slowest_link_ms() * LATENCY_DIVISOR > p.zookeeper.session_timeout_ms {
        return Err(ParamError::Invalid(format!(
            "{} is too long for session_timeout_ms={}: a client connects within a third \
             of the session timeout, two round trips, so the slowest link's latency must \
             be at most session_timeout_ms / {LATENCY_DIVISOR}",
            p.network.slowest_link_text(),
            p.zookeeper.session_timeout_ms
        )));
    }
    Ok(())
}
