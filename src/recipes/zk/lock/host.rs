//! A simulated client host's way to a ZooKeeper lock: a session with `zk1`, and the lock
//! bound to it, reporting its place in line and its wake-ups to the history.

use super::decide::Contender;
use super::{Flavor, ZkLock};
use crate::recipes::zk::kit::Report;
use crate::recipes::zk::open_session;
use crate::recipes::{LockError, Observation, Observer};
use crate::sim::node::Node;
use crate::zk::client::ZkConfig;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// The lock directory every client contends for.
pub const LOCK_DIR: &str = "/locksim/lock";

fn observer(node: &Node, contender: Contender) -> Observer {
    let report = Report::new(node, LOCK_DIR);
    Rc::new(move |o| match o {
        Observation::Enqueued { node: name, .. } => report.enqueued(&name, contender.mode()),
        Observation::Woken { path, event } => report.woken_by(&path, event),
    })
}

/// The recipe's named steps, where a fault may strike (`Node::step`; the lock's next
/// request, sent at its next await, waits while the host is paused).
fn steps(node: &Node) -> super::Step {
    let gate = node.gate.clone();
    Rc::new(move |step| {
        gate.strike(step, Node::true_ms());
    })
}

/// The steps of the lock recipe a fault can aim at: "exists", between listing the lock
/// directory and looking at the predecessor, the window of Z4.
pub const STEPS: &[&str] = &["exists"];

/// Opens a session with `zk1` and binds a lock of `flavor` to it, queuing as `contender`;
/// `rng` names its nodes, and `carried` is the host's GUID of a create whose outcome is
/// unknown, which only a flaw carries from one session to the next.
pub async fn connect(
    node: &Node,
    config: &ZkConfig,
    flavor: Flavor,
    contender: Contender,
    rng: &Rc<RefCell<ChaCha8Rng>>,
    carried: &Rc<RefCell<Option<String>>>,
) -> Result<ZkLock, LockError> {
    let client = open_session(node, config)
        .await
        .map_err(|_| LockError::ConnectionLoss)?;
    let rng = rng.clone();
    let new_guid = Box::new(move || format!("_c_{:016x}", rng.borrow_mut().random::<u64>()));
    let lock = ZkLock::new(
        client,
        flavor,
        contender,
        LOCK_DIR,
        new_guid,
        observer(node, contender),
    )
    .with_steps(steps(node))
    .with_carried_guid(carried.clone());
    lock.ensure_dir().await?;
    Ok(lock)
}
