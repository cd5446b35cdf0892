//! The pure decisions of the ZooKeeper lock recipes, shared by the async driver and the
//! stateright models: given my node and a listing of the lock directory, what next; and what
//! to do when a reply is lost, a predecessor is already gone, a watch or session event
//! arrives, or a delete fails. The flawed variants are switches of these decisions.

use crate::history::LockMode;
use crate::recipes::zk::rwlock;
use crate::zk::proto::{EventType, KeeperState};
use crate::zk::seq;

/// Which lock the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipes-doc lock with GUID names and predecessor watches.
    Recipe,
    /// Waiters watch the directory's children: every change wakes every waiter.
    Herd,
    /// One fixed ephemeral node; losers watch it and race to recreate it.
    Simple,
    /// After ConnectionLoss on create, creates again without looking for its node.
    NoGuid,
    /// Orders the directory by whole name instead of by sequence number (Z5): with GUID
    /// prefixes, name order is not queue order, and a newcomer whose name sorts first
    /// takes the lock from its holder.
    NameSort,
    /// Forgets its node when the delete fails with ConnectionLoss instead of retrying it
    /// (Z7, CURATOR-678): a delete that was never applied leaves the node of a live session
    /// blocking everyone behind it.
    ReleaseForgets,
    /// Takes a session event on its predecessor's watch (Disconnected, SyncConnected) for
    /// the predecessor's deletion, and the lock for its own without looking again (Z8).
    SessionEvent,
    /// Orders the line by sequence number as a plain integer (kazoo #606, #730): once the
    /// counter wraps past 2³¹−1 the newest node, numbered −2³¹, sorts first and takes the
    /// lock from its holder (Z6).
    IntSort,
    /// Takes a predecessor already gone at `exists` for the lock being its own, instead of
    /// listing again (Z4): whoever was ahead of that predecessor may still hold it.
    Vanished,
    /// After ConnectionLoss on its create, gives up the session for a new one (as a client
    /// does that treats a lost connection as a lost session) and resumes with the same
    /// protected GUID, adopting the node its old session created: a node the server deletes
    /// when that abandoned session expires (Z13, CURATOR-604).
    StaleSession,
    /// After ConnectionLoss on its create, looks for its GUID without `sync` first (Z15, the
    /// recipe as the seeds wrote it): on a follower that has not applied the create yet the
    /// lookup misses, a second create orphans the first, and the orphan, owned by a live
    /// session, blocks everyone behind it.
    NoSync,
}

/// How a request ended, as far as the recipe's decisions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It was applied.
    Ok,
    /// The node it names does not exist.
    NoNode,
    /// The node it creates exists already.
    NodeExists,
    /// ConnectionLoss or a timeout: the request may or may not have been applied, and the
    /// session may still live.
    ConnectionLoss,
    /// Anything else, the session's end included: the driver gives up with it.
    Failed,
}

/// What a contender queues for: the exclusive lock, or one mode of the shared lock (whose
/// decisions are `rwlock`'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// A contender for the exclusive lock.
    Exclusive,
    /// A contender for the shared lock in this mode (read or write), running that `rwlock`
    /// flavor.
    Shared(LockMode, rwlock::Flavor),
}

impl Contender {
    /// Its lock node's name prefix (after the GUID).
    pub fn prefix(self) -> &'static str {
        match self {
            Contender::Exclusive => "lock-",
            Contender::Shared(mode, _) => rwlock::prefix(mode),
        }
    }

    /// The shared lock's mode it queues for; None for the exclusive lock.
    pub fn mode(self) -> Option<LockMode> {
        match self {
            Contender::Exclusive => None,
            Contender::Shared(mode, _) => Some(mode),
        }
    }

    /// What it does after listing the lock directory, running a lock of `flavor`.
    pub fn decide(self, flavor: Flavor, my_node: &str, children: &[String]) -> Decision {
        match self {
            Contender::Exclusive if flavor == Flavor::NameSort => {
                let mut by_name: Vec<String> = children.to_vec();
                by_name.sort();
                let seq = |i: usize| i64::try_from(i).unwrap_or(i64::MAX);
                let q: Vec<(i64, &str)> = by_name
                    .iter()
                    .filter(|c| seq::parse(c).is_some())
                    .enumerate()
                    .map(|(i, c)| (seq(i), c.as_str()))
                    .collect();
                in_line(&q, my_node)
            }
            Contender::Exclusive if flavor == Flavor::IntSort => {
                let mut q = numbered(children);
                q.sort();
                in_line(&q, my_node)
            }
            Contender::Exclusive => decide(my_node, children),
            Contender::Shared(mode, flavor) => rwlock::decide(flavor, mode, my_node, children),
        }
    }
}

/// What a contender does after listing the lock directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// My node has the lowest sequence number: I hold the lock.
    Acquired,
    /// Watch this node (the next lower one, or for a herd the directory) and look again
    /// when it changes.
    WatchPredecessor(String),
    /// My node is not in the listing (its session ended): start over with a new session.
    NodeGone,
}

/// Children that look like lock nodes, in serial order of their sequence numbers (never by
/// name: prefixes differ between sessions, so name order is not queue order; never as plain
/// integers: after the counter wraps, the newest number is the smallest).
pub fn queue(children: &[String]) -> Vec<(i64, &str)> {
    let mut q = numbered(children);
    seq::sort_serial(&mut q);
    q
}

/// Children that look like lock nodes, with their sequence numbers, in listing order.
fn numbered(children: &[String]) -> Vec<(i64, &str)> {
    children
        .iter()
        .filter_map(|c| seq::parse(c).map(|s| (s, c.as_str())))
        .collect()
}

/// The recipes-doc decision: lowest node holds the lock; everyone else watches the node
/// just below its own, so one release wakes exactly one waiter.
pub fn decide(my_node: &str, children: &[String]) -> Decision {
    in_line(&queue(children), my_node)
}

/// The lock's decision for `my_node` in the line `q`, lowest first.
fn in_line(q: &[(i64, &str)], my_node: &str) -> Decision {
    match q.iter().position(|(_, name)| *name == my_node) {
        None => Decision::NodeGone,
        Some(0) => Decision::Acquired,
        Some(i) => Decision::WatchPredecessor(q[i - 1].1.to_string()),
    }
}

/// What to do after a request whose outcome is only ConnectionLoss: retry it once
/// reconnected (a read, or a delete: forgetting a node whose delete failed would orphan it,
/// bug Z7), or, for the create of my node, what `after_create` says.
pub fn retries(outcome: Outcome) -> bool {
    outcome == Outcome::ConnectionLoss
}

/// Whether a lock of `flavor` brings its server up to date (`sync`) before it looks for
/// its GUID after a lost create reply: the recipe does. `NoSync` is the recipe without it
/// (Z15); the other flawed variants look as the seeds wrote them, unsynced, so their
/// committed single-server traces replay unchanged (on an ensemble they can show Z15 too).
pub fn syncs_before_lookup(flavor: Flavor) -> bool {
    flavor == Flavor::Recipe
}

/// What a contender does after the create of its sequential node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterCreate {
    /// The node exists: I am in line.
    Enqueued,
    /// The reply was lost, the create perhaps applied: list the directory and look for the
    /// child carrying my GUID before creating again (the recipe).
    LookForGuid,
    /// Create again without looking (`NoGuid`): an applied create is orphaned, and its node,
    /// owned by my live session, blocks everyone behind it.
    CreateAgain,
    /// Give up with the error.
    Fail,
}

/// The step after the create of my node ended in `outcome`, running a lock of `flavor`.
pub fn after_create(flavor: Flavor, outcome: Outcome) -> AfterCreate {
    match outcome {
        Outcome::Ok => AfterCreate::Enqueued,
        Outcome::ConnectionLoss if flavor == Flavor::NoGuid => AfterCreate::CreateAgain,
        Outcome::ConnectionLoss => AfterCreate::LookForGuid,
        _ => AfterCreate::Fail,
    }
}

/// Whether a contender lists the directory with a watch on its children (the herd flaw: every
/// change wakes every waiter) instead of watching its predecessor alone.
pub fn watches_children(flavor: Flavor) -> bool {
    flavor == Flavor::Herd
}

/// What a waiter does after `exists` with a watch on its predecessor: wait for the watch if
/// the node was there; if it is already gone the watch will never fire, so list again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterExists {
    /// The predecessor is there: wait for its watch.
    Wait,
    /// The predecessor is gone already: list the directory again.
    ListAgain,
}

/// The step after `exists` found the predecessor `present` or not.
pub fn after_predecessor_exists(present: bool) -> AfterExists {
    if present {
        AfterExists::Wait
    } else {
        AfterExists::ListAgain
    }
}

/// Whether a waiter of `flavor` whose predecessor was already gone at `exists` holds the
/// lock without listing again: only the `Vanished` flaw.
pub fn gone_predecessor_is_held(flavor: Flavor) -> bool {
    flavor == Flavor::Vanished
}

/// Whether a lock of `flavor` gives its session up after a create that ended in `outcome`,
/// to go on in a new one: only the `StaleSession` flaw, on ConnectionLoss.
pub fn abandons_session(flavor: Flavor, outcome: Outcome) -> bool {
    flavor == Flavor::StaleSession && outcome == Outcome::ConnectionLoss
}

/// Whether a lock of `flavor` keeps its GUID for a create across sessions, looking for it
/// in a new session before creating: only the `StaleSession` flaw. The recipe makes a new
/// GUID per create, so only a node of its own live session ever carries it.
pub fn carries_guid(flavor: Flavor) -> bool {
    flavor == Flavor::StaleSession
}

/// What an event means to a client waiting on a watch or holding the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnEvent {
    /// A session event that ends nothing (Disconnected, SyncConnected): keep waiting. Taking
    /// it for a deletion would let a waiter skip its turn (bug Z8).
    Ignore,
    /// A node event: look at the directory again.
    Woken,
    /// The session expired or was closed: whatever it held is gone.
    SessionLost,
}

/// What an event of `event_type` in session state `state` means (see [`OnEvent`]).
pub fn on_event(event_type: EventType, state: KeeperState) -> OnEvent {
    match (event_type, state) {
        (EventType::None, KeeperState::Expired | KeeperState::Closed) => OnEvent::SessionLost,
        (EventType::None, _) => OnEvent::Ignore,
        _ => OnEvent::Woken,
    }
}

/// After the delete of my node (ConnectionLoss is retried first, see `retries`): released if
/// it went or was already gone (its session's end took it).
pub fn released(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Ok | Outcome::NoNode)
}

/// Whether a lock of `flavor` forgets its node after a delete that ended in `outcome`,
/// before any retry: only the `ReleaseForgets` flaw, on ConnectionLoss.
pub fn forgets_node(flavor: Flavor, outcome: Outcome) -> bool {
    flavor == Flavor::ReleaseForgets && outcome == Outcome::ConnectionLoss
}

/// Whether a waiter of `flavor` takes this event on its predecessor's watch for the
/// predecessor's deletion and holds the lock at once: only the `SessionEvent` flaw, on a
/// session event that ends nothing (`on_event` ignores those).
pub fn takes_for_deletion(flavor: Flavor, event_type: EventType, state: KeeperState) -> bool {
    flavor == Flavor::SessionEvent && on_event(event_type, state) == OnEvent::Ignore
}

/// What a `Simple` contender does after its create of the one lock node failed and `exists`
/// with a watch looked at the node: `owner` is the node's ephemeral owner, if it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimpleNext {
    /// The node is mine, from a create whose reply was lost and that was retried: I hold it.
    Hold,
    /// Someone else's: wait for the watch.
    Wait,
    /// Gone meanwhile: race to create it again.
    CreateAgain,
}

/// The step of a `Simple` contender whose session is `my_session`, once `exists` found the
/// lock node owned by `owner` (None: not there).
pub fn simple_next(owner: Option<i64>, my_session: i64) -> SimpleNext {
    match owner {
        Some(owner) if owner == my_session => SimpleNext::Hold,
        Some(_) => SimpleNext::Wait,
        None => SimpleNext::CreateAgain,
    }
}

/// After a lost create reply: my node, if the create was applied, is the child that
/// carries my GUID.
pub fn find_own<'a>(children: &'a [String], guid: &str) -> Option<&'a str> {
    children
        .iter()
        .map(String::as_str)
        .find(|c| c.starts_with(guid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lowest_acquires_others_watch_next_lower_not_the_lowest() {
        let kids = names(&[
            "b-lock-0000000012",
            "a-lock-0000000010",
            "z-lock-0000000011",
        ]);
        assert_eq!(decide("a-lock-0000000010", &kids), Decision::Acquired);
        assert_eq!(
            decide("b-lock-0000000012", &kids),
            Decision::WatchPredecessor("z-lock-0000000011".into())
        );
        assert_eq!(decide("q-lock-0000000001", &kids), Decision::NodeGone);
    }

    #[test]
    fn name_order_is_not_queue_order() {
        // Sorting by full name would make "a-...12" the owner (ZOOKEEPER-2931).
        let kids = names(&["z-lock-0000000003", "a-lock-0000000012"]);
        assert_eq!(decide("z-lock-0000000003", &kids), Decision::Acquired);
    }

    #[test]
    fn gaps_and_shared_counters_do_not_matter() {
        let kids = names(&["read-0000000001", "write-0000000004", "x-lock-0000000009"]);
        assert_eq!(
            decide("x-lock-0000000009", &kids),
            Decision::WatchPredecessor("write-0000000004".into())
        );
    }

    #[test]
    fn a_lost_create_reply_looks_for_the_guid_unless_the_flaw_creates_again() {
        for flavor in [Flavor::Recipe, Flavor::Herd, Flavor::Simple] {
            assert_eq!(
                after_create(flavor, Outcome::ConnectionLoss),
                AfterCreate::LookForGuid
            );
        }
        assert_eq!(
            after_create(Flavor::NoGuid, Outcome::ConnectionLoss),
            AfterCreate::CreateAgain
        );
        assert_eq!(
            after_create(Flavor::NoGuid, Outcome::Ok),
            AfterCreate::Enqueued
        );
        assert_eq!(
            after_create(Flavor::Recipe, Outcome::Failed),
            AfterCreate::Fail
        );
    }

    #[test]
    fn only_the_herd_watches_the_children_and_a_gone_predecessor_means_list_again() {
        assert!(watches_children(Flavor::Herd));
        assert!(!watches_children(Flavor::Recipe) && !watches_children(Flavor::NoGuid));
        assert_eq!(after_predecessor_exists(true), AfterExists::Wait);
        assert_eq!(after_predecessor_exists(false), AfterExists::ListAgain);
    }

    #[test]
    fn session_events_other_than_the_end_are_not_a_wake_up() {
        assert_eq!(
            on_event(EventType::None, KeeperState::Disconnected),
            OnEvent::Ignore
        );
        assert_eq!(
            on_event(EventType::None, KeeperState::SyncConnected),
            OnEvent::Ignore
        );
        assert_eq!(
            on_event(EventType::None, KeeperState::Expired),
            OnEvent::SessionLost
        );
        assert_eq!(
            on_event(EventType::None, KeeperState::Closed),
            OnEvent::SessionLost
        );
        assert_eq!(
            on_event(EventType::NodeDeleted, KeeperState::SyncConnected),
            OnEvent::Woken
        );
    }

    #[test]
    fn a_delete_is_retried_through_connection_loss_and_done_when_the_node_is_gone() {
        assert!(retries(Outcome::ConnectionLoss));
        assert!(!retries(Outcome::NoNode) && !retries(Outcome::Failed));
        assert!(released(Outcome::Ok) && released(Outcome::NoNode));
        assert!(!released(Outcome::Failed));
    }

    #[test]
    fn the_simple_lock_holds_its_own_node_waits_on_another_and_races_for_a_gone_one() {
        assert_eq!(simple_next(Some(7), 7), SimpleNext::Hold);
        assert_eq!(simple_next(Some(8), 7), SimpleNext::Wait);
        assert_eq!(simple_next(None, 7), SimpleNext::CreateAgain);
    }

    #[test]
    fn sorting_by_name_puts_a_newcomer_whose_name_sorts_first_ahead_of_the_holder() {
        let kids = names(&["z-lock-0000000003", "a-lock-0000000012"]);
        let by_name = |me| Contender::Exclusive.decide(Flavor::NameSort, me, &kids);
        assert_eq!(by_name("a-lock-0000000012"), Decision::Acquired);
        assert_eq!(
            by_name("z-lock-0000000003"),
            Decision::WatchPredecessor("a-lock-0000000012".into())
        );
        let by_seq = |me| Contender::Exclusive.decide(Flavor::Recipe, me, &kids);
        assert_eq!(by_seq("z-lock-0000000003"), Decision::Acquired);
    }

    #[test]
    fn past_the_counter_wrap_the_recipe_keeps_line_order_and_a_plain_integer_sort_does_not() {
        let kids = names(&[
            "c-lock--2147483647",
            "a-lock-2147483646",
            "d-lock--2147483648",
            "b-lock-2147483647",
        ]);
        let recipe = |me| Contender::Exclusive.decide(Flavor::Recipe, me, &kids);
        assert_eq!(recipe("a-lock-2147483646"), Decision::Acquired);
        assert_eq!(
            recipe("d-lock--2147483648"),
            Decision::WatchPredecessor("b-lock-2147483647".into())
        );
        let plain = |me| Contender::Exclusive.decide(Flavor::IntSort, me, &kids);
        assert_eq!(plain("d-lock--2147483648"), Decision::Acquired);
        assert_eq!(
            plain("a-lock-2147483646"),
            Decision::WatchPredecessor("c-lock--2147483647".into())
        );
    }

    #[test]
    fn only_the_flaws_forget_a_node_or_take_a_session_event_for_a_deletion() {
        for flavor in [
            Flavor::Recipe,
            Flavor::Herd,
            Flavor::NoGuid,
            Flavor::SessionEvent,
        ] {
            assert!(!forgets_node(flavor, Outcome::ConnectionLoss), "{flavor:?}");
        }
        assert!(forgets_node(
            Flavor::ReleaseForgets,
            Outcome::ConnectionLoss
        ));
        assert!(!forgets_node(Flavor::ReleaseForgets, Outcome::Failed));
        let (none, deleted) = (EventType::None, EventType::NodeDeleted);
        let flaw = |t, s| takes_for_deletion(Flavor::SessionEvent, t, s);
        assert!(flaw(none, KeeperState::Disconnected) && flaw(none, KeeperState::SyncConnected));
        assert!(
            !flaw(none, KeeperState::Expired),
            "the end of the session is no deletion"
        );
        assert!(
            !flaw(deleted, KeeperState::SyncConnected),
            "a real deletion is looked at"
        );
        assert!(!takes_for_deletion(
            Flavor::Recipe,
            none,
            KeeperState::Disconnected
        ));
    }

    #[test]
    fn only_the_flaws_hold_on_a_gone_predecessor_or_carry_a_guid_to_a_new_session() {
        for flavor in [Flavor::Recipe, Flavor::Herd, Flavor::SessionEvent] {
            assert!(!gone_predecessor_is_held(flavor), "{flavor:?}");
            assert!(!abandons_session(flavor, Outcome::ConnectionLoss));
            assert!(!carries_guid(flavor));
        }
        assert!(gone_predecessor_is_held(Flavor::Vanished));
        assert!(abandons_session(
            Flavor::StaleSession,
            Outcome::ConnectionLoss
        ));
        assert!(!abandons_session(Flavor::StaleSession, Outcome::Ok));
        assert!(carries_guid(Flavor::StaleSession));
    }

    #[test]
    fn finds_own_node_by_guid() {
        let kids = names(&["_c_11-lock-0000000001", "_c_22-lock-0000000002"]);
        assert_eq!(find_own(&kids, "_c_22"), Some("_c_22-lock-0000000002"));
        assert_eq!(find_own(&kids, "_c_33"), None);
    }
}
