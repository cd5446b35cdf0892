//! The intervals a picture draws as bars on a client's lane: holds of a lock (as `mutex`
//! judges them), terms as a leader (as `leader` judges them), waits at and stays inside a
//! barrier, and how long a lease counted on itself by its own clock.

use crate::check::{self, Hold};
use crate::history::{BarrierOp, ElectionOp, Event, History, Kind, LockMode, LockOp, Op};
use serde::Serialize;
use std::collections::BTreeMap;

/// One interval on one lane.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Bar {
    pub(crate) lane: String,
    pub(crate) what: BarKind,
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Written on the bar where it fits: the lock and token, say.
    pub(crate) label: String,
    pub(crate) title: String,
}

/// What a bar stands for.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum BarKind {
    /// It believed it held a lock.
    Hold,
    /// It believed it led an election.
    Lead,
    /// It waited to pass a barrier's enter or leave.
    Wait,
    /// It had passed a barrier's enter and was not yet done with its work.
    Inside,
    /// A lease it counted on, by its own clock, from its grant or extension.
    Valid,
}

/// Every bar of the run: holds, terms, barrier waits and stays, lease validity; each kind
/// in the order its checker lists them, then by start.
pub(crate) fn of(history: &History, end_ms: u64) -> Vec<Bar> {
    let mut bars = Vec::new();
    for (lock, holds) in check::lock_holds(history) {
        bars.extend(holds.iter().map(|h| hold(history, BarKind::Hold, lock, h)));
    }
    for (election, terms) in check::terms_by_election(history) {
        bars.extend(
            terms
                .iter()
                .map(|t| hold(history, BarKind::Lead, election, t)),
        );
    }
    bars.extend(barrier_stays(history, end_ms));
    bars.extend(leases(history, end_ms));
    bars
}

/// A hold or a term as a bar labelled with what it holds and its token.
fn hold(history: &History, what: BarKind, line: &str, h: &Hold) -> Bar {
    let token = match &history.events[h.from.index].op {
        Op::Lock(LockOp::Acquire { token, .. }) | Op::Election(ElectionOp::Lead { token, .. }) => {
            *token
        }
        _ => None,
    };
    let mode = match h.mode {
        Some(LockMode::Read) => " to read",
        Some(LockMode::Write) => " to write",
        None => "",
    };
    let token = token.map_or(String::new(), |t| format!(" token {t}"));
    let (from, until) = (h.from.time_ms, h.until.time_ms);
    let verb = match what {
        BarKind::Lead => "believes it leads",
        _ => "believes it holds",
    };
    Bar {
        lane: h.client.to_string(),
        what,
        start: from,
        end: until,
        label: format!("{line}{mode}{token}"),
        title: format!(
            "{from}..{until} ms  {} {verb} {line}{mode}{token}",
            h.client
        ),
    }
}

/// Per client and barrier: its waits to pass the enter (first invoke to ok) and the leave
/// (invoke to ok), and its stay inside between them; an open wait runs to the end.
fn barrier_stays(history: &History, end_ms: u64) -> Vec<Bar> {
    let mut steps: BTreeMap<(&str, &str), Vec<(&Event, &BarrierOp)>> = BTreeMap::new();
    for e in &history.events {
        if let Op::Barrier(op @ (BarrierOp::Enter { barrier, .. } | BarrierOp::Leave { barrier })) =
            &e.op
        {
            steps
                .entry((e.node.as_str(), barrier.as_str()))
                .or_default()
                .push((e, op));
        }
    }
    let mut bars = Vec::new();
    for ((client, barrier), steps) in steps {
        let bar = |what, start: u64, end: u64, doing: &str| Bar {
            lane: client.to_string(),
            what,
            start,
            end,
            label: barrier.to_string(),
            title: format!("{start}..{end} ms  {client} {doing} {barrier}"),
        };
        let mut waiting: Option<u64> = None;
        let mut inside: Option<u64> = None;
        for (e, op) in steps {
            let entering = matches!(op, BarrierOp::Enter { .. });
            match e.kind {
                Kind::Invoke => {
                    if let Some(since) = inside.take() {
                        bars.push(bar(BarKind::Inside, since, e.time_ms, "is inside"));
                    }
                    waiting.get_or_insert(e.time_ms);
                }
                Kind::Ok => {
                    if let Some(since) = waiting.take() {
                        let doing = if entering {
                            "waits to pass the enter of"
                        } else {
                            "waits to pass the leave of"
                        };
                        bars.push(bar(BarKind::Wait, since, e.time_ms, doing));
                    }
                    if entering {
                        inside = Some(e.time_ms);
                    }
                }
                Kind::Fail | Kind::Info => {}
            }
        }
        if let Some(since) = waiting {
            bars.push(bar(
                BarKind::Wait,
                since,
                end_ms,
                "still waits at the end at",
            ));
        }
    }
    bars.sort_by_key(|b| b.start);
    bars
}

/// How long each grant and extension of a lease counted on it, by the client's own clock,
/// drawn from its true time (so a pause that outlasts it shows).
fn leases(history: &History, end_ms: u64) -> Vec<Bar> {
    history
        .events
        .iter()
        .filter(|e| e.kind == Kind::Ok)
        .filter_map(|e| match &e.op {
            Op::Lock(
                LockOp::Acquire {
                    lock,
                    valid_ms: Some(valid),
                    ..
                }
                | LockOp::Extend {
                    lock,
                    valid_ms: Some(valid),
                },
            ) => {
                let end = e.time_ms.saturating_add(*valid).min(end_ms.max(e.time_ms));
                Some(Bar {
                    lane: e.node.clone(),
                    what: BarKind::Valid,
                    start: e.time_ms,
                    end,
                    label: String::new(),
                    title: format!(
                        "{}..{end} ms  {} counts on {lock} for {valid} ms by its own clock",
                        e.time_ms, e.node
                    ),
                })
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::event;

    #[test]
    fn a_double_barrier_is_a_wait_a_stay_and_a_wait() {
        let b = "/b".to_string();
        let enter = || {
            Op::Barrier(BarrierOp::Enter {
                barrier: b.clone(),
                count: 2,
            })
        };
        let leave = || Op::Barrier(BarrierOp::Leave { barrier: b.clone() });
        let history = History {
            events: vec![
                event(1, "c1", Kind::Invoke, enter()),
                event(4, "c1", Kind::Fail, enter()),
                event(6, "c1", Kind::Invoke, enter()),
                event(9, "c1", Kind::Ok, enter()),
                event(20, "c1", Kind::Invoke, leave()),
                event(25, "c2", Kind::Invoke, enter()),
            ],
        };
        let bars = of(&history, 50);
        let bars: Vec<(&str, BarKind, u64, u64)> = bars
            .iter()
            .map(|b| (b.lane.as_str(), b.what, b.start, b.end))
            .collect();
        assert_eq!(
            bars,
            [
                ("c1", BarKind::Wait, 1, 9),
                ("c1", BarKind::Inside, 9, 20),
                ("c1", BarKind::Wait, 20, 50),
                ("c2", BarKind::Wait, 25, 50),
            ]
        );
    }

    #[test]
    fn a_lease_is_drawn_for_as_long_as_its_holder_counts_on_it_and_no_further_than_the_end() {
        let grant = |valid_ms| {
            Op::Lock(LockOp::Acquire {
                lock: "k".into(),
                mode: None,
                token: None,
                granted_by: vec!["redis1".into()],
                valid_ms: Some(valid_ms),
            })
        };
        let history = History {
            events: vec![
                event(5, "c1", Kind::Ok, grant(186)),
                event(40, "c2", Kind::Ok, grant(u64::MAX - 3)),
            ],
        };
        let valid: Vec<(u64, u64)> = leases(&history, 300)
            .iter()
            .map(|b| (b.start, b.end))
            .collect();
        assert_eq!(valid, [(5, 191), (40, 300)]);
    }
}
