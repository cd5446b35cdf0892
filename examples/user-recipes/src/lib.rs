//! A user's own Redis lock, written against redis-rs as it would be for production: `SET key
//! token NX PX ttl` to acquire, and one of two releases. The tests explore it with locksim.
//! `semaphore` is a counting semaphore with a property of the user's own, `fenced_lock` a
//! fenced lock whose waiters a blocking pop or a pub/sub notice wakes, `redis_election` a
//! leader election, `redis_queue` a distributed queue and `redis_barrier` a barrier and a
//! double barrier over Redis, `zk_lock` a ZooKeeper lock built from locksim's recipe kit,
//! `election` a leader election and `queue` a distributed queue over ZooKeeper, `tk_lock` a
//! ZooKeeper lock and `tk_election` a leader election on tokio-zookeeper, `lease` a client
//! program with a step of its own.

pub mod election;
pub mod fenced_lock;
pub mod lease;
pub mod queue;
pub mod redis_barrier;
pub mod redis_election;
pub mod redis_queue;
pub mod semaphore;
pub mod tk_election;
pub mod tk_lock;
pub mod zk_lock;

use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{AsyncCommands, ExistenceCheck, Script, SetExpiry, SetOptions};
use locksim::{Grant, Lock, LockError, Node};

/// The key the lock lives at.
pub const KEY: &str = "my-lock";
/// How long a lock lasts unless released: locksim's default `ttl_ms`.
pub const TTL_MS: u64 = 200;
/// How long a client waits before it asks again for a lock someone holds.
pub const RETRY_MS: u64 = 10;
/// What a client allows for clocks that drift apart: 1 % of the TTL and 2 ms.
pub const DRIFT_MS: u64 = TTL_MS / 100 + 2;

/// How the lock is given back.
#[derive(Debug, Clone, Copy)]
pub enum Release {
    /// GET the key, and DEL it if it holds our token: two requests, and between them the
    /// lock can expire and pass to someone else, whose lock the DEL then removes.
    GetThenDel,
    /// Compare and delete in one script, as the Redis docs say.
    CompareAndDelete,
}

/// The lock of one client, on its own redis-rs connection to `redis1`.
pub struct MyLock {
    conn: MultiplexedConnection,
    node: Node,
    release: Release,
    acquired: u64,
    token: Option<String>,
}

impl MyLock {
    /// Connects the client on `node`.
    pub async fn connect(node: Node, release: Release) -> Result<MyLock, LockError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(MyLock {
            conn,
            node,
            release,
            acquired: 0,
            token: None,
        })
    }
}

impl Lock for MyLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.acquired += 1;
        let token = format!("{}-{}", self.node.name, self.acquired);
        let options = SetOptions::default()
            .conditional_set(ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(TTL_MS));
        let timer = self.node.timer();
        loop {
            // The key's TTL runs from when Redis set it, at most from when we asked: the
            // lock is ours for what is left of the TTL after the round trip.
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
        match self.release {
            Release::GetThenDel => {
                let holder: Option<String> = self.conn.get(KEY).await?;
                if holder.as_deref() == Some(token.as_str()) {
                    let _: u32 = self.conn.del(KEY).await?;
                }
            }
            Release::CompareAndDelete => {
                let script = Script::new(
                    "if redis.call('get', KEYS[1]) == ARGV[1] then \
                     return redis.call('del', KEYS[1]) else return 0 end",
                );
                let _: u32 = script
                    .key(KEY)
                    .arg(&token)
                    .invoke_async(&mut self.conn)
                    .await?;
            }
        }
        Ok(())
    }
}
