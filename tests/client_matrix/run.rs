//! Running one client's program to its end, or to the matrix's time limit: a child process
//! (Python, Node) or a thread of this test (redis-rs). Either way the lines it printed so far
//! are kept, so a program killed for taking too long still shows where it stopped.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// How long one program may run against one server: each does a few seconds' work at most,
/// and bounds each of its own waits well inside this.
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// What one program printed, and how it ended.
pub struct Run {
    /// Its transcript: the lines it printed, in order.
    pub lines: Vec<String>,
    /// How it ended.
    pub end: End,
}

/// How a program ended.
#[derive(Debug, PartialEq)]
pub enum End {
    /// It ended by itself, successfully.
    Finished,
    /// It ended by itself and failed: exit status or panic, with what it wrote to stderr.
    Failed(String),
    /// It ran past its time limit and was killed (or, a thread, abandoned).
    TimedOut(Duration),
}

/// Runs `command` with stdout and stderr captured, killing it and every process it started at
/// `limit` (`TIME_LIMIT` in the matrix): one left alive would hold its output open. Fails only
/// when it cannot be started at all.
pub fn program(mut command: Command, limit: Duration) -> Result<Run, std::io::Error> {
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().expect("stdout piped");
    let mut stderr = child.stderr.take().expect("stderr piped");
    let (lines, received) = mpsc::channel();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let errors = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > limit {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let _ = reader.join();
    let stderr = errors.join().unwrap_or_default();
    let end = match status {
        None => End::TimedOut(limit),
        Some(status) if status.success() => End::Finished,
        Some(status) => End::Failed(format!("{status}; stderr:\n{stderr}")),
    };
    Ok(Run {
        lines: received.try_iter().collect(),
        end,
    })
}

/// Runs `body` on a thread of its own, which prints through the `Sender` it is given; waits
/// for it at most `limit` (a thread cannot be killed: one stuck past it is left behind, and
/// the test fails).
pub fn in_thread(limit: Duration, body: impl FnOnce(Sender<String>) + Send + 'static) -> Run {
    let (lines, received) = mpsc::channel();
    let worker = thread::spawn(move || body(lines));
    let deadline = Instant::now() + limit;
    let mut printed = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) => printed.push(line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                return Run {
                    lines: printed,
                    end: End::TimedOut(limit),
                };
            }
        }
    }
    let end = match worker.join() {
        Ok(()) => End::Finished,
        Err(panic) => End::Failed(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panicked".to_string()),
        ),
    };
    Run {
        lines: printed,
        end,
    }
}

#[test]
fn a_program_past_its_limit_is_killed_and_keeps_what_it_printed() {
    let mut command = Command::new("sh");
    command.args(["-c", "echo first; sleep 30; echo never"]);
    let limit = Duration::from_millis(300);
    let run = program(command, limit).expect("sh starts");
    assert_eq!(run.lines, ["first"]);
    assert_eq!(run.end, End::TimedOut(limit));
}

#[test]
fn a_failing_program_reports_its_status_and_stderr() {
    let mut command = Command::new("sh");
    command.args(["-c", "echo out; echo oops >&2; exit 3"]);
    let run = program(command, TIME_LIMIT).expect("sh starts");
    assert_eq!(run.lines, ["out"]);
    match run.end {
        End::Failed(why) => assert!(
            why.contains("exit status: 3") && why.contains("oops"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_thread_past_its_limit_is_left_with_what_it_printed() {
    let limit = Duration::from_millis(200);
    let run = in_thread(limit, |out| {
        out.send("first".to_string()).expect("the harness listens");
        thread::sleep(Duration::from_secs(2));
    });
    assert_eq!(run.lines, ["first"]);
    assert_eq!(run.end, End::TimedOut(limit));
    let finished = in_thread(limit, |out| out.send("only".to_string()).expect("listened"));
    assert_eq!(
        (finished.lines, finished.end),
        (vec!["only".to_string()], End::Finished)
    );
}
