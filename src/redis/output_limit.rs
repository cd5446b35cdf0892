//! Redis 7.0's `client-output-buffer-limit` for subscribers (its `pubsub` class, `32mb 8mb
//! 60`): a connection that listens to a channel and lets its unwritten messages reach the hard
//! limit, or stay at the soft limit or above for longer than its seconds, is dropped, so a
//! subscriber that stops reading cannot make the server hold every message published. Other
//! connections have no limit (the `normal` class's `0 0 0`).

/// The limits of one class of connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputLimit {
    /// Unwritten bytes at which the connection is dropped at once.
    pub hard_bytes: usize,
    /// Unwritten bytes that may last at most `soft_ms`.
    pub soft_bytes: usize,
    /// How long the soft limit may be held without a break.
    pub soft_ms: u64,
}

/// The `pubsub` class's default: `client-output-buffer-limit pubsub 32mb 8mb 60`.
pub const PUBSUB: OutputLimit = OutputLimit {
    hard_bytes: 32 << 20,
    soft_bytes: 8 << 20,
    soft_ms: 60_000,
};

impl OutputLimit {
    /// `checkClientOutputBufferLimits`, asked as bytes are added: whether a connection with
    /// `unwritten` bytes has reached the limit at `now_ms`. `soft_since` is when it was last
    /// seen at the soft limit without a break; the call keeps it up to date.
    pub fn reached(&self, unwritten: usize, soft_since: &mut Option<u64>, now_ms: u64) -> bool {
        if unwritten < self.soft_bytes {
            *soft_since = None;
            return unwritten >= self.hard_bytes;
        }
        let since = *soft_since.get_or_insert(now_ms);
        unwritten >= self.hard_bytes || now_ms - since > self.soft_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hard_limit_drops_at_once_and_the_soft_limit_after_its_time() {
        let mut since = None;
        assert!(!PUBSUB.reached((8 << 20) - 1, &mut since, 0));
        assert!(PUBSUB.reached(32 << 20, &mut None, 0), "hard, at once");
        assert!(
            !PUBSUB.reached(8 << 20, &mut since, 1_000),
            "soft, first seen"
        );
        assert_eq!(since, Some(1_000));
        assert!(
            !PUBSUB.reached(9 << 20, &mut since, 61_000),
            "60 s are allowed"
        );
        assert!(PUBSUB.reached(9 << 20, &mut since, 61_001));
    }

    #[test]
    fn going_below_the_soft_limit_starts_its_time_again() {
        let mut since = Some(0);
        assert!(!PUBSUB.reached(1 << 20, &mut since, 50_000));
        assert_eq!(since, None);
        assert!(!PUBSUB.reached(8 << 20, &mut since, 70_000));
        assert!(!PUBSUB.reached(8 << 20, &mut since, 130_000));
        assert!(PUBSUB.reached(8 << 20, &mut since, 130_001));
    }
}
