//! A simulated client host's way to a ZooKeeper queue: a session with `zk1`, and the queue
//! bound to it, reporting its claims, empty listings and wake-ups to the history.

use super::decide::Flavor;
use super::{QueueError, QueueEvent, QueueObserver, ZkQueue};
use crate::history::{ClientOp, Kind, Op, QueueOp};
use crate::recipes::zk::open_session;
use crate::sim::node::Node;
use crate::zk::client::ZkConfig;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// The queue's directory.
pub const QUEUE_DIR: &str = "/locksim/queue";
/// Where offers and takes leave the markers that settle their lost replies.
pub const MARKER_DIR: &str = "/locksim/queue-markers";

fn observer(node: &Node) -> QueueObserver {
    let node = node.clone();
    Rc::new(move |e| {
        let op = match e {
            QueueEvent::Claim { item, node } => Op::Queue(QueueOp::Claim {
                queue: QUEUE_DIR.into(),
                item,
                node,
            }),
            QueueEvent::Empty => Op::Queue(QueueOp::Empty {
                queue: QUEUE_DIR.into(),
            }),
            QueueEvent::Woken { path, event } => Op::Client(ClientOp::Wake {
                lock: None,
                path,
                event,
            }),
        };
        node.record(Kind::Info, op);
    })
}

/// Opens a session with `zk1` and binds a queue of `flavor` to it; `rng` names its markers.
pub async fn connect(
    node: &Node,
    config: &ZkConfig,
    flavor: Flavor,
    rng: &Rc<RefCell<ChaCha8Rng>>,
) -> Result<ZkQueue, QueueError> {
    let client = open_session(node, config)
        .await
        .map_err(|_| QueueError::SessionExpired)?;
    let rng = rng.clone();
    let new_guid = Box::new(move || format!("{:016x}", rng.borrow_mut().random::<u64>()));
    let queue = ZkQueue::new(
        client,
        flavor,
        QUEUE_DIR,
        MARKER_DIR,
        new_guid,
        observer(node),
    );
    queue.ensure_dirs().await?;
    Ok(queue)
}
