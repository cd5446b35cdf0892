//! `compare --svg OUT`: the comparison drawn, one panel a scenario: the median of the distinct
//! transitions each side covered against the runs it made, and a dashed line at each side's
//! median of runs to its first finding. A pure function of the figures `compare` printed.

use crate::explore::compare::{CompareSpec, Comparison, Side};
use std::fmt::Write;

const WIDTH: f64 = 560.0;
const PANEL: f64 = 220.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 34.0;
const HEADER: f64 = 30.0;
const RANDOM: &str = "#1f77b4";
const GUIDED: &str = "#d62728";

/// The runs at which a curve is drawn: every generation's end, and the budget.
fn steps(runs: u64) -> Vec<u64> {
    let generation = crate::explore::guided::GENERATION;
    let mut steps: Vec<u64> = (1..=runs / generation).map(|g| g * generation).collect();
    if steps.last() != Some(&runs) {
        steps.push(runs);
    }
    steps
}

/// The whole picture, its panels in the order of `rows`.
pub(super) fn draw(rows: &[(CompareSpec, Comparison)]) -> String {
    let height = HEADER + PANEL * rows.len() as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="18"><tspan fill="{RANDOM}" font-weight="bold">random</tspan> and <tspan fill="{GUIDED}" font-weight="bold">guided</tspan>: median transitions covered against runs; dashed, median runs to a finding</text>"#
    );
    for (i, (spec, c)) in rows.iter().enumerate() {
        panel(&mut svg, HEADER + PANEL * i as f64, spec, c);
    }
    svg.push_str("</svg>\n");
    svg
}

fn panel(svg: &mut String, y0: f64, spec: &CompareSpec, c: &Comparison) {
    let steps = steps(spec.runs);
    let covered = |s: &Side| -> Vec<(u64, usize)> {
        steps
            .iter()
            .map(|&r| (r, s.median_transitions_at(r)))
            .collect()
    };
    let (random, guided) = (covered(&c.random), covered(&c.guided));
    let top = random
        .iter()
        .chain(&guided)
        .map(|&(_, t)| t)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (x1, y1) = (WIDTH - RIGHT, y0 + PANEL - BOTTOM);
    let plot_height = PANEL - TOP - BOTTOM;
    let x = |runs: f64| LEFT + (x1 - LEFT) * runs / spec.runs.max(1) as f64;
    let y = |t: f64| y1 - plot_height * t / top;
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="{:.1}" font-weight="bold">{}</text>"#,
        y0 + 20.0,
        escape(&spec.scenario.name)
    );
    let _ = writeln!(
        svg,
        r##"<path d="M{LEFT} {:.1} V{y1:.1} H{x1:.1}" stroke="#444" fill="none"/>"##,
        y0 + TOP
    );
    for (value, anchor, at) in [(0.0, "end", y(0.0)), (top, "end", y(top))] {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="{anchor}">{value}</text>"#,
            LEFT - 4.0,
            at + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{x1:.1}" y="{:.1}" text-anchor="end">{} runs</text>"#,
        y1 + 16.0,
        spec.runs
    );
    for (side, curve, colour) in [(&c.random, &random, RANDOM), (&c.guided, &guided, GUIDED)] {
        let points: Vec<String> = curve
            .iter()
            .map(|&(r, t)| format!("{:.1},{:.1}", x(r as f64), y(t as f64)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" stroke="{colour}" stroke-width="1.5" fill="none"/>"#,
            points.join(" ")
        );
        let median = side.median_runs(spec.runs);
        if median <= spec.runs as f64 {
            let _ = writeln!(
                svg,
                r#"<line x1="{0:.1}" x2="{0:.1}" y1="{1:.1}" y2="{y1:.1}" stroke="{colour}" stroke-dasharray="4 3"/>"#,
                x(median),
                y0 + TOP
            );
        }
    }
    let summary = |name: &str, s: &Side| {
        format!(
            "{name} {} ({}/{} found)",
            s.median_runs(spec.runs),
            s.found(),
            s.found_at.len()
        )
    };
    let _ = writeln!(
        svg,
        r#"<text x="{x1:.1}" y="{:.1}" text-anchor="end">runs to a finding, median: <tspan fill="{RANDOM}">{}</tspan>, <tspan fill="{GUIDED}">{}</tspan></text>"#,
        y0 + 20.0,
        summary("random", &c.random),
        summary("guided", &c.guided)
    );
}

/// `text` safe inside an SVG text node.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_is_drawn_at_every_generation_and_the_budget() {
        assert_eq!(steps(20), [8, 16, 20]);
        assert_eq!(steps(16), [8, 16]);
        assert_eq!(steps(5), [5]);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & c>"), "a&lt;b &amp; c&gt;");
    }
}
