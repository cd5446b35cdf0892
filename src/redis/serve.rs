//! `locksim serve redis`: the simulated Redis's core served by tokio on a real TCP socket and
//! the real clock, so any Redis client (redis-cli, redis-py, locksim's own) can talk to it.
//! This is the one place in the Redis family that reads the host clock: it is not simulated.

use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::host::{self, Env, Host, HostEvent};
use crate::redis::resp::Limits;
use crate::redis::server::Config;
use std::future::Future;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tracing::{debug, info, warn};

/// The knobs of `locksim serve redis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeConfig {
    /// Which clock key deadlines live on.
    pub expiry_clock: ExpiryClock,
    /// proto-max-bulk-len: the longest argument a request may declare (512 MB by default).
    pub proto_max_bulk_len: usize,
    /// client-query-buffer-limit: a connection whose unparsed input grows past this is
    /// closed, unanswered (1 GB by default).
    pub client_query_buffer_limit: usize,
    /// What one script may allocate in the Lua state (64 MiB by default; Redis sets no limit).
    pub lua_memory_limit: usize,
}

impl Default for ServeConfig {
    /// Redis's defaults.
    fn default() -> Self {
        let config = Config::default();
        ServeConfig {
            expiry_clock: config.expiry_clock,
            proto_max_bulk_len: config.limits.max_bulk_len,
            client_query_buffer_limit: config.max_query_buffer,
            lua_memory_limit: config.lua_memory_limit,
        }
    }
}

struct RealEnv {
    started: Instant,
}

impl Env for RealEnv {
    fn sleep_until(&self, mono_ms: u64) -> impl Future<Output = ()> + 'static {
        tokio::time::sleep_until((self.started + Duration::from_millis(mono_ms)).into())
    }

    fn now(&self) -> Now {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Now {
            wall_ms: i64::try_from(wall.as_millis()).unwrap_or(i64::MAX),
            mono_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        match event {
            HostEvent::Accepted { conn, client } => debug!("conn {conn}: accepted from {client}"),
            HostEvent::Closed {
                conn,
                by_server: true,
            } => debug!("conn {conn}: closed by the server (QUIT, a protocol error or HTTP)"),
            HostEvent::Closed { conn, .. } => debug!("conn {conn}: closed"),
            HostEvent::OutputLimit {
                conn, unwritten, ..
            } => warn!(
                "conn {conn}: dropped for overcoming the pubsub output buffer limit \
                 ({unwritten} bytes unwritten)"
            ),
            HostEvent::Propagated { conn, commands } => {
                let by = conn.map_or("active expiry".to_string(), |c| format!("conn {c}"));
                for args in commands {
                    let words: Vec<_> = args.iter().map(|a| String::from_utf8_lossy(a)).collect();
                    debug!("{by}: {}", words.join(" "));
                }
            }
        }
    }
}

/// Serves on `listener` until `shutdown` completes. Runs on the current thread's LocalSet:
/// one core serves every connection, single-threaded like the simulation and like Redis.
pub async fn serve(listener: TcpListener, config: ServeConfig, shutdown: impl Future<Output = ()>) {
    let env = RealEnv {
        started: Instant::now(),
    };
    let config = Config {
        expiry_clock: config.expiry_clock,
        limits: Limits {
            max_bulk_len: config.proto_max_bulk_len,
            ..Limits::default()
        },
        max_query_buffer: config.client_query_buffer_limit,
        lua_memory_limit: config.lua_memory_limit,
        ..Config::default()
    };
    let host = Host::new(env, config).shared();
    let expiry = tokio::task::spawn_local(host::expire_keys(host.clone()));
    crate::serve::accept_until(&listener, shutdown, |stream, peer| {
        let host = host.clone();
        tokio::task::spawn_local(async move {
            let mut stream = host::serve_conn(host, peer.to_string(), stream).await;
            let _ = stream.shutdown().await;
        });
    })
    .await;
    expiry.abort();
    info!("stopped");
}
