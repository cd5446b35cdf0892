//! The two servers under comparison, each a child process on loopback: a real Redis 7.0 (the
//! Debian package `redis-server`, on a free port, no persistence, its 16 databases, a throwaway
//! dir) and `locksim serve redis --port 0`. Both are killed when dropped, also when the test
//! panics.

use super::server_process::{ServerProcess, free_port, scratch_dir};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const REDIS_SERVER: &str = "/usr/bin/redis-server";
/// Both start in milliseconds; this is for a loaded machine.
const START_LIMIT: Duration = Duration::from_secs(20);

impl ServerProcess {
    fn log(&self) -> String {
        fs::read_to_string(self.scratch.join("server.log")).unwrap_or_default()
    }
}

/// Starts redis-server on a free loopback port; ready once it answers PING.
pub fn start_real() -> Result<ServerProcess, String> {
    if !Path::new(REDIS_SERVER).exists() {
        return Err(format!(
            "{REDIS_SERVER} not found: apt-get install redis-server"
        ));
    }
    let port = free_port();
    let scratch = scratch_dir("redis-conformance-real");
    let child = Command::new(REDIS_SERVER)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(&scratch)
        .arg("--logfile")
        .arg(scratch.join("server.log"))
        .args(["--daemonize", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {REDIS_SERVER} ({e}): apt-get install redis-server"))?;
    let server = ServerProcess {
        name: "redis-server",
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        child,
        scratch,
    };
    wait_ready(server)
}

/// Starts `locksim serve redis --port 0` and learns its address from the first line it
/// prints; ready once it answers PING.
pub fn start_sim() -> Result<ServerProcess, String> {
    let scratch = scratch_dir("redis-conformance-sim");
    let log = File::create(scratch.join("server.log")).map_err(|e| format!("log: {e}"))?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["serve", "redis", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run locksim serve redis: {e}"))?;
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout");
    let _ = BufReader::new(stdout).read_line(&mut line);
    let addr = line.split_whitespace().find_map(|w| w.parse().ok());
    let server = ServerProcess {
        name: "locksim",
        addr: addr.unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0))),
        child,
        scratch,
    };
    if addr.is_none() {
        return Err(format!(
            "no address in its first line {line:?}:\n{}",
            server.log()
        ));
    }
    wait_ready(server)
}

fn wait_ready(mut server: ServerProcess) -> Result<ServerProcess, String> {
    let start = Instant::now();
    while start.elapsed() < START_LIMIT {
        if let Ok(Some(status)) = server.child.try_wait() {
            return Err(format!(
                "{} exited with {status}:\n{}",
                server.name,
                server.log()
            ));
        }
        if let Ok(stream) = TcpStream::connect_timeout(&server.addr, Duration::from_secs(1))
            && answers_ping(stream)
        {
            return Ok(server);
        }
        sleep(Duration::from_millis(20));
    }
    Err(format!(
        "{} did not answer PING within {START_LIMIT:?}:\n{}",
        server.name,
        server.log()
    ))
}

fn answers_ping(mut stream: TcpStream) -> bool {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut answer = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut answer).is_ok()
        && &answer == b"+PONG\r\n"
}
