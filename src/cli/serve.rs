//! `locksim serve zk`: run the simulated ZooKeeper on a real socket until Ctrl-C.

use super::{Output, Status};
use crate::zk::serve::{self, ServeConfig};
use serde_json::json;
use std::net::SocketAddr;
use tracing_subscriber::EnvFilter;

pub fn serve_zk(out: &Output, addr: SocketAddr, config: ServeConfig) -> Status {
    if let Err(e) = config.validate() {
        return out.bad_input(&e);
    }
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
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => return out.bad_input(&format!("cannot listen on {addr}: {e}")),
        };
        let bound = listener.local_addr().map_or(addr, |a| a);
        // The first line says where it listens (useful with --port 0); logs go to stderr.
        out.emit(
            json!({ "serving": "zk", "address": bound.to_string(), "tick_ms": config.tick_ms }),
            || {
                outln!(
                    "locksim serve zk: listening on {bound} (tickTime {} ms); Ctrl-C stops it",
                    config.tick_ms
                )
            },
        );
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        match serve::serve(listener, config, ctrl_c).await {
            Ok(()) => Status::Clean,
            Err(e) => out.error(&format!("serve failed: {e}"), Status::HarnessError),
        }
    })
}
