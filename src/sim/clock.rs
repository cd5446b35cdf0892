//! Per-node clocks. Checkers judge by true simulated time; a node only ever sees its own
//! clocks: a monotonic one (drifts, never jumps) and a wall clock (drifts and jumps).

/// The Unix time (ms) at which every simulated wall clock starts: 2024-01-01T00:00:00Z.
pub const EPOCH_MS: i64 = 1_704_067_200_000;

/// A node's clocks as faults left them: how far its wall clock jumped and how fast both
/// drift. Readings are computed from true time, so the clock needs no ticking.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clock {
    /// Sum of every wall clock jump so far.
    jumps_ms: i64,
    /// Current drift rate, parts per million (positive runs fast).
    drift_ppm: i64,
    /// True time at which the current drift rate took effect.
    drift_since_ms: u64,
    /// Drift accumulated before `drift_since_ms`, in µs.
    drift_before_us: i64,
}

impl Clock {
    /// A clock whose wall time starts `skew_ms` off the true time.
    pub fn skewed(skew_ms: i64) -> Clock {
        Clock {
            jumps_ms: skew_ms,
            ..Clock::default()
        }
    }

    fn drift_us(&self, true_ms: u64) -> i64 {
        let span = true_ms.saturating_sub(self.drift_since_ms) as i64;
        self.drift_before_us + span * self.drift_ppm / 1000
    }

    /// The node's monotonic clock, ms since the run started (drift only).
    pub fn mono_ms(&self, true_ms: u64) -> u64 {
        (true_ms as i64 + self.drift_us(true_ms) / 1000).max(0) as u64
    }

    /// The node's wall clock, ms since the Unix epoch (drift and jumps).
    pub fn wall_ms(&self, true_ms: u64) -> i64 {
        EPOCH_MS + true_ms as i64 + self.drift_us(true_ms) / 1000 + self.jumps_ms
    }

    /// The true time, in whole ms, this clock's monotonic reading needs to advance by
    /// `mono_ms` at its current drift rate (rounded up, so it has got there by then), at
    /// most `u64::MAX` (a slow clock's far deadline must not wrap to a near one).
    pub fn true_ms_for(&self, mono_ms: u64) -> u64 {
        let rate = 1_000_000 + self.drift_ppm;
        let true_ms = (u128::from(mono_ms) * 1_000_000).div_ceil(rate.max(1) as u128);
        u64::try_from(true_ms).unwrap_or(u64::MAX)
    }

    /// The first true ms, from `from_ms` on, at which the monotonic clock reads `mono_ms`
    /// or later at its current drift: a wake-up set for it lands on the same ms whenever
    /// it was set. (A clock slowed almost to a stop gets an estimate.)
    pub fn true_ms_when(&self, mono_ms: u64, from_ms: u64) -> u64 {
        let now = self.mono_ms(from_ms);
        if now >= mono_ms {
            return from_ms;
        }
        let mut at = from_ms.saturating_add(self.true_ms_for(mono_ms - now));
        // The estimate rounds drift at the start; the readings round it at the end.
        for _ in 0..4 {
            match () {
                () if at > from_ms && self.mono_ms(at - 1) >= mono_ms => at -= 1,
                () if self.mono_ms(at) < mono_ms => at = at.saturating_add(1),
                () => break,
            }
        }
        at
    }

    /// Steps the wall clock by `by_ms` (negative steps back), as NTP or an operator might.
    pub fn jump(&mut self, by_ms: i64) {
        self.jumps_ms += by_ms;
    }

    /// From `true_ms` on, the clock runs `ppm` parts per million fast (or slow if negative).
    pub fn set_drift(&mut self, true_ms: u64, ppm: i64) {
        self.drift_before_us = self.drift_us(true_ms);
        self.drift_since_ms = true_ms;
        self.drift_ppm = ppm;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_move_wall_clock_only() {
        let mut c = Clock::default();
        c.jump(10_000);
        assert_eq!(c.wall_ms(5), EPOCH_MS + 10_005);
        assert_eq!(c.mono_ms(5), 5);
        c.jump(-20_000);
        assert_eq!(c.wall_ms(5), EPOCH_MS - 9_995);
    }

    #[test]
    fn drift_accumulates_piecewise() {
        let mut c = Clock::default();
        c.set_drift(1_000, 100_000); // 10% fast from t=1s
        assert_eq!(c.mono_ms(2_000), 2_100);
        c.set_drift(2_000, 0);
        assert_eq!(c.mono_ms(10_000), 10_100);
        assert_eq!(c.wall_ms(10_000), EPOCH_MS + 10_100);
    }

    #[test]
    fn a_deadline_lands_on_the_first_ms_the_clock_reads_it_whenever_it_was_set() {
        for ppm in [-7_000, -250, 0, 4_035, 100_000] {
            let mut c = Clock::default();
            c.set_drift(3, ppm);
            let target = 1_000;
            let first = (0..5_000).find(|&t| c.mono_ms(t) >= target).unwrap();
            for from in [0, 10, first / 2, first - 1, first] {
                assert_eq!(c.true_ms_when(target, from), first, "ppm {ppm} from {from}");
            }
            assert_eq!(
                c.true_ms_when(target, first + 7),
                first + 7,
                "already there"
            );
        }
    }

    #[test]
    fn a_far_deadline_on_a_slow_clock_stays_far() {
        let mut c = Clock::default();
        c.set_drift(0, -500_000); // half speed
        assert_eq!(c.true_ms_for(1_000), 2_000);
        assert_eq!(c.true_ms_for(u64::MAX - 1), u64::MAX);
    }
}
