//! The protected resource: the register never accepts a write whose writer read a value that
//! was no longer current. Such a write silently destroys the update in between (a lost
//! update) — what a lock exists to prevent, and what fencing tokens stop at the resource
//! even when the lock itself failed (R1, R3, Z2).

use super::{CheckConfig, Checker, Property, Reads, Violation};
use crate::history::{History, Op, StoreOp};

/// One violation per accepted stale write; `times_ms` is the time the store accepted it.
pub fn check(history: &History) -> Vec<Violation> {
    history
        .events
        .iter()
        .filter_map(|event| match &event.op {
            Op::Store(StoreOp::StoreWrite {
                client,
                based_on,
                current,
                value,
                accepted: true,
                ..
            }) if based_on != current => Some(Violation {
                property: Property::RESOURCE,
                clients: vec![client.clone()],
                times_ms: vec![event.time_ms],
                detail: format!(
                    "{client}'s write of {value} was accepted at {} ms although it read {based_on} \
                     and the register held {current} (lost update)",
                    event.time_ms
                ),
            }),
            _ => None,
        })
        .collect()
}

/// The `resource` property's checker.
pub struct Resource;

impl Checker for Resource {
    fn property(&self) -> Property {
        Property::RESOURCE
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Store]
    }

    fn check(&self, history: &History, _cfg: &CheckConfig) -> Vec<Violation> {
        check(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::*;

    #[test]
    fn accepted_stale_write_is_a_lost_update() {
        // R1: c2 wrote 6 over 5 at 10300; c1 wakes from its pause and writes 6 over its stale 5.
        let mut h = HistoryBuilder::default();
        h.at(10_300, "store").info(store_write("c2", 5, 5, 6, true));
        h.at(15_100, "store").info(store_write("c1", 5, 6, 6, true));
        let v = check(&h.build());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].property, Property::RESOURCE);
        assert_eq!(v[0].clients, ["c1"]);
        assert_eq!(v[0].times_ms, [15_100]);
        assert_eq!(
            v[0].detail,
            "c1's write of 6 was accepted at 15100 ms although it read 5 and the register held 6 \
             (lost update)"
        );
    }

    #[test]
    fn rejected_stale_write_and_fresh_writes_are_fine() {
        // Fencing: the same stale write, rejected by its token, is not a lost update.
        let mut h = HistoryBuilder::default();
        h.at(10_300, "store").info(store_write("c2", 5, 5, 6, true));
        h.at(15_100, "store")
            .info(store_write("c1", 5, 6, 6, false));
        h.at(15_200, "store").info(store_write("c1", 6, 6, 7, true));
        assert_eq!(check(&h.build()), []);
    }
}
