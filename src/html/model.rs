//! The pure core of the picture: a run's history, violations and fault plan turned into
//! what the page draws (lanes, bars, marks, fault spans, violations, and where it opens),
//! by true time. Serialised into the page as JSON; everything is in history or lane order,
//! so the same run gives the same bytes.

use super::bars::{self, Bar};
use super::marks::{self, Mark};
use crate::check::Violation;
use crate::history::{History, Op, StoreOp};
use crate::sim::fault::FaultPlan;
use crate::sim::vocab::Lasts;
use crate::timeline::{self, Spans, Window};
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything the page draws.
#[derive(Debug, Serialize)]
pub(crate) struct Drawing {
    pub(crate) title: String,
    /// True time the run ended; the whole run is `0..end_ms`.
    pub(crate) end_ms: u64,
    /// When the heal phase began, if it did.
    pub(crate) heal_ms: Option<u64>,
    /// The stretch the page opens on: the violations and what led to them.
    pub(crate) focus: [u64; 2],
    /// Top to bottom: clients, servers, the store.
    pub(crate) lanes: Vec<Lane>,
    pub(crate) bars: Vec<Bar>,
    pub(crate) marks: Vec<Mark>,
    pub(crate) faults: Vec<FaultSpan>,
    pub(crate) violations: Vec<Highlight>,
}

/// One host's lane.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Lane {
    pub(crate) name: String,
    pub(crate) role: Role,
}

/// What a host is in the run, which orders the lanes.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    Client,
    Server,
    Store,
}

/// A fault as it acted: shaded over the lanes of the hosts it struck from `start` to `end`,
/// or a mark at `start` for one that acts at once (`end` None).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct FaultSpan {
    pub(crate) lanes: Vec<String>,
    /// Its tag in trace files (`pause`, `partition`, `clock_jump`, ...).
    pub(crate) what: &'static str,
    pub(crate) start: u64,
    pub(crate) end: Option<u64>,
    pub(crate) title: String,
}

/// A violation, highlighted over its clients' lanes from its first time to its last.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Highlight {
    pub(crate) lanes: Vec<String>,
    pub(crate) property: String,
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) title: String,
}

impl Drawing {
    /// The drawing of a run that recorded `history`, broke `violations` and applied `plan`.
    pub(crate) fn of(
        history: &History,
        violations: &[Violation],
        plan: &FaultPlan,
        title: &str,
    ) -> Drawing {
        let end_ms = history.end_ms();
        let spans = Spans::of(history, plan);
        let faults = fault_spans(history, &spans, end_ms);
        Drawing {
            title: title.to_string(),
            end_ms,
            heal_ms: history.heal_ms(),
            focus: focus(history, violations, &spans, end_ms),
            lanes: lanes(history, &faults, violations),
            bars: bars::of(history, end_ms),
            marks: marks::of(history),
            faults,
            violations: violations.iter().map(highlight).collect(),
        }
    }
}

/// A lane for every host that recorded an event, was struck by a fault or is named by a
/// violation: clients first, then servers, then the store, each in natural order (`c2`
/// before `c10`).
fn lanes(history: &History, faults: &[FaultSpan], violations: &[Violation]) -> Vec<Lane> {
    let mut roles: BTreeMap<&str, Role> = BTreeMap::new();
    for e in &history.events {
        let role = match &e.op {
            Op::Harness(_) => continue,
            Op::Store(StoreOp::StoreWrite { .. }) => Role::Store,
            Op::Server(_) => Role::Server,
            _ => Role::Client,
        };
        roles.entry(e.node.as_str()).or_insert(role);
    }
    for v in violations {
        for client in &v.clients {
            roles.entry(client.as_str()).or_insert(Role::Client);
        }
    }
    for f in faults {
        for host in &f.lanes {
            roles.entry(host.as_str()).or_insert(Role::Server);
        }
    }
    let mut lanes: Vec<Lane> = roles
        .into_iter()
        .map(|(name, role)| Lane {
            name: name.to_string(),
            role,
        })
        .collect();
    lanes.sort_by(|a, b| (a.role, natural(&a.name)).cmp(&(b.role, natural(&b.name))));
    lanes
}

/// A host's name as its letters and its number: `redis10` sorts after `redis9`.
fn natural(name: &str) -> (&str, u64, &str) {
    let letters = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let number = name[letters.len()..].parse().unwrap_or(0);
    (letters, number, name)
}

/// Every fault the history applied, in history order, with the hosts it struck and when
/// it stopped acting (the text timeline's reading of the plan). A drift acts until the end.
fn fault_spans(history: &History, spans: &Spans, end_ms: u64) -> Vec<FaultSpan> {
    spans
        .0
        .iter()
        .filter(|(_, span)| !span.hosts.is_empty())
        .map(|(&i, span)| {
            let e = &history.events[i];
            let to_end = span.tag.lasts() == Lasts::ToEnd;
            let end = if to_end { Some(end_ms) } else { span.until_ms };
            let told = timeline::describe(e).unwrap_or_default();
            let title = match end {
                Some(end) if !to_end => {
                    format!("{}..{end} ms  {told}", e.time_ms)
                }
                _ => format!("{} ms  {told}", e.time_ms),
            };
            FaultSpan {
                lanes: span.hosts.clone(),
                what: span.tag.name(),
                start: e.time_ms,
                end: end.map(|end| end.max(e.time_ms)),
                title,
            }
        })
        .collect()
}

/// Where the page opens: without violations, the whole run; with, the text timeline's
/// window (from the last acquire each of their clients made before the first began, to the
/// last one's end), widened back to the start of every fault that struck one of those
/// clients, with a margin.
fn focus(history: &History, violations: &[Violation], spans: &Spans, end_ms: u64) -> [u64; 2] {
    if violations.is_empty() {
        return [0, end_ms];
    }
    let window = Window::of(history, violations);
    let from = spans
        .0
        .iter()
        .filter(|(_, span)| window.involves(&span.hosts))
        .map(|(&i, _)| history.events[i].time_ms)
        .fold(window.from_ms, u64::min);
    let until = window.until_ms.min(end_ms);
    let margin = ((until - from.min(until)) / 20).max(5);
    [from.saturating_sub(margin), (until + margin).min(end_ms)]
}

fn highlight(v: &Violation) -> Highlight {
    let start = v.times_ms.iter().copied().min().unwrap_or(0);
    let end = v.times_ms.iter().copied().max().unwrap_or(start);
    Highlight {
        lanes: v.clients.clone(),
        property: v.property.name().to_string(),
        start,
        end,
        title: v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Property;
    use crate::check::test_history::event;
    use crate::history::{HarnessOp, Kind, LockOp};
    use crate::sim::fault::{Fault, TimedFault};

    fn release() -> Op {
        Op::Lock(LockOp::Release { lock: "/l".into() })
    }

    /// Kleppmann's story: c1 acquires, is paused for longer than its session, c2 acquires
    /// meanwhile, c1 wakes up and writes.
    fn paused_holder() -> (History, Vec<Violation>, FaultPlan) {
        let plan = FaultPlan(vec![TimedFault {
            at_ms: 150,
            fault: Fault::Pause {
                node: "c1".into(),
                for_ms: 300,
            },
        }]);
        let fault = Op::Harness(HarnessOp::Fault {
            fault: plan.0[0].fault.to_string(),
        });
        let write = |client: &str, based_on| {
            Op::Store(StoreOp::StoreWrite {
                client: client.into(),
                based_on,
                current: 1,
                value: based_on + 1,
                token: None,
                accepted: true,
            })
        };
        let events = vec![
            event(
                100,
                "c1",
                Kind::Ok,
                Op::Lock(LockOp::acquire("/l", Some(2))),
            ),
            event(150, "harness", Kind::Info, fault),
            event(
                210,
                "c2",
                Kind::Ok,
                Op::Lock(LockOp::acquire("/l", Some(3))),
            ),
            event(230, "store", Kind::Info, write("c2", 0)),
            event(240, "c2", Kind::Invoke, release()),
            event(452, "store", Kind::Info, write("c1", 0)),
            event(455, "c1", Kind::Invoke, release()),
            event(900, "harness", Kind::Info, Op::Harness(HarnessOp::End)),
        ];
        let violation = Violation {
            property: Property::MUTEX,
            clients: vec!["c1".into(), "c2".into()],
            times_ms: vec![210, 240],
            detail: "c1 and c2 both held /l during 210..240 ms".into(),
        };
        (History { events }, vec![violation], plan)
    }

    #[test]
    fn a_paused_holder_is_drawn_with_its_hold_the_pause_and_the_overlap() {
        let (history, violations, plan) = paused_holder();
        let d = Drawing::of(&history, &violations, &plan, "t");
        let names: Vec<&str> = d.lanes.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["c1", "c2", "store"]);
        let holds: Vec<(&str, u64, u64, &str)> = d
            .bars
            .iter()
            .map(|b| (b.lane.as_str(), b.start, b.end, b.label.as_str()))
            .collect();
        assert_eq!(
            holds,
            [
                ("c1", 100, 455, "/l token 2"),
                ("c2", 210, 240, "/l token 3")
            ]
        );
        assert_eq!(
            d.faults,
            [FaultSpan {
                lanes: vec!["c1".into()],
                what: "pause",
                start: 150,
                end: Some(450),
                title: "150..450 ms  fault: pause c1 for 300 ms".into(),
            }]
        );
        assert_eq!(
            (d.violations[0].start, d.violations[0].end),
            (210, 240),
            "{:?}",
            d.violations
        );
        assert_eq!(
            d.focus,
            [93, 247],
            "c1's acquire to the overlap's end, and a twentieth of that either side"
        );
        assert_eq!(d.end_ms, 900);
    }

    #[test]
    fn a_fault_that_struck_a_violations_client_long_before_is_in_the_first_view() {
        let (mut history, violations, mut plan) = paused_holder();
        let early = TimedFault {
            at_ms: 3,
            fault: Fault::Partition {
                a: "c2".into(),
                b: "zk1".into(),
            },
        };
        history.events.insert(
            0,
            event(
                3,
                "harness",
                Kind::Info,
                Op::Harness(HarnessOp::Fault {
                    fault: early.fault.to_string(),
                }),
            ),
        );
        plan.0.insert(0, early);
        let d = Drawing::of(&history, &violations, &plan, "t");
        assert_eq!(d.focus[0], 0);
        assert_eq!(d.faults[0].end, Some(900), "a partition nothing repaired");
        let lanes: Vec<(&str, Role)> = d.lanes.iter().map(|l| (l.name.as_str(), l.role)).collect();
        assert_eq!(
            lanes,
            [
                ("c1", Role::Client),
                ("c2", Role::Client),
                ("zk1", Role::Server),
                ("store", Role::Store)
            ],
            "a host only a fault names is a server"
        );
    }

    #[test]
    fn hosts_sort_by_their_number_not_their_spelling() {
        let mut names = ["c10", "c2", "c1", "redis10", "redis9"];
        names.sort_by_key(|n| natural(n));
        assert_eq!(names, ["c1", "c2", "c10", "redis9", "redis10"]);
    }

    #[test]
    fn without_violations_it_opens_on_the_whole_run() {
        let (history, _, plan) = paused_holder();
        let d = Drawing::of(&history, &[], &plan, "t");
        assert_eq!(d.focus, [0, 900]);
        assert!(d.violations.is_empty());
    }
}
