//! The ZooKeeper queue (the recipes doc's and the seed's `DistributedQueue`: offer, take,
//! poll, peek) and its flawed variants: pure decisions in `decide`, the async driver here, a
//! simulated host's way to it in `zk::host`.
//!
//! Items are PERSISTENT_SEQUENTIAL `qn-` nodes under one directory, holding the item. A
//! consumer lists the directory and takes the lowest item: getData, then delete, trying the
//! next one when another consumer took it first. A consumer that lists none sets a watch
//! on the children with that listing and waits on it: only an offer can fire it, so a take
//! wakes nobody (no herd).
//!
//! Lost replies. A create whose reply is lost may have been applied, and a GUID in the name
//! cannot tell afterwards (a consumer may have taken the node before the producer looks); a
//! delete whose reply is lost may have been applied, and a NoNode on its retry cannot tell
//! mine from another consumer's. So each offer and each take is one multi that also creates
//! a marker node named by a fresh GUID under a directory of markers; only its owner deletes
//! it, once it knows the outcome. After ConnectionLoss (or on a new session, after the old
//! one ended with the request in flight) the owner looks for its marker: there means
//! applied, absent means not applied and never will be. Every item is then offered exactly
//! once and taken at most once, and every consumer knows whether it took what it read.

pub mod decide;

use crate::history::WatchEvent;
use crate::recipes::zk::lock::decide::{OnEvent, Outcome, on_event};
use crate::recipes::zk::lock::{outcome, retrying};
use crate::recipes::zk::{RETRY_MS, catch_up, ensure_path, is_transient};
use crate::recipes::{Queue, RecipeError, Taken};
use crate::zk::client::{Watch, ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode, MultiOp, OpResult, multi_error};
use decide::{Flavor, OnGone, Settled, TakeSteps};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// The item nodes' name prefix.
pub const ITEM_PREFIX: &str = "qn-";

/// Why a queue operation did not succeed, as the workload reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// The session is gone: this queue object is dead; a new session is needed. A request
    /// in flight may have been applied: its `Ticket` says where to look.
    SessionExpired,
    /// Any other server answer the recipe cannot handle.
    Unexpected(String),
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::SessionExpired => f.write_str("session expired"),
            QueueError::Unexpected(s) => write!(f, "unexpected: {s}"),
        }
    }
}

impl From<ZkError> for QueueError {
    fn from(e: ZkError) -> QueueError {
        match e {
            ZkError::SessionExpired
            | ZkError::Closed
            | ZkError::Server(ErrorCode::SessionExpired) => QueueError::SessionExpired,
            other => QueueError::Unexpected(other.to_string()),
        }
    }
}

/// What the queue reports while it works, so the history shows claims and wake-ups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueEvent {
    /// It asks ZooKeeper to take `item` (node `node`) for it.
    Claim {
        /// What the item holds.
        item: String,
        /// The item's node (bare name).
        node: String,
    },
    /// It listed no item, with a watch on the children, and waits on it.
    Empty,
    /// A watch woke it.
    Woken {
        /// The watched path.
        path: String,
        /// The node event it fired with.
        event: WatchEvent,
    },
}

/// Where a queue sends its events (the host records them).
pub type QueueObserver = Rc<dyn Fn(QueueEvent)>;

/// An item taken: what was offered, and the node it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What was offered.
    pub data: String,
    /// The node that held it (bare name).
    pub node: String,
}

/// How an attempt on one head ended.
#[derive(Debug)]
enum Head {
    Taken(Item),
    /// Another consumer took it: try the next.
    Gone,
    /// Not taken, and perhaps still there: list again (the lowest item may be this one).
    Again,
}

/// One offer or take, kept by the caller across sessions: its marker's name once a request
/// was sent that may have been applied (and, for a take, the item that request claimed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ticket {
    in_flight: Option<(String, Option<Item>)>,
}

/// A queue on directory `dir`, bound to one session.
pub struct ZkQueue {
    client: ZkClient,
    flavor: Flavor,
    dir: String,
    markers: String,
    new_guid: Box<dyn FnMut() -> String>,
    observer: QueueObserver,
    /// The operation in flight, kept across sessions, for the `Queue` the workload drives.
    ticket: Rc<RefCell<Ticket>>,
}

/// A multi's result as the decisions see it: a failed multi comes back Ok with its error.
fn multi_outcome(result: &Result<Vec<OpResult>, ZkError>) -> Outcome {
    match result {
        Ok(results) => match multi_error(results) {
            None => Outcome::Ok,
            Some(ErrorCode::NoNode) => Outcome::NoNode,
            Some(ErrorCode::NodeExists) => Outcome::NodeExists,
            Some(_) => Outcome::Failed,
        },
        Err(e) => outcome::<()>(&Err(e.clone())),
    }
}

/// The session's end, as the error to return, when `result` says so.
fn session_end<T>(result: &Result<T, ZkError>) -> Option<QueueError> {
    match result {
        Err(e) if !is_transient(e) => match QueueError::from(e.clone()) {
            QueueError::SessionExpired => Some(QueueError::SessionExpired),
            QueueError::Unexpected(_) => None,
        },
        _ => None,
    }
}

impl ZkQueue {
    /// A queue of `flavor` on `client`'s session, its items under `dir` and its markers
    /// under `markers`; `new_guid` names each marker, `observer` hears claims and wake-ups.
    pub fn new(
        client: ZkClient,
        flavor: Flavor,
        dir: &str,
        markers: &str,
        new_guid: Box<dyn FnMut() -> String>,
        observer: QueueObserver,
    ) -> Self {
        ZkQueue {
            client,
            flavor,
            dir: dir.to_string(),
            markers: markers.to_string(),
            new_guid,
            observer,
            ticket: Rc::default(),
        }
    }

    /// Keeps the ticket of the operation in flight in `ticket`, which the queue of the
    /// client's next session shares, so that it settles what this one left unknown.
    pub fn with_ticket(self, ticket: Rc<RefCell<Ticket>>) -> Self {
        ZkQueue { ticket, ..self }
    }

    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.dir)
    }

    fn marker(&self, guid: &str) -> String {
        format!("{}/{guid}", self.markers)
    }

    /// Creates the queue's and the markers' directories (and their parents) if missing.
    pub async fn ensure_dirs(&self) -> Result<(), QueueError> {
        for dir in [&self.dir, &self.markers] {
            ensure_path(&self.client, dir).await?;
        }
        Ok(())
    }

    /// Whether the marker `guid` exists, asking through ConnectionLoss after a `sync`: a
    /// follower that has not applied the request yet would hide its marker (Z15).
    async fn marker_exists(&self, guid: &str) -> Result<bool, QueueError> {
        catch_up(&self.client, &self.markers).await?;
        let stat = retrying!(
            self.client.timer(),
            self.client.exists(&self.marker(guid)).await
        )?;
        Ok(stat.is_some())
    }

    /// Deletes a marker whose request's outcome is known. Best effort: one left behind
    /// (the session ended first) is garbage, never mistaken for another request's.
    async fn forget(&self, guid: &str) {
        let _ = retrying!(
            self.client.timer(),
            self.client.delete(&self.marker(guid), -1).await
        );
    }

    /// Puts `data` at the tail of the queue, exactly once however many replies are lost:
    /// `ticket` carries a request that may have been applied over to the next session.
    pub async fn offer(&mut self, data: &str, ticket: &mut Ticket) -> Result<(), QueueError> {
        loop {
            if let Some((guid, _)) = ticket.in_flight.clone() {
                if decide::marker_says(self.marker_exists(&guid).await?) == Settled::Applied {
                    self.forget(&guid).await;
                    ticket.in_flight = None;
                    return Ok(());
                }
                ticket.in_flight = None;
            }
            let guid = format!("offer-{}", (self.new_guid)());
            ticket.in_flight = Some((guid.clone(), None));
            let ops = vec![
                MultiOp::create(
                    self.path(ITEM_PREFIX),
                    data.as_bytes(),
                    CreateMode::PersistentSequential,
                ),
                MultiOp::create(self.marker(&guid), b"", CreateMode::Persistent),
            ];
            let result = self.client.multi(ops).await;
            if let Some(end) = session_end(&result) {
                return Err(end);
            }
            match decide::after_multi(multi_outcome(&result)) {
                Settled::Applied => {
                    self.forget(&guid).await;
                    ticket.in_flight = None;
                    return Ok(());
                }
                Settled::LookForMarker => self.client.timer().sleep(RETRY_MS).await,
                Settled::Gone | Settled::Failed => {
                    ticket.in_flight = None;
                    return Err(QueueError::Unexpected(format!("offer: {result:?}")));
                }
            }
        }
    }

    /// Removes the head of the queue and returns it, waiting for an offer while the queue
    /// is empty. `ticket` carries a claim that may have been applied to the next session.
    pub async fn take(&mut self, ticket: &mut Ticket) -> Result<Item, QueueError> {
        loop {
            if let Some(item) = self.take_once(ticket, true).await? {
                return Ok(item);
            }
        }
    }

    /// Removes the head of the queue and returns it, or None if the queue is empty (the
    /// seed's `poll`; its `remove` throws where this returns None).
    pub async fn poll(&mut self, ticket: &mut Ticket) -> Result<Option<Item>, QueueError> {
        self.take_once(ticket, false).await
    }

    /// The head of the queue without removing it, or None if the queue is empty (the seed's
    /// `peek`; its `element` throws where this returns None).
    pub async fn peek(&self) -> Result<Option<Item>, QueueError> {
        loop {
            let children = retrying!(
                self.client.timer(),
                self.client.get_children(&self.dir).await
            )?;
            let items = decide::order(&children);
            if items.is_empty() {
                return Ok(None);
            }
            for head in items {
                if let Some(data) = self.read(head).await? {
                    return Ok(Some(Item {
                        data,
                        node: head.to_string(),
                    }));
                }
            }
        }
    }

    /// The item in node `name`, or None when it is gone.
    async fn read(&self, name: &str) -> Result<Option<String>, QueueError> {
        match retrying!(
            self.client.timer(),
            self.client.get_data(&self.path(name)).await
        ) {
            Ok((data, _)) => Ok(Some(String::from_utf8_lossy(&data).into_owned())),
            Err(ZkError::Server(ErrorCode::NoNode)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// One pass: settle a claim in flight, list the queue, and take its lowest item that is
    /// still there. None when it found none (after waiting for a change, if `wait`).
    async fn take_once(
        &mut self,
        ticket: &mut Ticket,
        wait: bool,
    ) -> Result<Option<Item>, QueueError> {
        if let Some((guid, item)) = ticket.in_flight.clone() {
            let applied = self.marker_exists(&guid).await?;
            ticket.in_flight = None;
            if let (Settled::Applied, Some(item)) = (decide::marker_says(applied), item) {
                self.forget(&guid).await;
                return Ok(Some(item));
            }
        }
        let (children, watch) = if decide::always_watches(self.flavor) {
            let (c, w) = retrying!(
                self.client.timer(),
                self.client.get_children_watch(&self.dir).await
            )?;
            (c, Some(w))
        } else {
            let c = retrying!(
                self.client.timer(),
                self.client.get_children(&self.dir).await
            )?;
            (c, None)
        };
        if decide::order(&children).is_empty() {
            return self.wait_for_offer(watch, wait).await.map(|()| None);
        }
        for head in decide::order(&children) {
            match self.take_head(head, ticket).await? {
                Head::Taken(item) => return Ok(Some(item)),
                Head::Again => return Ok(None),
                Head::Gone => {}
            }
            if decide::on_gone(self.flavor) == OnGone::WaitOnChildren
                && let Some(watch) = watch
            {
                self.wait(watch).await?;
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// After a listing with no item: unless `watch` is there already, list again setting a
    /// watch on the children; if still none, wait on it (when `wait`).
    async fn wait_for_offer(&self, watch: Option<Watch>, wait: bool) -> Result<(), QueueError> {
        if !wait {
            return Ok(());
        }
        let watch = match watch {
            Some(watch) => watch,
            None => {
                let (children, watch) = retrying!(
                    self.client.timer(),
                    self.client.get_children_watch(&self.dir).await
                )?;
                if !decide::order(&children).is_empty() {
                    return Ok(());
                }
                watch
            }
        };
        (self.observer)(QueueEvent::Empty);
        self.wait(watch).await
    }

    /// Takes node `head` as the flavor does.
    async fn take_head(&mut self, head: &str, ticket: &mut Ticket) -> Result<Head, QueueError> {
        let path = self.path(head);
        let item = |data: String| Item {
            data,
            node: head.to_string(),
        };
        match decide::take_steps(self.flavor) {
            TakeSteps::ReadThenClaim => {
                let Some(data) = self.read(head).await? else {
                    return Ok(Head::Gone);
                };
                let guid = format!("take-{}", (self.new_guid)());
                let taken = item(data);
                ticket.in_flight = Some((guid.clone(), Some(taken.clone())));
                (self.observer)(QueueEvent::Claim {
                    item: taken.data.clone(),
                    node: head.to_string(),
                });
                let ops = vec![
                    MultiOp::delete(path, -1),
                    MultiOp::create(self.marker(&guid), b"", CreateMode::Persistent),
                ];
                let result = self.client.multi(ops).await;
                if let Some(end) = session_end(&result) {
                    return Err(end);
                }
                let mut settled = decide::after_multi(multi_outcome(&result));
                if settled == Settled::LookForMarker {
                    self.client.timer().sleep(RETRY_MS).await;
                    settled = decide::marker_says(self.marker_exists(&guid).await?);
                }
                ticket.in_flight = None;
                Ok(match settled {
                    Settled::Applied => {
                        self.forget(&guid).await;
                        Head::Taken(taken)
                    }
                    Settled::Gone => Head::Gone,
                    Settled::LookForMarker | Settled::Failed => Head::Again,
                })
            }
            TakeSteps::ReadThenDelete => {
                let Some(data) = self.read(head).await? else {
                    return Ok(Head::Gone);
                };
                (self.observer)(QueueEvent::Claim {
                    item: data.clone(),
                    node: head.to_string(),
                });
                let deleted = self.delete(&path).await?;
                Ok(match decide::after_plain_delete(self.flavor, deleted) {
                    Settled::Applied => Head::Taken(item(data)),
                    Settled::Gone => Head::Gone,
                    Settled::LookForMarker | Settled::Failed => Head::Again,
                })
            }
            TakeSteps::DeleteThenRead => {
                let deleted = self.delete(&path).await?;
                Ok(match decide::after_plain_delete(self.flavor, deleted) {
                    Settled::Applied => self
                        .read(head)
                        .await?
                        .map_or(Head::Gone, |d| Head::Taken(item(d))),
                    Settled::Gone => Head::Gone,
                    Settled::LookForMarker | Settled::Failed => Head::Again,
                })
            }
        }
    }

    /// A plain delete of `path`, retried through ConnectionLoss, as the decisions see it.
    async fn delete(&self, path: &str) -> Result<Outcome, QueueError> {
        let deleted = retrying!(self.client.timer(), self.client.delete(path, -1).await);
        if let Some(end) = session_end(&deleted) {
            return Err(end);
        }
        Ok(outcome(&deleted))
    }

    /// Waits for the node event of `watch`, ignoring session events that end nothing.
    async fn wait(&self, mut watch: Watch) -> Result<(), QueueError> {
        loop {
            let Some(e) = watch.next().await else {
                return Err(QueueError::SessionExpired);
            };
            match on_event(e.event_type, e.state) {
                OnEvent::Ignore => {}
                OnEvent::SessionLost => return Err(QueueError::SessionExpired),
                OnEvent::Woken => {
                    (self.observer)(QueueEvent::Woken {
                        path: e.path,
                        event: e.event_type.into(),
                    });
                    return Ok(());
                }
            }
        }
    }

    /// Closes the session.
    pub async fn close(self) {
        self.client.close().await;
    }

    /// Runs `op` with the ticket kept across sessions: a fresh one for the next operation
    /// once it succeeds, the same one for its retry when it fails.
    async fn with_kept_ticket<T>(
        &mut self,
        op: impl AsyncFnOnce(&mut ZkQueue, &mut Ticket) -> Result<T, QueueError>,
    ) -> Result<T, RecipeError> {
        let mut ticket = self.ticket.take();
        let result = op(self, &mut ticket).await;
        if result.is_err() {
            *self.ticket.borrow_mut() = ticket;
        }
        result.map_err(RecipeError::from)
    }
}

/// The queue as the workload drives it, its ticket kept across sessions.
impl Queue for ZkQueue {
    async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
        self.with_kept_ticket(async |q, ticket| ZkQueue::offer(q, item, ticket).await)
            .await
    }

    async fn take(&mut self) -> Result<Taken, RecipeError> {
        let item = self
            .with_kept_ticket(async |q, ticket| ZkQueue::take(q, ticket).await)
            .await?;
        Ok(Taken::new(item.data).at(item.node))
    }

    async fn close(self) {
        ZkQueue::close(self).await
    }
}

impl From<QueueError> for RecipeError {
    fn from(e: QueueError) -> RecipeError {
        match e {
            QueueError::SessionExpired => RecipeError::SessionExpired,
            QueueError::Unexpected(s) => RecipeError::Unexpected(s),
        }
    }
}
