//! The Redis mutant: a lock on redis-rs whose release, when the reply to its
//! compare-and-delete script is lost, connects again and runs the script again (harmless:
//! it compares the token), but after a few such failures falls back to a plain `DEL` "to
//! make sure the lock is gone" (R9, etcd #22082; the Redis docs' warning about DEL). A lost
//! script reply is a script that ran: the key was deleted, the next client took the lock,
//! and the fallback DEL removes the next holder's key, so a third client holds beside it.

use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{AsyncCommands, ExistenceCheck, Script, SetExpiry, SetOptions};
use locksim::{Grant, Lock, LockError, Node};

/// The key the lock lives at.
const KEY: &str = "mutant-lock";
/// locksim's default `ttl_ms`.
const TTL_MS: u64 = 200;
/// How long a client waits before it asks again for a lock someone holds.
const RETRY_MS: u64 = 10;
/// What a client allows for clocks that drift apart: 1 % of the TTL and 2 ms.
const DRIFT_MS: u64 = TTL_MS / 100 + 2;

/// What a release does when the script's reply does not come.
#[derive(Debug, Clone, Copy)]
pub enum Fallback {
    /// Runs the script again on a new connection until a reply comes (the recipe).
    ScriptAgain,
    /// After this many script runs without a reply, a plain `DEL` (flawed).
    DelAfter(u32),
}

/// One client's lock on its own redis-rs connection to `redis1`.
pub struct FallbackLock {
    conn: MultiplexedConnection,
    node: Node,
    fallback: Fallback,
    acquired: u64,
    token: Option<String>,
}

impl FallbackLock {
    pub async fn connect(node: Node, fallback: Fallback) -> Result<FallbackLock, LockError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(FallbackLock {
            conn,
            node,
            fallback,
            acquired: 0,
            token: None,
        })
    }

    /// A new connection in place of one that failed.
    async fn reconnect(&mut self) -> Result<(), LockError> {
        self.conn = locksim::redis::rs::connect(&self.node, "redis1").await?;
        Ok(())
    }
}

impl Lock for FallbackLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.acquired += 1;
        let token = format!("{}-{}", self.node.name, self.acquired);
        let options = SetOptions::default()
            .conditional_set(ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(TTL_MS));
        let timer = self.node.timer();
        loop {
            let asked = timer.now_ms();
            let set: Option<String> = self.conn.set_options(KEY, &token, options.clone()).await?;
            let valid_ms = TTL_MS.saturating_sub(timer.now_ms() - asked + DRIFT_MS);
            if set.is_some() && valid_ms > 0 {
                self.token = Some(token);
                return Ok(Grant {
                    valid_ms: Some(valid_ms),
                    ..Grant::default()
                });
            }
            timer.sleep(RETRY_MS).await;
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        let Some(token) = self.token.take() else {
            return Ok(());
        };
        let script = Script::new(
            "if redis.call('get', KEYS[1]) == ARGV[1] then \
             return redis.call('del', KEYS[1]) else return 0 end",
        );
        let mut unanswered = 0;
        loop {
            let ran: Result<u32, _> = script
                .key(KEY)
                .arg(&token)
                .invoke_async(&mut self.conn)
                .await;
            if ran.is_ok() {
                return Ok(());
            }
            unanswered += 1;
            self.reconnect().await?;
            if let Fallback::DelAfter(most) = self.fallback
                && unanswered >= most
            {
                let _: u32 = self.conn.del(KEY).await?;
                return Ok(());
            }
        }
    }
}
