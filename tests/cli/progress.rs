//! The progress line on stderr: drawn in place when stderr is a terminal, and nothing at all
//! when stderr is a pipe, with `--json` or with `--quiet`. A terminal comes from util-linux's
//! `script`, which runs the command on a pseudo-terminal and copies what it shows to stdout.
//! The line is drawn once at the start, so even a run of a few seeds shows it.

use super::support::*;
use std::process::Command;

/// What a terminal showed while `locksim ARGS` ran in `scratch` (stdout and stderr both,
/// newlines as the terminal sends them, `\r\n`), and its status; None when `script` is
/// missing.
fn in_a_terminal(scratch: &Scratch, args: &[&str]) -> Option<(i32, String)> {
    let command = [env!("CARGO_BIN_EXE_locksim")]
        .iter()
        .chain(args)
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = match Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(&scratch.0)
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

/// Whether `shown` holds a line redrawn in place: a carriage return that does not end a
/// line, or an escape sequence.
fn redrawn(shown: &str) -> bool {
    shown.replace("\r\n", "\n").contains('\r') || shown.contains('\u{1b}')
}

#[test]
fn a_terminal_shows_seeds_done_of_the_total_redrawn_in_place() {
    let s = Scratch::new("progress_terminal");
    let Some((status, shown)) = in_a_terminal(&s, &["explore", "zk-lock", "--seeds", "0..20"])
    else {
        return;
    };
    assert_eq!(status, 0, "{shown}");
    assert!(shown.contains("/20 seeds"), "no total in {shown:?}");
    assert!(shown.contains("seeds/s"), "no rate in {shown:?}");
    assert!(shown.contains("0 violations"), "no violations in {shown:?}");
    assert!(shown.contains(" left"), "no time left in {shown:?}");
    assert!(redrawn(&shown), "not redrawn in place: {shown:?}");
    assert!(
        shown.contains("no violations in 20 seeds"),
        "the result is missing: {shown:?}"
    );
}

#[test]
fn a_finding_in_a_terminal_keeps_its_status_and_report() {
    let args = ["explore", "zk-lock-herd", "--seeds", "0..3"];
    let Some((status, shown)) = in_a_terminal(&Scratch::new("progress_finding"), &args) else {
        return;
    };
    assert_eq!(status, 1, "{shown}");
    assert!(shown.contains("/3 seeds"), "no progress in {shown:?}");
    let piped = Scratch::new("progress_finding_piped").run(&args);
    assert_eq!(piped.status, 1, "{}", piped.stderr);
    for line in piped.stdout.lines() {
        assert!(shown.contains(line), "{line:?} is missing from {shown:?}");
    }
}

#[test]
fn a_piped_stderr_shows_no_progress() {
    let s = Scratch::new("progress_piped");
    let ran = s.run(&["explore", "zk-lock", "--seeds", "0..20"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "", "stderr is not a terminal");
    assert!(!redrawn(&ran.stdout), "{:?}", ran.stdout);
}

#[test]
fn json_and_quiet_show_no_progress_even_in_a_terminal() {
    let s = Scratch::new("progress_json_quiet");
    for flag in ["--json", "--quiet", "-q"] {
        let args = [flag, "explore", "zk-lock", "--seeds", "0..20"];
        let Some((status, shown)) = in_a_terminal(&s, &args) else {
            return;
        };
        assert_eq!(status, 0, "{flag}: {shown}");
        assert!(!shown.contains(" seeds ["), "{flag}: progress in {shown:?}");
        assert!(!redrawn(&shown), "{flag}: escapes in {shown:?}");
        if flag == "--json" {
            let value: serde_json::Value =
                serde_json::from_str(shown.trim_end()).expect("one JSON object");
            assert_eq!(value["seeds_run"], 20, "{value}");
        }
    }
}
