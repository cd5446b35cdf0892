//! A run as a picture: one self-contained HTML page that draws the run on a true-time axis,
//! a lane per client and per server, so that who held what when, and where the fault fell,
//! can be seen rather than read. Holds, leaderships and barrier waits are bars (with their
//! fencing token, and how long a lease counted on itself); acquires, releases, losses,
//! wake-ups, store writes and servers' events are marks; faults are shaded spans on the lanes
//! they struck; each violation is highlighted and named. Hovering any of them shows its
//! event. The page opens on the violations, the whole run a click away.
//!
//! The page loads nothing: the run travels in it as JSON, and a small inline script draws
//! the SVG from it (each drawn element carries `data-kind`, `data-what`, `data-lane`,
//! `data-start` and `data-end`, which the browser test reads back). A trace's page is
//! byte-identical from one run to the next, like its history.
//!
//! - `model`: the pure core, a run's history, violations and fault plan as a drawing's data
//! - `bars`: the intervals drawn as bars (holds, terms, barrier waits, lease validity)
//! - `marks`: which events are drawn as marks, and the words their tooltips say
//! - `page.html`, `draw.js`: the page and the script that draws it

mod bars;
mod marks;
mod model;

use crate::trace::Trace;
use crate::world::run::RunReport;
use model::Drawing;
use std::path::{Path, PathBuf};

const PAGE: &str = include_str!("page.html");
const DRAW: &str = include_str!("draw.js");

/// The page that draws `report`'s run, titled `title` (say, the scenario, seed and trace
/// file): one HTML document with its script and data inline, for a browser to open from
/// disk. `locksim replay FILE --html OUT` writes it; `run`, `explore` and
/// `Experiment::explore` write one beside each trace they write.
///
/// ```
/// use locksim::trace::{self, Trace};
/// use std::path::Path;
///
/// let path = Path::new("traces/r1-pause-redlock.json");
/// let trace = Trace::load(path).expect("a committed trace");
/// let replayed = trace::replay(&trace, path).expect("it replays");
/// let page = locksim::html::render(&replayed.report, "R1: Kleppmann's pause");
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains("\"property\":\"mutex\""), "the violation travels with the page");
/// assert_eq!(page, locksim::html::render(&replayed.report, "R1: Kleppmann's pause"));
/// ```
pub fn render(report: &RunReport, title: &str) -> String {
    let drawing = Drawing::of(&report.history, &report.violations, &report.plan, title);
    let json = serde_json::to_string(&drawing).expect("a drawing serialises");
    // `<` only occurs inside JSON strings, where `\u003c` says the same; so no `</script>`
    // in the data can end the element early.
    let json = json.replace('<', "\\u003c");
    PAGE.replace("{{TITLE}}", &escape(title))
        .replace("{{RUN}}", &json)
        .replace("{{DRAW}}", DRAW)
}

/// The title of the page of `trace`, read from or written to `path`: its scenario, seed
/// and file, so that a page on its own says which run it draws.
pub fn title(trace: &Trace, path: &Path) -> String {
    format!(
        "{}, seed {}: {}",
        trace.scenario,
        trace.seed,
        path.display()
    )
}

/// Writes the page of `report`, the run of the trace file at `path`, beside that file (same
/// name, `.html`), replacing what is there: the page belongs to the trace, and the same
/// trace draws the same page. Returns the page's path.
///
/// Like a trace's save, it never follows what is at that name: a symlink, a directory or
/// anything else but a regular file there is an error.
pub fn write_beside(path: &Path, trace: &Trace, report: &RunReport) -> std::io::Result<PathBuf> {
    let page = path.with_extension("html");
    if std::fs::symlink_metadata(&page).is_ok_and(|m| !m.is_file()) {
        let taken = format!("{} is there and is not a regular file", page.display());
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            taken,
        ));
    }
    std::fs::write(&page, render(report, &title(trace, path)))?;
    Ok(page)
}

/// `text` as HTML text or an attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Event, HarnessOp, History, Kind, Op};
    use crate::sim::fault::FaultPlan;

    fn report(events: Vec<Event>) -> RunReport {
        RunReport {
            history: History { events },
            violations: vec![],
            witnesses: vec![],
            digest: String::new(),
            end_ms: 0,
            completed: true,
            plan: FaultPlan::default(),
            polls: Default::default(),
        }
    }

    #[test]
    fn the_data_cannot_close_its_script_element_and_the_title_is_escaped() {
        let fault = Op::Harness(HarnessOp::Fault {
            fault: "</script><b>".into(),
        });
        let events = vec![Event {
            time_ms: 1,
            clock_ms: 0,
            node: "harness".into(),
            kind: Kind::Info,
            op: fault,
        }];
        let page = render(&report(events), "a <b> & \"c\"");
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(page.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert!(!page.contains("{{"), "every placeholder is filled");
    }

    #[test]
    fn the_page_loads_nothing_from_elsewhere() {
        let page = render(&report(vec![]), "empty");
        for needle in ["src=", "href=", "@import", "url(http", "fetch("] {
            assert!(!page.contains(needle), "{needle}");
        }
    }
}
