//! The task that owns the connection: it sends requests, matches replies (FIFO by xid),
//! delivers watch events in stream order, pings, notices a silent server, and reconnects
//! within the session. The caller spawns it (`spawn_local(driver.run())`): the client never
//! spawns tasks itself, so the simulation's per-host pause gate covers it.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::rc::Rc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::config::{Connector, ZkConfig};
use super::connection::{Connection, IoEvent, attempt};
use super::error::{ProtocolError, ZkError};
use super::request::{Call, Pending, Reply};
use super::session::{Session, Shared, announce, finish};
use super::watches::{WatchRegistry, registration};
use crate::zk::proto::{
    AUTH_XID, ErrorCode, KeeperState, NOTIFICATION_XID, PING_XID, Request, SET_WATCHES_XID,
    decode_reply_header, decode_response, decode_watcher_event, encode_request,
};

/// How a connection ended.
enum Ended {
    /// Dropped within the session: reconnect.
    Lost,
    /// The client is over (closed, expired, or every handle dropped): stop.
    Over,
}

/// Drives one client's session. Build it with `ZkClient::connect`; run it with `run`.
pub struct Driver<S> {
    connector: Connector<S>,
    config: ZkConfig,
    session: Session,
    shared: Rc<RefCell<Shared>>,
    watches: WatchRegistry,
    calls: UnboundedReceiver<Call>,
    pending: VecDeque<Pending>,
    next_xid: i32,
    /// CloseSession is on the wire: refuse further calls, and a dropped connection ends it.
    closing: bool,
    /// The auth packets sent so far, sent again on every new connection (as the Java client
    /// keeps its `authInfo`): the server keeps identities per connection.
    auths: Vec<Request>,
    /// The connection `establish` opened, until `run` takes it.
    first: Option<Connection<S>>,
}

/// What `establish` hands to the client handle.
pub(super) struct Handles {
    pub(super) calls: UnboundedSender<Call>,
    pub(super) shared: Rc<RefCell<Shared>>,
}

impl<S: AsyncRead + AsyncWrite> Driver<S> {
    /// Opens the first session: up to `initial_connect_attempts` attempts, `backoff` apart.
    /// Fails with the last attempt's error.
    pub(super) async fn establish(
        connector: Connector<S>,
        config: ZkConfig,
    ) -> Result<(Driver<S>, Handles), ZkError> {
        let mut session = Session::new(config.session_timeout_ms, config.resume_zxid);
        let (limit_ms, timer) = (config.connect_attempt_timeout_ms, config.timer.clone());
        let mut last_err = ZkError::ConnectionLoss;
        for n in 0..config.initial_connect_attempts.max(1) {
            if n > 0 {
                timer.sleep(config.reconnect_backoff_ms).await;
            }
            let request = session.connect_request();
            let (conn, response) = match attempt(&connector, &request, limit_ms, &timer).await {
                Ok(opened) => opened,
                Err(err) => {
                    last_err = err;
                    continue;
                }
            };
            session
                .accept(&response)
                .map_err(|_| ZkError::SessionExpired)?;
            let shared = Rc::new(RefCell::new(Shared {
                session_id: session.id(),
                ..Shared::default()
            }));
            let (calls_tx, calls_rx) = mpsc::unbounded_channel();
            let driver = Driver {
                connector,
                config,
                session,
                shared: Rc::clone(&shared),
                watches: WatchRegistry::default(),
                calls: calls_rx,
                pending: VecDeque::new(),
                next_xid: 1,
                closing: false,
                auths: Vec::new(),
                first: Some(conn),
            };
            let handles = Handles {
                calls: calls_tx,
                shared,
            };
            return Ok((driver, handles));
        }
        Err(last_err)
    }

    /// Runs the session until the client is closed, expires, or every handle is dropped
    /// (dropping all handles abandons the session without CloseSession, as a crashed process
    /// does: the server expires it after the timeout).
    pub async fn run(mut self) {
        let Some(mut conn) = self.first.take() else {
            return;
        };
        loop {
            if let Ended::Over = self.serve(&mut conn).await {
                return;
            }
            match self.reconnect().await {
                Some(next) => conn = next,
                None => return,
            }
        }
    }

    /// The connected phase: requests out, replies and events in, pings and read timeout.
    async fn serve(&mut self, conn: &mut Connection<S>) -> Ended {
        let timer = self.config.timer.clone();
        let mut last_recv = timer.now_ms();
        let mut last_send = last_recv;
        loop {
            let read_deadline = last_recv + self.session.read_timeout_ms();
            let ping_at = last_send + self.session.ping_interval_ms();
            tokio::select! {
                biased;
                event = conn.io() => match event {
                    IoEvent::Received => {
                        last_recv = timer.now_ms();
                        match self.process(conn) {
                            Ok(None) => {}
                            Ok(Some(ended)) => return ended,
                            Err(_) => return self.lost(),
                        }
                    }
                    IoEvent::Sent => {}
                    IoEvent::Eof | IoEvent::Failed(_) => return self.lost(),
                },
                call = self.calls.recv() => match call {
                    Some(call) => {
                        self.send(conn, call);
                        last_send = timer.now_ms();
                    }
                    None => return Ended::Over,
                },
                () = timer.sleep_until(read_deadline.min(ping_at)) => {
                    if timer.now_ms() >= read_deadline {
                        return self.lost();
                    }
                    conn.queue(&encode_request(PING_XID, &Request::Ping));
                    last_send = timer.now_ms();
                }
            }
        }
    }

    fn send(&mut self, conn: &mut Connection<S>, call: Call) {
        if self.closing {
            let _ = call.reply.send(Err(ZkError::Closed));
            return;
        }
        self.closing = matches!(call.request, Request::CloseSession);
        let xid = match call.request {
            Request::Auth { .. } => {
                self.auths.push(call.request.clone());
                AUTH_XID
            }
            _ => {
                self.next_xid += 1;
                self.next_xid - 1
            }
        };
        conn.queue(&encode_request(xid, &call.request));
        self.pending.push_back(Pending {
            xid,
            request: call.request,
            reply: Some(call.reply),
        });
    }

    /// Handles every complete frame received, in stream order.
    fn process(&mut self, conn: &mut Connection<S>) -> Result<Option<Ended>, ProtocolError> {
        while let Some(body) = conn.next_frame()? {
            if let Some(ended) = self.handle_frame(&body)? {
                return Ok(Some(ended));
            }
        }
        Ok(None)
    }

    fn handle_frame(&mut self, body: &[u8]) -> Result<Option<Ended>, ProtocolError> {
        let (header, rest) = decode_reply_header(body)?;
        match header.xid {
            NOTIFICATION_XID => {
                let event = decode_watcher_event(rest)?;
                self.shared.borrow_mut().publish(&event);
                self.watches.fire(&event);
                return Ok(None);
            }
            PING_XID => return Ok(None),
            _ => {}
        }
        let pending = match self.pending.pop_front() {
            Some(pending) if pending.xid == header.xid => pending,
            other => {
                let expected = other.as_ref().map(|p| p.xid);
                // Put it back: the dropped connection fails it with ConnectionLoss.
                if let Some(pending) = other {
                    self.pending.push_front(pending);
                }
                return Err(ProtocolError::XidMismatch {
                    expected,
                    got: header.xid,
                });
            }
        };
        let result = match header.err {
            ErrorCode::Ok => match decode_response(pending.request.op(), rest) {
                Ok(response) => Ok(response),
                Err(err) => {
                    self.pending.push_front(pending);
                    return Err(err.into());
                }
            },
            err => Err(err),
        };
        self.session.observe_zxid(header.zxid);
        let watch = registration(&pending.request, header.err)
            .map(|(kind, path)| self.watches.register(kind, path));
        if let (Request::RemoveWatches { path, kind }, ErrorCode::Ok) =
            (&pending.request, header.err)
        {
            self.watches.remove(path, *kind);
        }
        let ending = match (&pending.request, header.err) {
            (Request::CloseSession, _) => Some((KeeperState::Closed, ZkError::Closed)),
            // As the Java client: a refused auth ends the client (the server closes too).
            (Request::Auth { .. }, ErrorCode::AuthFailed) => Some((
                KeeperState::AuthFailed,
                ZkError::Server(ErrorCode::AuthFailed),
            )),
            _ => None,
        };
        if let Some(reply) = pending.reply {
            let _ = reply.send(Ok(Reply { result, watch }));
        }
        if let Some((state, terminal)) = ending {
            let mut shared = self.shared.borrow_mut();
            finish(&mut shared, &mut self.watches, state, terminal);
            return Ok(Some(Ended::Over));
        }
        Ok(None)
    }

    /// The connection dropped: Disconnected to everyone, ConnectionLoss to every pending
    /// request. Ends the client if it was closing.
    fn lost(&mut self) -> Ended {
        let mut shared = self.shared.borrow_mut();
        if self.closing {
            finish(
                &mut shared,
                &mut self.watches,
                KeeperState::Closed,
                ZkError::Closed,
            );
        } else {
            announce(&mut shared, &mut self.watches, KeeperState::Disconnected);
        }
        drop(shared);
        for pending in self.pending.drain(..) {
            pending.fail(ZkError::ConnectionLoss);
        }
        if self.closing {
            Ended::Over
        } else {
            Ended::Lost
        }
    }

    /// The disconnected phase: back off, retry until the server takes us back (then
    /// SyncConnected and SetWatches) or says the session expired. Calls meanwhile fail with
    /// ConnectionLoss (the Java client queues them; failing fast lets a recipe see the loss at
    /// once).
    async fn reconnect(&mut self) -> Option<Connection<S>> {
        let (backoff_ms, limit_ms) = (
            self.config.reconnect_backoff_ms,
            self.config.connect_attempt_timeout_ms,
        );
        let timer = self.config.timer.clone();
        loop {
            let (calls, shared, watches) = (&mut self.calls, &self.shared, &mut self.watches);
            refusing_calls(calls, shared, watches, timer.sleep(backoff_ms)).await?;
            let request = self.session.connect_request();
            let opening = attempt(&self.connector, &request, limit_ms, &timer);
            let (calls, shared, watches) = (&mut self.calls, &self.shared, &mut self.watches);
            let outcome = refusing_calls(calls, shared, watches, opening).await?;
            let Ok((mut conn, response)) = outcome else {
                continue;
            };
            let mut shared = self.shared.borrow_mut();
            if self.session.accept(&response).is_err() {
                finish(
                    &mut shared,
                    &mut self.watches,
                    KeeperState::Expired,
                    ZkError::SessionExpired,
                );
                return None;
            }
            shared.session_id = self.session.id();
            announce(&mut shared, &mut self.watches, KeeperState::SyncConnected);
            // The Java client's order: its auths, latest first, then SetWatches.
            for auth in self.auths.iter().rev() {
                conn.queue(&encode_request(AUTH_XID, auth));
                self.pending.push_back(Pending {
                    xid: AUTH_XID,
                    request: auth.clone(),
                    reply: None,
                });
            }
            if let Some(set_watches) = self.watches.set_watches(self.session.last_zxid()) {
                conn.queue(&encode_request(SET_WATCHES_XID, &set_watches));
                self.pending.push_back(Pending {
                    xid: SET_WATCHES_XID,
                    request: set_watches,
                    reply: None,
                });
            }
            return Some(conn);
        }
    }
}

/// Awaits `fut` while answering every call with ConnectionLoss; None when the driver should
/// stop (the client was closed or dropped meanwhile).
async fn refusing_calls<T>(
    calls: &mut UnboundedReceiver<Call>,
    shared: &RefCell<Shared>,
    watches: &mut WatchRegistry,
    fut: impl Future<Output = T>,
) -> Option<T> {
    tokio::pin!(fut);
    loop {
        tokio::select! {
            biased;
            call = calls.recv() => {
                if !refuse(call, shared, watches) {
                    return None;
                }
            }
            out = &mut fut => return Some(out),
        }
    }
}

/// Answers a call made while disconnected. False when the driver should stop: the client was
/// closed (a close while disconnected ends the client locally; the server expires the
/// session) or every handle is gone.
fn refuse(call: Option<Call>, shared: &RefCell<Shared>, watches: &mut WatchRegistry) -> bool {
    let Some(call) = call else {
        return false;
    };
    let closing = matches!(call.request, Request::CloseSession);
    if closing {
        let mut shared = shared.borrow_mut();
        finish(&mut shared, watches, KeeperState::Closed, ZkError::Closed);
    }
    let _ = call.reply.send(Err(ZkError::ConnectionLoss));
    !closing
}
