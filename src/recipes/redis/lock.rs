//! The Redis lock's async driver: every attempt sends `SET key token NX PX ttl` to all
//! masters at once, each with its own timeout, and lets `decide` judge the votes against
//! the time they took on the client's monotonic clock. A failed attempt unlocks every node
//! (the flavor permitting) and retries after a delay; the holder treats the lock as lost
//! when its validity runs out on its own clock. A holder extends by the compare-and-pexpire
//! script on every master at once, judged like an acquire, a bounded number of times.

use super::decide::{self, Decision, Flavor, Release};
use crate::recipes::{Grant, Lock, LockError};
use crate::redis::PORT;
use crate::redis::client::{CallError, RedisClient};
use crate::redis::resp::Frame;
use crate::sim::node::Node;
use crate::sim::timer::Timer;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;
use turmoil::net::TcpStream;

/// Deletes the key only if it still holds this client's token.
pub const RELEASE_SCRIPT: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
    return redis.call('del', KEYS[1]) else return 0 end";

/// Resets the key's TTL to `ARGV[2]` ms only if it still holds this client's token: 1 if it
/// did, else 0.
pub const EXTEND_SCRIPT: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
    return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/// What a lock needs to know of its masters and its timing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisLockConfig {
    /// The masters' host names.
    pub masters: Vec<String>,
    /// The key the lock is set on, on every master.
    pub key: String,
    /// The key's time to live, asked with each SET (PX) and extension.
    pub ttl_ms: u64,
    /// One node's answer (connect and request) is given up after this.
    pub request_timeout_ms: u64,
    /// A failed attempt waits a random delay of up to this before the next (the `FixedRetry`
    /// flaw: exactly this).
    pub retry_delay_max_ms: u64,
    /// Extension attempts one grant may make. Bounded because a holder that extends forever
    /// starves everyone else (the distlock page limits "lock reacquisition attempts").
    pub max_extensions: u32,
}

/// The lock a client holds.
struct Held {
    token: Vec<u8>,
    /// Until when it is valid, on the client's monotonic clock.
    valid_until: u64,
    /// Extension attempts made on it so far.
    extensions: u32,
}

/// The Redis lock (one master) or Redlock (several) of a flavor, bound to one client.
pub struct RedisLock {
    node: Node,
    config: RedisLockConfig,
    flavor: Flavor,
    rng: Rc<RefCell<ChaCha8Rng>>,
    held: Option<Held>,
    /// One connection per master, kept open between requests as client libraries keep
    /// theirs (and as cheap for the simulation: no handshake and no server task per request).
    conns: Vec<Conn>,
}

type Conn = RefCell<Option<RedisClient<TcpStream>>>;

impl RedisLock {
    /// A lock for the client on `node`; `rng` draws its tokens and retry delays.
    pub fn new(
        node: Node,
        config: RedisLockConfig,
        flavor: Flavor,
        rng: Rc<RefCell<ChaCha8Rng>>,
    ) -> RedisLock {
        RedisLock {
            node,
            conns: config.masters.iter().map(|_| Conn::default()).collect(),
            config,
            flavor,
            rng,
            held: None,
        }
    }

    fn timer(&self) -> Timer {
        self.node.timer()
    }

    /// Sends `args` to every master at once; each answer, or why there was none.
    async fn on_all(&self, args: Vec<Vec<u8>>) -> Vec<Result<Frame, CallError>> {
        let requests = self
            .config
            .masters
            .iter()
            .zip(&self.conns)
            .map(|(master, conn)| {
                request(
                    conn,
                    master,
                    &args,
                    self.timer(),
                    self.config.request_timeout_ms,
                )
            })
            .collect();
        join_all(requests).await
    }

    /// Removes this token's lock from every master.
    async fn unlock(&self, token: &[u8]) {
        let key = self.config.key.as_bytes().to_vec();
        let args = match decide::release(self.flavor) {
            Release::Delete => vec![b"DEL".to_vec(), key],
            Release::CompareAndDelete => vec![
                b"EVAL".to_vec(),
                RELEASE_SCRIPT.as_bytes().to_vec(),
                b"1".to_vec(),
                key,
                token.to_vec(),
            ],
        };
        self.on_all(args).await;
    }
}

/// One request on the master's connection, opened first if there is none, within
/// `timeout_ms` for the connect and again for the request. A connection that timed out or
/// failed is dropped, so a late reply never answers the next request.
async fn request(
    conn: &Conn,
    host: &str,
    args: &[Vec<u8>],
    timer: Timer,
    timeout_ms: u64,
) -> Result<Frame, CallError> {
    let cached = conn.borrow_mut().take();
    let mut client = match cached {
        Some(client) => client,
        None => {
            let stream = timer
                .timeout(timeout_ms, TcpStream::connect((host, PORT)))
                .await
                .ok_or(CallError::Timeout)?
                .map_err(|_| CallError::Closed)?;
            RedisClient::new(stream, timer, timeout_ms)
        }
    };
    let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    let answer = client.call(&args).await;
    if answer.is_ok() {
        *conn.borrow_mut() = Some(client);
    }
    answer
}

impl Lock for RedisLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        let timer = self.timer();
        let nodes = self.config.masters.len();
        loop {
            let token = format!("{:016x}", self.rng.borrow_mut().random::<u64>()).into_bytes();
            let started = timer.now_ms();
            let set = vec![
                b"SET".to_vec(),
                self.config.key.as_bytes().to_vec(),
                token.clone(),
                b"NX".to_vec(),
                b"PX".to_vec(),
                self.config.ttl_ms.to_string().into_bytes(),
            ];
            let answers = self.on_all(set).await;
            let granted_by: Vec<String> = answers
                .iter()
                .zip(&self.config.masters)
                .filter(|(a, _)| matches!(a, Ok(Frame::Simple(ok)) if ok == b"OK"))
                .map(|(_, master)| master.clone())
                .collect();
            let now = timer.now_ms();
            let elapsed = now.saturating_sub(started);
            match decide::decide(
                self.flavor,
                granted_by.len(),
                nodes,
                self.config.ttl_ms,
                elapsed,
            ) {
                Decision::Acquired { validity_ms } => {
                    let valid_until = decide::valid_until(started, validity_ms);
                    self.held = Some(Held {
                        token,
                        valid_until,
                        extensions: 0,
                    });
                    return Ok(Grant {
                        token: None,
                        granted_by,
                        valid_ms: Some(valid_until.saturating_sub(now)),
                    });
                }
                Decision::Failed => {
                    if decide::unlocks_after_failure(self.flavor) {
                        self.unlock(&token).await;
                    }
                    let rng = &self.rng;
                    let delay = decide::retry_delay_ms(
                        self.flavor,
                        self.config.retry_delay_max_ms,
                        |max| rng.borrow_mut().random_range(1..=max),
                    );
                    timer.sleep(delay).await;
                }
            }
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        if let Some(held) = self.held.take() {
            self.unlock(&held.token).await;
        }
        Ok(())
    }

    /// Sends the compare-and-pexpire script to every master at once; the lock is extended
    /// if `decide_extension` says so of the masters that answered 1. Every attempt counts
    /// against the bound, successful or not. A failed attempt leaves the old validity (the
    /// lock is still held until then) and the keys it did extend (they expire by themselves
    /// within a TTL).
    async fn extend(&mut self) -> Option<Grant> {
        let held = self.held.as_mut()?;
        if held.extensions >= self.config.max_extensions {
            return None;
        }
        held.extensions += 1;
        let (token, valid_until) = (held.token.clone(), held.valid_until);
        let timer = self.timer();
        let started = timer.now_ms();
        let script = vec![
            b"EVAL".to_vec(),
            EXTEND_SCRIPT.as_bytes().to_vec(),
            b"1".to_vec(),
            self.config.key.as_bytes().to_vec(),
            token,
            self.config.ttl_ms.to_string().into_bytes(),
        ];
        let answers = self.on_all(script).await;
        let extended_by: Vec<String> = answers
            .iter()
            .zip(&self.config.masters)
            .filter(|(a, _)| matches!(a, Ok(Frame::Integer(1))))
            .map(|(_, master)| master.clone())
            .collect();
        let now = timer.now_ms();
        let decision = decide::decide_extension(
            self.flavor,
            extended_by.len(),
            self.config.masters.len(),
            self.config.ttl_ms,
            now.saturating_sub(started),
            valid_until.saturating_sub(started),
        );
        let Decision::Acquired { validity_ms } = decision else {
            return None;
        };
        let valid_until = decide::valid_until(started, validity_ms);
        self.held.as_mut()?.valid_until = valid_until;
        Some(Grant {
            token: None,
            granted_by: extended_by,
            valid_ms: Some(valid_until.saturating_sub(now)),
        })
    }

    /// Once the validity is over on the client's own clock, the lock is not its any more.
    async fn lost(&mut self) {
        match &self.held {
            Some(held) => self.timer().sleep_until(held.valid_until).await,
            None => std::future::pending().await,
        }
    }

    async fn close(self) {}
}

/// Polls every future in this task until all are done (no task per request).
async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pending: Vec<Option<std::pin::Pin<Box<F>>>> =
        futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut outputs: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut done = true;
        for (slot, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => {
                        *output = Some(value);
                        *slot = None;
                    }
                    std::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
