//! Shared helpers: a server with one client connection, fixed clock readings, byte views.

use super::{Config, Outcome, Server};
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::conn::Conn;
use crate::redis::resp::Args;
use crate::redis::resp::{Frame, Protocol, encode};
use crate::redis::role::Role;

/// A wall clock near the one the real server ran on when the expected bytes were taken, so
/// that the same arguments overflow the same way.
pub(super) const WALL0: i64 = 1_795_432_000_000;
pub(super) const MONO0: u64 = 1_000;

/// `ms` after the start, on both clocks.
pub(super) fn at(ms: u64) -> Now {
    Now {
        wall_ms: WALL0 + ms as i64,
        mono_ms: MONO0 + ms,
    }
}

pub(super) fn args(list: &[&[u8]]) -> Args {
    list.iter().map(|a| a.to_vec()).collect()
}

pub(super) fn bytes(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    encode(frame, Protocol::Resp2, &mut out);
    out
}

/// A server and one client connection to it.
pub(super) struct Client {
    pub server: Server,
    pub conn: Conn,
}

impl Client {
    pub fn new(role: Role, expiry_clock: ExpiryClock) -> Client {
        let mut server = Server::new(Config {
            role,
            expiry_clock,
            ..Config::default()
        });
        let conn = server.connect();
        Client { server, conn }
    }

    pub fn master() -> Client {
        Client::new(Role::Master, ExpiryClock::Wall)
    }

    pub fn outcome(&mut self, now: Now, list: &[&[u8]]) -> Outcome {
        self.server.handle(&mut self.conn, &args(list), now)
    }

    /// The reply's bytes.
    pub fn run(&mut self, now: Now, list: &[&[u8]]) -> Vec<u8> {
        let outcome = self.outcome(now, list);
        outcome.reply.as_ref().map(bytes).unwrap_or_default()
    }

    /// What the command propagates.
    pub fn propagated(&mut self, now: Now, list: &[&[u8]]) -> Vec<Args> {
        self.outcome(now, list).propagate
    }
}

/// `SET` on a replica's link, as its master sends it.
pub(super) fn replicate(server: &mut Server, link: &mut Conn, now: Now, list: &[&[u8]]) {
    server.replicate(link, &args(list), now);
}

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
