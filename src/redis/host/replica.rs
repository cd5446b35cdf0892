//! An asynchronous replica inside its master's host: it shares the master's clocks and
//! failure fate, and models the stream's lag and what a promotion loses. Sans-IO: the host
//! sends it what the master propagates and applies the stream when [`Replica::next_due`]
//! says.

use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::Args;
use crate::redis::role::Role;
use crate::redis::server::{Config, Server};
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct Replica {
    pub(crate) server: Server,
    link: Conn,
    pub(crate) lag_ms: u64,
    /// The stream on its way: (when it arrives, on the node's monotonic clock; command).
    in_flight: VecDeque<(u64, Args)>,
    /// The master's offset it has applied up to, which it acknowledges as it goes (WAIT).
    pub(crate) acked: u64,
}

impl Replica {
    /// An empty replica of a master set up as `config`.
    pub(crate) fn new(config: Config, lag_ms: u64) -> Replica {
        let mut server = Server::new(Config {
            role: Role::Replica,
            ..config
        });
        let link = server.connect();
        Replica {
            server,
            link,
            lag_ms,
            in_flight: VecDeque::new(),
            acked: 0,
        }
    }

    /// What the master propagated at `mono_ms`, on its way.
    pub(crate) fn send(&mut self, ops: &[Args], mono_ms: u64) {
        let due = mono_ms + self.lag_ms;
        self.in_flight
            .extend(ops.iter().map(|op| (due, op.clone())));
    }

    /// When the next command of the stream arrives; None when none is on its way.
    pub(crate) fn next_due(&self) -> Option<u64> {
        self.in_flight.front().map(|(due, _)| *due)
    }

    /// Applies the next command if it arrives by `due`; returns the offset it acknowledges.
    pub(crate) fn apply_next(&mut self, due: u64, now: Now) -> Option<u64> {
        let (at, _) = self.in_flight.front()?;
        if *at > due {
            return None;
        }
        let (_, op) = self.in_flight.pop_front()?;
        self.server.replicate(&mut self.link, &op, now);
        self.acked += 1;
        Some(self.acked)
    }

    /// The commands still on their way: what a promotion now would lose.
    pub(crate) fn in_flight(&self) -> u64 {
        self.in_flight.len() as u64
    }
}
