//! What a run's nodes write into: its history, and, for a search that asks, the requests its
//! servers answered, kept beside the history (not in it: digests and traces do not change) so
//! the guided search can aim a lost reply at a request the run really sent
//! (`explore::mutate`'s `aim`). Any other run keeps no requests, and a server's answer costs
//! it one check.

use crate::history::{Event, History};
use std::cell::RefCell;
use std::rc::Rc;

/// Shared, append-only sink that every simulated node writes into. The simulation is
/// single-threaded, so an `Rc<RefCell>` is enough.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    history: Rc<RefCell<History>>,
    requests: Option<Rc<RefCell<RequestLog>>>,
}

impl Recorder {
    /// A recorder that also keeps the requests servers answer.
    pub(crate) fn logging_requests() -> Recorder {
        Recorder {
            requests: Some(Rc::default()),
            ..Recorder::default()
        }
    }

    /// Appends `event` (`Node::record` stamps it).
    pub(crate) fn record(&self, event: Event) {
        self.history.borrow_mut().events.push(event);
    }

    /// Whether it keeps the requests servers answer: a server asks before it names one.
    pub(crate) fn logs_requests(&self) -> bool {
        self.requests.is_some()
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
        if let Some(log) = &self.requests {
            log.borrow_mut().push(at_ms, server, client, op, lost);
        }
    }

    /// The history recorded so far, leaving the recorder empty: for a run that is over,
    /// where a copy would only be dropped with the world.
    pub(crate) fn take(&self) -> History {
        std::mem::take(&mut *self.history.borrow_mut())
    }

    /// The requests kept so far, leaving it empty (none when it keeps none).
    pub(crate) fn take_requests(&self) -> RequestLog {
        self.requests
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

/// A run's requests, in the order servers answered them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RequestLog {
    names: Vec<String>,
    sent: Vec<Sent>,
}

impl RequestLog {
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
        let mut log = RequestLog::default();
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
}
