//! The two servers under comparison, each a child process on a free loopback port: a real
//! ZooKeeper 3.8 (standalone, throwaway data dir) and `locksim serve zk`. Both are killed when
//! dropped, also when the test panics.

use super::server_process::{ServerProcess, free_port, scratch_dir};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Where the Debian package `zookeeper` puts its configuration and jar.
const ZK_CLASSPATH: &str = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar";
/// A JVM on a busy 2-core machine can take a while to start.
const START_LIMIT: Duration = Duration::from_secs(60);

/// Starts a standalone ZooKeeper with the given tick; ready once it answers `srvr`.
pub fn start_real(tick_ms: u64) -> Result<ServerProcess, String> {
    let jar = "/usr/share/java/zookeeper.jar";
    if !std::path::Path::new(jar).exists() {
        return Err(format!(
            "{jar} not found: install the Debian package zookeeper (apt-get install zookeeper; .ci/run does)"
        ));
    }
    let port = free_port();
    let scratch = scratch_dir(&format!("zk-conformance-real-{port}"));
    let data = scratch.join("data");
    fs::create_dir_all(&data).map_err(|e| format!("data dir: {e}"))?;
    let log = File::create(scratch.join("server.log")).map_err(|e| format!("log: {e}"))?;
    let log2 = log.try_clone().map_err(|e| format!("log: {e}"))?;
    let child = Command::new("java")
        .args([
            "-cp",
            ZK_CLASSPATH,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            &port.to_string(),
            &data.to_string_lossy(),
            &tick_ms.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| {
            format!("cannot run java (is the Debian package zookeeper installed?): {e}")
        })?;
    let server = ServerProcess {
        name: "zookeeper",
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        child,
        scratch,
    };
    wait_ready(server, answers_srvr)
}

/// Starts `locksim serve zk` with the given tick; ready once it accepts a connection.
pub fn start_sim(tick_ms: u64) -> Result<ServerProcess, String> {
    let port = free_port();
    let scratch = scratch_dir(&format!("zk-conformance-sim-{port}"));
    let log = File::create(scratch.join("server.log")).map_err(|e| format!("log: {e}"))?;
    let log2 = log.try_clone().map_err(|e| format!("log: {e}"))?;
    let child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["serve", "zk", "--port", &port.to_string()])
        .args(["--bind", "127.0.0.1", "--tick-ms", &tick_ms.to_string()])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| format!("cannot run locksim serve zk: {e}"))?;
    let server = ServerProcess {
        name: "locksim",
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        child,
        scratch,
    };
    wait_ready(server, |stream| {
        drop(stream);
        true
    })
}

/// `locksim serve zk --servers N` on free loopback ports, and the members' addresses, read
/// from its first line once it listens.
pub fn start_sim_ensemble(
    tick_ms: u64,
    servers: u32,
) -> Result<(ServerProcess, Vec<SocketAddr>), String> {
    let scratch = scratch_dir(&format!("zk-ensemble-sim-{}", free_port()));
    let log_path = scratch.join("server.log");
    let log = File::create(&log_path).map_err(|e| format!("log: {e}"))?;
    let log2 = log.try_clone().map_err(|e| format!("log: {e}"))?;
    let child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["serve", "zk", "--port", "0", "--bind", "127.0.0.1"])
        .args(["--tick-ms", &tick_ms.to_string()])
        .args(["--servers", &servers.to_string()])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| format!("cannot run locksim serve zk: {e}"))?;
    let start = Instant::now();
    while start.elapsed() < START_LIMIT {
        let text = fs::read_to_string(&log_path).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("listening on")) {
            let members: Vec<SocketAddr> = line
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            let server = ServerProcess {
                name: "locksim",
                addr: members[0],
                child,
                scratch,
            };
            return Ok((server, members));
        }
        sleep(Duration::from_millis(50));
    }
    Err(format!("no listening line within {START_LIMIT:?}"))
}

fn wait_ready(
    mut server: ServerProcess,
    ready: impl Fn(TcpStream) -> bool,
) -> Result<ServerProcess, String> {
    let start = Instant::now();
    while start.elapsed() < START_LIMIT {
        if let Ok(Some(status)) = server.child.try_wait() {
            let log = fs::read_to_string(server.scratch.join("server.log")).unwrap_or_default();
            return Err(format!("{} exited with {status}:\n{log}", server.name));
        }
        if let Ok(stream) = TcpStream::connect_timeout(&server.addr, Duration::from_secs(1))
            && ready(stream)
        {
            return Ok(server);
        }
        sleep(Duration::from_millis(100));
    }
    Err(format!(
        "{} did not accept connections within {START_LIMIT:?}",
        server.name
    ))
}

/// The four-letter word `srvr` is answered (with `Mode: standalone`) once the server serves.
fn answers_srvr(mut stream: TcpStream) -> bool {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream.write_all(b"srvr").is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.contains("Mode:")
}
