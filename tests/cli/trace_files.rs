//! Trace files as files: what `replay` refuses to read (malformed JSON, out-of-range faults,
//! devices, FIFOs, oversized files) and what saving a trace does when the name is taken by
//! something else (a directory, a foreign file, a dangling symlink, an edited trace).

use crate::support::*;
use serde_json::{Value, json};
use std::sync::mpsc;
use std::time::Duration;

fn replay_is_bad_input(s: &Scratch, name: &str, text: &str, needle: &str) {
    let path = s.write(&format!("{name}.json"), text);
    assert_bad_input(s, &["replay", path.to_str().unwrap()], needle);
}

#[test]
fn out_of_range_clock_faults_at_i64_min_are_refused() {
    let s = Scratch::new("trace_i64_min");
    let fault = |f: Value| noguid_with("faults", json!([f]));
    for (name, f, needle) in [
        (
            "drift",
            json!({"at_ms": 10, "fault": "clock_drift", "node": "zk1", "ppm": i64::MIN}),
            "ppm must be within",
        ),
        (
            "jump",
            json!({"at_ms": 10, "fault": "clock_jump", "node": "zk1", "by_ms": i64::MIN}),
            "by_ms must be within",
        ),
    ] {
        replay_is_bad_input(&s, name, &fault(f), needle);
    }
}

#[test]
fn replay_reads_only_regular_files_of_bounded_size() {
    let s = Scratch::new("trace_files_only");
    for device in ["/dev/zero", "/dev/urandom"] {
        assert_bad_input(&s, &["replay", device], "not a regular file");
    }
    std::fs::create_dir(s.0.join("dir.json")).unwrap();
    assert_bad_input(&s, &["replay", "dir.json"], "not a regular file");

    let mut big = noguid_trace(&["liveness"]).to_string();
    big.push_str(&" ".repeat(1 << 20));
    s.write("big.json", &big);
    assert_bad_input(&s, &["replay", "big.json"], "larger than 1 MiB");

    std::fs::write(s.0.join("latin1.json"), b"{\"note\": \"caf\xe9\"}").unwrap();
    assert_bad_input(&s, &["replay", "latin1.json"], "not UTF-8");

    // A symlink to a regular trace file is fine.
    s.write("good.json", &noguid_trace(&["liveness"]).to_string());
    std::os::unix::fs::symlink("good.json", s.0.join("link.json")).unwrap();
    assert_eq!(s.json(&["replay", "link.json"], 0)["reproduced"], true);
}

#[test]
fn replay_of_a_fifo_is_refused_without_blocking() {
    let s = Scratch::new("trace_fifo");
    let fifo = s.0.join("fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    // Should locksim open the FIFO, it blocks until a writer comes: play that writer (a
    // read-write open never blocks) every few seconds, so a regression fails, not hangs.
    let (done, finished) = mpsc::channel::<()>();
    let fifo = &fifo;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                finished.recv_timeout(Duration::from_secs(5))
            {
                let _ = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(fifo);
            }
        });
        assert_bad_input(&s, &["replay", "fifo.json"], "not a regular file");
        drop(done);
    });
}
