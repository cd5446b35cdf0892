//! The store as a client reaches it: a handle that reads the register and writes one more than
//! it read, carrying a fencing token, and records each access in the history the way the
//! workloads do, so `resource` judges a user's program as it judges the built-in recipes.

use super::{PORT, StoreReply, StoreRequest};
use crate::history::{Kind, Op, StoreOp};
use crate::sim::node::Node;
use crate::sim::timer::Timer;
use std::fmt;
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use turmoil::net::TcpStream;

/// How long an access waits for the store's answer unless `ProtectedStore::timeout_ms` says
/// otherwise: locksim's default session timeout and TTL, past which a holder's lease is gone
/// and what it asked may as well be lost.
const DEFAULT_TIMEOUT_MS: u64 = 200;

/// The protected resource (the register on the `store` host) in a client's hands: what a
/// lock holder or a leader writes through. Every holder reads the register, does its work and
/// writes one more than it read; a write based on a value that was no longer current is a
/// lost update, which `resource` reports. With `--set fencing=true` the store refuses an
/// access whose token is below the highest it has seen, so a holder whose lock passed on
/// (a pause, an expired session or lease) cannot do that damage.
///
/// Each access is recorded as the workloads record theirs (invoke, then ok, fail when the
/// store refused it, or info when its outcome is unknown), so timelines show it and a
/// replay judges it the same. The workloads do their guarded write through this handle; a
/// [`client_program`](crate::experiment::ZkHosts::client_program) does its own:
///
/// ```no_run
/// use locksim::store::ProtectedStore;
/// use locksim::{Property, Scenario};
///
/// Scenario::redis(1)
///     .client_program(|node| async move {
///         // No lock at all: two clients' read-then-write interleave.
///         let store = ProtectedStore::new(&node);
///         if let Ok(read) = store.read(None).await {
///             node.timer().sleep(20).await;
///             let _ = store.increment(read).await;
///         }
///     })
///     .explore(0..10)
///     .assert_violates(Property::RESOURCE);
/// ```
#[derive(Debug, Clone)]
#[must_use = "a store handle does nothing until it reads or writes"]
pub struct ProtectedStore {
    node: Node,
    timeout_ms: u64,
}

/// What a read found: the register's value, and the token it was read under, which the write
/// based on it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[must_use = "a read is what a write is based on: pass it to `increment`"]
pub struct Read {
    /// The register's value.
    pub value: i64,
    /// The fencing token the read carried, if any.
    pub token: Option<i64>,
}

/// Why an access to the store did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The store has seen a higher fencing token (or, fenced, none was given): this holder's
    /// lock has passed on, and the store kept its value from it.
    Refused,
    /// No answer within the timeout, or the connection broke: the access may or may not have
    /// been applied.
    Unknown,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreError::Refused => "the store refused a stale fencing token",
            StoreError::Unknown => "the store's answer did not come: outcome unknown",
        })
    }
}

impl std::error::Error for StoreError {}

impl ProtectedStore {
    /// The store as `node`'s software reaches it, waiting 200 ms for each answer.
    pub fn new(node: &Node) -> ProtectedStore {
        ProtectedStore {
            node: node.clone(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }

    /// Waits at most `ms` on the node's clock for each answer; an access not answered by then
    /// has an unknown outcome (the simulated TCP never resends a lost segment, so without a
    /// bound a holder could wait for ever).
    pub fn timeout_ms(self, ms: u64) -> ProtectedStore {
        ProtectedStore {
            timeout_ms: ms,
            ..self
        }
    }

    /// Reads the register, carrying `token` (a holder's [`Grant::token`](crate::Grant)): a
    /// fenced store refuses it once it has seen a higher one.
    pub async fn read(&self, token: Option<i64>) -> Result<Read, StoreError> {
        let read = |value| Op::Store(StoreOp::Read { value });
        self.node.record(Kind::Invoke, read(None));
        match self.call(&StoreRequest::Read { token }).await {
            Ok(StoreReply::Value(value)) => {
                self.node.record(Kind::Ok, read(Some(value)));
                Ok(Read { value, token })
            }
            Ok(_) => {
                self.node.record(Kind::Fail, read(None));
                Err(StoreError::Refused)
            }
            Err(_) => {
                self.node.record(Kind::Info, read(None));
                Err(StoreError::Unknown)
            }
        }
    }

    /// Writes one more than `read` found, carrying its token. The store applies it unless
    /// fencing refuses the token; `resource` then judges whether the register still held
    /// what was read.
    pub async fn increment(&self, read: Read) -> Result<(), StoreError> {
        let value = read.value + 1;
        let write = Op::Store(StoreOp::Write {
            value,
            token: read.token,
        });
        self.node.record(Kind::Invoke, write.clone());
        let request = StoreRequest::Write {
            based_on: read.value,
            value,
            token: read.token,
        };
        let (kind, outcome) = match self.call(&request).await {
            Ok(StoreReply::Accepted(true)) => (Kind::Ok, Ok(())),
            Ok(_) => (Kind::Fail, Err(StoreError::Refused)),
            Err(_) => (Kind::Info, Err(StoreError::Unknown)),
        };
        self.node.record(kind, write);
        outcome
    }

    /// One request over a fresh connection (so a broken stream never outlives one access),
    /// abandoned after the timeout on the node's clock.
    async fn call(&self, request: &StoreRequest) -> io::Result<StoreReply> {
        let timer: Timer = self.node.timer();
        timer
            .timeout(self.timeout_ms, exchange(request))
            .await
            .unwrap_or_else(|| Err(io::ErrorKind::TimedOut.into()))
    }
}

async fn exchange(request: &StoreRequest) -> io::Result<StoreReply> {
    let stream = TcpStream::connect(("store", PORT)).await?;
    let (read, mut write) = stream.into_split();
    let mut out = serde_json::to_vec(request).expect("request serialises");
    out.push(b'\n');
    write.write_all(&out).await?;
    let line = BufReader::with_capacity(super::LINE_BUF, read)
        .lines()
        .next_line()
        .await?
        .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
    serde_json::from_str(&line).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
