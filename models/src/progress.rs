//! Progress of a running check on stderr: states explored, unique states, depth, states per
//! second and the time elapsed, on one line redrawn in place. Drawn only when it is asked for
//! (no `--json`, no `--quiet`) and stderr is a terminal: drawn as the search starts, about ten
//! times a second while it runs and once more with the final counts (so even a check of a few
//! milliseconds shows them), then removed before the report prints. It reads the checker's counters and changes nothing about the search.

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use stateright::{Checker, Model};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often the line is redrawn with fresh counts.
const REDRAW: Duration = Duration::from_millis(100);

/// How often the search is asked whether it is done (so the time a check reports ends when
/// the search does, not at a redraw).
const POLL: Duration = Duration::from_millis(2);

/// Waits for `checker` to finish, drawing the progress line of model `name` on stderr if
/// `asked` and stderr is a terminal.
pub fn watch<M: Model, C: Checker<M>>(name: &str, checker: C, asked: bool) -> C {
    if !asked || !std::io::stderr().is_terminal() {
        return checker.join();
    }
    let started = Instant::now();
    let line = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        .with_style(ProgressStyle::with_template("{wide_msg}").expect("the template is valid"));
    line.set_message(format!("{name}: starting"));
    let mut next_draw = started + REDRAW;
    while !checker.is_done() {
        std::thread::sleep(POLL);
        if Instant::now() >= next_draw {
            line.set_message(counts(name, &checker, started.elapsed()));
            next_draw += REDRAW;
        }
    }
    let checker = checker.join();
    line.set_message(counts(name, &checker, started.elapsed()));
    line.force_draw();
    line.finish_and_clear();
    checker
}

/// The line: `checker`'s counts `elapsed` into the search of model `name`, least wanted
/// last (a narrow terminal cuts it at its width).
fn counts<M: Model, C: Checker<M>>(name: &str, checker: &C, elapsed: Duration) -> String {
    let states = checker.state_count() as u64;
    let per_second = states as f64 / elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
    format!(
        "{name}: {} states, {} unique, {} states/s, {:.1} s, depth {}",
        HumanCount(states),
        HumanCount(checker.unique_state_count() as u64),
        HumanCount(per_second as u64),
        elapsed.as_secs_f64(),
        checker.max_depth()
    )
}
