//! A fenced Redis lock whose waiters are woken rather than polling. Acquiring sets the lock
//! key (`SET NX PX`) and takes a fencing token from an `INCR` counter, in one script, so
//! tokens rise in the order the lock was granted; the protected store refuses a write with a
//! token older than one it has seen. The counter is only as durable as Redis: a restart that
//! forgets it hands the same tokens out again, and the store cannot tell a stalled holder from
//! the new one that holds its token. Releasing deletes the key if it is still ours, leaves one
//! wake-up on a list and publishes an unlock notice, in one script too. A waiter waits for a
//! wake-up with a blocking pop (`BLPOP`, which wakes one waiter) or for the notice on a
//! pub/sub channel (which wakes every subscriber, over a RESP3 connection's pushes).
//!
//! Either wait needs a bound: a lock that expires (its holder crashed or stalled) sends
//! nothing, and a notice lost to a partition is lost for good. `Wait::NoticeUnbounded` is the
//! flawed control that leaves the bound out.

use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{
    AsyncCommands, AsyncConnectionConfig, ProtocolVersion, PushInfo, PushKind, RedisConnectionInfo,
    Script,
};
use locksim::{Grant, Lock, LockError, Node};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// The key the lock lives at.
pub const KEY: &str = "fenced-lock";
/// The fencing counter: each grant's token is its next value.
pub const FENCE: &str = "fenced-lock:fence";
/// The list a release leaves one wake-up on.
pub const WAKE: &str = "fenced-lock:wake";
/// The channel a release publishes its notice on.
pub const CHANNEL: &str = "fenced-lock:released";
/// How long a lock lasts unless released: locksim's default `ttl_ms`.
pub const TTL_MS: u64 = 200;
/// The part of the TTL a holder counts on, allowing for clocks that drift apart.
const VALID_MS: u64 = TTL_MS * 9 / 10;

/// Takes the lock and a fencing token together, or nothing.
const ACQUIRE: &str = "\
    if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then \
        return redis.call('incr', KEYS[2]) \
    end \
    return false";

/// Gives the lock back if it is still ours, and tells the waiters.
const RELEASE: &str = "\
    if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end \
    redis.call('del', KEYS[1], KEYS[2]) \
    redis.call('rpush', KEYS[2], ARGV[1]) \
    redis.call('publish', ARGV[2], ARGV[1]) \
    return 1";

/// What the lock records when a release, not the bound, ended a wait: the tests read it back
/// to see that releases do wake waiters. (The wake-up may be one a release left while nobody
/// waited, which the next waiter takes at once: it then tries again, no harm done.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum WaiterEvent {
    /// A waiter took a release's wake-up off the list (`by: "pop"`) or heard its notice
    /// (`by: "notice"`).
    Woken { by: String },
}

/// How a waiter learns that the lock is free.
#[derive(Debug, Clone, Copy)]
pub enum Wait {
    /// `BLPOP` the wake list for at most a TTL.
    Pop,
    /// The unlock notice, or a TTL, whichever comes first.
    Notice,
    /// The unlock notice, however long it takes: no notice comes for a lock that expired.
    NoticeUnbounded,
}

/// One client's lock on its own redis-rs connection to `redis1`.
pub struct FencedLock {
    conn: MultiplexedConnection,
    /// The connection's pushes, where the notice waits subscribe.
    notices: Option<UnboundedReceiver<PushInfo>>,
    node: Node,
    wait: Wait,
    acquired: u64,
    token: Option<String>,
}

impl FencedLock {
    /// Connects the client on `node`: in redis-rs's default configuration for `Wait::Pop`;
    /// in RESP3, subscribed to the unlock channel, for the notice waits (redis-rs reads a
    /// subscription's messages on a command connection only in RESP3).
    pub async fn connect(node: Node, wait: Wait) -> Result<FencedLock, LockError> {
        let (conn, notices) = match wait {
            Wait::Pop => (locksim::redis::rs::connect(&node, "redis1").await?, None),
            Wait::Notice | Wait::NoticeUnbounded => {
                let (pushes, notices) = unbounded_channel();
                let info = RedisConnectionInfo::default().set_protocol(ProtocolVersion::RESP3);
                let config = AsyncConnectionConfig::new().set_push_sender(pushes);
                let mut conn =
                    locksim::redis::rs::connect_as(&node, "redis1", info, config).await?;
                conn.subscribe(CHANNEL).await?;
                (conn, Some(notices))
            }
        };
        Ok(FencedLock {
            conn,
            notices,
            node,
            wait,
            acquired: 0,
            token: None,
        })
    }

    /// Forgets the notices that came before this attempt: only a release after it tells
    /// the waiter something. A connection that dropped ends the lock.
    fn forget_notices(&mut self) -> Result<(), LockError> {
        let Some(notices) = &mut self.notices else {
            return Ok(());
        };
        while let Ok(push) = notices.try_recv() {
            if push.kind == PushKind::Disconnection {
                return Err(LockError::ConnectionLoss);
            }
        }
        Ok(())
    }

    /// Waits until a release may have freed the lock (or the wait's bound passed).
    async fn wait_for_release(&mut self) -> Result<(), LockError> {
        let timer = self.node.timer();
        let notices = match (self.wait, &mut self.notices) {
            (Wait::Pop, _) => {
                let popped: Option<[String; 2]> =
                    self.conn.blpop(WAKE, TTL_MS as f64 / 1000.0).await?;
                if popped.is_some() {
                    self.woken("pop");
                }
                return Ok(());
            }
            (_, Some(notices)) => notices,
            (_, None) => unreachable!("a notice wait connects subscribed"),
        };
        let notice = async {
            loop {
                match notices.recv().await.map(|push| push.kind) {
                    Some(PushKind::Message) => return Ok(true),
                    Some(PushKind::Disconnection) | None => return Err(LockError::ConnectionLoss),
                    Some(_) => {}
                }
            }
        };
        let heard = match self.wait {
            Wait::NoticeUnbounded => notice.await?,
            _ => timer.timeout(TTL_MS, notice).await.unwrap_or(Ok(false))?,
        };
        if heard {
            self.woken("notice");
        }
        Ok(())
    }

    fn woken(&self, by: &str) {
        self.node
            .record_event(&WaiterEvent::Woken { by: by.into() });
    }
}

impl Lock for FencedLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.acquired += 1;
        let token = format!("{}-{}", self.node.name, self.acquired);
        let timer = self.node.timer();
        loop {
            self.forget_notices()?;
            let asked = timer.now_ms();
            let fence: Option<i64> = Script::new(ACQUIRE)
                .key(KEY)
                .key(FENCE)
                .arg(&token)
                .arg(TTL_MS)
                .invoke_async(&mut self.conn)
                .await?;
            let valid_ms = VALID_MS.saturating_sub(timer.now_ms() - asked);
            if let Some(fence) = fence.filter(|_| valid_ms > 0) {
                self.token = Some(token);
                return Ok(Grant {
                    token: Some(fence),
                    valid_ms: Some(valid_ms),
                    ..Grant::default()
                });
            }
            // Refused, or granted with nothing left to count on: the key then expires.
            self.wait_for_release().await?;
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        let Some(token) = self.token.take() else {
            return Ok(());
        };
        let _: u32 = Script::new(RELEASE)
            .key(KEY)
            .key(WAKE)
            .arg(&token)
            .arg(CHANNEL)
            .invoke_async(&mut self.conn)
            .await?;
        Ok(())
    }
}
