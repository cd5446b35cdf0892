//! A server under comparison as a child process on loopback, with a throwaway directory;
//! killed and cleaned up when dropped, also when the test panics. Shared by the conformance
//! modules and the client matrix.

use std::fs;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct ServerProcess {
    pub name: &'static str,
    pub addr: SocketAddr,
    pub child: Child,
    /// Removed when the server is dropped.
    pub scratch: PathBuf,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // A server that died under the test says why before its log goes.
        if let Ok(Some(status)) = self.child.try_wait() {
            let log = fs::read_to_string(self.scratch.join("server.log")).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(LOG_TAIL)..].join("\n");
            eprintln!(
                "{} at {} had exited ({status}); its log ends:\n{tail}",
                self.name, self.addr
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.scratch);
    }
}

/// Lines of a dead server's log shown when it is dropped.
const LOG_TAIL: usize = 20;

/// The lowest port handed out below the kernel's ephemeral range.
const FIRST_PORT: u32 = 10_000;

/// A loopback port nobody listens on now, for a server started next to bind. It is taken
/// below the kernel's ephemeral range (`ip_local_port_range`), where no `bind(0)` and no
/// outgoing connection of the suite's other tests can take it in the seconds a JVM needs to
/// bind it: a ZooKeeper member whose election port was taken so serves on, then exits (code
/// 14) once the ensemble has formed. Each process starts at its own offset and counts up.
pub fn free_port() -> u16 {
    static HANDED_OUT: AtomicU32 = AtomicU32::new(0);
    let below = ephemeral_low();
    if below < FIRST_PORT + 1_000 {
        // No room below an unusual range: any port the kernel finds free.
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        return listener.local_addr().expect("local address").port();
    }
    let span = below - FIRST_PORT;
    let offset = std::process::id().wrapping_mul(7_919) % span;
    loop {
        let n = HANDED_OUT.fetch_add(1, Ordering::Relaxed);
        assert!(n < span, "no free loopback port below {below}");
        let port = (FIRST_PORT + (offset + n) % span) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The first port of the kernel's ephemeral range (Linux's default where it cannot be read).
fn ephemeral_low() -> u32 {
    fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// An empty directory of this server's own, named after `what`, this test process and a
/// count (the suite's modules start servers of the same kind at the same time).
pub fn scratch_dir(what: &str) -> PathBuf {
    static STARTED: AtomicU32 = AtomicU32::new(0);
    let n = STARTED.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("locksim-{what}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}
