//! The Redlock decisions, pure: how many votes make a quorum, how long a lock granted after
//! `elapsed` ms is still valid, and what a flawed variant decides instead. The single-node
//! Redis lock is the same recipe with one node.

/// Which lock the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Redlock as the Redis docs give it (with one node: the single-instance lock).
    Recipe,
    /// Computes the validity but never checks it is positive: the unsigned subtraction
    /// wraps to a huge validity when the votes took longer than the TTL (redlock-rs in
    /// release builds; node-redlock and redsync returned such an expired lock too).
    NoValidity,
    /// Leaves its votes in place when it fails to get a quorum.
    NoUnlock,
    /// Every client waits the same fixed delay before retrying, so contending clients keep
    /// splitting the votes.
    FixedRetry,
    /// Releases with a plain DEL instead of the compare-and-delete script, deleting whatever
    /// lock is there, the next holder's included.
    PlainDel,
}

/// A majority of `nodes`.
pub fn quorum(nodes: usize) -> usize {
    nodes / 2 + 1
}

/// The clock drift Redlock allows for: 1% of the TTL plus 2 ms.
pub fn drift_ms(ttl_ms: u64) -> u64 {
    ttl_ms / 100 + 2
}

/// What an attempt decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The lock is held for `validity_ms` from the attempt's start, on the client's clock.
    Acquired { validity_ms: u64 },
    /// No quorum, or no validity left: undo the votes (unless the flavor doesn't) and retry.
    Failed,
}

/// The decision after `granted` of `nodes` votes, `elapsed_ms` after the attempt started:
/// granted only with a quorum and validity = TTL - elapsed - drift above zero.
pub fn decide(
    flavor: Flavor,
    granted: usize,
    nodes: usize,
    ttl_ms: u64,
    elapsed_ms: u64,
) -> Decision {
    if granted < quorum(nodes) {
        return Decision::Failed;
    }
    let spent = elapsed_ms + drift_ms(ttl_ms);
    if flavor == Flavor::NoValidity {
        return Decision::Acquired {
            validity_ms: ttl_ms.wrapping_sub(spent),
        };
    }
    match ttl_ms.checked_sub(spent) {
        Some(validity_ms) if validity_ms > 0 => Decision::Acquired { validity_ms },
        _ => Decision::Failed,
    }
}

/// Whether a failed attempt removes the votes it got.
pub fn unlocks_after_failure(flavor: Flavor) -> bool {
    flavor != Flavor::NoUnlock
}

/// The delay before the next attempt: a random share of `max_ms` from the client's own
/// stream (`draw` gives a number in 1..=max), or the same fixed delay for every client.
pub fn retry_delay_ms(flavor: Flavor, max_ms: u64, draw: impl FnOnce(u64) -> u64) -> u64 {
    match flavor {
        Flavor::FixedRetry => max_ms,
        _ => draw(max_ms.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quorum_is_a_majority() {
        assert_eq!([1, 2, 3, 4, 5].map(quorum), [1, 2, 2, 3, 3]);
    }

    #[test]
    fn validity_is_what_is_left_of_the_ttl_after_the_votes_and_the_drift() {
        assert_eq!(drift_ms(10_000), 102);
        assert_eq!(
            decide(Flavor::Recipe, 3, 5, 10_000, 100),
            Decision::Acquired { validity_ms: 9_798 }
        );
        assert_eq!(decide(Flavor::Recipe, 2, 5, 10_000, 100), Decision::Failed);
        assert_eq!(
            decide(Flavor::Recipe, 5, 5, 10_000, 9_898),
            Decision::Failed
        );
        assert_eq!(
            decide(Flavor::Recipe, 5, 5, 10_000, 20_000),
            Decision::Failed
        );
    }

    #[test]
    fn the_flawed_variants_decide_as_named() {
        assert_eq!(
            decide(Flavor::NoValidity, 3, 5, 10_000, 100),
            decide(Flavor::Recipe, 3, 5, 10_000, 100),
            "in time it computes what the recipe does"
        );
        assert_eq!(
            decide(Flavor::NoValidity, 3, 5, 10_000, 20_000),
            Decision::Acquired {
                validity_ms: 10_000u64.wrapping_sub(20_102)
            }
        );
        assert_eq!(
            decide(Flavor::NoValidity, 2, 5, 10_000, 0),
            Decision::Failed
        );
        assert!(!unlocks_after_failure(Flavor::NoUnlock));
        assert!(unlocks_after_failure(Flavor::Recipe));
        assert_eq!(retry_delay_ms(Flavor::FixedRetry, 20, |_| 7), 20);
        assert_eq!(retry_delay_ms(Flavor::Recipe, 20, |max| max / 4), 5);
    }
}
