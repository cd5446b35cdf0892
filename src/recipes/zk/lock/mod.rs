//! The ZooKeeper lock recipe and its flawed variants: pure decisions in `decide`, the async
//! driver here, a simulated host's way to it in `zk::host`.

pub mod decide;
mod simple;

use crate::recipes::zk::{RETRY_MS, catch_up, ensure_path, is_transient};
use crate::recipes::{Grant, Lock, LockError, Observation, Observer};
use crate::zk::client::{SessionEvents, Watch, ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode};
use crate::zk::seq;
pub use decide::Flavor;
use decide::{AfterCreate, AfterExists, Contender, Decision, OnEvent, Outcome};
use std::cell::RefCell;
use std::rc::Rc;

/// A lock on directory `dir`, bound to one session.
pub struct ZkLock {
    client: ZkClient,
    flavor: Flavor,
    contender: Contender,
    dir: String,
    /// Makes a fresh GUID for each enqueue (Curator's protected-mode prefix).
    new_guid: Box<dyn FnMut() -> String>,
    observer: Observer,
    events: SessionEvents,
    /// My lock node (bare name) and its czxid, once it exists.
    node: Option<(String, i64)>,
    /// Tells the host the program reached a named step (`Node::step`), where a fault may be
    /// aimed: "exists", between listing the directory and looking at the predecessor.
    step: Step,
    /// The GUID of a create whose outcome is unknown, kept across sessions by the flaw
    /// that carries it (`decide::carries_guid`); shared by a host's locks.
    carried: Rc<RefCell<Option<String>>>,
}

/// A named point of the recipe's program, reported to its host.
pub type Step = Rc<dyn Fn(&'static str)>;

/// A request's result as the decisions see it.
pub(crate) fn outcome<T>(result: &Result<T, ZkError>) -> Outcome {
    match result {
        Ok(_) => Outcome::Ok,
        Err(ZkError::Server(ErrorCode::NoNode)) => Outcome::NoNode,
        Err(ZkError::Server(ErrorCode::NodeExists)) => Outcome::NodeExists,
        Err(e) if is_transient(e) => Outcome::ConnectionLoss,
        Err(_) => Outcome::Failed,
    }
}

impl From<ZkError> for LockError {
    fn from(e: ZkError) -> LockError {
        match e {
            ZkError::SessionExpired
            | ZkError::Closed
            | ZkError::Server(ErrorCode::SessionExpired) => LockError::SessionExpired,
            e if is_transient(&e) => LockError::ConnectionLoss,
            other => LockError::Unexpected(other.to_string()),
        }
    }
}

/// Runs a request again, after a pause, for as long as `decide::retries` says so of its
/// outcome.
macro_rules! retrying {
    ($timer:expr, $op:expr) => {
        loop {
            let result = $op;
            if !$crate::recipes::zk::lock::decide::retries($crate::recipes::zk::lock::outcome(
                &result,
            )) {
                break result;
            }
            $timer.sleep($crate::recipes::zk::RETRY_MS).await
        }
    };
}
pub(crate) use retrying;

impl ZkLock {
    /// A lock of `flavor` on `client`'s session, queueing as `contender` in directory
    /// `dir`; `new_guid` names each enqueue, `observer` hears what it does.
    pub fn new(
        client: ZkClient,
        flavor: Flavor,
        contender: Contender,
        dir: &str,
        new_guid: Box<dyn FnMut() -> String>,
        observer: Observer,
    ) -> Self {
        let events = client.events();
        ZkLock {
            client,
            flavor,
            contender,
            dir: dir.to_string(),
            new_guid,
            observer,
            events,
            node: None,
            step: Rc::new(|_| {}),
            carried: Rc::default(),
        }
    }

    /// Reports the recipe's named steps to `step`.
    pub fn with_steps(mut self, step: Step) -> Self {
        self.step = step;
        self
    }

    /// Shares the GUID of an unfinished create with the host's other locks (used only by
    /// the flaw that carries it across sessions).
    pub fn with_carried_guid(mut self, carried: Rc<RefCell<Option<String>>>) -> Self {
        self.carried = carried;
        self
    }

    /// Records `name` (with its czxid, the fencing token) as my node, now holding the lock.
    fn hold(&mut self, name: &str, czxid: i64) -> Grant {
        self.node = Some((name.to_string(), czxid));
        Grant {
            token: Some(czxid),
            ..Grant::default()
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.dir)
    }

    /// Creates the lock directory (and its parents) if missing.
    pub async fn ensure_dir(&self) -> Result<(), LockError> {
        Ok(ensure_path(&self.client, &self.dir).await?)
    }

    /// Puts my node in line: create, and after a lost reply do what `decide::after_create`
    /// says: look for my GUID (the recipe) or blindly create again (the `NoGuid` flaw).
    async fn enqueue(&mut self) -> Result<(), LockError> {
        let carried = self.carried.borrow().clone();
        let guid = match (self.flavor, carried) {
            (Flavor::NoGuid, _) => String::new(),
            (_, Some(carried)) => {
                if let Some(adopted) = self.look_for_guid(&carried).await? {
                    self.enqueued(&adopted.0, adopted.1);
                    return Ok(());
                }
                carried
            }
            _ => format!("{}-", (self.new_guid)()),
        };
        let prefix = format!("{guid}{}", self.contender.prefix());
        let path = self.path(&prefix);
        loop {
            let created = self
                .client
                .create2(&path, b"", CreateMode::EphemeralSequential)
                .await;
            if decide::abandons_session(self.flavor, outcome(&created)) {
                *self.carried.borrow_mut() = Some(guid);
                return Err(LockError::SessionExpired);
            }
            match (
                decide::after_create(self.flavor, outcome(&created)),
                created,
            ) {
                (_, Ok((created, stat))) => {
                    self.enqueued(&created, stat.czxid);
                    return Ok(());
                }
                (AfterCreate::CreateAgain, Err(_)) => {
                    self.client.timer().sleep(RETRY_MS).await;
                    continue;
                }
                (AfterCreate::LookForGuid, Err(_)) => self.client.timer().sleep(RETRY_MS).await,
                (AfterCreate::Enqueued | AfterCreate::Fail, Err(e)) => return Err(e.into()),
            }
            if let Some((own, czxid)) = self.look_for_guid(&guid).await? {
                self.enqueued(&own, czxid);
                return Ok(());
            }
        }
    }

    /// The child carrying `guid` and its czxid, if there is one: after a `sync`, unless the
    /// flavor skips it (`decide::syncs_before_lookup`).
    async fn look_for_guid(&self, guid: &str) -> Result<Option<(String, i64)>, LockError> {
        if decide::syncs_before_lookup(self.flavor) {
            catch_up(&self.client, &self.dir).await?;
        }
        let children = retrying!(
            self.client.timer(),
            self.client.get_children(&self.dir).await
        )?;
        let Some(own) = decide::find_own(&children, guid).map(str::to_string) else {
            return Ok(None);
        };
        let stat = retrying!(
            self.client.timer(),
            self.client.exists(&self.path(&own)).await
        )?;
        Ok(stat.map(|stat| (own, stat.czxid)))
    }

    fn enqueued(&mut self, created: &str, czxid: i64) {
        self.carried.borrow_mut().take();
        let name = created.rsplit('/').next().unwrap_or(created).to_string();
        (self.observer)(Observation::Enqueued {
            node: name.clone(),
            seq: seq::parse(&name),
        });
        self.node = Some((name, czxid));
    }

    /// Waits for the node event of `watch`, as `decide::on_event` reads each event; true
    /// when the recipe took an event for the lock being its own (the `SessionEvent` flaw).
    async fn wait(&self, mut watch: Watch) -> Result<bool, LockError> {
        loop {
            let Some(e) = watch.next().await else {
                return Err(LockError::SessionExpired);
            };
            if decide::takes_for_deletion(self.flavor, e.event_type, e.state) {
                (self.observer)(Observation::Woken {
                    path: e.path,
                    event: e.event_type.into(),
                });
                return Ok(true);
            }
            match decide::on_event(e.event_type, e.state) {
                OnEvent::Ignore => {}
                OnEvent::SessionLost => return Err(LockError::SessionExpired),
                OnEvent::Woken => {
                    (self.observer)(Observation::Woken {
                        path: e.path,
                        event: e.event_type.into(),
                    });
                    return Ok(false);
                }
            }
        }
    }

    async fn acquire_queued(&mut self) -> Result<Grant, LockError> {
        if self.node.is_none() {
            self.enqueue().await?;
        }
        loop {
            let (mine, czxid) = self.node.clone().expect("enqueued above");
            let (children, herd_watch) = if decide::watches_children(self.flavor) {
                let (c, w) = retrying!(
                    self.client.timer(),
                    self.client.get_children_watch(&self.dir).await
                )?;
                (c, Some(w))
            } else {
                (
                    retrying!(
                        self.client.timer(),
                        self.client.get_children(&self.dir).await
                    )?,
                    None,
                )
            };
            match self.contender.decide(self.flavor, &mine, &children) {
                Decision::Acquired => {
                    return Ok(Grant {
                        token: Some(czxid),
                        ..Grant::default()
                    });
                }
                Decision::NodeGone => {
                    self.node = None;
                    return Err(LockError::NodeGone);
                }
                Decision::WatchPredecessor(pred) => {
                    if let Some(watch) = herd_watch {
                        self.wait(watch).await?;
                        continue;
                    }
                    (self.step)("exists");
                    let (stat, watch) = retrying!(
                        self.client.timer(),
                        self.client.exists_watch(&self.path(&pred)).await
                    )?;
                    let held = match decide::after_predecessor_exists(stat.is_some()) {
                        AfterExists::Wait => self.wait(watch).await?,
                        AfterExists::ListAgain => decide::gone_predecessor_is_held(self.flavor),
                    };
                    if held {
                        return Ok(Grant {
                            token: Some(czxid),
                            ..Grant::default()
                        });
                    }
                }
            }
        }
    }

    /// Deletes my node, retrying through ConnectionLoss: forgetting it while the delete
    /// failed would orphan it (bug Z7, which the `ReleaseForgets` flaw does).
    async fn release_node(&mut self) -> Result<(), LockError> {
        let Some((mine, _)) = self.node.clone() else {
            return Ok(());
        };
        let path = self.path(&mine);
        let deleted = retrying!(self.client.timer(), {
            let deleted = self.client.delete(&path, -1).await;
            if decide::forgets_node(self.flavor, outcome(&deleted)) {
                self.node = None;
                return Ok(());
            }
            deleted
        });
        if decide::released(outcome(&deleted)) {
            self.node = None;
            return Ok(());
        }
        deleted.map_err(LockError::from)
    }
}

impl Lock for ZkLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        match self.flavor {
            Flavor::Simple => simple::acquire(self).await,
            _ => self.acquire_queued().await,
        }
    }

    async fn release(&mut self) -> Result<(), LockError> {
        self.release_node().await
    }

    async fn lost(&mut self) {
        crate::recipes::zk::kit::session_lost(&mut self.events).await
    }

    async fn close(self) {
        self.client.close().await;
    }
}
