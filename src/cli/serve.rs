//! `locksim serve zk` and `locksim serve redis`: run a simulated server on a real socket
//! until Ctrl-C.

use super::{Output, Status};
use crate::redis::clock::ExpiryClock;
use crate::{redis, zk};
use serde_json::{Value, json};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// Completes when the server is to stop.
type Shutdown = Pin<Box<dyn Future<Output = ()>>>;

/// `locksim serve zk`: a simulated ZooKeeper server on `addr`, until Ctrl-C.
pub fn serve_zk(out: &Output, addr: SocketAddr, config: zk::serve::ServeConfig) -> Status {
    if let Err(e) = config.validate() {
        return out.bad_input(&e);
    }
    let tick_ms = config.tick_ms;
    serve(
        out,
        addr,
        |bound| {
            let text = format!(
                "locksim serve zk: listening on {bound} (tickTime {tick_ms} ms); Ctrl-C stops it"
            );
            let json = json!({ "serving": "zk", "address": bound.to_string(), "tick_ms": tick_ms });
            (json, text)
        },
        |listener, shutdown| zk::serve::serve(listener, config, shutdown),
    )
}

/// `locksim serve redis`: a simulated Redis server on `addr`, until Ctrl-C.
pub fn serve_redis(out: &Output, addr: SocketAddr, config: redis::serve::ServeConfig) -> Status {
    let clock = match config.expiry_clock {
        ExpiryClock::Wall => "wall",
        ExpiryClock::Monotonic => "monotonic",
    };
    serve(
        out,
        addr,
        |bound| {
            let text = format!(
                "locksim serve redis: listening on {bound} (expiry clock {clock}); Ctrl-C stops it"
            );
            let json =
                json!({ "serving": "redis", "address": bound.to_string(), "expiry_clock": clock });
            (json, text)
        },
        |listener, shutdown| redis::serve::serve(listener, config, shutdown),
    )
}

/// What every `serve` does around its family's server: logs to stderr, a single-threaded
/// runtime, the listener, a first stdout line saying where it listens (useful with
/// `--port 0`; `banner` gives it as JSON and as text), then the server until Ctrl-C.
fn serve<F: Future<Output = ()>>(
    out: &Output,
    addr: SocketAddr,
    banner: impl FnOnce(SocketAddr) -> (Value, String),
    server: impl FnOnce(TcpListener, Shutdown) -> F,
) -> Status {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return out.error(
                &format!("cannot start the runtime: {e}"),
                Status::HarnessError,
            );
        }
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let listener = match TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => return out.bad_input(&format!("cannot listen on {addr}: {e}")),
        };
        let bound = listener.local_addr().map_or(addr, |a| a);
        let (json, text) = banner(bound);
        out.emit(json, || outln!("{text}"));
        let ctrl_c = Box::pin(async {
            let _ = tokio::signal::ctrl_c().await;
        });
        server(listener, ctrl_c).await;
        Status::Clean
    })
}
