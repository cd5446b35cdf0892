//! Who holds which role right now, read from the history as it is recorded: each family of
//! events says what its events mean for a client's place in a line (`history::HasRoles`),
//! and this book keeps the lines so a targeted fault can resolve its target when it fires.

use crate::history::{Event, LockMode, RoleEvent};
use crate::sim::fault::{Role, Target};
use std::collections::BTreeMap;

/// One client's place in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    seq: Option<i64>,
    /// When it arrived, for lines without sequence numbers and for ties.
    arrival: u64,
    mode: Option<LockMode>,
    holds: bool,
}

impl Place {
    fn key(&self) -> (i64, u64) {
        (self.seq.unwrap_or(i64::MAX), self.arrival)
    }

    /// Whether it has `role`; `first` says whether it is first in its line.
    fn has(&self, role: Role, first: bool) -> bool {
        match role {
            Role::Holder | Role::Leader => self.holds,
            Role::Waiter => !self.holds,
            Role::Blocked => !self.holds && !first,
            Role::Reader => self.mode == Some(LockMode::Read),
            Role::Writer => self.mode == Some(LockMode::Write),
        }
    }
}

/// The lines of a run, by name, each with its clients' places.
#[derive(Debug, Clone, Default)]
pub struct RoleBook {
    lines: BTreeMap<String, BTreeMap<String, Place>>,
    arrivals: u64,
}

impl RoleBook {
    /// Takes in what `event` says about its node's role.
    pub fn observe(&mut self, event: &Event) {
        let Some(change) = event.role_event() else {
            return;
        };
        let client = event.node.clone();
        match change {
            RoleEvent::Queued { line, seq, mode } => {
                self.arrivals += 1;
                let place = Place {
                    seq,
                    arrival: self.arrivals,
                    mode,
                    holds: false,
                };
                self.lines.entry(line).or_default().insert(client, place);
            }
            RoleEvent::Holds { line } => {
                self.arrivals += 1;
                let arrival = self.arrivals;
                self.lines
                    .entry(line)
                    .or_default()
                    .entry(client)
                    .or_insert(Place {
                        seq: None,
                        arrival,
                        mode: None,
                        holds: false,
                    })
                    .holds = true;
            }
            RoleEvent::Leaves { line } => {
                if let Some(places) = self.lines.get_mut(&line) {
                    places.remove(&client);
                }
            }
            RoleEvent::LeavesAll => {
                for places in self.lines.values_mut() {
                    places.remove(&client);
                }
            }
            RoleEvent::Woken => {}
        }
    }

    /// A line's clients in line order.
    fn in_order(places: &BTreeMap<String, Place>) -> Vec<(&str, &Place)> {
        let mut order: Vec<(&str, &Place)> = places.iter().map(|(c, p)| (c.as_str(), p)).collect();
        order.sort_by_key(|(_, p)| p.key());
        order
    }

    /// The client with `role` and its line: `subject` if it has it, else the first in line
    /// that has it (lines by name).
    fn with_role(&self, role: Role, subject: Option<&str>) -> Option<(&str, &str)> {
        let all: Vec<(&str, &str)> = self
            .lines
            .iter()
            .flat_map(|(line, places)| {
                Self::in_order(places)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, (_, p))| p.has(role, *i == 0))
                    .map(move |(_, (c, _))| (line.as_str(), c))
            })
            .collect();
        all.iter()
            .find(|(_, c)| Some(*c) == subject)
            .or(all.first())
            .copied()
    }

    /// Whom `target` names now, preferring the trigger's `subject`; None: nobody has it.
    pub fn resolve(&self, target: Target, subject: Option<&str>) -> Option<String> {
        let role = |role| self.with_role(role, subject).map(|(_, c)| c.to_string());
        match target {
            Target::Holder => role(Role::Holder),
            Target::Leader => role(Role::Leader),
            Target::Waiter => role(Role::Waiter),
            Target::Blocked => subject
                .filter(|s| self.with_role(Role::Blocked, Some(s)).map(|(_, c)| c) == Some(*s))
                .map(str::to_string),
            Target::Reader => role(Role::Reader),
            Target::Writer => role(Role::Writer),
            Target::PredecessorOf { of } => {
                let (line, client) = self.with_role(of, subject)?;
                let order = Self::in_order(&self.lines[line]);
                let at = order.iter().position(|(c, _)| *c == client)?;
                at.checked_sub(1).map(|i| order[i].0.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{ClientOp, Kind, LockOp, Op};

    fn event(node: &str, kind: Kind, op: Op) -> Event {
        Event {
            time_ms: 0,
            clock_ms: 0,
            node: node.into(),
            kind,
            op,
        }
    }

    fn enqueued(node: &str, seq: i64, mode: Option<LockMode>) -> Event {
        let op = LockOp::Enqueued {
            lock: "/l".into(),
            node: format!("lock-{seq:010}"),
            seq: Some(seq),
            mode,
        };
        event(node, Kind::Info, Op::Lock(op))
    }

    fn acquired(node: &str) -> Event {
        event(node, Kind::Ok, Op::Lock(LockOp::acquire("/l", Some(1))))
    }

    fn book(events: &[Event]) -> RoleBook {
        let mut book = RoleBook::default();
        events.iter().for_each(|e| book.observe(e));
        book
    }

    #[test]
    fn roles_follow_the_line_and_prefer_the_subject() {
        // c3 queued first but with a higher sequence number: line order is c1, c2, c3.
        let b = book(&[
            enqueued("c3", 9, None),
            enqueued("c1", 4, None),
            enqueued("c2", 7, None),
            acquired("c1"),
        ]);
        let resolve = |t, s| b.resolve(t, s);
        assert_eq!(resolve(Target::Holder, None).as_deref(), Some("c1"));
        assert_eq!(resolve(Target::Leader, Some("c3")).as_deref(), Some("c1"));
        assert_eq!(resolve(Target::Waiter, None).as_deref(), Some("c2"));
        assert_eq!(resolve(Target::Waiter, Some("c3")).as_deref(), Some("c3"));
        assert_eq!(
            resolve(Target::Waiter, Some("c1")).as_deref(),
            Some("c2"),
            "the subject holds: the first waiter instead"
        );
        let pred = |of| Target::PredecessorOf { of };
        assert_eq!(
            resolve(pred(Role::Waiter), Some("c3")).as_deref(),
            Some("c2")
        );
        assert_eq!(resolve(pred(Role::Waiter), None).as_deref(), Some("c1"));
        assert_eq!(resolve(pred(Role::Holder), None), None, "first in line");
        assert_eq!(resolve(Target::Blocked, Some("c2")).as_deref(), Some("c2"));
        assert_eq!(resolve(Target::Blocked, Some("c1")), None, "it holds");
        assert_eq!(resolve(Target::Blocked, None), None, "only a subject");
        let b = book(&[enqueued("c1", 1, None), enqueued("c2", 2, None)]);
        assert_eq!(
            b.resolve(Target::Blocked, Some("c1")),
            None,
            "c1 waits first in line: a listing on its way may grant it the lock"
        );
    }

    #[test]
    fn leaving_releasing_and_losing_the_session_empty_places() {
        let mut b = book(&[enqueued("c1", 1, None), enqueued("c2", 2, None)]);
        b.observe(&acquired("c1"));
        let release = Op::Lock(LockOp::Release { lock: "/l".into() });
        b.observe(&event("c1", Kind::Invoke, release));
        assert_eq!(b.resolve(Target::Holder, None), None);
        b.observe(&event("c2", Kind::Invoke, Op::Client(ClientOp::Connect)));
        assert_eq!(b.resolve(Target::Waiter, None), None, "nobody left");
        assert_eq!(
            b.resolve(Target::PredecessorOf { of: Role::Waiter }, None),
            None
        );
    }

    #[test]
    fn readers_and_writers_are_told_by_their_mode() {
        let b = book(&[
            enqueued("c1", 1, Some(LockMode::Write)),
            enqueued("c2", 2, Some(LockMode::Read)),
            enqueued("c3", 3, Some(LockMode::Read)),
        ]);
        assert_eq!(b.resolve(Target::Writer, None).as_deref(), Some("c1"));
        assert_eq!(b.resolve(Target::Reader, None).as_deref(), Some("c2"));
        assert_eq!(b.resolve(Target::Reader, Some("c3")).as_deref(), Some("c3"));
        assert_eq!(
            b.resolve(Target::PredecessorOf { of: Role::Reader }, Some("c3"))
                .as_deref(),
            Some("c2")
        );
    }
}
