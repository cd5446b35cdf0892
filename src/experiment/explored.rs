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
/// fault plan and the trace written for it (with `Experiment::every_property`, also each
/// violated property's first seed, each with its own). Its `Display` is the report a failed
/// assertion prints.
#[derive(Debug)]
#[must_use = "an exploration asserts nothing until you say what it should have found, e.g. `.assert_clean()`"]
pub struct Explored {
    scenario: String,
    /// What was searched, for messages: "seeds 0..500", "256 proptest cases".
    searched: String,
    exploration: Exploration,
    trace: Option<PathBuf>,
    /// The trace of each of `exploration.by_property`, in its order.
    by_property: Vec<PathBuf>,
    /// Set when `LOCKSIM_REPLAY` replayed a trace instead of exploring.
    replayed: Option<PathBuf>,
}

impl Explored {
    pub(super) fn new(
        scenario: String,
        searched: String,
        exploration: Exploration,
        trace: Option<PathBuf>,
        by_property: Vec<PathBuf>,
    ) -> Explored {
        Explored {
            scenario,
            searched,
            exploration,
            trace,
            by_property,
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
                by_property: Vec::new(),
            },
            trace: Some(path.to_path_buf()),
            by_property: Vec::new(),
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

    /// The properties the finding broke, in their usual order; empty when clean. With
    /// `Experiment::every_property`, every property a seed of the range broke.
    pub fn violated(&self) -> Vec<Property> {
        let mut violated: Vec<Property> = self.findings().map(|(p, _)| p).collect();
        violated.sort();
        violated.dedup();
        violated
    }

    /// Each property a finding broke, with the finding: with `Experiment::every_property`,
    /// each violated property's first seed (by seed, its plan shrunk keeping that property
    /// broken); otherwise the one finding, once for each property it broke. Empty when clean
    /// or when the harness failed.
    ///
    /// ```no_run
    /// # use locksim::scenario;
    /// let explored = locksim::Experiment::new(scenario::find("zk-election-stale-node").unwrap().clone())
    ///     .every_property()
    ///     .explore(0..600);
    /// for (property, finding) in explored.findings() {
    ///     println!("{property} first at seed {}", finding.spec.seed());
    /// }
    /// ```
    pub fn findings(&self) -> impl Iterator<Item = (Property, &Finding)> {
        let single = match self.exploration.by_property.is_empty() {
            true => self.finding(),
            false => None,
        };
        let each = single
            .into_iter()
            .flat_map(|f| trace::violated(&f.report).into_iter().map(move |p| (p, f)));
        let firsts = self.harness_held().then_some(&self.exploration.by_property);
        firsts
            .into_iter()
            .flatten()
            .map(|(p, f)| (*p, f))
            .chain(each)
    }

    /// The finding that broke `property` (with `Experiment::every_property`, its first
    /// seed's), if one did.
    pub fn finding_of(&self, property: Property) -> Option<&Finding> {
        self.findings()
            .find(|(p, _)| *p == property)
            .map(|(_, f)| f)
    }

    /// Whether the harness held: the exploration ended clean or with a finding.
    fn harness_held(&self) -> bool {
        matches!(
            self.exploration.outcome,
            Outcome::Clean | Outcome::Violation(_)
        )
    }

    /// The trace written for the finding (or replayed); with `Experiment::every_property`,
    /// for the lowest of the properties' first findings.
    pub fn trace(&self) -> Option<&Path> {
        self.trace.as_deref()
    }

    /// The trace written for the finding that broke `property`: with
    /// `Experiment::every_property`, its own (`<scenario>-<seed>-<property>.json`).
    pub fn trace_of(&self, property: Property) -> Option<&Path> {
        let own = self
            .exploration
            .by_property
            .iter()
            .position(|(p, _)| *p == property);
        match own {
            Some(i) => self
                .by_property
                .get(i)
                .filter(|_| self.harness_held())
                .map(PathBuf::as_path),
            None => self.finding_of(property).and(self.trace()),
        }
    }

    /// How many seeds ran to their end.
    pub fn seeds_run(&self) -> u64 {
        self.exploration.seeds_run
    }

    /// The exploration as the explorer returned it.
    pub fn exploration(&self) -> &Exploration {
        &self.exploration
    }

    /// Asserts that a seed broke `property`, and returns the finding (with
    /// `Experiment::every_property`, that property's first).
    ///
    /// # Panics
    /// When no seed broke it (or the harness failed), with the report.
    #[track_caller]
    pub fn assert_violates(&self, property: Property) -> &Finding {
        match self.finding_of(property) {
            Some(finding) => finding,
            None => panic!("expected a violation of {property}; got:\n{self}"),
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
            Outcome::Violation(finding) if self.exploration.by_property.is_empty() => {
                match &self.replayed {
                    Some(path) => writeln!(f, "{name}: replayed {}", path.display())?,
                    None => writeln!(
                        f,
                        "{name}: violation at seed {} (after {run} runs of {searched})",
                        finding.spec.seed
                    )?,
                }
                self.write_finding(f, finding, self.trace.as_deref())
            }
            Outcome::Violation(_) => {
                write!(
                    f,
                    "{name}: every property's first violation (after {run} runs of {searched}): {}",
                    self.exploration.first_seeds()
                )?;
                let traces = self.by_property.iter().map(|p| Some(p.as_path()));
                for ((property, finding), trace) in self.exploration.by_property.iter().zip(traces)
                {
                    write!(f, "\n{property}, first at seed {}:\n", finding.spec.seed)?;
                    self.write_finding(f, finding, trace)?;
                }
                Ok(())
            }
        }
    }
}

impl Explored {
    /// A finding's violations, shrunk plan, timeline, trace, picture and replay command.
    fn write_finding(
        &self,
        f: &mut fmt::Formatter<'_>,
        finding: &Finding,
        trace: Option<&Path>,
    ) -> fmt::Result {
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
        if let Some(trace) = trace {
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
