//! Server-side sessions: ids, passwords, negotiated timeouts and expiry deadlines on the
//! server's monotonic clock, bucketed by tick as ZooKeeper's `ExpiryQueue` does.

use std::collections::BTreeMap;

use crate::zk::server::ConnId;

/// ZooKeeper's session timeout is a Java int: no server grants, or client is told, more.
pub const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    /// Negotiated timeout, ms.
    pub timeout_ms: u64,
    pub passwd: [u8; 16],
    /// Monotonic ms at which the session expires unless touched first.
    pub deadline_ms: u64,
    /// The connection currently serving the session, if any.
    pub conn: Option<ConnId>,
    /// Its expiry is under way (proposed, not yet applied): no touch re-arms it, and it is
    /// not due again (`SessionTrackerImpl`'s closing state).
    pub closing: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Sessions {
    by_id: BTreeMap<i64, Session>,
    /// Low bits of the next session id.
    next_counter: i64,
    server_id: u8,
    tick_ms: u64,
}

impl Sessions {
    pub fn new(server_id: u8, tick_ms: u64) -> Self {
        Sessions {
            by_id: BTreeMap::new(),
            next_counter: 1,
            server_id,
            tick_ms: tick_ms.max(1),
        }
    }

    /// The id the next session this server opens gets: `(server_id << 56) | counter`.
    pub fn next_id(&mut self) -> i64 {
        let id = (i64::from(self.server_id) << 56) | self.next_counter;
        self.next_counter += 1;
        id
    }

    /// Adds the session `id`, served by no connection yet, its deadline counted from `now_ms`.
    pub fn insert(&mut self, id: i64, timeout_ms: u64, passwd: [u8; 16], now_ms: u64) {
        let deadline_ms = deadline(now_ms, timeout_ms, self.tick_ms);
        self.by_id.insert(
            id,
            Session {
                timeout_ms,
                passwd,
                deadline_ms,
                conn: None,
                closing: false,
            },
        );
    }

    /// Marks the session's expiry under way.
    pub fn set_closing(&mut self, id: i64) {
        if let Some(s) = self.by_id.get_mut(&id) {
            s.closing = true;
        }
    }

    pub fn get(&self, id: i64) -> Option<&Session> {
        self.by_id.get(&id)
    }

    pub fn get_mut(&mut self, id: i64) -> Option<&mut Session> {
        self.by_id.get_mut(&id)
    }

    pub fn remove(&mut self, id: i64) -> Option<Session> {
        self.by_id.remove(&id)
    }

    /// Re-arms the deadline (any packet from the client does this); false if unknown or
    /// closing.
    pub fn touch(&mut self, id: i64, now_ms: u64) -> bool {
        let tick = self.tick_ms;
        match self.by_id.get_mut(&id) {
            Some(s) if !s.closing => {
                s.deadline_ms = deadline(now_ms, s.timeout_ms, tick);
                true
            }
            _ => false,
        }
    }

    /// Sessions whose deadline is at or before `now_ms`, earliest deadline first.
    pub fn due(&self, now_ms: u64) -> Vec<i64> {
        let mut due: Vec<(u64, i64)> = self
            .by_id
            .iter()
            .filter(|(_, s)| s.deadline_ms <= now_ms && !s.closing)
            .map(|(&id, s)| (s.deadline_ms, id))
            .collect();
        due.sort_unstable();
        due.into_iter().map(|(_, id)| id).collect()
    }

    /// The earliest deadline of an open session (what `Server::poll_timeout` reports).
    #[cfg(test)]
    pub fn next_deadline(&self) -> Option<u64> {
        self.by_id.values().map(|s| s.deadline_ms).min()
    }

    /// After a restart: no connections, and every deadline counted afresh from `now_ms`, as
    /// the real server re-adds the sessions it loads from its log.
    pub fn restart(&mut self, now_ms: u64) {
        self.rearm(now_ms);
        for s in self.by_id.values_mut() {
            s.conn = None;
        }
    }

    /// What a new leader's session tracker does with the sessions it takes over: each
    /// one open again (an expiry under way is undone) with its deadline counted afresh.
    pub fn take_over(&mut self, now_ms: u64) {
        for s in self.by_id.values_mut() {
            s.closing = false;
        }
        self.rearm(now_ms);
    }

    /// Every deadline counted afresh from `now_ms`.
    pub fn rearm(&mut self, now_ms: u64) {
        let ids: Vec<i64> = self.by_id.keys().copied().collect();
        for id in ids {
            self.touch(id, now_ms);
        }
    }
}

/// When a session touched at `now_ms` expires. Saturating: a deadline past the end of the
/// clock is never, not a wrap to the past.
fn deadline(now_ms: u64, timeout_ms: u64, tick_ms: u64) -> u64 {
    round_to_next_tick(now_ms.saturating_add(timeout_ms), tick_ms)
}

/// `ExpiryQueue.roundToNextInterval`: the next multiple of the tick strictly after `t`
/// (or `u64::MAX` when there is none).
pub fn round_to_next_tick(t: u64, tick_ms: u64) -> u64 {
    (t / tick_ms).saturating_add(1).saturating_mul(tick_ms)
}

/// The server clamps the requested timeout into [min, max] (`processConnectRequest`), and
/// never beyond what the connect response's int can tell the client.
pub fn negotiate_timeout(requested_ms: i32, min_ms: u64, max_ms: u64) -> u64 {
    u64::try_from(requested_ms)
        .unwrap_or(0)
        .clamp(min_ms, max_ms.max(min_ms))
        .min(MAX_TIMEOUT_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_the_next_tick_strictly_after() {
        assert_eq!(round_to_next_tick(0, 100), 100);
        assert_eq!(round_to_next_tick(99, 100), 100);
        assert_eq!(round_to_next_tick(100, 100), 200);
        assert_eq!(round_to_next_tick(4_250, 2_000), 6_000);
        assert_eq!(round_to_next_tick(u64::MAX - 1, 2_000), u64::MAX);
    }

    #[test]
    fn timeout_negotiation_clamps() {
        assert_eq!(negotiate_timeout(1_000, 4_000, 40_000), 4_000);
        assert_eq!(negotiate_timeout(-5, 4_000, 40_000), 4_000);
        assert_eq!(negotiate_timeout(10_000, 4_000, 40_000), 10_000);
        assert_eq!(negotiate_timeout(90_000, 4_000, 40_000), 40_000);
        assert_eq!(negotiate_timeout(1_000, u64::MAX, u64::MAX), MAX_TIMEOUT_MS);
    }

    /// Opens a session the way a server does: an id, then the session.
    fn open(s: &mut Sessions, timeout_ms: u64, passwd: [u8; 16], now_ms: u64) -> i64 {
        let id = s.next_id();
        s.insert(id, timeout_ms, passwd, now_ms);
        id
    }

    #[test]
    fn ids_deadlines_and_due_order() {
        let mut s = Sessions::new(3, 100);
        let a = open(&mut s, 1_000, [1; 16], 50);
        let b = open(&mut s, 400, [2; 16], 50);
        assert_eq!(a, (3 << 56) | 1);
        assert_eq!(b, (3 << 56) | 2);
        assert_eq!(s.get(a).unwrap().deadline_ms, 1_100);
        assert_eq!(s.get(b).unwrap().deadline_ms, 500);
        assert_eq!(s.next_deadline(), Some(500));
        assert_eq!(s.due(499), Vec::<i64>::new());
        assert_eq!(s.due(2_000), vec![b, a]);
        assert!(s.touch(b, 900));
        assert_eq!(s.get(b).unwrap().deadline_ms, 1_400);
        assert_eq!(s.due(1_100), vec![a]);
        assert!(!s.touch(42, 0));
    }

    #[test]
    fn a_deadline_past_the_end_of_the_clock_saturates_instead_of_wrapping() {
        let mut s = Sessions::new(1, 100);
        let a = open(&mut s, u64::MAX, [1; 16], 5_050);
        assert_eq!(s.get(a).unwrap().deadline_ms, u64::MAX);
        assert!(s.due(5_150).is_empty());
        assert!(s.touch(a, u64::MAX - 10));
        assert_eq!(s.get(a).unwrap().deadline_ms, u64::MAX);
    }

    #[test]
    fn restart_rearms_and_detaches() {
        let mut s = Sessions::new(1, 100);
        let a = open(&mut s, 1_000, [1; 16], 0);
        s.get_mut(a).unwrap().conn = Some(7);
        s.restart(5_050);
        let sess = s.get(a).unwrap();
        assert_eq!((sess.deadline_ms, sess.conn), (6_100, None));
    }
}
