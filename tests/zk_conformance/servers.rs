//! The servers under comparison, child processes on free loopback ports: a real ZooKeeper 3.8
//! (standalone, or an ensemble of one JVM per member; throwaway data dirs) and `locksim serve
//! zk` (one server, or `--servers N`). All are killed when dropped, also when the test panics.

use super::server_process::{ServerProcess, free_port, scratch_dir};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Where the Debian package `zookeeper` puts its configuration and jar, and the slf4j binding
/// (a dependency of that package) that makes its warnings and errors reach `server.log`:
/// without one, a member that fails says nothing.
const ZK_CLASSPATH: &str =
    "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar";
/// A JVM on a busy 2-core machine can take a while to start.
const START_LIMIT: Duration = Duration::from_secs(60);

/// Starts a standalone ZooKeeper with the given tick; ready once it answers `srvr`.
pub fn start_real(tick_ms: u64) -> Result<ServerProcess, String> {
    check_jar()?;
    let port = free_port();
    let scratch = scratch_dir(&format!("zk-conformance-real-{port}"));
    let data = scratch.join("data");
    fs::create_dir_all(&data).map_err(|e| format!("data dir: {e}"))?;
    let child = java(
        &scratch,
        &[],
        &[
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            &port.to_string(),
            &data.to_string_lossy(),
            &tick_ms.to_string(),
        ],
    )?;
    let server = ServerProcess {
        name: "zookeeper",
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        child,
        scratch,
    };
    wait_ready(server, answers_srvr)
}

/// Runs ZooKeeper's `args` (a main class and its arguments) on a JVM with the options
/// `jvm`, logging its warnings and errors into `scratch/server.log`.
fn java(
    scratch: &std::path::Path,
    jvm: &[&str],
    args: &[&str],
) -> Result<std::process::Child, String> {
    let log = File::create(scratch.join("server.log")).map_err(|e| format!("log: {e}"))?;
    let log2 = log.try_clone().map_err(|e| format!("log: {e}"))?;
    Command::new("java")
        .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .args(jvm)
        .args(["-cp", ZK_CLASSPATH])
        .args(args)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| format!("cannot run java (is the Debian package zookeeper installed?): {e}"))
}

fn check_jar() -> Result<(), String> {
    let jar = "/usr/share/java/zookeeper.jar";
    if !std::path::Path::new(jar).exists() {
        return Err(format!(
            "{jar} not found: install the Debian package zookeeper (apt-get install zookeeper; ./test.sh does)"
        ));
    }
    Ok(())
}

/// Starts an ensemble of `n` real ZooKeepers (`QuorumPeerMain`, one JVM each, all at once)
/// with the given tick; ready once every member answers `srvr` as leader or follower. The
/// members come back as `serve zk --servers N` lists its own: followers in id order, the
/// leader last.
pub fn start_real_ensemble(tick_ms: u64, n: u32) -> Result<Vec<ServerProcess>, String> {
    check_jar()?;
    // Client, quorum and election port of each member, all distinct.
    let mut ports: Vec<u16> = Vec::new();
    while ports.len() < 3 * n as usize {
        let port = free_port();
        if !ports.contains(&port) {
            ports.push(port);
        }
    }
    let servers: String = (1..=n)
        .zip(ports.chunks(3))
        .map(|(id, p)| format!("server.{id}=127.0.0.1:{}:{}\n", p[1], p[2]))
        .collect();
    let mut members = Vec::new();
    for (id, p) in (1..=n).zip(ports.chunks(3)) {
        let port = p[0];
        let scratch = scratch_dir(&format!("zk-ensemble-real-{port}"));
        let data = scratch.join("data");
        fs::create_dir_all(&data).map_err(|e| format!("data dir: {e}"))?;
        fs::write(data.join("myid"), format!("{id}\n")).map_err(|e| format!("myid: {e}"))?;
        // forceSync=no: no fsync per transaction; syncLimit of 20 ticks: a follower the
        // loaded machine stalls for half a second stays in (no case times the leader's
        // loss of a follower). Neither changes what a client sees.
        let cfg = format!(
            "tickTime={tick_ms}\ninitLimit=20\nsyncLimit=20\ndataDir={}\nclientPort={port}\n\
             clientPortAddress=127.0.0.1\n4lw.commands.whitelist=*\nadmin.enableServer=false\n\
             forceSync=no\n{servers}",
            data.display()
        );
        let cfg_path = scratch.join("zoo.cfg");
        fs::write(&cfg_path, cfg).map_err(|e| format!("zoo.cfg: {e}"))?;
        // A small heap and the quick JIT: three JVMs share two cores with the rest.
        let jvm = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"];
        let quorum_peer = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
        let child = java(&scratch, &jvm, &[quorum_peer, &cfg_path.to_string_lossy()])?;
        members.push(ServerProcess {
            name: "zookeeper",
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            child,
            scratch,
        });
    }
    let mut modes: Vec<Option<bool>> = vec![None; members.len()];
    let start = Instant::now();
    while modes.contains(&None) {
        if start.elapsed() > START_LIMIT {
            return Err(format!(
                "the ensemble did not elect a leader within {START_LIMIT:?} (leader per member: \
                 {modes:?})"
            ));
        }
        for (member, mode) in members.iter_mut().zip(&mut modes) {
            if let Ok(Some(status)) = member.child.try_wait() {
                let log = fs::read_to_string(member.scratch.join("server.log")).unwrap_or_default();
                return Err(format!(
                    "zookeeper at {} exited with {status}:\n{log}",
                    member.addr
                ));
            }
            if mode.is_none() {
                *mode = match srvr(&member.addr).as_deref().and_then(mode_line) {
                    Some("leader") => Some(true),
                    Some("follower") => Some(false),
                    _ => None,
                };
            }
        }
        sleep(Duration::from_millis(100));
    }
    if modes.iter().filter(|&&m| m == Some(true)).count() != 1 {
        return Err(format!("not one leader: {modes:?}"));
    }
    // A stable sort on "leads": followers keep their id order.
    let mut ordered: Vec<(bool, ServerProcess)> =
        modes.into_iter().flatten().zip(members).collect();
    ordered.sort_by_key(|(leads, _)| *leads);
    Ok(ordered.into_iter().map(|(_, member)| member).collect())
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
fn answers_srvr(stream: TcpStream) -> bool {
    srvr_on(stream).is_some_and(|answer| answer.contains("Mode:"))
}

/// The answer to `srvr` at `addr`, if it gives one.
fn srvr(addr: &SocketAddr) -> Option<String> {
    srvr_on(TcpStream::connect_timeout(addr, Duration::from_secs(1)).ok()?)
}

fn srvr_on(mut stream: TcpStream) -> Option<String> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    stream.write_all(b"srvr").ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    Some(answer)
}

/// `leader`, `follower`, `standalone`: the `Mode:` line of a `srvr` answer.
fn mode_line(answer: &str) -> Option<&str> {
    answer.lines().find_map(|l| l.strip_prefix("Mode: "))
}
