//! The pure decisions of the ZooKeeper queue: which children are items and in what order,
//! what a consumer does after each reply, and how a request whose reply was lost is settled.
//! The flawed variants are switches of these decisions.

use super::ITEM_PREFIX;
use crate::recipes::zk::lock::decide::Outcome;
use crate::zk::seq;

/// Which queue the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Offers and takes each create a marker in the same multi, so a lost reply is settled
    /// by looking for the marker; a consumer watches the children only after listing none.
    Recipe,
    /// Claims the head by deleting it, then reads it (Z10): nothing can read a deleted node,
    /// so the item is gone without anyone having it.
    DeleteFirst,
    /// Reads the head, deletes it with a plain delete and takes the item whatever the delete
    /// says (Z10): a NoNode means another consumer deleted it first, and both have it.
    UnconfirmedDelete,
    /// Every listing sets a watch on the queue's children, and a consumer that lost the race
    /// for the head waits on it: each take wakes every consumer that lost the race.
    Herd,
}

/// The queue's items, lowest sequence number first: children named `qn-` + sequence. The
/// one place the queue's order is decided.
pub fn order(children: &[String]) -> Vec<&str> {
    let mut items: Vec<(i64, &str)> = children
        .iter()
        .filter(|c| c.starts_with(ITEM_PREFIX))
        .filter_map(|c| seq::parse(c).map(|n| (n, c.as_str())))
        .collect();
    seq::sort_serial(&mut items);
    items.into_iter().map(|(_, name)| name).collect()
}

/// How a consumer takes the head it chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeSteps {
    /// getData, then a multi of the delete and a marker (the recipe, and the herd).
    ReadThenClaim,
    /// getData, then a plain delete.
    ReadThenDelete,
    /// A plain delete, then getData.
    DeleteThenRead,
}

/// How a consumer of a queue of `flavor` takes a head.
pub fn take_steps(flavor: Flavor) -> TakeSteps {
    match flavor {
        Flavor::Recipe | Flavor::Herd => TakeSteps::ReadThenClaim,
        Flavor::UnconfirmedDelete => TakeSteps::ReadThenDelete,
        Flavor::DeleteFirst => TakeSteps::DeleteThenRead,
    }
}

/// Whether a consumer lists the queue with a watch on its children every time (the herd),
/// rather than only to wait once it listed none.
pub fn always_watches(flavor: Flavor) -> bool {
    flavor == Flavor::Herd
}

/// What a consumer does when the head it tried is gone (another consumer took it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnGone {
    /// Try the next item of the listing (the recipe's "retry with the next on NoNode").
    TryNext,
    /// Wait on the children watch its listing set (the herd): it fires on that very
    /// deletion, for every consumer that lost the race.
    WaitOnChildren,
}

/// What a consumer of a queue of `flavor` does when the head it tried is gone.
pub fn on_gone(flavor: Flavor) -> OnGone {
    match flavor {
        Flavor::Herd => OnGone::WaitOnChildren,
        _ => OnGone::TryNext,
    }
}

/// Where a request that changes the queue stands after its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// It was applied: the item is in the queue (offer) or mine (take).
    Applied,
    /// It was not applied: the node it needed was gone (a take: try the next item).
    Gone,
    /// The reply was lost: look for the marker the request would have created.
    LookForMarker,
    /// Read again: the outcome is known not to be applied for a reason worth retrying.
    Failed,
}

/// What the multi of an offer or of a recipe take (delete + marker) ended in. A failed multi
/// changed nothing: NoNode says the item was taken by someone else.
pub fn after_multi(outcome: Outcome) -> Settled {
    match outcome {
        Outcome::Ok => Settled::Applied,
        Outcome::NoNode => Settled::Gone,
        Outcome::ConnectionLoss => Settled::LookForMarker,
        Outcome::NodeExists | Outcome::Failed => Settled::Failed,
    }
}

/// What a plain delete of the head ended in, for the flawed takes: the unconfirmed delete
/// takes the item whatever the delete says; the delete-first take counts an applied delete
/// as its claim. ConnectionLoss is retried first (`lock::decide::retries`): a NoNode after
/// it is ambiguous (mine, or another's?), which is why the recipe does not delete plainly.
pub fn after_plain_delete(flavor: Flavor, outcome: Outcome) -> Settled {
    match (flavor, outcome) {
        (Flavor::UnconfirmedDelete, Outcome::Ok | Outcome::NoNode) => Settled::Applied,
        (_, Outcome::Ok) => Settled::Applied,
        (_, Outcome::NoNode) => Settled::Gone,
        _ => Settled::Failed,
    }
}

/// After a lost reply: the marker is created in the same multi as the offer's node or the
/// take's delete, and only its owner deletes it, once it knows: so it exists exactly when
/// the request was applied. A request on a connection the session has left is never
/// applied after the session's next request is, so an absent marker stays absent.
pub fn marker_says(present: bool) -> Settled {
    if present {
        Settled::Applied
    } else {
        Settled::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn items_are_ordered_by_sequence_number_and_other_children_left_out() {
        let kids = names(&[
            "qn-0000000012",
            "qn-0000000003",
            "marker",
            "qn-00000x0001",
            "lock-0000000001",
            "qn-0000000010",
        ]);
        assert_eq!(
            order(&kids),
            ["qn-0000000003", "qn-0000000010", "qn-0000000012"]
        );
        assert!(order(&[]).is_empty());
    }

    #[test]
    fn the_recipe_reads_then_claims_and_tries_the_next_item_when_its_head_is_gone() {
        assert_eq!(take_steps(Flavor::Recipe), TakeSteps::ReadThenClaim);
        assert_eq!(take_steps(Flavor::Herd), TakeSteps::ReadThenClaim);
        assert_eq!(
            take_steps(Flavor::UnconfirmedDelete),
            TakeSteps::ReadThenDelete
        );
        assert_eq!(take_steps(Flavor::DeleteFirst), TakeSteps::DeleteThenRead);
        assert_eq!(on_gone(Flavor::Recipe), OnGone::TryNext);
        assert_eq!(on_gone(Flavor::Herd), OnGone::WaitOnChildren);
        assert!(always_watches(Flavor::Herd) && !always_watches(Flavor::Recipe));
    }

    #[test]
    fn a_multi_is_applied_gone_or_settled_by_its_marker() {
        assert_eq!(after_multi(Outcome::Ok), Settled::Applied);
        assert_eq!(after_multi(Outcome::NoNode), Settled::Gone);
        assert_eq!(after_multi(Outcome::ConnectionLoss), Settled::LookForMarker);
        assert_eq!(after_multi(Outcome::Failed), Settled::Failed);
        assert_eq!(marker_says(true), Settled::Applied);
        assert_eq!(marker_says(false), Settled::Failed);
    }

    #[test]
    fn only_the_unconfirmed_delete_takes_an_item_whose_delete_found_no_node() {
        let unconfirmed = |o| after_plain_delete(Flavor::UnconfirmedDelete, o);
        assert_eq!(unconfirmed(Outcome::NoNode), Settled::Applied);
        assert_eq!(unconfirmed(Outcome::Ok), Settled::Applied);
        let first = |o| after_plain_delete(Flavor::DeleteFirst, o);
        assert_eq!(first(Outcome::NoNode), Settled::Gone);
        assert_eq!(first(Outcome::Ok), Settled::Applied);
    }
}
