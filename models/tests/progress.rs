//! The progress line of `check` on stderr: drawn in place when stderr is a terminal, and
//! nothing at all when stderr is a pipe, with `--json` or with `--quiet`/`-q`. A terminal
//! comes from util-linux's `script`, which runs the command on a pseudo-terminal and copies
//! what it shows to stdout. The line is drawn once more with the final counts, so even a check
//! of a few milliseconds shows them.

use std::process::Command;

const CHECK: [&str; 4] = ["check", "zk-lock", "--set", "clients=3"];

/// What a terminal showed while `locksim-models ARGS` ran (stdout and stderr both, newlines
/// as the terminal sends them, `\r\n`), and its status; None when `script` is missing.
fn in_a_terminal(args: &[&str]) -> Option<(i32, String)> {
    let command = [env!("CARGO_BIN_EXE_locksim-models")]
        .iter()
        .chain(args)
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = match Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: `script` (util-linux) is not installed, so no terminal to test in");
            return None;
        }
        Err(e) => panic!("cannot run script: {e}"),
    };
    let status = out.status.code().expect("script exited by a signal");
    Some((status, String::from_utf8(out.stdout).expect("utf-8 output")))
}

/// `locksim-models ARGS` with stdout and stderr piped: status, stdout, stderr.
fn piped(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_locksim-models"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Whether `shown` holds a line redrawn in place: a carriage return that does not end a
/// line, or an escape sequence.
fn redrawn(shown: &str) -> bool {
    shown.replace("\r\n", "\n").contains('\r') || shown.contains('\u{1b}')
}

#[test]
fn a_terminal_shows_the_counts_redrawn_in_place_then_the_report() {
    let Some((status, shown)) = in_a_terminal(&CHECK) else {
        return;
    };
    assert_eq!(status, 1, "mutex breaks: {shown}");
    assert!(shown.contains("zk-lock: starting"), "{shown:?}");
    assert!(
        shown.contains("zk-lock: 53,068 states, 18,483 unique, "),
        "no final counts in {shown:?}"
    );
    assert!(shown.contains(" states/s, "), "no rate in {shown:?}");
    assert!(
        shown.contains(" s, depth 19"),
        "no time or depth in {shown:?}"
    );
    assert!(redrawn(&shown), "not redrawn in place: {shown:?}");
    let (code, out, _) = piped(&CHECK);
    assert_eq!(code, Some(1));
    // Every line of the report but the figures, whose time varies.
    for line in out.lines().filter(|l| !l.starts_with("states ")) {
        assert!(shown.contains(line), "{line:?} is missing from {shown:?}");
    }
    assert!(
        shown.contains("\nstates 53068  unique states 18483"),
        "{shown:?}"
    );
}

#[test]
fn a_piped_stderr_shows_no_progress() {
    let (code, out, err) = piped(&CHECK);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, "", "stderr is not a terminal");
    assert!(!redrawn(&out), "{out:?}");
    assert!(out.contains("unique states 18483"), "{out}");
}

#[test]
fn json_and_quiet_show_no_progress_even_in_a_terminal() {
    for flag in ["--json", "--quiet", "-q"] {
        let args = [&CHECK[..], &[flag]].concat();
        let Some((status, shown)) = in_a_terminal(&args) else {
            return;
        };
        assert_eq!(status, 1, "{flag}: {shown}");
        assert!(
            !shown.contains("zk-lock: "),
            "{flag}: progress in {shown:?}"
        );
        assert!(!redrawn(&shown), "{flag}: escapes in {shown:?}");
        if flag == "--json" {
            let value: serde_json::Value =
                serde_json::from_str(shown.trim_end()).expect("one JSON object");
            assert_eq!(value["unique_states"], 18483, "{value}");
        }
    }
}
