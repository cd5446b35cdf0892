//! A client host running the lock workload with one of the ZooKeeper lock flavors.

use super::{Flavor, ZkLock};
use crate::history::{Kind, Op};
use crate::params::Params;
use crate::recipes::{LockError, Observation, Observer};
use crate::sim::node::Node;
use crate::sim::seed::Seeds;
use crate::workload::{self, Workload};
use crate::zk::PORT;
use crate::zk::client::{ConnectFuture, ZkClient, ZkConfig};
use rand::Rng;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use turmoil::net::TcpStream;

/// The lock directory every client contends for.
pub const LOCK_DIR: &str = "/locksim/lock";

fn observer(node: &Node) -> Observer {
    let node = node.clone();
    Rc::new(move |o| match o {
        Observation::Enqueued { node: name, seq } => node.record(
            Kind::Info,
            Op::Enqueued {
                lock: LOCK_DIR.into(),
                node: name,
                seq,
            },
        ),
        Observation::Woken { path, event } => node.record(
            Kind::Info,
            Op::Wake {
                lock: LOCK_DIR.into(),
                path,
                event,
            },
        ),
    })
}

/// The client's session settings at the scenario's time scale: attempts time out and
/// back off within a fraction of the session timeout, as they do at ZooKeeper's scale.
fn zk_config(params: &Params) -> ZkConfig {
    ZkConfig {
        connect_attempt_timeout_ms: params.session_timeout_ms / 3,
        reconnect_backoff_ms: params.zk_tick_ms,
        ..ZkConfig::with_session_timeout(params.session_timeout_ms as u32)
    }
}

async fn connect(
    node: &Node,
    params: &Params,
    flavor: Flavor,
    rng: &Rc<RefCell<rand_chacha::ChaCha8Rng>>,
) -> Result<ZkLock, LockError> {
    let connector = || -> ConnectFuture<TcpStream> { Box::pin(TcpStream::connect(("zk1", PORT))) };
    let (client, driver) = ZkClient::connect(connector, zk_config(params))
        .await
        .map_err(|_| LockError::ConnectionLoss)?;
    node.spawn(driver.run());
    let rng = rng.clone();
    let new_guid = Box::new(move || format!("_c_{:016x}", rng.borrow_mut().random::<u64>()));
    let lock = ZkLock::new(client, flavor, LOCK_DIR, new_guid, observer(node));
    lock.ensure_dir().await?;
    Ok(lock)
}

/// The software of client host `node`.
pub fn client(
    node: Node,
    params: Params,
    flavor: Flavor,
    seeds: Seeds,
) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async move {
        let rng = Rc::new(RefCell::new(seeds.stream(&node.name)));
        let work = Workload {
            lock_name: LOCK_DIR.into(),
            rounds: params.rounds,
            hold_ms: params.hold_ms,
            store_timeout_ms: params.session_timeout_ms,
        };
        workload::run_client(&node, &work, async || {
            connect(&node, &params, flavor, &rng).await
        })
        .await;
    })
}
