//! A shared counter on one znode, kept as Curator's `DistributedAtomicLong` keeps it: read the
//! value with its version, write value + 1 on condition of that version, and read again when
//! another client got there first (`BadVersion`). Each read and each applied write is
//! recorded with its session and the node's mzxid (`DataRead`, `DataWritten`), for
//! `read-your-writes`.
//!
//! A write whose reply is lost may have been applied: the counter reads again and adds one
//! to what it finds, so such an increment can count twice (Curator's does too). The counter
//! scenarios judge the session's view of the node, not the count.

use super::{RETRY_MS, ensure_path, is_transient, retrying};
use crate::history::{ClientOp, Kind, Op};
use crate::sim::node::Node;
use crate::zk::client::{ZkClient, ZkError};
use crate::zk::proto::ErrorCode;

/// The counter's znode.
pub const COUNTER_PATH: &str = "/locksim/counter";

/// The counter on one session.
pub struct ZkCounter {
    client: ZkClient,
    node: Node,
}

impl ZkCounter {
    /// The counter on `client`'s session, for client host `node`; makes its znode if
    /// missing (empty data reads as 0).
    pub async fn new(client: ZkClient, node: &Node) -> Result<ZkCounter, ZkError> {
        ensure_path(&client, COUNTER_PATH).await?;
        Ok(ZkCounter {
            client,
            node: node.clone(),
        })
    }

    /// Adds one and returns the value it wrote. Err once the session is gone (or on a
    /// refusal no retry mends).
    pub async fn increment(&self) -> Result<i64, ZkError> {
        let c = &self.client;
        loop {
            let (data, stat) = retrying(c, async || c.get_data(COUNTER_PATH).await).await?;
            self.record(ClientOp::DataRead {
                path: COUNTER_PATH.into(),
                session: c.session_id(),
                mzxid: stat.mzxid,
            });
            let value = String::from_utf8_lossy(&data).parse::<i64>().unwrap_or(0) + 1;
            let written = c
                .set_data(COUNTER_PATH, value.to_string().as_bytes(), stat.version)
                .await;
            match written {
                Ok(stat) => {
                    self.record(ClientOp::DataWritten {
                        path: COUNTER_PATH.into(),
                        session: c.session_id(),
                        mzxid: stat.mzxid,
                    });
                    return Ok(value);
                }
                Err(ZkError::Server(ErrorCode::BadVersion)) => {}
                Err(e) if is_transient(&e) => c.timer().sleep(RETRY_MS).await,
                Err(e) => return Err(e),
            }
        }
    }

    fn record(&self, op: ClientOp) {
        self.node.record(Kind::Info, Op::Client(op));
    }
}
