//! Progress of a long exploration on stderr: seeds done of the total, seeds per second,
//! violations so far (with `--every-property`, each property's lowest seed so far) and the
//! time left, on one line redrawn in place. Drawn only when stderr
//! is a terminal, and never with `--json` or `--quiet`; it reads what the exploration tells
//! its [`Observer`] and changes nothing about what runs or what stdout shows.

use super::Output;
use crate::check::Property;
use crate::explore::Observer;
use indicatif::{
    HumanDuration, ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle,
};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The line while seeds run: counts first, then what runs now, cut at the terminal's width.
const RUNNING: &str = "{pos}/{len} seeds [{bar:12}] {rate}, {violations}, {left} {wide_msg}";

/// The line while seeds run towards a total that is only a bound (the default run, whose
/// flawed variants stop at their first finding): no time left, which the bound would
/// overstate many times over.
const RUNNING_UP_TO: &str = "{pos} of up to {len} seeds, {rate}, {violations} {wide_msg}";

/// The line while a finding's plan is shrunk: the seeds are done, the message says what runs.
const SHRINKING: &str = "{pos}/{len} seeds, {violations}, {wide_msg}";

/// The progress line of one command: an [`Observer`] of each exploration it runs.
pub(super) struct Progress {
    bar: ProgressBar,
    /// The line while seeds run: `RUNNING`, or `RUNNING_UP_TO` for a bound.
    running: &'static str,
    /// Failing seeds so far, read whenever the line is drawn.
    violations: Arc<AtomicU64>,
    /// With `--every-property`, each violated property's lowest seed so far, shown after
    /// the count; None otherwise.
    firsts: Arc<Mutex<Option<BTreeMap<Property, u64>>>>,
    /// What runs now (the default exploration's scenario), shown after the counts.
    label: Mutex<String>,
}

impl Progress {
    /// A line for `total` seeds, hidden unless `out` is for people (no `--json`, no
    /// `--quiet`) and stderr is a terminal. Drawn at once, so the total shows from the start.
    pub(super) fn new(out: &Output, total: u64) -> Progress {
        Progress::drawn(out, total, RUNNING)
    }

    /// A line for at most `total` seeds, which shows no time left (see `RUNNING_UP_TO`).
    pub(super) fn up_to(out: &Output, total: u64) -> Progress {
        Progress::drawn(out, total, RUNNING_UP_TO)
    }

    fn drawn(out: &Output, total: u64, running: &'static str) -> Progress {
        let shown = !out.json && !out.quiet && std::io::stderr().is_terminal();
        let target = if shown {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let violations = Arc::new(AtomicU64::new(0));
        let firsts = Arc::new(Mutex::new(None));
        let style = style(running, &violations, &firsts);
        let bar = ProgressBar::with_draw_target(Some(total), target)
            .with_style(style)
            .with_finish(ProgressFinish::AndClear);
        bar.tick();
        Progress {
            bar,
            running,
            violations,
            firsts,
            label: Mutex::new(String::new()),
        }
    }

    /// Shows, after the count of violations, each violated property's lowest seed so far
    /// (`--every-property`).
    pub(super) fn by_property(&self) {
        *self.firsts.lock().expect("no thread panics holding it") = Some(BTreeMap::new());
    }

    /// Names what runs now (the default exploration's scenario), whose seeds start.
    pub(super) fn set_label(&self, label: String) {
        self.bar
            .set_style(style(self.running, &self.violations, &self.firsts));
        self.bar.set_message(label.clone());
        *self.label.lock().expect("no thread panics holding it") = label;
    }

    /// Seeds done so far.
    pub(super) fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Takes `seeds` that will not run (a flawed variant found early) off the total.
    pub(super) fn skip(&self, seeds: u64) {
        self.bar.dec_length(seeds);
    }

    /// Runs `f` with the line taken off the terminal, so what `f` prints is not drawn over.
    pub(super) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Removes the line, before the results print (dropped unfinished, on an error, it is
    /// removed too).
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn seed_done(&self, _seed: u64, failed: bool) {
        if failed {
            self.violations.fetch_add(1, Ordering::SeqCst);
        }
        self.bar.inc(1);
    }

    fn violated(&self, seed: u64, properties: &[Property]) {
        let mut firsts = self.firsts.lock().expect("no thread panics holding it");
        for p in properties {
            if let Some(firsts) = firsts.as_mut() {
                let first = firsts.entry(*p).or_insert(seed);
                *first = seed.min(*first);
            }
        }
    }

    fn generation(&self, _runs: u64, corpus: usize, transitions: usize) {
        let label = self.label.lock().expect("no thread panics holding it");
        self.bar.set_message(format!(
            "corpus {corpus}, {transitions} transitions {label}"
        ));
    }

    fn shrinking(&self, seed: u64, faults: usize) {
        let label = self.label.lock().expect("no thread panics holding it");
        self.bar
            .set_style(style(SHRINKING, &self.violations, &self.firsts));
        self.bar.set_message(format!(
            "shrinking seed {seed}'s plan of {} {label}",
            super::faults(faults)
        ));
    }
}

/// `template` with its own keys: `rate` (seeds/s), `violations` (the count, read whenever
/// the line is drawn, then any `firsts`: "herd from seed 46, leader from 583") and `left`
/// (the time left, once a seed has given a rate).
fn style(
    template: &str,
    violations: &Arc<AtomicU64>,
    firsts: &Arc<Mutex<Option<BTreeMap<Property, u64>>>>,
) -> ProgressStyle {
    let counted = Arc::clone(violations);
    let firsts = Arc::clone(firsts);
    ProgressStyle::with_template(template)
        .expect("the template is valid")
        .with_key("rate", |s: &ProgressState, w: &mut dyn Write| {
            let _ = write!(w, "{:.0} seeds/s", s.per_sec());
        })
        .with_key("violations", move |_: &ProgressState, w: &mut dyn Write| {
            let n = counted.load(Ordering::SeqCst);
            let _ = write!(w, "{n} violation{}", if n == 1 { "" } else { "s" });
            let firsts = firsts.lock().expect("no thread panics holding it");
            let shown: Vec<String> = firsts
                .iter()
                .flatten()
                .map(|(p, seed)| format!("{p} from seed {seed}"))
                .collect();
            if !shown.is_empty() {
                let _ = write!(w, " ({})", shown.join(", "));
            }
        })
        .with_key("left", |s: &ProgressState, w: &mut dyn Write| {
            let _ = match s.pos() {
                0 => write!(w, "time left unknown"),
                _ => write!(w, "{:#} left", HumanDuration(s.eta())),
            };
        })
        .progress_chars("=> ")
}
