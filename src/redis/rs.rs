//! redis-rs over the simulated network: a recipe written against the `redis` crate's async
//! connection runs unmodified against a simulated Redis host, inside the run, under its
//! faults. redis-rs's connection rides on any byte stream; this opens one to the host and
//! runs the connection's driver as a task of the client's host, behind its pause gate, so a
//! paused client stops reading and writing like a paused process.

use super::PORT;
use crate::sim::node::Node;
use redis_rs::aio::{MultiplexedConnection, PubSub};
use redis_rs::{AsyncConnectionConfig, RedisConnectionInfo, RedisError, RedisResult};
use std::io;

/// How long opening a connection (TCP, then redis-rs's `CLIENT SETINFO` handshake) may take
/// on the client's monotonic clock before it fails with a timeout: redis-rs's own default.
pub const CONNECT_TIMEOUT_MS: u64 = 1_000;

/// redis-rs's default response timeout: what a request on a connection `connect` opens
/// waits at most, on simulated time.
pub const RESPONSE_TIMEOUT_MS: u64 = 500;

/// A redis-rs connection from `node` to the simulated Redis host `server` (`"redis1"`), in
/// redis-rs's default configuration (RESP2, a 500 ms response timeout on simulated time).
///
/// ```no_run
/// use locksim::redis_rs::{AsyncCommands, RedisResult};
///
/// async fn holder(node: locksim::Node) -> RedisResult<Option<String>> {
///     let mut conn = locksim::redis::rs::connect(&node, "redis1").await?;
///     conn.get("my-lock").await
/// }
/// ```
pub async fn connect(node: &Node, server: &str) -> RedisResult<MultiplexedConnection> {
    connect_with(node, server, AsyncConnectionConfig::new()).await
}

/// `connect` with redis-rs's connection options (its response timeout, say).
pub async fn connect_with(
    node: &Node,
    server: &str,
    config: AsyncConnectionConfig,
) -> RedisResult<MultiplexedConnection> {
    connect_as(node, server, RedisConnectionInfo::default(), config).await
}

/// `connect_with` and redis-rs's connection info too: RESP3 (the simulated Redis answers
/// `HELLO 3` as Redis 7.0 does), a username and password, a database.
///
/// ```no_run
/// use locksim::redis_rs::{AsyncConnectionConfig, ProtocolVersion, RedisConnectionInfo};
///
/// async fn resp3(node: locksim::Node) -> locksim::redis_rs::RedisResult<()> {
///     let info = RedisConnectionInfo::default().set_protocol(ProtocolVersion::RESP3);
///     let config = AsyncConnectionConfig::new();
///     let _conn = locksim::redis::rs::connect_as(&node, "redis1", info, config).await?;
///     Ok(())
/// }
/// ```
pub async fn connect_as(
    node: &Node,
    server: &str,
    info: RedisConnectionInfo,
    config: AsyncConnectionConfig,
) -> RedisResult<MultiplexedConnection> {
    let (conn, driver) = open(node, server, async |stream| {
        MultiplexedConnection::new_with_config(&info, stream, config).await
    })
    .await?;
    node.spawn(driver);
    Ok(conn)
}

/// A redis-rs pub/sub connection from `node` to `server`: what `Client::get_async_pubsub`
/// opens, in redis-rs's default configuration (RESP2, where a subscribed connection serves
/// nothing but subscriptions). Messages arrive on its `on_message()` stream; a connection
/// that drops ends the stream. redis-rs runs its reader as a task of its own, outside the
/// host's pause gate: a paused client's messages wait in that task's queue, as they would
/// in a frozen process's socket. (A RESP3 command connection can subscribe too: `connect_as`
/// with a push sender in its config.)
///
/// ```no_run
/// use locksim::redis_rs::RedisResult;
///
/// async fn unlock_notices(node: locksim::Node) -> RedisResult<()> {
///     let mut pubsub = locksim::redis::rs::pubsub(&node, "redis1").await?;
///     pubsub.subscribe("my-lock:released").await?;
///     Ok(())
/// }
/// ```
pub async fn pubsub(node: &Node, server: &str) -> RedisResult<PubSub> {
    open(node, server, async |stream| {
        PubSub::new(&RedisConnectionInfo::default(), stream).await
    })
    .await
}

/// Opens a TCP stream from `node` to `server` and sets up a redis-rs connection on it, both
/// within `CONNECT_TIMEOUT_MS` on the node's clock.
async fn open<T>(
    node: &Node,
    server: &str,
    setup: impl AsyncFnOnce(turmoil::net::TcpStream) -> RedisResult<T>,
) -> RedisResult<T> {
    let connect = async {
        let stream = turmoil::net::TcpStream::connect((server, PORT)).await?;
        setup(stream).await
    };
    node.timer()
        .timeout(CONNECT_TIMEOUT_MS, connect)
        .await
        .ok_or_else(|| {
            RedisError::from(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no connection to {server} within {CONNECT_TIMEOUT_MS} ms"),
            ))
        })?
}
