//! Leader election: at most one client believes it leads an election at any true instant
//! (Z12: a leader paused or cut off past its session timeout keeps believing while a new one
//! is elected), and once the heal phase begins a leader is elected within a bound whenever a
//! candidate runs.
//!
//! A client believes it leads from its Lead ok until its next StepDown invoke (it stops
//! believing when it starts stepping down), a LostLead, the End marker, or the end of the
//! history; overlap is decided by position in the history, as `mutex` decides it. A
//! candidate runs from its Lead invoke until that run completes (ok, or fail: the workload
//! runs again once it has a session, and a client that never gets one back is `liveness`'s
//! Unfinished). A stretch with a candidate running and nobody believing it leads is
//! leaderless; after the heal it may last at most the liveness bound.

use super::mutex::{Hold, Point};
use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{ElectionOp, HarnessOp, History, Kind, Op};
use std::collections::{BTreeMap, BTreeSet};

/// Every pair of overlapping terms of one election by different clients, ordered by
/// election and then by the start of the earlier term (`times_ms`: the overlap `[from,
/// until]`); then every leaderless stretch that outlasted `bound_ms` after the heal, by
/// election and in time order (`times_ms`: `[leaderless from, heal, leader elected or end]`).
pub fn check(history: &History, bound_ms: u64) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (election, terms) in terms_by_election(history) {
        for (i, a) in terms.iter().enumerate() {
            for b in &terms[i + 1..] {
                // One client's terms never overlap (a term opens only when none is open).
                if a.overlaps(b) {
                    violations.push(two_leaders(election, a, b));
                }
            }
        }
    }
    if let Some(heal_ms) = history.heal_ms() {
        violations.extend(leaderless(history, heal_ms, bound_ms));
    }
    violations
}

/// What ends terms: a client's step down or loss of one election, or the end of the run,
/// which ends them all.
enum TermEnd<'a> {
    Of(&'a str),
    All,
}

fn ends_term(op: &Op, kind: Kind) -> Option<TermEnd<'_>> {
    match (op, kind) {
        (Op::Election(ElectionOp::StepDown { election }), Kind::Invoke)
        | (Op::Election(ElectionOp::LostLead { election }), _) => Some(TermEnd::Of(election)),
        (Op::Harness(HarnessOp::End), _) => Some(TermEnd::All),
        _ => None,
    }
}

type Terms<'a> = BTreeMap<&'a str, Vec<Hold<'a>>>;

fn close<'a>(
    terms: &mut Terms<'a>,
    (election, client): (&'a str, &'a str),
    from: Point,
    until: Point,
) {
    terms.entry(election).or_default().push(Hold {
        client,
        mode: None,
        from,
        until,
    });
}

/// Terms per election, each election's sorted by where they start.
pub(crate) fn terms_by_election(history: &History) -> Terms<'_> {
    // (election, client) -> where its current term began
    let mut open: BTreeMap<(&str, &str), Point> = BTreeMap::new();
    let mut terms = Terms::new();
    for (index, event) in history.events.iter().enumerate() {
        let point = Point {
            index,
            time_ms: event.time_ms,
        };
        let client = event.node.as_str();
        if let (Op::Election(ElectionOp::Lead { election, .. }), Kind::Ok) = (&event.op, event.kind)
        {
            open.entry((election.as_str(), client)).or_insert(point);
            continue;
        }
        let ending: Vec<(&str, &str)> = match ends_term(&event.op, event.kind) {
            Some(TermEnd::Of(election)) => vec![(election, client)],
            Some(TermEnd::All) => open.keys().copied().collect(),
            None => continue,
        };
        for key in ending {
            if let Some(from) = open.remove(&key) {
                close(&mut terms, key, from, point);
            }
        }
    }
    let end = Point {
        index: history.events.len(),
        time_ms: history.events.last().map_or(0, |e| e.time_ms),
    };
    for (key, from) in open {
        close(&mut terms, key, from, end);
    }
    for list in terms.values_mut() {
        list.sort_by_key(|t| t.from.index);
    }
    terms
}

fn two_leaders(election: &str, first: &Hold, second: &Hold) -> Violation {
    let from = second.from.time_ms;
    let until = first.until.time_ms.min(second.until.time_ms);
    Violation {
        property: Property::LEADER,
        clients: vec![first.client.to_string(), second.client.to_string()],
        times_ms: vec![from, until],
        detail: format!(
            "{} and {} both believed they led {election} during {from}..{until} ms",
            first.client, second.client
        ),
    }
}

/// One election's state as the history unfolds.
#[derive(Default)]
struct Ballot<'a> {
    leaders: BTreeSet<&'a str>,
    running: BTreeSet<&'a str>,
    /// Since when it has been leaderless with a candidate running, and who ran meanwhile.
    leaderless: Option<(u64, BTreeSet<&'a str>)>,
}

/// The leaderless stretches that outlasted `bound_ms` after `heal_ms`.
fn leaderless(history: &History, heal_ms: u64, bound_ms: u64) -> Vec<Violation> {
    let mut ballots: BTreeMap<&str, Ballot> = BTreeMap::new();
    let mut violations = Vec::new();
    let judge = |election: &str, (since_ms, clients): (u64, BTreeSet<&str>), until_ms: u64| {
        let counted_from = since_ms.max(heal_ms);
        (until_ms.saturating_sub(counted_from) > bound_ms).then(|| Violation {
            property: Property::LEADER,
            clients: clients.into_iter().map(str::to_string).collect(),
            times_ms: vec![since_ms, heal_ms, until_ms],
            detail: format!(
                "{election} had candidates running and no leader from {since_ms} ms (heal at \
                 {heal_ms} ms) until {until_ms} ms, longer than {bound_ms} ms"
            ),
        })
    };
    for event in &history.events {
        let client = event.node.as_str();
        let election = match (&event.op, event.kind) {
            (Op::Harness(HarnessOp::End), _) => break,
            (Op::Election(ElectionOp::Lead { election, .. }), Kind::Invoke) => {
                let ballot = ballots.entry(election).or_default();
                ballot.running.insert(client);
                election.as_str()
            }
            (Op::Election(ElectionOp::Lead { election, .. }), kind) => {
                let ballot = ballots.entry(election).or_default();
                ballot.running.remove(client);
                if kind == Kind::Ok {
                    ballot.leaders.insert(client);
                }
                election.as_str()
            }
            (op, kind) => match ends_term(op, kind) {
                Some(TermEnd::Of(election)) => {
                    ballots.entry(election).or_default().leaders.remove(client);
                    election
                }
                _ => continue,
            },
        };
        let ballot = ballots.get_mut(election).expect("entered above");
        let without_leader = ballot.leaders.is_empty() && !ballot.running.is_empty();
        match (without_leader, ballot.leaderless.take()) {
            (true, None) => {
                ballot.leaderless = Some((event.time_ms, ballot.running.clone()));
            }
            (true, Some((since, mut clients))) => {
                clients.extend(&ballot.running);
                ballot.leaderless = Some((since, clients));
            }
            (false, Some(stretch)) => violations.extend(judge(election, stretch, event.time_ms)),
            (false, None) => {}
        }
    }
    let end_ms = history.end_ms();
    for (election, ballot) in ballots {
        if let Some(stretch) = ballot.leaderless {
            violations.extend(judge(election, stretch, end_ms));
        }
    }
    violations
}

/// The `leader` property's checker.
pub struct Leader;

impl Checker for Leader {
    fn property(&self) -> Property {
        Property::LEADER
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Election, Reads::Harness]
    }

    fn check(&self, history: &History, cfg: &CheckConfig) -> Vec<Violation> {
        check(history, cfg.liveness_bound_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;

    const E: &str = "/locksim/election";

    fn lead(token: Option<i64>) -> Op {
        Op::Election(ElectionOp::Lead {
            election: E.into(),
            token,
        })
    }

    fn step_down() -> Op {
        Op::Election(ElectionOp::StepDown { election: E.into() })
    }

    fn lost_lead() -> Op {
        Op::Election(ElectionOp::LostLead { election: E.into() })
    }

    fn heal() -> Op {
        Op::Harness(HarnessOp::Heal)
    }

    fn end() -> Op {
        Op::Harness(HarnessOp::End)
    }

    #[test]
    fn a_paused_leader_that_never_learned_of_its_expiry_leads_beside_the_next_one() {
        // Z12: c1 leads, is paused past its session; c2 is elected; c1 learns it later.
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(0, "c2").invoke(lead(None));
        h.at(10, "c1").ok(lead(Some(4)));
        h.at(400, "c2").ok(lead(Some(9)));
        h.at(610, "c1").info(lost_lead());
        h.at(700, "c2").invoke(step_down());
        h.at(702, "c2").ok(step_down());
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].property, Property::LEADER);
        assert_eq!(v[0].clients, ["c1", "c2"]);
        assert_eq!(v[0].times_ms, [400, 610]);
        assert_eq!(
            v[0].detail,
            "c1 and c2 both believed they led /locksim/election during 400..610 ms"
        );
    }

    #[test]
    fn a_leader_that_never_learns_believes_until_the_end() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(10, "c1").ok(lead(Some(4)));
        h.at(20, "c2").invoke(lead(None));
        h.at(510, "c2").ok(lead(Some(9)));
        h.at(900, "harness").info(end());
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].times_ms, [510, 900]);
    }

    #[test]
    fn stepping_down_then_the_next_elected_in_the_same_millisecond_is_one_leader_at_a_time() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(0, "c2").invoke(lead(None));
        h.at(10, "c1").ok(lead(Some(4)));
        h.at(100, "c1").invoke(step_down());
        h.at(100, "c2").ok(lead(Some(5)));
        h.at(101, "c1").ok(step_down());
        h.at(150, "c2").info(lost_lead());
        h.at(150, "c1").invoke(lead(None));
        h.at(160, "c1").ok(lead(Some(12)));
        h.at(200, "harness").info(end());
        assert_eq!(check(&h.build(), 1000), []);
    }

    #[test]
    fn a_term_opened_and_closed_within_anothers_millisecond_is_caught() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(0, "c2").invoke(lead(None));
        h.at(10, "c1").ok(lead(Some(1)));
        h.at(50, "c2").ok(lead(Some(2)));
        h.at(50, "c2").invoke(step_down());
        h.at(60, "c1").invoke(step_down());
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].times_ms, [50, 50]);
    }

    #[test]
    fn no_leader_long_after_the_heal_while_candidates_run_is_a_violation() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(5, "c1").ok(lead(Some(1)));
        h.at(50, "c2").invoke(lead(None));
        h.at(60, "c3").invoke(lead(None));
        h.at(100, "c1").invoke(step_down());
        h.at(102, "c1").ok(step_down());
        h.at(200, "harness").info(heal());
        h.at(900, "c2").ok(lead(Some(7)));
        h.at(1000, "harness").info(end());
        let v = check(&h.build(), 600);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c2", "c3"]);
        assert_eq!(v[0].times_ms, [100, 200, 900]);
        assert_eq!(
            v[0].detail,
            "/locksim/election had candidates running and no leader from 100 ms (heal at 200 \
             ms) until 900 ms, longer than 600 ms"
        );
        assert_eq!(
            check(&h.build(), 700),
            [],
            "700 ms after the heal is within 700"
        );
    }

    #[test]
    fn a_leaderless_stretch_still_open_at_the_end_counts_to_the_end() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(100, "harness").info(heal());
        h.at(150, "c1").fail(lead(None));
        h.at(300, "c1").invoke(lead(None));
        h.at(2000, "harness").info(end());
        let v = check(&h.build(), 1000);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].clients, ["c1"]);
        assert_eq!(v[0].times_ms, [300, 100, 2000]);
    }

    #[test]
    fn leaderless_before_the_heal_or_with_nobody_running_is_fine() {
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(5000, "c1").ok(lead(Some(1)));
        h.at(5100, "harness").info(heal());
        h.at(5200, "c1").invoke(step_down());
        h.at(5201, "c1").ok(step_down());
        h.at(9000, "harness").info(end());
        assert_eq!(check(&h.build(), 100), []);
    }

    #[test]
    fn elections_are_judged_apart() {
        let other = |token| {
            Op::Election(ElectionOp::Lead {
                election: "/other".into(),
                token,
            })
        };
        let mut h = HistoryBuilder::default();
        h.at(0, "c1").invoke(lead(None));
        h.at(0, "c2").invoke(other(None));
        h.at(10, "c1").ok(lead(Some(1)));
        h.at(10, "c2").ok(other(Some(2)));
        assert_eq!(check(&h.build(), 1000), []);
    }
}
