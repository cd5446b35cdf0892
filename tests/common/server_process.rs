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
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.scratch);
    }
}

/// A port nobody listens on now (bound, read, released).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
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
