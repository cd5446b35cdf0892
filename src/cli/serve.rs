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

/// `locksim serve zk`: a simulated ZooKeeper server on `addr`, until Ctrl-C; an ensemble of
/// `config.servers` on consecutive ports from `addr`'s (each its own with port 0).
pub fn serve_zk(out: &Output, addr: SocketAddr, config: zk::serve::ServeConfig) -> Status {
    if let Err(e) = config.validate() {
        return out.bad_input(&e);
    }
    let Some(addrs) = consecutive(addr, config.servers) else {
        return out.bad_input(&format!(
            "--port {} leaves no room for {} servers on consecutive ports",
            addr.port(),
            config.servers
        ));
    };
    let tick_ms = config.tick_ms;
    serve(
        out,
        &addrs,
        |bound| {
            let listed: Vec<String> = bound.iter().map(ToString::to_string).collect();
            let what = match bound.len() {
                1 => String::new(),
                n => format!(", an ensemble zk1..zk{n} led by zk{n}"),
            };
            let text = format!(
                "locksim serve zk: listening on {} (tickTime {tick_ms} ms{what}); Ctrl-C stops it",
                listed.join(" ")
            );
            let json = json!({
                "serving": "zk",
                "address": listed[0],
                "addresses": listed,
                "tick_ms": tick_ms,
            });
            (json, text)
        },
        |listeners, shutdown| zk::serve::serve(listeners, config, shutdown),
    )
}

/// `count` addresses on consecutive ports from `addr`'s; port 0 stays 0 (each its own).
fn consecutive(addr: SocketAddr, count: u32) -> Option<Vec<SocketAddr>> {
    (0..count)
        .map(|i| {
            let port = match addr.port() {
                0 => Some(0),
                port => u16::try_from(i).ok().and_then(|i| port.checked_add(i)),
            };
            port.map(|port| SocketAddr::new(addr.ip(), port))
        })
        .collect()
}

/// `locksim serve redis`: a simulated Redis server on `addr`, until Ctrl-C.
pub fn serve_redis(out: &Output, addr: SocketAddr, config: redis::serve::ServeConfig) -> Status {
    let clock = match config.expiry_clock {
        ExpiryClock::Wall => "wall",
        ExpiryClock::Monotonic => "monotonic",
    };
    serve(
        out,
        &[addr],
        |bound| {
            let bound = bound[0];
            let text = format!(
                "locksim serve redis: listening on {bound} (expiry clock {clock}); Ctrl-C stops it"
            );
            let json =
                json!({ "serving": "redis", "address": bound.to_string(), "expiry_clock": clock });
            (json, text)
        },
        |mut listeners, shutdown| redis::serve::serve(listeners.remove(0), config, shutdown),
    )
}

/// Reads a size as Redis's config does (util.c `memtoull`): digits then an optional unit,
/// `b`, `k` (1000), `kb` (1024), `m`, `mb`, `g`, `gb`, in any case. Redis's limits on
/// `proto-max-bulk-len` and `client-query-buffer-limit` apply: at least 1mb.
pub fn parse_memory(s: &str) -> Result<usize, String> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = s.split_at(digits);
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => {
            return Err(format!(
                "'{s}' is not a size (say 512mb, 1gb or a number of bytes)"
            ));
        }
    };
    let bytes = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiplier))
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= i64::MAX as usize)
        .ok_or_else(|| format!("'{s}' is not a size (say 512mb, 1gb or a number of bytes)"))?;
    if bytes < 1024 * 1024 {
        return Err(format!("'{s}' is below Redis's minimum of 1mb"));
    }
    Ok(bytes)
}

/// What every `serve` does around its family's server: logs to stderr, a single-threaded
/// runtime, a listener on each of `addrs`, a first stdout line saying where they listen
/// (useful with `--port 0`; `banner` gives it as JSON and as text), then the server until
/// Ctrl-C.
fn serve<F: Future<Output = ()>>(
    out: &Output,
    addrs: &[SocketAddr],
    banner: impl FnOnce(&[SocketAddr]) -> (Value, String),
    server: impl FnOnce(Vec<TcpListener>, Shutdown) -> F,
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
        let mut listeners = Vec::new();
        let mut bound = Vec::new();
        for &addr in addrs {
            let listener = match TcpListener::bind(addr).await {
                Ok(l) => l,
                Err(e) => return out.bad_input(&format!("cannot listen on {addr}: {e}")),
            };
            bound.push(listener.local_addr().map_or(addr, |a| a));
            listeners.push(listener);
        }
        let (json, text) = banner(&bound);
        out.emit(json, || outln!("{text}"));
        let ctrl_c = Box::pin(async {
            let _ = tokio::signal::ctrl_c().await;
        });
        server(listeners, ctrl_c).await;
        Status::Clean
    })
}

#[cfg(test)]
mod tests {
    use super::parse_memory;

    #[test]
    fn sizes_read_as_redis_reads_them() {
        assert_eq!(parse_memory("512mb"), Ok(512 * 1024 * 1024));
        assert_eq!(parse_memory("1GB"), Ok(1 << 30));
        assert_eq!(parse_memory("2m"), Ok(2_000_000));
        assert_eq!(parse_memory("1048576"), Ok(1 << 20));
        assert_eq!(parse_memory("1048576b"), Ok(1 << 20));
        assert_eq!(parse_memory("5000k"), Ok(5_000_000));
        assert_eq!(parse_memory("1024kb"), Ok(1 << 20));
        for bad in [
            "",
            "mb",
            "-1mb",
            "1.5gb",
            "1 gb",
            "1tb",
            "99999999999999999999",
        ] {
            assert!(parse_memory(bad).is_err(), "{bad:?}");
        }
        // Redis's floor for both limits.
        assert!(parse_memory("1048575").is_err());
        assert!(parse_memory("1000k").is_err());
    }
}
