//! Output that cannot be written: a closed pipe ends the command quietly with its own status,
//! a full disk is one line on stderr and status 2, and neither is ever a panic.

use super::support::*;
use std::process::{Command, Stdio};

/// Runs locksim in `scratch` with stdout a pipe whose reading end is closed before locksim
/// writes anything, as `| head -0` would; returns its status and stderr.
fn with_closed_stdout(scratch: &Scratch, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(&scratch.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start locksim");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for locksim");
    let status = out.status.code().expect("locksim exited by a signal");
    (status, String::from_utf8(out.stderr).expect("utf-8 stderr"))
}

fn with_stdout_and_stderr(scratch: &Scratch, args: &[&str], stdout: Stdio, stderr: Stdio) -> i32 {
    Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(&scratch.0)
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .expect("run locksim")
        .code()
        .expect("locksim exited by a signal")
}

fn dev_full() -> Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full")
        .into()
}

#[test]
fn a_closed_pipe_ends_the_command_quietly_with_its_own_status() {
    let s = Scratch::new("closed_pipe");
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/zk-lock-8.json");
    for (args, status) in [
        (&["replay", trace, "--history"][..], 0),
        (&["list"], 0),
        (&["explore", "zk-lock-herd", "--seeds", "0..3"], 1),
        (
            &["run", "zk-lock", "--seed", "1", "--set", "faults=none"],
            0,
        ),
        (
            &[
                "--json",
                "run",
                "zk-lock",
                "--seed",
                "1",
                "--set",
                "faults=none",
            ],
            0,
        ),
    ] {
        let (got, stderr) = with_closed_stdout(&s, args);
        assert_eq!((got, stderr.as_str()), (status, ""), "locksim {args:?}");
    }
}

#[test]
fn a_full_disk_is_one_line_and_status_2() {
    let s = Scratch::new("full_disk");
    let err = s.0.join("stderr.txt");
    let stderr = std::fs::File::create(&err).expect("stderr file");
    let status = with_stdout_and_stderr(&s, &["list"], dev_full(), stderr.into());
    let text = std::fs::read_to_string(&err).expect("stderr written");
    assert_eq!(status, 2, "{text}");
    assert_eq!(
        text,
        "locksim: error: cannot write to stdout: No space left on device (os error 28)\n"
    );
}

#[test]
fn an_unwritable_stderr_keeps_the_status() {
    let s = Scratch::new("full_stderr");
    let bad = with_stdout_and_stderr(&s, &["bogus"], Stdio::null(), dev_full());
    assert_eq!(bad, 2);
    let args = ["run", "zk-nope"];
    assert_eq!(
        with_stdout_and_stderr(&s, &args, Stdio::null(), dev_full()),
        2
    );
}
