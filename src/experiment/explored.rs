//! What an exploration found, the assertions a test makes of it, and the message a failed
//! assertion prints: the violations, the shrunk fault plan, the timeline, the trace and the
//! command that replays it.

use super::env;
use crate::check::Property;
use crate::explore::{Exploration, Finding, Outcome};
use crate::timeline;
use crate::trace::{self, Replay};
use crate::world::run::RunSpec;
use std::fmt;
use std::path::{Path, PathBuf};

/// The result of `Experiment::explore`: clean, or the lowest failing seed with its shrunk
/// fault plan and the trace written for it. Its `Display` is the report a failed assertion
/// prints.
#[derive(Debug)]
#[must_use = "an exploration asserts nothing until you say what it should have found, e.g. `.assert_clean()`"]
pub struct Explored {
    scenario: String,
    /// What was searched, for messages: "seeds 0..500", "256 proptest cases".
    searched: String,
    exploration: Exploration,
    trace: Option<PathBuf>,
    /// Set when `LOCKSIM_REPLAY` replayed a trace instead of exploring.
    replayed: Option<PathBuf>,
}

impl Explored {
    pub(super) fn new(
        scenario: String,
        searched: String,
        exploration: Exploration,
        trace: Option<PathBuf>,
    ) -> Explored {
        Explored {
            scenario,
            searched,
            exploration,
            trace,
            replayed: None,
        }
    }

    /// A replay of the trace at `path` as an exploration of its one seed; prints what it
    /// showed, and panics when the run's digest differs from the file's.
    pub(super) fn replayed(scenario: String, spec: RunSpec, replay: Replay, path: &Path) -> Self {
        let seed = spec.seed;
        let outcome = if replay.report.violations.is_empty() {
            Outcome::Clean
        } else {
            Outcome::Violation(Box::new(Finding {
                original_faults: spec.plan.0.len(),
                spec,
                report: replay.report.clone(),
            }))
        };
        let explored = Explored {
            scenario,
            searched: format!("seed {seed}"),
            exploration: Exploration {
                seeds_run: 1,
                outcome,
                witnessed: Vec::new(),
            },
            trace: Some(path.to_path_buf()),
            replayed: Some(path.to_path_buf()),
        };
        println!("{explored}");
        println!("digest: {}", replay.report.digest);
        assert_ne!(
            replay.digest_matches,
            Some(false),
            "{}: the replay's digest {} differs from the file's: a determinism bug",
            path.display(),
            replay.report.digest
        );
        explored
    }

    /// The lowest failing seed's run with its shrunk plan, if a seed failed.
    pub fn finding(&self) -> Option<&Finding> {
        match &self.exploration.outcome {
            Outcome::Violation(finding) => Some(finding),
            _ => None,
        }
    }

    /// The properties the finding broke, in their usual order; empty when clean.
    pub fn violated(&self) -> Vec<Property> {
        self.finding()
            .map(|f| trace::violated(&f.report))
            .unwrap_or_default()
    }

    /// The trace written for the finding (or replayed).
    pub fn trace(&self) -> Option<&Path> {
        self.trace.as_deref()
    }

    /// How many seeds ran to their end.
    pub fn seeds_run(&self) -> u64 {
        self.exploration.seeds_run
    }

    /// The exploration as the explorer returned it.
    pub fn exploration(&self) -> &Exploration {
        &self.exploration
    }

    /// Asserts that a seed broke `property`, and returns the finding.
    ///
    /// # Panics
    /// When no seed broke it (or the harness failed), with the report.
    #[track_caller]
    pub fn assert_violates(&self, property: Property) -> &Finding {
        match self.finding() {
            Some(finding) if self.violated().contains(&property) => finding,
            _ => panic!("expected a violation of {property}; got:\n{self}"),
        }
    }

    /// Asserts that every seed ran clean.
    ///
    /// # Panics
    /// On a finding (or a harness failure), with the report.
    #[track_caller]
    pub fn assert_clean(&self) {
        if !matches!(self.exploration.outcome, Outcome::Clean) {
            panic!("expected no violation; got:\n{self}");
        }
    }
}

impl fmt::Display for Explored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, searched) = (&self.scenario, &self.searched);
        let run = self.exploration.seeds_run;
        match &self.exploration.outcome {
            Outcome::Clean => write!(f, "{name}: no violations in {run} runs ({searched})"),
            Outcome::HarnessError { seed, error } => {
                write!(f, "{name}: HARNESS ERROR at seed {seed}: {error}")
            }
            Outcome::Nondeterminism { seed, detail } => {
                // Without the flag tokio's own randomness is not seeded; everything else the
                // simulation draws is the same in both builds, so traces replay in either.
                let unseeded = match cfg!(tokio_unstable) {
                    true => "",
                    false => {
                        ", or tokio's own randomness, unseeded in a build without `--cfg \
                         tokio_unstable`: a `tokio::select!` without `biased;` picks its branch \
                         at random (make it `biased;`), and so does the order in which a \
                         `tokio::sync::watch` channel wakes its receivers"
                    }
                };
                write!(
                    f,
                    "{name}: NON-DETERMINISM at seed {seed}: {detail}\n  two runs of one seed \
                     differ: something in the simulated code draws on the host (a HashMap's \
                     order, OS randomness, the wall clock, threads){unseeded}"
                )
            }
            Outcome::Violation(finding) => {
                match &self.replayed {
                    Some(path) => writeln!(f, "{name}: replayed {}", path.display())?,
                    None => writeln!(
                        f,
                        "{name}: violation at seed {} (after {run} runs of {searched})",
                        finding.spec.seed
                    )?,
                }
                for v in &finding.report.violations {
                    writeln!(f, "  VIOLATION {v}")?;
                }
                let faults = match finding.spec.plan.0.len() {
                    1 => "1 fault".to_string(),
                    n => format!("{n} faults"),
                };
                writeln!(
                    f,
                    "  fault plan ({faults}, shrunk from {}):",
                    finding.original_faults
                )?;
                for t in &finding.spec.plan.0 {
                    writeln!(f, "    at {:>5} ms: {}", t.at_ms, t.fault)?;
                }
                writeln!(f, "  timeline (true time):")?;
                let report = &finding.report;
                for line in timeline::timeline(&report.history, &report.violations, &report.plan) {
                    writeln!(f, "  {line}")?;
                }
                if let Some(trace) = &self.trace {
                    writeln!(f, "  trace: {}", trace.display())?;
                    if self.replayed.is_none() {
                        let page = trace.with_extension("html");
                        writeln!(f, "  picture: {}", page.display())?;
                    }
                    write!(f, "  replay: {}", env::replay_command(trace))?;
                }
                Ok(())
            }
        }
    }
}
