//! Where the commands' text goes. `println!` panics when stdout is a closed pipe
//! (`locksim replay T --history | head -1`) or a full disk (`locksim list > /dev/full`);
//! these never do.
//!
//! - A closed pipe silences the rest of stdout and the command goes on to its end, so its
//!   exit status (and any trace it writes) is what it would have been: the reader simply
//!   stopped reading.
//! - Any other write error on stdout is one line on stderr and exit status 2: the output
//!   the user asked for cannot be had.
//! - stderr is best effort: when it cannot be written either, there is no one left to tell.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout (see the module doc for what happens on errors).
pub fn stdout(args: fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) else {
        return;
    };
    if e.kind() == io::ErrorKind::BrokenPipe {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        return;
    }
    stderr(format_args!(
        "locksim: error: cannot write to stdout: {e}\n"
    ));
    std::process::exit(super::Status::BadInput as i32);
}

/// Writes to stderr, ignoring errors.
pub fn stderr(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// `text` with control characters escaped (`\n`, `\t`, `\u{1b}`), so it prints as one line.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            one_line("unknown scenario 'zk\nlock\t\u{1b}[31m' — ü"),
            "unknown scenario 'zk\\nlock\\t\\u{1b}[31m' — ü"
        );
    }
}
