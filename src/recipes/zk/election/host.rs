//! A simulated client host's way to the election: a session with `zk1`, and a candidate
//! bound to it, reporting its candidacy and its wake-ups to the history.

use super::Candidate;
use super::decide::Flavor;
use crate::history::{ClientOp, ElectionOp, Kind, Op};
use crate::recipes::zk::open_session;
use crate::recipes::{LockError, Observation, Observer};
use crate::sim::node::Node;
use crate::zk::client::ZkConfig;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// The election directory every client stands in.
pub const ELECTION_DIR: &str = "/locksim/election";

fn observer(node: &Node) -> Observer {
    let node = node.clone();
    Rc::new(move |o| match o {
        Observation::Enqueued { node: name, seq } => node.record(
            Kind::Info,
            Op::Election(ElectionOp::Candidate {
                election: ELECTION_DIR.into(),
                node: name,
                seq,
            }),
        ),
        Observation::Woken { path, event } => node.record(
            Kind::Info,
            Op::Client(ClientOp::Wake {
                lock: None,
                path,
                event,
            }),
        ),
    })
}

/// Opens a session with `zk1` and binds a candidate of `flavor` to it; `rng` names its
/// nodes.
pub async fn connect(
    node: &Node,
    config: &ZkConfig,
    flavor: Flavor,
    rng: &Rc<RefCell<ChaCha8Rng>>,
) -> Result<Candidate, LockError> {
    let client = open_session(node, config)
        .await
        .map_err(|_| LockError::ConnectionLoss)?;
    let rng = rng.clone();
    let new_guid = Box::new(move || format!("_c_{:016x}", rng.borrow_mut().random::<u64>()));
    let candidate = Candidate::new(client, flavor, ELECTION_DIR, new_guid, observer(node));
    candidate.ensure_dir().await?;
    Ok(candidate)
}
