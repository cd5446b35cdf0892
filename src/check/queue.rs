//! Queue: every item whose offer succeeded is taken by the end of the run, none is taken
//! twice or without having been offered, and one producer's items are taken in the order it
//! offered them (Z10).
//!
//! What lost replies may do, with the recipe (`recipes::zk::queue`), and so all this checker
//! allows. Each offer and each take is one multi that also creates a marker, which the
//! client looks for after a lost reply, so a lost reply on an offer duplicates nothing and a
//! lost reply on a take's delete loses nothing: the client learns the outcome, on a later
//! session if need be, and the operation completes ok or not at all. What stays unknown is
//! only what the run's end cuts short:
//! - an offer whose outcome is unknown (info, or never completed) may have put its item in
//!   the queue or not: its item need not be taken, and may be taken once;
//! - a take whose outcome is unknown (info, or never completed) may have removed the item
//!   it last claimed (`Claim`) without anyone taking it ok: that item need not be taken.
//!   A claim is settled, and excuses nothing, once the same client takes an item, claims
//!   another, or lists the queue empty.
//!
//! Nothing else: an item taken ok twice is a violation whatever the replies did, as is an
//! item taken that was never offered or whose every offer failed.
//!
//! Order: if a producer's offer of `a` completed ok before its offer of `b` began, `b` must
//! not be taken ok before a take of `a` began (history order). That is what a queue can
//! promise to consumers racing each other: the recipe deletes `a` before `b`, since a
//! consumer that lists `b` lists `a` too, and lower.
//!
//! Loss is judged at the run's end (its End marker), after the heal phase and the run's
//! room for every item to go through; a history without an End marker has not ended, and
//! no item in it is lost yet.

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{Event, HarnessOp, History, Kind, Op, QueueOp};
use std::collections::BTreeMap;

/// What happened to one item.
#[derive(Debug, Default)]
struct Fate<'a> {
    /// Its offers: (producer, invoke index, outcome and its index; None if never completed).
    offers: Vec<Offer<'a>>,
    /// Its takes that completed ok: (consumer, invoke index, ok index).
    takes: Vec<Take<'a>>,
    /// A take of unknown outcome may have removed it.
    excused: bool,
}

#[derive(Debug)]
struct Offer<'a> {
    producer: &'a str,
    invoked: usize,
    completed: Option<(Kind, usize)>,
}

#[derive(Debug, Clone, Copy)]
struct Take<'a> {
    consumer: &'a str,
    invoked: usize,
    ok: usize,
}

/// Violations in this order: items taken twice, items taken never offered, items lost
/// (each by item name), then order inversions by producer and offer order.
pub fn check(history: &History) -> Vec<Violation> {
    let events = &history.events;
    let mut fates: BTreeMap<&str, Fate> = BTreeMap::new();
    // client -> the index of its open offer / take invoke
    let mut open_offers: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    let mut open_takes: BTreeMap<&str, usize> = BTreeMap::new();
    // client -> the item its open take last claimed
    let mut claims: BTreeMap<&str, &str> = BTreeMap::new();
    let mut ended = false;
    for (index, event) in events.iter().enumerate() {
        let client = event.node.as_str();
        match (&event.op, event.kind) {
            (Op::Harness(HarnessOp::End), _) => {
                ended = true;
                break;
            }
            (Op::Queue(QueueOp::Offer { item, .. }), Kind::Invoke) => {
                open_offers.insert(client, (index, item));
            }
            (Op::Queue(QueueOp::Offer { .. }), kind) => {
                if let Some((invoked, item)) = open_offers.remove(client) {
                    fates.entry(item).or_default().offers.push(Offer {
                        producer: client,
                        invoked,
                        completed: Some((kind, index)),
                    });
                }
            }
            (Op::Queue(QueueOp::Take { .. }), Kind::Invoke) => {
                open_takes.insert(client, index);
            }
            (Op::Queue(QueueOp::Take { item, .. }), kind) => {
                let invoked = open_takes.remove(client);
                let claimed = claims.remove(client);
                match (kind, item, invoked) {
                    (Kind::Ok, Some(item), Some(invoked)) => {
                        fates.entry(item).or_default().takes.push(Take {
                            consumer: client,
                            invoked,
                            ok: index,
                        });
                    }
                    (Kind::Info, _, _) => {
                        if let Some(claimed) = claimed {
                            fates.entry(claimed).or_default().excused = true;
                        }
                    }
                    _ => {}
                }
            }
            (Op::Queue(QueueOp::Claim { item, .. }), _) if open_takes.contains_key(client) => {
                claims.insert(client, item);
            }
            (Op::Queue(QueueOp::Empty { .. }), _) => {
                claims.remove(client);
            }
            _ => {}
        }
    }
    for (producer, (invoked, item)) in open_offers {
        fates.entry(item).or_default().offers.push(Offer {
            producer,
            invoked,
            completed: None,
        });
    }
    for item in claims.into_values() {
        fates.entry(item).or_default().excused = true;
    }
    let mut violations = Vec::new();
    violations.extend(twice(events, &fates));
    violations.extend(never_offered(events, &fates));
    if ended {
        violations.extend(lost(events, history.end_ms(), &fates));
    }
    violations.extend(out_of_order(events, &fates));
    violations
}

fn time(events: &[Event], index: usize) -> u64 {
    events[index].time_ms
}

fn twice(events: &[Event], fates: &BTreeMap<&str, Fate>) -> Vec<Violation> {
    fates
        .iter()
        .filter(|(_, fate)| fate.takes.len() > 1)
        .map(|(item, fate)| {
            let by: Vec<String> = fate
                .takes
                .iter()
                .map(|t| format!("{} at {} ms", t.consumer, time(events, t.ok)))
                .collect();
            Violation {
                property: Property::QUEUE,
                detail: format!(
                    "item {item} taken {} times: by {}",
                    fate.takes.len(),
                    by.join(", ")
                ),
                clients: fate.takes.iter().map(|t| t.consumer.to_string()).collect(),
                times_ms: fate.takes.iter().map(|t| time(events, t.ok)).collect(),
            }
        })
        .collect()
}

fn never_offered(events: &[Event], fates: &BTreeMap<&str, Fate>) -> Vec<Violation> {
    let failed = |o: &Offer| matches!(o.completed, Some((Kind::Fail, _)));
    fates
        .iter()
        .filter(|(_, fate)| !fate.takes.is_empty() && fate.offers.iter().all(failed))
        .map(|(item, fate)| {
            let take = fate.takes[0];
            let why = if fate.offers.is_empty() {
                "never offered"
            } else {
                "whose offer failed"
            };
            Violation {
                property: Property::QUEUE,
                detail: format!(
                    "item {item}, {why}, taken by {} at {} ms",
                    take.consumer,
                    time(events, take.ok)
                ),
                clients: vec![take.consumer.to_string()],
                times_ms: vec![time(events, take.ok)],
            }
        })
        .collect()
}

fn lost(events: &[Event], end_ms: u64, fates: &BTreeMap<&str, Fate>) -> Vec<Violation> {
    fates
        .iter()
        .filter(|(_, fate)| fate.takes.is_empty() && !fate.excused)
        .filter_map(|(item, fate)| {
            let offer = fate
                .offers
                .iter()
                .find(|o| matches!(o.completed, Some((Kind::Ok, _))))?;
            let (_, ok) = offer.completed?;
            Some(Violation {
                property: Property::QUEUE,
                detail: format!(
                    "item {item}, offered by {} (ok at {} ms), never taken by the end at \
                     {end_ms} ms",
                    offer.producer,
                    time(events, ok)
                ),
                clients: vec![offer.producer.to_string()],
                times_ms: vec![time(events, ok), end_ms],
            })
        })
        .collect()
}

fn out_of_order(events: &[Event], fates: &BTreeMap<&str, Fate>) -> Vec<Violation> {
    // producer -> its items offered ok: (offer invoke, offer ok, item), in offer order
    let mut offered: BTreeMap<&str, Vec<(usize, usize, &str)>> = BTreeMap::new();
    for (item, fate) in fates {
        for offer in &fate.offers {
            if let Some((Kind::Ok, ok)) = offer.completed {
                offered
                    .entry(offer.producer)
                    .or_default()
                    .push((offer.invoked, ok, item));
            }
        }
    }
    let mut violations = Vec::new();
    for (producer, mut items) in offered {
        items.sort();
        for (i, &(_, a_ok, a)) in items.iter().enumerate() {
            let Some(a_take) = fates[a].takes.first() else {
                continue;
            };
            for &(b_invoked, _, b) in &items[i + 1..] {
                let Some(b_take) = fates[b].takes.first() else {
                    continue;
                };
                if a_ok < b_invoked && b_take.ok < a_take.invoked {
                    violations.push(Violation {
                        property: Property::QUEUE,
                        detail: format!(
                            "{producer} offered {a} before {b}, but {b} was taken by {} at \
                             {} ms, before {} began taking {a} at {} ms",
                            b_take.consumer,
                            time(events, b_take.ok),
                            a_take.consumer,
                            time(events, a_take.invoked)
                        ),
                        clients: vec![b_take.consumer.to_string(), a_take.consumer.to_string()],
                        times_ms: vec![time(events, b_take.ok), time(events, a_take.invoked)],
                    });
                }
            }
        }
    }
    violations
}

/// The `queue` property's checker.
pub struct QueueChecker;

impl Checker for QueueChecker {
    fn property(&self) -> Property {
        Property::QUEUE
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Queue, Reads::Harness]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;

    const Q: &str = "/q";

    fn offer(item: &str) -> Op {
        Op::Queue(QueueOp::Offer {
            queue: Q.into(),
            item: item.into(),
        })
    }

    fn take() -> Op {
        Op::Queue(QueueOp::take(Q))
    }

    fn taken(item: &str) -> Op {
        Op::Queue(QueueOp::Take {
            queue: Q.into(),
            item: Some(item.into()),
            node: Some(format!("qn-{item}")),
        })
    }

    fn claim(item: &str) -> Op {
        Op::Queue(QueueOp::Claim {
            queue: Q.into(),
            item: item.into(),
            node: format!("qn-{item}"),
        })
    }

    fn empty() -> Op {
        Op::Queue(QueueOp::Empty { queue: Q.into() })
    }

    fn end() -> Op {
        Op::Harness(HarnessOp::End)
    }

    /// p1 offers a then b; c1 takes a, then b.
    fn good() -> HistoryBuilder {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(6, "p1").invoke(offer("b"));
        h.at(10, "p1").ok(offer("b"));
        h.at(11, "c1").invoke(take());
        h.at(12, "c1").info(claim("a"));
        h.at(15, "c1").ok(taken("a"));
        h.at(16, "c1").invoke(take());
        h.at(17, "c1").info(claim("b"));
        h.at(20, "c1").ok(taken("b"));
        h
    }

    #[test]
    fn every_item_taken_once_in_order_is_fine() {
        let mut h = good();
        h.at(100, "harness").info(end());
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn an_item_taken_twice_is_a_violation() {
        let mut h = good();
        h.at(21, "c2").invoke(take());
        h.at(22, "c2").info(claim("a"));
        h.at(26, "c2").ok(taken("a"));
        h.at(100, "harness").info(end());
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].property, Property::QUEUE);
        assert_eq!(
            v[0].detail,
            "item a taken 2 times: by c1 at 15 ms, c2 at 26 ms"
        );
        assert_eq!(v[0].clients, ["c1", "c2"]);
        assert_eq!(v[0].times_ms, [15, 26]);
    }

    #[test]
    fn an_item_twice_is_a_violation_even_when_its_offer_was_unknown() {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").info(offer("a"));
        h.at(10, "c1").invoke(take());
        h.at(11, "c2").invoke(take());
        h.at(15, "c1").ok(taken("a"));
        h.at(16, "c2").ok(taken("a"));
        h.at(100, "harness").info(end());
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].detail.starts_with("item a taken 2 times"), "{v:?}");
    }

    #[test]
    fn an_item_never_offered_or_whose_offer_failed_must_not_be_taken() {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").fail(offer("a"));
        h.at(10, "c1").invoke(take());
        h.at(15, "c1").ok(taken("a"));
        h.at(16, "c1").invoke(take());
        h.at(20, "c1").ok(taken("z"));
        let v = check(&h.build());
        let details: Vec<&str> = v.iter().map(|v| v.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "item a, whose offer failed, taken by c1 at 15 ms",
                "item z, never offered, taken by c1 at 20 ms"
            ]
        );
    }

    #[test]
    fn an_item_offered_ok_and_never_taken_is_lost_at_the_end() {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(10, "c1").invoke(take());
        h.at(11, "c1").info(empty());
        assert_eq!(check(&h.build()), [], "not lost before the run ends");
        h.at(900, "harness").info(end());
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(
            v[0].detail,
            "item a, offered by p1 (ok at 5 ms), never taken by the end at 900 ms"
        );
        assert_eq!(v[0].times_ms, [5, 900]);
    }

    #[test]
    fn an_item_whose_offer_is_unknown_need_not_be_taken_but_may_be_once() {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").info(offer("a"));
        h.at(6, "p2").invoke(offer("b"));
        h.at(10, "c1").invoke(take());
        h.at(15, "c1").ok(taken("b"));
        h.at(900, "harness").info(end());
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_take_left_unknown_excuses_only_the_item_it_last_claimed() {
        // c1 claims a and the run ends before its take completes: a may be gone.
        let mut h = HistoryBuilder::default();
        for (t, item) in [(0, "a"), (6, "b")] {
            h.at(t, "p1").invoke(offer(item));
            h.at(t + 5, "p1").ok(offer(item));
        }
        h.at(20, "c1").invoke(take());
        h.at(21, "c1").info(claim("b"));
        h.at(22, "c1").info(claim("a"));
        h.at(900, "harness").info(end());
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].detail.starts_with("item b,"), "{v:?}");

        // A take that ended info excuses its claim too.
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(20, "c1").invoke(take());
        h.at(21, "c1").info(claim("a"));
        h.at(25, "c1").info(take());
        h.at(900, "harness").info(end());
        assert_eq!(check(&h.build()), []);
    }

    #[test]
    fn a_claim_settled_by_an_empty_listing_or_a_completed_take_excuses_nothing() {
        let mut h = HistoryBuilder::default();
        for (t, item) in [(0, "a"), (6, "b")] {
            h.at(t, "p1").invoke(offer(item));
            h.at(t + 5, "p1").ok(offer(item));
        }
        h.at(20, "c1").invoke(take());
        h.at(21, "c1").info(claim("a"));
        h.at(22, "c1").info(empty());
        h.at(30, "c2").invoke(take());
        h.at(31, "c2").info(claim("b"));
        h.at(32, "c2").ok(taken("b"));
        h.at(33, "c2").invoke(take());
        h.at(900, "harness").info(end());
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].detail.starts_with("item a,"), "{v:?}");
    }

    #[test]
    fn a_producers_later_item_taken_before_its_earlier_one_was_asked_for_is_out_of_order() {
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(6, "p1").invoke(offer("b"));
        h.at(10, "p1").ok(offer("b"));
        h.at(11, "c1").invoke(take());
        h.at(15, "c1").ok(taken("b"));
        h.at(16, "c2").invoke(take());
        h.at(20, "c2").ok(taken("a"));
        let v = check(&h.build());
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(
            v[0].detail,
            "p1 offered a before b, but b was taken by c1 at 15 ms, before c2 began taking \
             a at 16 ms"
        );
        assert_eq!(v[0].clients, ["c1", "c2"]);
    }

    #[test]
    fn takes_that_overlap_or_offers_that_overlap_are_in_no_order() {
        // c2 began taking a before b's take completed: either may have come first.
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(6, "p1").invoke(offer("b"));
        h.at(10, "p1").ok(offer("b"));
        h.at(11, "c1").invoke(take());
        h.at(12, "c2").invoke(take());
        h.at(15, "c1").ok(taken("b"));
        h.at(20, "c2").ok(taken("a"));
        assert_eq!(check(&h.build()), []);
        // Two producers' items are in no order either.
        let mut h = HistoryBuilder::default();
        h.at(0, "p1").invoke(offer("a"));
        h.at(5, "p1").ok(offer("a"));
        h.at(6, "p2").invoke(offer("b"));
        h.at(10, "p2").ok(offer("b"));
        h.at(11, "c1").invoke(take());
        h.at(15, "c1").ok(taken("b"));
        h.at(16, "c1").invoke(take());
        h.at(20, "c1").ok(taken("a"));
        assert_eq!(check(&h.build()), []);
    }
}
