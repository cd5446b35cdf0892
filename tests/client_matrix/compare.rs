//! The verdict on one client: its transcript against `locksim serve redis` (or `serve zk`)
//! must equal its transcript against the real server, and both runs must end by themselves. A difference is
//! reported as the first differing line with both sides, then the names of every step that
//! differs, so one failure shows all that is missing.

use super::run::{End, Run};
use std::collections::BTreeSet;

/// The line every program prints last, once it has run every step.
const DONE: &str = "done";

/// The step a transcript line is about: what comes before its first `: `.
fn step_name(line: &str) -> &str {
    line.split_once(": ").map_or(line, |(name, _)| name)
}

/// The real server and the `locksim serve` command a client ran against.
#[derive(Clone, Copy)]
pub struct Servers {
    pub real: &'static str,
    pub sim: &'static str,
}

pub const REDIS: Servers = Servers {
    real: "redis-server",
    sim: "locksim serve redis",
};

pub const ZOOKEEPER: Servers = Servers {
    real: "zookeeper",
    sim: "locksim serve zk",
};

/// `Ok` when `sim` printed exactly what `real` printed and both ended by themselves;
/// otherwise the report.
pub fn verdict(client: &str, servers: Servers, real: &Run, sim: &Run) -> Result<(), String> {
    let name = servers.real;
    if real.end != End::Finished || real.lines.last().map(String::as_str) != Some(DONE) {
        return Err(format!(
            "{client} did not run through against {name} ({}), so the matrix cannot \
             compare; its transcript:\n{}",
            describe(&real.end),
            real.lines.join("\n")
        ));
    }
    if real.lines == sim.lines && sim.end == End::Finished {
        return Ok(());
    }
    // The two sides' labels, aligned.
    let width = name.len().max("locksim".len()) + 1;
    let (real_label, sim_label) = (format!("{name}:"), "locksim:".to_string());
    let mut report = format!("{client}: against {}, ", servers.sim);
    match real.lines.iter().zip(&sim.lines).position(|(a, b)| a != b) {
        Some(at) => {
            report += &format!(
                "the transcript differs from {name}'s first at line {}:\n  {real_label:width$} {}\n  {sim_label:width$} {}\n",
                at + 1,
                real.lines[at],
                sim.lines[at]
            )
        }
        None if sim.lines.len() < real.lines.len() => {
            report += &format!(
                "the transcript stops after line {} ({}); {name}'s goes on with:\n  {real_label:width$} {}\n",
                sim.lines.len(),
                describe(&sim.end),
                real.lines[sim.lines.len()]
            )
        }
        None if sim.lines.len() > real.lines.len() => {
            report += &format!(
                "the transcript goes on past {name}'s with:\n  {sim_label:width$} {}\n",
                sim.lines[real.lines.len()]
            )
        }
        None => report += &format!("the transcripts agree but the run {}\n", describe(&sim.end)),
    }
    let differing: Vec<&str> = real
        .lines
        .iter()
        .filter(|line| {
            let name = step_name(line);
            sim.lines.iter().find(|other| step_name(other) == name) != Some(line)
        })
        .map(|line| step_name(line))
        .collect();
    report += &format!(
        "  {} of {} steps differ: {}\n",
        differing.len(),
        real.lines.len(),
        differing.join(", ")
    );
    let refused_by_real = unknown_commands(&real.lines);
    let refused_by_sim = unknown_commands(&sim.lines);
    let unknown: Vec<&str> = refused_by_sim
        .difference(&refused_by_real)
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        report += &format!(
            "  locksim answered unknown command to: {}\n",
            unknown.join(", ")
        );
    }
    report += &format!("  locksim's run {}", describe(&sim.end));
    Err(report)
}

/// The commands `lines` show refused as unknown (Redis's `unknown command 'NAME'`), upper
/// case, each once, sorted: the quickest read of what the server lacks (less those that
/// redis-server refuses too, which a program sends on purpose).
fn unknown_commands(lines: &[String]) -> BTreeSet<String> {
    const REFUSAL: &str = "unknown command '";
    lines
        .iter()
        .flat_map(|line| {
            line.match_indices(REFUSAL)
                .map(move |(at, _)| &line[at + REFUSAL.len()..])
        })
        .filter_map(|rest| rest.split_once('\'').map(|(name, _)| name.to_uppercase()))
        .collect()
}

fn describe(end: &End) -> String {
    match end {
        End::Finished => "ended by itself".to_string(),
        End::Failed(why) => format!("failed: {why}"),
        End::TimedOut(limit) => format!("did not end within {limit:?} and was stopped"),
    }
}

#[cfg(test)]
fn run(lines: &[&str], end: End) -> Run {
    Run {
        lines: lines.iter().map(|line| line.to_string()).collect(),
        end,
    }
}

#[test]
fn equal_transcripts_that_both_end_pass() {
    let real = run(&["a: 1", "b: 2", "done"], End::Finished);
    let sim = run(&["a: 1", "b: 2", "done"], End::Finished);
    assert_eq!(verdict("c", REDIS, &real, &sim), Ok(()));
}

#[test]
fn a_difference_names_the_first_line_with_both_sides_and_every_step_that_differs() {
    let real = run(
        &[
            "a: 1",
            "b: 2",
            "c: 3",
            "d: ERR unknown command 'NOSUCH', with args beginning with: ",
            "done",
        ],
        End::Finished,
    );
    let sim = run(
        &[
            "a: 1",
            "b: ERR unknown command 'hset', with args beginning with: 'k' ",
            "c: ERR unknown command 'INCR', with args beginning with: 'k' ",
            "d: ERR unknown command 'NOSUCH', with args beginning with: ",
            "done",
        ],
        End::Finished,
    );
    let report = verdict("client", REDIS, &real, &sim).unwrap_err();
    assert_eq!(
        report,
        "client: against locksim serve redis, the transcript differs from redis-server's first \
         at line 2:\n  redis-server: b: 2\n  locksim:      b: ERR unknown command 'hset', with \
         args beginning with: 'k' \n  2 of 5 steps differ: b, c\n  locksim answered unknown \
         command to: HSET, INCR\n  locksim's run ended by itself"
    );
}

#[test]
fn a_run_stopped_early_says_where_and_why() {
    let limit = std::time::Duration::from_secs(60);
    let real = run(&["a: 1", "b: 2", "done"], End::Finished);
    let sim = run(&["a: 1"], End::TimedOut(limit));
    let report = verdict("client", REDIS, &real, &sim).unwrap_err();
    assert!(
        report.starts_with(
            "client: against locksim serve redis, the transcript stops after line 1 (did not end \
         within 60s and was stopped); redis-server's goes on with:\n  redis-server: b: 2\n"
        ),
        "{report}"
    );
    assert!(report.contains("2 of 3 steps differ: b, done"), "{report}");
}

#[test]
fn a_program_that_fails_against_redis_server_is_the_matrix_s_own_failure() {
    let real = run(&["a: 1"], End::Failed("exit status: 1".to_string()));
    let sim = run(&["a: 1"], End::Failed("exit status: 1".to_string()));
    let report = verdict("client", REDIS, &real, &sim).unwrap_err();
    assert!(
        report.starts_with(
            "client did not run through against redis-server (failed: exit status: 1)"
        ),
        "{report}"
    );
}
