//! The Redlock decisions, pure: how many votes make a quorum, how long a lock granted after
//! `elapsed` ms is still valid, how a holder releases, and what a flawed variant decides
//! instead. The single-node Redis lock is the same recipe with one node.

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
    Acquired {
        /// TTL - elapsed - drift, ms (wrapped to a huge value by the `NoValidity` flaw).
        validity_ms: u64,
    },
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

/// Until when, on the client's clock, a lock granted with `validity_ms` by an attempt that
/// started at `started_ms` is held: validity counts from the attempt's start, so the time the
/// votes took is spent twice (once by `decide`, once here), which only errs on the safe side.
/// Saturates, as NoValidity's wrapped validity would otherwise overflow.
pub fn valid_until(started_ms: u64, validity_ms: u64) -> u64 {
    started_ms.saturating_add(validity_ms)
}

/// The decision on an extension: `extended` of `nodes` masters reset the key's TTL to
/// `ttl_ms`, their answers in `elapsed_ms` after it started, when the lock had `left_ms` of
/// validity left at that start. Judged as an acquire (a quorum, validity = TTL - elapsed -
/// drift counted from the extension's start), and only if the answers came back before the
/// old validity ran out: after that the client no longer held the lock (the distlock page:
/// extend "within the validity time"). NoValidity skips both time checks, as on acquire.
pub fn decide_extension(
    flavor: Flavor,
    extended: usize,
    nodes: usize,
    ttl_ms: u64,
    elapsed_ms: u64,
    left_ms: u64,
) -> Decision {
    if flavor != Flavor::NoValidity && elapsed_ms >= left_ms {
        return Decision::Failed;
    }
    decide(flavor, extended, nodes, ttl_ms, elapsed_ms)
}

/// How a holder removes its lock from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Release {
    /// The compare-and-delete script: deletes the key only if it still holds the token.
    CompareAndDelete,
    /// A plain DEL: deletes whatever lock is there, another client's included.
    Delete,
}

/// How `flavor` releases: only PlainDel skips the token check.
pub fn release(flavor: Flavor) -> Release {
    match flavor {
        Flavor::PlainDel => Release::Delete,
        _ => Release::CompareAndDelete,
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
    fn validity_counts_from_the_attempts_start_and_saturates() {
        assert_eq!(valid_until(1_000, 9_798), 10_798);
        let Decision::Acquired { validity_ms } = decide(Flavor::NoValidity, 3, 5, 300, 400) else {
            panic!("NoValidity acquires late");
        };
        assert_eq!(valid_until(200, validity_ms), u64::MAX);
    }

    #[test]
    fn an_extension_needs_a_quorum_and_validity_and_to_be_in_time() {
        let extend = |extended, elapsed, left| {
            decide_extension(Flavor::Recipe, extended, 5, 10_000, elapsed, left)
        };
        assert_eq!(
            extend(3, 100, 5_000),
            Decision::Acquired { validity_ms: 9_798 }
        );
        assert_eq!(extend(2, 100, 5_000), Decision::Failed, "no quorum");
        assert_eq!(
            extend(5, 100, 100),
            Decision::Failed,
            "answers as validity ran out"
        );
        assert_eq!(
            extend(5, 100, 101),
            Decision::Acquired { validity_ms: 9_798 }
        );
        assert_eq!(
            extend(5, 100, 0),
            Decision::Failed,
            "too late from the start"
        );
        assert_eq!(
            extend(5, 9_898, 20_000),
            Decision::Failed,
            "in time but no validity left of the new TTL"
        );
        assert_eq!(
            decide_extension(Flavor::Recipe, 1, 1, 200, 3, 150),
            Decision::Acquired { validity_ms: 193 },
            "one node is its own quorum"
        );
    }

    #[test]
    fn novalidity_extends_late_and_past_the_ttl() {
        let extend = |extended, elapsed, left| {
            decide_extension(Flavor::NoValidity, extended, 5, 10_000, elapsed, left)
        };
        assert_eq!(
            extend(3, 100, 50),
            Decision::Acquired { validity_ms: 9_798 }
        );
        assert_eq!(
            extend(3, 20_000, 50),
            Decision::Acquired {
                validity_ms: 10_000u64.wrapping_sub(20_102)
            }
        );
        assert_eq!(
            extend(2, 100, 5_000),
            Decision::Failed,
            "still needs a quorum"
        );
        for flavor in [Flavor::NoUnlock, Flavor::FixedRetry, Flavor::PlainDel] {
            assert_eq!(
                decide_extension(flavor, 3, 5, 10_000, 100, 50),
                Decision::Failed,
                "{flavor:?} checks the time as the recipe does"
            );
        }
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

    #[test]
    fn only_plain_del_releases_without_checking_the_token() {
        assert_eq!(release(Flavor::PlainDel), Release::Delete);
        for flavor in [
            Flavor::Recipe,
            Flavor::NoValidity,
            Flavor::NoUnlock,
            Flavor::FixedRetry,
        ] {
            assert_eq!(release(flavor), Release::CompareAndDelete, "{flavor:?}");
        }
    }
}
