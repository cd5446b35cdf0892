//! A barrier and a double barrier of the user's own over Redis, written against redis-rs:
//! each round has a set of the clients that arrived (`SADD` of the client's name), and a
//! client passes once the set holds every client, looking again every few milliseconds. An
//! arrival asked again after a lost reply adds nothing: the set holds each client once. The
//! double barrier does the same with a second set, of the clients leaving. The variant
//! counts arrivals with `INCR`: an arrival whose reply was lost, asked again, counts twice,
//! and the barrier lifts before the last client arrives.

use locksim::redis_rs::AsyncCommands;
use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::{Barrier, DoubleBarrier, Node, Param, RecipeError};

/// How many clients each barrier waits for: the scenario's `clients`.
const CLIENTS: Param<u32> = Param::u32("clients", 5);
/// How long a client waits before it looks again at who arrived.
const RETRY_MS: u64 = 10;

/// How a client counts arrivals.
#[derive(Debug, Clone, Copy)]
pub enum Count {
    /// Adds itself to the round's set, and counts its members.
    Members,
    /// Adds one to the round's counter (flawed: an arrival asked again counts twice).
    Incr,
}

/// One client's barriers, on its own redis-rs connection to `redis1`.
pub struct MyBarrier {
    conn: MultiplexedConnection,
    node: Node,
    count: Count,
}

impl MyBarrier {
    /// Connects the client on `node`.
    pub async fn connect(node: Node, count: Count) -> Result<MyBarrier, RecipeError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(MyBarrier { conn, node, count })
    }

    /// Arrives at the barrier kept at `key`, and returns once every client has.
    async fn arrive(&mut self, key: &str) -> Result<(), RecipeError> {
        match self.count {
            Count::Members => self.conn.sadd::<_, _, ()>(key, &self.node.name).await?,
            Count::Incr => self.conn.incr::<_, _, ()>(key, 1).await?,
        }
        let clients = self.node.param(CLIENTS);
        loop {
            let arrived: Option<u32> = match self.count {
                Count::Members => self.conn.scard(key).await?,
                Count::Incr => self.conn.get(key).await?,
            };
            if arrived.unwrap_or(0) >= clients {
                return Ok(());
            }
            self.node.timer().sleep(RETRY_MS).await;
        }
    }
}

impl Barrier for MyBarrier {
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        self.arrive(&format!("my-barrier:{round}")).await
    }
}

impl DoubleBarrier for MyBarrier {
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        self.arrive(&format!("my-double-barrier:{round}:in")).await
    }

    async fn leave(&mut self, round: u32) -> Result<(), RecipeError> {
        self.arrive(&format!("my-double-barrier:{round}:out")).await
    }
}
