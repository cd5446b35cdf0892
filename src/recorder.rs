//! What a run's nodes write into: its history, and, for a search that asks, what its servers
//! tell the search ([`ServerLog`]), kept beside the history (not in it: digests and traces do
//! not change): the requests they answered, so the guided search can aim a lost reply at a
//! request the run really sent (`explore::mutate`'s `aim`), and how near the run came to a
//! flaw by their measure ([`Margin`]). Any other run keeps none of it, and a server's answer
//! costs it one check.

use crate::history::{Event, History};
use std::cell::RefCell;
use std::rc::Rc;

/// Shared, append-only sink that every simulated node writes into. The simulation is
/// single-threaded, so an `Rc<RefCell>` is enough.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    history: Rc<RefCell<History>>,
    server_log: Option<Rc<RefCell<ServerLog>>>,
}

impl Recorder {
    /// A recorder that also keeps what servers tell a search.
    pub(crate) fn keeping_server_log() -> Recorder {
        Recorder {
            server_log: Some(Rc::default()),
            ..Recorder::default()
        }
    }

    /// Appends `event` (`Node::record` stamps it).
    pub(crate) fn record(&self, event: Event) {
        self.history.borrow_mut().events.push(event);
    }

    /// Whether it keeps what servers tell a search: a server asks before it names a request
    /// or measures a margin.
    pub(crate) fn keeps_server_log(&self) -> bool {
        self.server_log.is_some()
    }

    /// Adds `server`'s answer to `client`'s request `op` at `at_ms`, when it keeps them.
    pub(crate) fn answered(
        &self,
        at_ms: u64,
        server: &str,
        client: &str,
        op: &'static str,
        lost: bool,
    ) {
        if let Some(log) = &self.server_log {
            log.borrow_mut().push(at_ms, server, client, op, lost);
        }
    }

    /// Adds `margin`, when it keeps a server log.
    pub(crate) fn margin(&self, margin: Margin) {
        if let Some(log) = &self.server_log {
            log.borrow_mut().margin(margin);
        }
    }

    /// The history recorded so far, leaving the recorder empty: for a run that is over,
    /// where a copy would only be dropped with the world.
    pub(crate) fn take(&self) -> History {
        std::mem::take(&mut *self.history.borrow_mut())
    }

    /// The server log kept so far, leaving it empty (an empty one when it keeps none).
    pub(crate) fn take_server_log(&self) -> ServerLog {
        self.server_log
            .as_ref()
            .map(|log| std::mem::take(&mut *log.borrow_mut()))
            .unwrap_or_default()
    }

    /// Calls `f` on each event from index `from` on, in order.
    pub(crate) fn each_from(&self, from: usize, mut f: impl FnMut(&Event)) {
        self.history
            .borrow()
            .events
            .iter()
            .skip(from)
            .for_each(&mut f);
    }
}

/// One request a server answered: when, from whom, which (as `lose_reply`'s `op` names it),
/// and whether its reply was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// True ms of the answer.
    pub at_ms: u64,
    /// The server, by its index in the log's names.
    pub server: u16,
    /// The client, by its index in the log's names.
    pub client: u16,
    /// The request, as `lose_reply` names it.
    pub op: &'static str,
    /// Whether its reply was lost (a `lose_reply` fault fired on it).
    pub lost: bool,
}

/// How near a run came to a flaw, by a server family's measure: time to spare (in ms) at an
/// instant where the flaw needs none. A ZooKeeper follower measures, at each read of a
/// session's, how long before the read it applied the session's latest write that came in
/// on another member (`read-your-writes`): below zero, the read missed the session's own
/// write. A ZooKeeper server measures, for a read that found another session's ephemeral
/// node, how long after it that session's end deleted the node (`read-before-end`), and for
/// a session's first look at a node another session created by name, how long after the
/// create it came (`create-before-read`).
/// Coverage counts states; a margin is a distance, so the guided search can push a run that
/// came near the rest of the way (`explore::mutate`'s squeeze), where a state it counts
/// would only say whether the run got there (IJON's `min` annotations, in effect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Margin {
    /// What it measures (`read-your-writes`, `read-before-end`, `create-before-read`).
    pub name: &'static str,
    /// True ms of the instant it closes (the read; for `create-before-read`, the create).
    pub at_ms: u64,
    /// Time to spare, ms: below zero, none.
    pub ms: i64,
    /// The server that measured it.
    pub node: String,
    /// What, made later than the margin, closes it.
    pub late: Late,
}

/// What a margin needs made late to close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Late {
    /// The server's apply of the write the read would miss (a follower's), from before the
    /// write was due there.
    Apply,
    /// `client`'s requests to the server from `since_ms` on (true ms: its request before
    /// the read, or before the create), so the read (or the create) alone comes later.
    Requests {
        /// The client host.
        client: String,
        /// True ms its previous request came in.
        since_ms: u64,
        /// Whether they are a waiter's look at what it waits on: a pause of the waiter at
        /// its wait step makes them late as well.
        reader: bool,
    },
}

/// What a run's servers tell a search: the requests they answered, in order, and the least
/// margin of each name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServerLog {
    names: Vec<String>,
    sent: Vec<Sent>,
    margins: Vec<Margin>,
}

impl ServerLog {
    /// Adds `server`'s answer to `client`'s request `op`, at `at_ms`.
    pub(crate) fn push(
        &mut self,
        at_ms: u64,
        server: &str,
        client: &str,
        op: &'static str,
        lost: bool,
    ) {
        let (server, client) = (self.index(server), self.index(client));
        self.sent.push(Sent {
            at_ms,
            server,
            client,
            op,
            lost,
        });
    }

    /// Keeps `margin` when it is the least of its name so far (the first of equals).
    pub(crate) fn margin(&mut self, margin: Margin) {
        match self.margins.iter_mut().find(|m| m.name == margin.name) {
            Some(least) if margin.ms < least.ms => *least = margin,
            Some(_) => {}
            None => self.margins.push(margin),
        }
    }

    /// The least margin of each name the run's servers measured, in the order first seen.
    pub(crate) fn margins(&self) -> &[Margin] {
        &self.margins
    }

    /// Every answer, in order.
    pub(crate) fn sent(&self) -> &[Sent] {
        &self.sent
    }

    /// The host behind an index of `Sent`.
    pub(crate) fn name(&self, index: u16) -> &str {
        &self.names[usize::from(index)]
    }

    /// A host's index: a run has a few dozen hosts at most, so a scan beats a map.
    fn index(&mut self, name: &str) -> u16 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u16,
            None => {
                self.names.push(name.to_string());
                (self.names.len() - 1) as u16
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_named_once_and_answers_kept_in_order() {
        let mut log = ServerLog::default();
        log.push(3, "zk1", "c1", "create", false);
        log.push(5, "zk2", "c1", "sync", true);
        log.push(7, "zk1", "c2", "create", false);
        let sent = log.sent();
        assert_eq!(sent.len(), 3);
        assert_eq!(sent[0].client, sent[1].client);
        assert_eq!(sent[0].server, sent[2].server);
        assert_eq!(log.name(sent[1].server), "zk2");
        assert_eq!(log.name(sent[2].client), "c2");
        assert!(sent[1].lost && !sent[0].lost);
    }

    #[test]
    fn the_least_margin_of_each_name_is_kept_the_first_of_equals() {
        let margin = |name, at_ms, ms| Margin {
            name,
            at_ms,
            ms,
            node: "zk1".into(),
            late: Late::Apply,
        };
        let mut log = ServerLog::default();
        log.margin(margin("a", 1, 30));
        log.margin(margin("b", 2, 9));
        log.margin(margin("a", 3, 4));
        log.margin(margin("a", 4, 4));
        log.margin(margin("a", 5, 12));
        log.margin(margin("b", 6, -2));
        assert_eq!(log.margins(), &[margin("a", 3, 4), margin("b", 6, -2)]);
    }
}
