//! Async ZooKeeper client over any `AsyncRead + AsyncWrite + Unpin` stream: a turmoil TCP
//! stream in simulation, a tokio one against a real ZooKeeper 3.8. It behaves like the Java
//! client where recipes can tell: same timers, same watch rules, same error codes.
//!
//! `ZkClient::connect` opens the first session and returns a cheap `Clone` handle plus the
//! `Driver`, which the caller spawns (`tokio::task::spawn_local(driver.run())`): the client
//! spawns nothing, so whatever wraps the caller's tasks (the simulation's pause gate) wraps
//! it too. Everything is `!Send` and runs on a current-thread `LocalSet`.
//!
//! Choices where the Java client differs or leaves room:
//! - Calls made while disconnected fail at once with `ConnectionLoss` (Java queues them until
//!   the reconnect and fails them only if it does not come).
//! - After `close()` calls fail with `ZkError::Closed` (Java reports SessionExpired;
//!   `ZkError::code()` maps Closed to it). A close while disconnected ends the client locally
//!   and the server expires the session after its timeout.
//! - `Disconnected` is announced once per lost connection, not again for each failed
//!   reconnect attempt. The reconnect backoff is fixed, not random.
//! - Pings go out after `readTimeout / 2` without sending (Java pings up to 1 s earlier).
//! - Watches also receive the final `Closed` event; after `Expired` or `Closed` every
//!   `Watch` and `SessionEvents` stream ends.

mod config;
mod connection;
mod driver;
mod error;
mod request;
mod session;
mod watches;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::rc::Rc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::sync::oneshot;

pub use config::{ConnectFuture, Connector, ResumeZxid, ZkConfig};
pub use driver::Driver;
pub use error::{ProtocolError, ZkError};
pub use watches::{SessionEvents, Watch};

use crate::sim::timer::Timer;
use crate::zk::proto::{
    Acl, AddWatchMode, ClientInfo, Create2Response, CreateMode, CreateRequest, CreateResponse,
    CreateTtlRequest, DeleteRequest, ErrorCode, MultiOp, OpCode, OpResult, Request, Response,
    SetDataRequest, SetDataResponse, Stat, WatcherType,
};
use request::{Call, Reply};
use session::Shared;

/// A handle on one client session. Clones share the session.
#[derive(Clone)]
pub struct ZkClient {
    calls: UnboundedSender<Call>,
    shared: Rc<RefCell<Shared>>,
    timer: Timer,
}

impl ZkClient {
    /// Opens a session through `connector` (called again for every reconnect). Completes once
    /// the server granted the session, or fails after `config.initial_connect_attempts`.
    /// In simulation the connector is
    /// `|| -> ConnectFuture<TcpStream> { Box::pin(TcpStream::connect("zk1:2181")) }`.
    pub async fn connect<S, C>(
        connector: C,
        config: ZkConfig,
    ) -> Result<(ZkClient, Driver<S>), ZkError>
    where
        S: AsyncRead + AsyncWrite + Unpin + 'static,
        C: Fn() -> ConnectFuture<S> + 'static,
    {
        let timer = config.timer.clone();
        let (driver, handles) = Driver::establish(Box::new(connector), config).await?;
        let client = ZkClient {
            calls: handles.calls,
            shared: handles.shared,
            timer,
        };
        Ok((client, driver))
    }

    /// The clock the client's timers run on (`ZkConfig::timer`), for code that waits
    /// between its requests.
    pub fn timer(&self) -> &Timer {
        &self.timer
    }

    /// The session id the server granted.
    pub fn session_id(&self) -> i64 {
        self.shared.borrow().session_id
    }

    /// Session events (Disconnected, SyncConnected, Expired, Closed) from now on. Ends once
    /// the client is over.
    pub fn events(&self) -> SessionEvents {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut shared = self.shared.borrow_mut();
        if shared.terminal.is_none() {
            shared.subscribers.push(tx);
        }
        SessionEvents::new(rx)
    }

    /// Every event this session receives from now on, in arrival order: each node
    /// notification the server sends (once, however many `Watch`es it fires, and even if
    /// none is waiting for it) interleaved with the session events. The Java client's default
    /// watcher sees a subset of this; differential tests compare it whole. Ends once the
    /// client is over.
    pub fn all_events(&self) -> SessionEvents {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut shared = self.shared.borrow_mut();
        if shared.terminal.is_none() {
            shared.all_subscribers.push(tx);
        }
        SessionEvents::new(rx)
    }

    /// Creates a node with the open ACL; returns its path (with the sequence suffix).
    pub async fn create(
        &self,
        path: &str,
        data: &[u8],
        mode: CreateMode,
    ) -> Result<String, ZkError> {
        match self
            .call_ok(create_request(path, data, mode, false))
            .await?
        {
            Response::Create(CreateResponse { path }) => Ok(path),
            _ => Err(unexpected(OpCode::Create)),
        }
    }

    /// Creates a node and returns its path and Stat.
    pub async fn create2(
        &self,
        path: &str,
        data: &[u8],
        mode: CreateMode,
    ) -> Result<(String, Stat), ZkError> {
        match self.call_ok(create_request(path, data, mode, true)).await? {
            Response::Create2(Create2Response { path, stat }) => Ok((path, stat)),
            _ => Err(unexpected(OpCode::Create)),
        }
    }

    /// Creates a container with the open ACL, numbered when `sequential`: the server deletes
    /// it in a reaper round after its last child is gone (one that never had a child stays),
    /// as Curator's lock and election parents rely on. Returns its path and Stat. A
    /// ZooKeeper 3.5+ operation.
    pub async fn create_container(
        &self,
        path: &str,
        data: &[u8],
        sequential: bool,
    ) -> Result<(String, Stat), ZkError> {
        let request = Request::CreateContainer(CreateRequest {
            path: path.into(),
            data: data.to_vec(),
            acl: Acl::open_unsafe(),
            mode: match sequential {
                true => CreateMode::PersistentSequential,
                false => CreateMode::Container,
            },
        });
        match self.call_ok(request).await? {
            Response::Create2(Create2Response { path, stat }) => Ok((path, stat)),
            _ => Err(unexpected(OpCode::CreateContainer)),
        }
    }

    /// Creates a node with the open ACL that the server deletes in a reaper round once it
    /// has had no children and no change for `ttl_ms` (1 to 2⁴⁰ − 1), numbered when
    /// `sequential`. Returns its path and Stat. Servers refuse it with `Unimplemented`
    /// unless their extended types are on (parameter `extended_types`). A ZooKeeper 3.5+
    /// operation.
    pub async fn create_ttl(
        &self,
        path: &str,
        data: &[u8],
        sequential: bool,
        ttl_ms: i64,
    ) -> Result<(String, Stat), ZkError> {
        let request = Request::CreateTtl(CreateTtlRequest {
            path: path.into(),
            data: data.to_vec(),
            acl: Acl::open_unsafe(),
            mode: match sequential {
                true => CreateMode::PersistentSequentialWithTtl,
                false => CreateMode::PersistentWithTtl,
            },
            ttl_ms,
        });
        match self.call_ok(request).await? {
            Response::Create2(Create2Response { path, stat }) => Ok((path, stat)),
            _ => Err(unexpected(OpCode::CreateTtl)),
        }
    }

    /// Creates a node with `acl` (see [`ZkClient::create`]); `auth` entries stand for the
    /// digest identities this connection added with [`ZkClient::add_auth`].
    pub async fn create_with_acl(
        &self,
        path: &str,
        data: &[u8],
        acl: Vec<Acl>,
        mode: CreateMode,
    ) -> Result<String, ZkError> {
        let request = Request::Create(CreateRequest {
            path: path.into(),
            data: data.to_vec(),
            acl,
            mode,
        });
        match self.call_ok(request).await? {
            Response::Create(CreateResponse { path }) => Ok(path),
            _ => Err(unexpected(OpCode::Create)),
        }
    }

    /// Adds an identity to the connection: scheme `digest` with `user:password` (or `ip`).
    /// Sent again on every reconnection, as the Java client does. A scheme the server does
    /// not know ends the client (`AuthFailed`, as the Java client's state).
    pub async fn add_auth(&self, scheme: &str, auth: &[u8]) -> Result<(), ZkError> {
        let request = Request::Auth {
            kind: 0,
            scheme: scheme.into(),
            auth: auth.to_vec(),
        };
        match self.call_ok(request).await? {
            Response::Auth => Ok(()),
            _ => Err(unexpected(OpCode::Auth)),
        }
    }

    /// The node's ACL and Stat (a digest's hash shows as `x` without ADMIN on it).
    pub async fn get_acl(&self, path: &str) -> Result<(Vec<Acl>, Stat), ZkError> {
        match self.call_ok(Request::GetAcl { path: path.into() }).await? {
            Response::GetAcl { acl, stat } => Ok((acl, stat)),
            _ => Err(unexpected(OpCode::GetAcl)),
        }
    }

    /// Replaces the node's ACL; `version` is the ACL's (Stat.aversion), -1 for any.
    pub async fn set_acl(&self, path: &str, acl: Vec<Acl>, version: i32) -> Result<Stat, ZkError> {
        let request = Request::SetAcl {
            path: path.into(),
            acl,
            version,
        };
        match self.call_ok(request).await? {
            Response::SetAcl { stat } => Ok(stat),
            _ => Err(unexpected(OpCode::SetAcl)),
        }
    }

    /// The identities this connection holds: its address, and each digest it added. A
    /// ZooKeeper 3.7+ operation.
    pub async fn who_am_i(&self) -> Result<Vec<ClientInfo>, ZkError> {
        match self.call_ok(Request::WhoAmI).await? {
            Response::WhoAmI { clients } => Ok(clients),
            _ => Err(unexpected(OpCode::WhoAmI)),
        }
    }

    /// A watch on `path` that stays after it fires (ZooKeeper 3.6+ addWatch): a persistent
    /// one sees the path's own events, NodeChildrenChanged included; a recursive one every
    /// event at or below the path but NodeChildrenChanged. The path need not exist. It is
    /// registered again on every reconnection (setWatches2).
    pub async fn add_watch(&self, path: &str, mode: AddWatchMode) -> Result<Watch, ZkError> {
        let request = Request::AddWatch {
            path: path.into(),
            mode,
        };
        let reply = self.call(request).await?;
        reply.result.map_err(ZkError::Server)?;
        reply.watch.ok_or_else(|| unexpected(OpCode::AddWatch))
    }

    /// Drops this connection's watches of `kind` on `path` on the server (NoWatcher if it
    /// has none); their `Watch`es end. `Any` covers persistent watches too.
    pub async fn remove_watches(&self, path: &str, kind: WatcherType) -> Result<(), ZkError> {
        let request = Request::RemoveWatches {
            path: path.into(),
            kind,
        };
        match self.call_ok(request).await? {
            Response::RemoveWatches => Ok(()),
            _ => Err(unexpected(OpCode::RemoveWatches)),
        }
    }

    /// Deletes a node; `version` -1 matches any.
    pub async fn delete(&self, path: &str, version: i32) -> Result<(), ZkError> {
        let request = Request::Delete(DeleteRequest {
            path: path.into(),
            version,
        });
        match self.call_ok(request).await? {
            Response::Delete => Ok(()),
            _ => Err(unexpected(OpCode::Delete)),
        }
    }

    /// The node's Stat, or None when it does not exist.
    pub async fn exists(&self, path: &str) -> Result<Option<Stat>, ZkError> {
        Ok(self.exists_inner(path, false).await?.0)
    }

    /// As `exists`, leaving a watch: NodeCreated if the node is missing, NodeDataChanged or
    /// NodeDeleted if it exists. The watch is set in both cases, as the server sets it.
    pub async fn exists_watch(&self, path: &str) -> Result<(Option<Stat>, Watch), ZkError> {
        match self.exists_inner(path, true).await? {
            (stat, Some(watch)) => Ok((stat, watch)),
            (_, None) => Err(unexpected(OpCode::Exists)),
        }
    }

    /// The node's data and Stat.
    pub async fn get_data(&self, path: &str) -> Result<(Vec<u8>, Stat), ZkError> {
        Ok(self.get_data_inner(path, false).await?.0)
    }

    /// As `get_data`, leaving a watch (NodeDataChanged or NodeDeleted). On NoNode no watch
    /// is set and the error is returned.
    pub async fn get_data_watch(&self, path: &str) -> Result<(Vec<u8>, Stat, Watch), ZkError> {
        match self.get_data_inner(path, true).await? {
            ((data, stat), Some(watch)) => Ok((data, stat, watch)),
            (_, None) => Err(unexpected(OpCode::GetData)),
        }
    }

    /// Sets the node's data when `version` matches (-1: any); returns the new Stat.
    pub async fn set_data(&self, path: &str, data: &[u8], version: i32) -> Result<Stat, ZkError> {
        let request = Request::SetData(SetDataRequest {
            path: path.into(),
            data: data.to_vec(),
            version,
        });
        match self.call_ok(request).await? {
            Response::SetData(SetDataResponse { stat }) => Ok(stat),
            _ => Err(unexpected(OpCode::SetData)),
        }
    }

    /// The names of the node's children, in the server's (arbitrary) order.
    pub async fn get_children(&self, path: &str) -> Result<Vec<String>, ZkError> {
        Ok(self.get_children_inner(path, false, false).await?.0.0)
    }

    /// As `get_children`, leaving a watch (NodeChildrenChanged or NodeDeleted). On NoNode
    /// no watch is set and the error is returned.
    pub async fn get_children_watch(&self, path: &str) -> Result<(Vec<String>, Watch), ZkError> {
        match self.get_children_inner(path, true, false).await? {
            ((children, _), Some(watch)) => Ok((children, watch)),
            (_, None) => Err(unexpected(OpCode::GetChildren)),
        }
    }

    /// The children's names and the node's Stat.
    pub async fn get_children2(&self, path: &str) -> Result<(Vec<String>, Stat), ZkError> {
        match self.get_children_inner(path, false, true).await? {
            ((children, Some(stat)), _) => Ok((children, stat)),
            _ => Err(unexpected(OpCode::GetChildren)),
        }
    }

    /// Runs `ops` as one all-or-nothing transaction and returns one result per op. The
    /// server answers a multi that failed as one that succeeded, with every result an
    /// `OpResult::Error` (Ok before the failing op, its code for it, RuntimeInconsistency
    /// after it), so a failure is `Ok(results)` too: `proto::multi_error` finds its code.
    /// `Err` means no answer (connection loss, expiry) or a refused request.
    pub async fn multi(&self, ops: Vec<MultiOp>) -> Result<Vec<OpResult>, ZkError> {
        match self.call_ok(Request::Multi { ops }).await? {
            Response::Multi { results } => Ok(results),
            _ => Err(unexpected(OpCode::Multi)),
        }
    }

    /// Waits until the server this session talks to has caught up with the leader, so
    /// that reads sent after it see every write committed before it; returns the path
    /// (the server echoes it without looking it up).
    pub async fn sync(&self, path: &str) -> Result<String, ZkError> {
        match self.call_ok(Request::Sync { path: path.into() }).await? {
            Response::Sync { path } => Ok(path),
            _ => Err(unexpected(OpCode::Sync)),
        }
    }

    /// The paths of this session's ephemeral nodes that start with `prefix` (as strings:
    /// `/a` matches `/ab` too; a blank or `/` prefix gives all), in the server's (arbitrary)
    /// order. A ZooKeeper 3.6+ operation.
    pub async fn get_ephemerals(&self, prefix: &str) -> Result<Vec<String>, ZkError> {
        let request = Request::GetEphemerals {
            prefix: prefix.into(),
        };
        match self.call_ok(request).await? {
            Response::GetEphemerals { paths } => Ok(paths),
            _ => Err(unexpected(OpCode::GetEphemerals)),
        }
    }

    /// How many nodes lie below `path`, at any depth (NoNode if it does not exist). A
    /// ZooKeeper 3.6+ operation.
    pub async fn get_all_children_number(&self, path: &str) -> Result<i32, ZkError> {
        let request = Request::GetAllChildrenNumber { path: path.into() };
        match self.call_ok(request).await? {
            Response::GetAllChildrenNumber { total } => Ok(total),
            _ => Err(unexpected(OpCode::GetAllChildrenNumber)),
        }
    }

    /// Ends the session: sends CloseSession and waits for the reply or the connection's
    /// loss. Afterwards the client is closed for good (calls fail with `Closed`).
    pub async fn close(&self) {
        if self.shared.borrow().terminal.is_some() {
            return;
        }
        // Closing ends the client whatever the answer (reply, loss, or a gone driver).
        let _ = self.call(Request::CloseSession).await;
    }

    async fn exists_inner(
        &self,
        path: &str,
        watch: bool,
    ) -> Result<(Option<Stat>, Option<Watch>), ZkError> {
        let reply = self
            .call(Request::Exists {
                path: path.into(),
                watch,
            })
            .await?;
        match reply.result {
            Ok(Response::Exists { stat }) => Ok((Some(stat), reply.watch)),
            Err(ErrorCode::NoNode) => Ok((None, reply.watch)),
            Err(code) => Err(ZkError::Server(code)),
            Ok(_) => Err(unexpected(OpCode::Exists)),
        }
    }

    async fn get_data_inner(
        &self,
        path: &str,
        watch: bool,
    ) -> Result<((Vec<u8>, Stat), Option<Watch>), ZkError> {
        let reply = self
            .call(Request::GetData {
                path: path.into(),
                watch,
            })
            .await?;
        match reply.result {
            Ok(Response::GetData { data, stat }) => Ok(((data, stat), reply.watch)),
            Err(code) => Err(ZkError::Server(code)),
            Ok(_) => Err(unexpected(OpCode::GetData)),
        }
    }

    async fn get_children_inner(
        &self,
        path: &str,
        watch: bool,
        stat_reply: bool,
    ) -> Result<((Vec<String>, Option<Stat>), Option<Watch>), ZkError> {
        let path = path.to_string();
        let request = match stat_reply {
            false => Request::GetChildren { path, watch },
            true => Request::GetChildren2 { path, watch },
        };
        let reply = self.call(request).await?;
        match reply.result {
            Ok(Response::GetChildren { children }) => Ok(((children, None), reply.watch)),
            Ok(Response::GetChildren2 { children, stat }) => {
                Ok(((children, Some(stat)), reply.watch))
            }
            Err(code) => Err(ZkError::Server(code)),
            Ok(_) => Err(unexpected(OpCode::GetChildren)),
        }
    }

    /// A call whose error replies are errors and which sets no watch.
    async fn call_ok(&self, request: Request) -> Result<Response, ZkError> {
        self.call(request).await?.result.map_err(ZkError::Server)
    }

    async fn call(&self, request: Request) -> Result<Reply, ZkError> {
        if let Some(terminal) = self.shared.borrow().terminal.clone() {
            return Err(terminal);
        }
        let (reply, answer) = oneshot::channel();
        if self.calls.send(Call { request, reply }).is_err() {
            return Err(self.shared.borrow().gone());
        }
        match answer.await {
            Ok(result) => result,
            Err(_) => Err(self.shared.borrow().gone()),
        }
    }
}

/// A create (create2 with `stat_reply`) with the open ACL.
fn create_request(path: &str, data: &[u8], mode: CreateMode, stat_reply: bool) -> Request {
    let create = CreateRequest {
        path: path.into(),
        data: data.to_vec(),
        acl: Acl::open_unsafe(),
        mode,
    };
    match stat_reply {
        false => Request::Create(create),
        true => Request::Create2(create),
    }
}

/// A reply body that does not fit the request: only a codec bug can cause it.
fn unexpected(op: OpCode) -> ZkError {
    ZkError::Protocol(ProtocolError::UnexpectedResponse(op))
}
