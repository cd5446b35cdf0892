//! `serve-explorer MODEL` serves stateright's Explorer on 127.0.0.1: its status endpoint
//! answers with the model's state counts. Bad input exits 2 before anything is served, and
//! the old name `explore` (which means something else in `locksim`) is refused.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// Kills the served Explorer however the test ends.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port nothing listens on right now: the kernel's pick for port 0.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

/// One HTTP/1.0 GET of `path`, or `None` if nothing answers yet.
fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

#[test]
fn serve_explorer_serves_the_status_of_the_model() {
    let port = free_port();
    let mut served = Served(
        Command::new(env!("CARGO_BIN_EXE_locksim-models"))
            .args(["serve-explorer", "redis-lock", "--port", &port.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the binary runs"),
    );
    let mut line = String::new();
    BufReader::new(served.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(
        line.trim_end(),
        format!(
            "serving the Explorer for redis-lock on http://127.0.0.1:{port}/ (Ctrl-C stops it)"
        )
    );
    // A real socket that the server binds just after that line: up to 5 s of short retries.
    let response = (0..100)
        .find_map(|_| {
            get(port, "/.status").or_else(|| {
                sleep(Duration::from_millis(50));
                None
            })
        })
        .expect("the status endpoint answers within 5 s");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("a complete response");
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    let status: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    assert!(status["state_count"].as_u64().is_some(), "{body}");
    assert!(
        status["model"].as_str().unwrap().contains("RedisLock"),
        "{body}"
    );
    let properties = status["properties"].to_string();
    assert!(properties.contains("release-only-own"), "{body}");
}

#[test]
fn serve_explorer_refuses_bad_input_and_the_old_name_with_exit_2() {
    for args in [
        &["serve-explorer", "no-such-model"][..],
        &["serve-explorer", "redis-lock", "--set", "clients=99"],
        &["serve-explorer", "redis-lock", "--port", "not-a-port"],
        &["serve-explorer", "redis-lock", "--json"],
        &["explore", "redis-lock", "--port", "3000"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_locksim-models"))
            .args(args)
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        if args[0] == "explore" {
            assert!(err.contains("renamed serve-explorer"), "{err}");
        }
    }
}
