//! Time as the Redis core sees it: its node's two clocks, handed in with every input, and
//! the clock that expiry deadlines are kept on.

/// The node's clocks when an input arrives. Within one command or script, time is frozen
/// at this reading (as Redis freezes it for a script and caches it for a command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// Unix time in ms: what Redis's `mstime()` reads. Jumps when the node's clock does.
    pub wall_ms: i64,
    /// A monotonic reading in ms: never jumps.
    pub mono_ms: u64,
}

/// The clock deadlines are stored and judged on (`expiry_clock=wall` or `monotonic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpiryClock {
    /// Redis's real behaviour: absolute unix ms. A forward wall jump expires keys early, a
    /// backward one late.
    #[default]
    Wall,
    /// The fix antirez proposed in the Redlock debate: deadlines on the monotonic clock, so
    /// wall jumps leave TTLs alone. Replies and the replication stream still speak wall
    /// time (PXAT, PEXPIREAT), converted with the reading at hand, as Redis clients expect.
    Monotonic,
}

impl ExpiryClock {
    /// The current time on this clock.
    pub fn now(self, now: Now) -> i64 {
        match self {
            ExpiryClock::Wall => now.wall_ms,
            ExpiryClock::Monotonic => i64::try_from(now.mono_ms).unwrap_or(i64::MAX),
        }
    }

    /// A unix-ms deadline as a time on this clock.
    pub fn from_wall(self, wall_ms: i64, now: Now) -> i64 {
        match self {
            ExpiryClock::Wall => wall_ms,
            ExpiryClock::Monotonic => {
                saturate(i128::from(wall_ms) - i128::from(now.wall_ms) + i128::from(now.mono_ms))
            }
        }
    }

    /// A time on this clock as unix ms.
    pub fn to_wall(self, t: i64, now: Now) -> i64 {
        match self {
            ExpiryClock::Wall => t,
            ExpiryClock::Monotonic => {
                saturate(i128::from(t) - i128::from(now.mono_ms) + i128::from(now.wall_ms))
            }
        }
    }
}

fn saturate(t: i128) -> i64 {
    i64::try_from(t).unwrap_or(if t < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Now = Now {
        wall_ms: 1_700_000_000_000,
        mono_ms: 5_000,
    };

    #[test]
    fn wall_is_the_identity() {
        assert_eq!(ExpiryClock::Wall.now(NOW), NOW.wall_ms);
        assert_eq!(ExpiryClock::Wall.from_wall(42, NOW), 42);
        assert_eq!(ExpiryClock::Wall.to_wall(42, NOW), 42);
    }

    #[test]
    fn monotonic_converts_with_the_reading_at_hand() {
        let mono = ExpiryClock::Monotonic;
        assert_eq!(mono.now(NOW), 5_000);
        assert_eq!(mono.from_wall(NOW.wall_ms + 300, NOW), 5_300);
        assert_eq!(mono.to_wall(5_300, NOW), NOW.wall_ms + 300);
        assert_eq!(
            mono.from_wall(i64::MAX, NOW),
            i64::MAX - NOW.wall_ms + 5_000
        );
        let far = Now {
            wall_ms: i64::MIN,
            mono_ms: u64::MAX,
        };
        assert_eq!(mono.now(far), i64::MAX);
        assert_eq!(mono.from_wall(i64::MAX, far), i64::MAX);
        assert_eq!(mono.to_wall(i64::MIN, far), i64::MIN);
    }
}
