//! A leader election of the user's own over Redis, written against redis-rs: a candidate
//! leads once the key holds its token (`SET key token NX PX ttl`), renews the key by
//! compare-and-pexpire, and steps down by compare-and-delete. The key cannot expire sooner
//! than a TTL after the last SET or renewal that succeeded was sent; a leader counts on it
//! for less: it allows for clocks that drift apart, and for the longest pause it is to
//! survive (half the TTL, as `own-assumptions` has it), which may strike just after it
//! looked at its lease and before it acts on it. The renewals run while the workload waits
//! on `leadership_lost` (while the leader works); a renewal that is not back while the lease
//! can still be counted on ends the leadership there.
//!
//! The variant waits on a renewal for as long as redis-rs does (its 500 ms response
//! timeout, longer than the TTL): a renewal lost on the way leaves it leading after its key
//! expired and the next candidate took it.

use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{Script, cmd};
use locksim::{Election, Grant, Node, RecipeError};

/// The key the leader holds.
pub const KEY: &str = "my-leader";
/// How long the key lasts unless renewed: locksim's default `ttl_ms`.
pub const TTL_MS: u64 = 200;
/// A leader renews its key this long after the last renewal was sent.
const RENEW_AFTER_MS: u64 = TTL_MS / 4;
/// What a leader allows for clocks that drift apart: 1 % of the TTL and 2 ms.
const DRIFT_MS: u64 = TTL_MS / 100 + 2;
/// The longest pause a leader is to survive between looking at its lease and acting on it.
const PAUSE_MAX_MS: u64 = TTL_MS / 2;
/// How long a candidate waits before it asks again for a key someone holds.
const RETRY_MS: u64 = 10;

/// Resets the key's TTL if it still holds our token: 1 if it did, else 0.
const RENEW: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
    return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
/// Deletes the key if it still holds our token.
const RESIGN: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
    return redis.call('del', KEYS[1]) else return 0 end";

/// How long a leader waits for a renewal's answer.
#[derive(Debug, Clone, Copy)]
pub enum Renewal {
    /// Until its lease ends: no answer by then, no leadership.
    WithinLease,
    /// As long as its connection does (flawed: past its lease).
    AsLongAsItTakes,
}

/// The lease of a leader: its token, until when (on its own clock) it counts on it, and
/// when it renews it.
struct Lease {
    token: String,
    ends_at: u64,
    renew_at: u64,
}

impl Lease {
    /// A lease asked for at `asked`.
    fn from(token: String, asked: u64) -> Lease {
        Lease {
            token,
            ends_at: asked + TTL_MS - DRIFT_MS - PAUSE_MAX_MS,
            renew_at: asked + RENEW_AFTER_MS,
        }
    }
}

/// How many times this host stood for leader, across its sessions: its tokens stay unique.
#[derive(Default)]
struct Stood(u64);

/// One client's candidacy, on its own redis-rs connection to `redis1`.
pub struct MyElection {
    conn: MultiplexedConnection,
    node: Node,
    renewal: Renewal,
    lease: Option<Lease>,
}

impl MyElection {
    /// Connects the candidate on `node`.
    pub async fn connect(node: Node, renewal: Renewal) -> Result<MyElection, RecipeError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(MyElection {
            conn,
            node,
            renewal,
            lease: None,
        })
    }
}

impl Election for MyElection {
    async fn lead(&mut self) -> Result<Grant, RecipeError> {
        let stood = self.node.kept::<Stood>();
        stood.borrow_mut().0 += 1;
        let token = format!("{}-{}", self.node.name, stood.borrow().0);
        let mut set_if_free = cmd("SET");
        set_if_free
            .arg(KEY)
            .arg(&token)
            .arg("NX")
            .arg("PX")
            .arg(TTL_MS);
        let timer = self.node.timer();
        loop {
            let asked = timer.now_ms();
            let set: Option<String> = set_if_free.query_async(&mut self.conn).await?;
            let lease = Lease::from(token.clone(), asked);
            if set.is_some() && timer.now_ms() < lease.ends_at {
                self.lease = Some(lease);
                return Ok(Grant::default());
            }
            timer.sleep(RETRY_MS).await;
        }
    }

    async fn resign(&mut self) -> Result<(), RecipeError> {
        let Some(lease) = self.lease.take() else {
            return Ok(());
        };
        let resign = Script::new(RESIGN);
        let _: u32 = resign
            .key(KEY)
            .arg(&lease.token)
            .invoke_async(&mut self.conn)
            .await?;
        Ok(())
    }

    /// Renews the lease until a renewal fails to keep it: the key was someone else's, or no
    /// renewal came back while the lease could be counted on.
    async fn leadership_lost(&mut self) {
        let timer = self.node.timer();
        loop {
            let Some(lease) = &self.lease else {
                return std::future::pending().await;
            };
            let (token, ends_at) = (lease.token.clone(), lease.ends_at);
            timer.sleep_until(lease.renew_at.min(ends_at)).await;
            let asked = timer.now_ms();
            if asked >= ends_at {
                return;
            }
            let renew = Script::new(RENEW);
            let mut renewal = renew.key(KEY);
            renewal.arg(&token).arg(TTL_MS);
            let renewing = renewal.invoke_async::<u32>(&mut self.conn);
            let renewed = match self.renewal {
                Renewal::WithinLease => timer.timeout(ends_at - asked, renewing).await,
                Renewal::AsLongAsItTakes => Some(renewing.await),
            };
            match renewed {
                Some(Ok(1)) => self.lease = Some(Lease::from(token, asked)),
                // The key is no longer ours, or the lease ended waiting.
                Some(Ok(_)) | None => return,
                // No answer: try again while the lease lasts.
                Some(Err(_)) => {
                    if let Some(lease) = &mut self.lease {
                        lease.renew_at = timer.now_ms() + RETRY_MS;
                    }
                }
            }
        }
    }
}
