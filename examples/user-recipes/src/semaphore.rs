//! A counting semaphore of the user's own on Redis: `permits` slot keys, a holder takes one
//! with `SET NX PX` and gives it back with a compare-and-delete. Its promise is the user's own
//! property, `at-most-k`: never more than `permits` holders at once, judged by `AtMostK`.
//! `permits` is a parameter of the user's own, which the recipe and the checker both read.

use locksim::check::{CheckConfig, Checker, Reads, Violation, lock_holds};
use locksim::history::History;
use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{AsyncCommands, ExistenceCheck, Script, SetExpiry, SetOptions};
use locksim::{Grant, Lock, LockError, Node, Param, Property};

/// How many may hold it at once: `.set("permits=3")` admits three.
pub const PERMITS: Param<u32> = Param::u32("permits", 2)
    .range(1, 8)
    .doc("holders the semaphore admits at once");
/// How long a permit lasts unless given back (locksim's default `ttl_ms`), and the part of
/// it a holder counts on.
pub const TTL_MS: u64 = 200;
const VALID_MS: u64 = TTL_MS * 9 / 10;

/// The user's property: at most `permits` holders at any true instant.
pub const AT_MOST_K: Property = Property::new("at-most-k");

/// How a permit is taken.
#[derive(Debug, Clone, Copy)]
pub enum Take {
    /// `SET slot token NX PX ttl`: the slot is taken only if free, in one step.
    SetIfFree,
    /// `EXISTS slot`, then `SET slot token PX ttl` when it said free: two clients that both
    /// saw it free both take it.
    CheckThenSet,
}

/// One client's semaphore, on its own redis-rs connection to `redis1`.
pub struct Semaphore {
    conn: MultiplexedConnection,
    node: Node,
    take: Take,
    taken: u64,
    held: Option<(String, String)>,
}

impl Semaphore {
    /// Connects the client on `node`.
    pub async fn connect(node: Node, take: Take) -> Result<Semaphore, LockError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(Semaphore {
            conn,
            node,
            take,
            taken: 0,
            held: None,
        })
    }

    /// Takes `slot` if it is free; whether it did.
    async fn try_slot(&mut self, slot: &str, token: &str) -> Result<bool, LockError> {
        let mut options = SetOptions::default().with_expiration(SetExpiry::PX(TTL_MS));
        match self.take {
            Take::SetIfFree => options = options.conditional_set(ExistenceCheck::NX),
            Take::CheckThenSet => {
                let taken: bool = self.conn.exists(slot).await?;
                if taken {
                    return Ok(false);
                }
            }
        }
        let set: Option<String> = self.conn.set_options(slot, token, options).await?;
        Ok(set.is_some())
    }
}

impl Lock for Semaphore {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.taken += 1;
        let token = format!("{}-{}", self.node.name, self.taken);
        let timer = self.node.timer();
        loop {
            for i in 0..self.node.param(PERMITS) {
                let slot = format!("permit:{i}");
                let asked = timer.now_ms();
                if self.try_slot(&slot, &token).await? {
                    let valid_ms = VALID_MS.saturating_sub(timer.now_ms() - asked);
                    self.held = Some((slot, token));
                    return Ok(Grant {
                        valid_ms: Some(valid_ms),
                        ..Grant::default()
                    });
                }
            }
            timer.sleep(10).await;
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        let Some((slot, token)) = self.held.take() else {
            return Ok(());
        };
        let _: u32 = Script::new(
            "if redis.call('get', KEYS[1]) == ARGV[1] then \
             return redis.call('del', KEYS[1]) else return 0 end",
        )
        .key(slot)
        .arg(token)
        .invoke_async(&mut self.conn)
        .await?;
        Ok(())
    }
}

/// The checker of `at-most-k`: sweeps each lock's holds (as `mutex` sees them) and reports
/// every instant a holder joined `permits` others.
pub struct AtMostK;

impl Checker for AtMostK {
    fn property(&self) -> Property {
        AT_MOST_K
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::Lock, Reads::Harness]
    }

    fn check(&self, history: &History, cfg: &CheckConfig) -> Vec<Violation> {
        let k = cfg.param(PERMITS) as usize;
        let mut violations = Vec::new();
        for (lock, holds) in lock_holds(history) {
            for (i, joiner) in holds.iter().enumerate() {
                let holding: Vec<&str> = holds[..i]
                    .iter()
                    .filter(|h| h.overlaps(joiner))
                    .map(|h| h.client)
                    .collect();
                if holding.len() >= k {
                    let at = joiner.from.time_ms;
                    violations.push(Violation {
                        property: AT_MOST_K,
                        clients: holding
                            .iter()
                            .map(|c| c.to_string())
                            .chain([joiner.client.to_string()])
                            .collect(),
                        times_ms: vec![at],
                        detail: format!(
                            "{} took {lock} at {at} ms while {} held it: more than {}",
                            joiner.client,
                            holding.join(", "),
                            k
                        ),
                    });
                }
            }
        }
        violations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim::history::{Event, Kind, LockOp, Op};

    fn event(time_ms: u64, node: &str, kind: Kind, op: LockOp) -> Event {
        Event {
            time_ms,
            clock_ms: time_ms as i64,
            node: node.to_string(),
            kind,
            op: Op::Lock(op),
        }
    }

    /// c1 and c2 hold the lock; c3 takes it at 20 ms before either gives it back; c1 gives
    /// it back and c4 takes it at 40 ms while c2 and c3 still hold it: three holders twice.
    fn history() -> History {
        let acquired = |t, c| event(t, c, Kind::Ok, LockOp::acquire("L", None));
        let release = |t, c| event(t, c, Kind::Invoke, LockOp::Release { lock: "L".into() });
        History {
            events: vec![
                acquired(10, "c1"),
                acquired(11, "c2"),
                acquired(20, "c3"),
                release(30, "c1"),
                acquired(40, "c4"),
            ],
        }
    }

    #[test]
    fn a_third_holder_breaks_at_most_two_and_only_that_one() {
        let permits = |k| CheckConfig {
            params: [(PERMITS, k)].into_iter().collect(),
            ..CheckConfig::default()
        };
        let violations = AtMostK.check(&history(), &permits(2));
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert_eq!(violations[0].clients, ["c1", "c2", "c3"]);
        assert_eq!(violations[0].times_ms, [20]);
        assert_eq!(violations[1].clients, ["c2", "c3", "c4"]);
        assert!(AtMostK.check(&history(), &permits(3)).is_empty());
    }
}
