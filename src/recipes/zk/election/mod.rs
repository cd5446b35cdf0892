//! The ZooKeeper recipes doc's leader election: pure decisions in `decide`, the async driver
//! here, a simulated host's way to it in `zk::host`.
//!
//! The driver is an `Election`, the trait a user's own election implements too: the
//! workload holds leadership the way a lock is held (win = acquire, step down = release, an
//! expired session = lost), so the lock workload's critical section serves the leader's
//! guarded work unchanged.

pub mod decide;

use crate::recipes::zk::lock::decide::{OnEvent, on_event};
use crate::recipes::zk::{RETRY_MS, catch_up, ensure_path, is_transient, retrying};
use crate::recipes::{Election, Grant, LockError, Observation, Observer};
use crate::zk::client::{SessionEvents, Watch, ZkClient, ZkError};
use crate::zk::proto::{CreateMode, ErrorCode};
use decide::{Decision, Flavor, PREFIX};
use std::cell::RefCell;
use std::rc::Rc;

/// A candidate in the election under directory `dir`, bound to one session.
pub struct Candidate {
    client: ZkClient,
    flavor: Flavor,
    dir: String,
    /// Makes a fresh GUID for each candidacy (Curator's protected-mode prefix).
    new_guid: Box<dyn FnMut() -> String>,
    observer: Observer,
    events: SessionEvents,
    /// My candidate node (bare name) and its czxid, once it exists.
    node: Option<(String, i64)>,
    /// The GUID of a create whose outcome is unknown, kept across sessions by the flavors
    /// that give their session up (`decide::abandons_session`); shared by a host's
    /// candidates.
    carried: Rc<RefCell<Option<String>>>,
}

impl Candidate {
    /// A candidate of `flavor` on `client`'s session under directory `dir`; `new_guid` names
    /// each candidacy, `observer` hears what it does.
    pub fn new(
        client: ZkClient,
        flavor: Flavor,
        dir: &str,
        new_guid: Box<dyn FnMut() -> String>,
        observer: Observer,
    ) -> Self {
        let events = client.events();
        Candidate {
            client,
            flavor,
            dir: dir.to_string(),
            new_guid,
            observer,
            events,
            node: None,
            carried: Rc::default(),
        }
    }

    /// Shares the GUID of an unfinished create with the host's other candidates (used only
    /// by the flavors that give their session up).
    pub fn with_carried_guid(mut self, carried: Rc<RefCell<Option<String>>>) -> Self {
        self.carried = carried;
        self
    }

    fn path(&self, name: &str) -> String {
        format!("{}/{name}", self.dir)
    }

    /// Creates the election directory (and its parents) if missing.
    pub async fn ensure_dir(&self) -> Result<(), LockError> {
        Ok(ensure_path(&self.client, &self.dir).await?)
    }

    /// Stands as a candidate: creates my node; after a lost reply syncs and looks for the
    /// child carrying my GUID before creating again, so an applied create is never orphaned
    /// (unsynced, a lagging follower could hide it: Z15). A flavor that gives its session up
    /// after a lost reply (`decide::abandons_session`) stands in the next one with the GUID
    /// it kept, looking for it first.
    async fn stand(&mut self) -> Result<(), LockError> {
        let kept = self.carried.borrow_mut().take();
        let guid = match kept {
            Some(guid) => {
                if let Some((own, czxid)) = self.look_for(&guid).await? {
                    self.stood(&own, czxid);
                    return Ok(());
                }
                guid
            }
            None => format!("{}-", (self.new_guid)()),
        };
        let path = self.path(&format!("{guid}{PREFIX}"));
        let timer = self.client.timer().clone();
        loop {
            match self
                .client
                .create2(&path, b"", CreateMode::EphemeralSequential)
                .await
            {
                Ok((created, stat)) => {
                    self.stood(&created, stat.czxid);
                    return Ok(());
                }
                Err(e) if is_transient(&e) && decide::abandons_session(self.flavor) => {
                    *self.carried.borrow_mut() = Some(guid);
                    return Err(LockError::SessionExpired);
                }
                Err(e) if is_transient(&e) => timer.sleep(RETRY_MS).await,
                Err(e) => return Err(e.into()),
            }
            if let Some((own, czxid)) = self.look_for(&guid).await? {
                self.stood(&own, czxid);
                return Ok(());
            }
        }
    }

    /// My node carrying `guid`, with its czxid: a child with the GUID that my session owns
    /// (any owner will do for the flavor that does not check), looked for after a `sync`
    /// unless the flavor skips it.
    async fn look_for(&self, guid: &str) -> Result<Option<(String, i64)>, LockError> {
        if decide::syncs_before_lookup(self.flavor) {
            catch_up(&self.client, &self.dir).await?;
        }
        let children = retrying(&self.client, async || {
            self.client.get_children(&self.dir).await
        })
        .await?;
        let session = self.client.session_id();
        for own in children.iter().filter(|c| c.starts_with(guid)) {
            let own_path = self.path(own);
            let stat = retrying(&self.client, async || self.client.exists(&own_path).await).await?;
            match stat {
                Some(stat) if !decide::checks_owner(self.flavor) => {
                    return Ok(Some((own.clone(), stat.czxid)));
                }
                Some(stat) if stat.ephemeral_owner == session => {
                    return Ok(Some((own.clone(), stat.czxid)));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    fn stood(&mut self, created: &str, czxid: i64) {
        let name = created.rsplit('/').next().unwrap_or(created).to_string();
        (self.observer)(Observation::Enqueued {
            node: name.clone(),
            seq: decide::seq(&name),
        });
        self.node = Some((name, czxid));
    }

    /// Waits for the node event of `watch`; session events that end nothing are not one
    /// (taking a Disconnected for the deletion would skip a look at the listing).
    async fn wait(&self, mut watch: Watch) -> Result<(), LockError> {
        loop {
            let Some(e) = watch.next().await else {
                return Err(LockError::SessionExpired);
            };
            match on_event(e.event_type, e.state) {
                OnEvent::Ignore => {}
                OnEvent::SessionLost => return Err(LockError::SessionExpired),
                OnEvent::Woken => {
                    (self.observer)(Observation::Woken {
                        path: e.path,
                        event: e.event_type.into(),
                    });
                    return Ok(());
                }
            }
        }
    }

    /// Runs until I lead: list, lead if lowest, else watch the node `decide` names and list
    /// again when it fires (or at once if it is already gone).
    async fn lead(&mut self) -> Result<Grant, LockError> {
        if self.node.is_none() {
            self.stand().await?;
        }
        loop {
            let (mine, czxid) = self.node.clone().expect("stood above");
            let children = retrying(&self.client, async || {
                self.client.get_children(&self.dir).await
            })
            .await?;
            match decide::decide(self.flavor, &mine, &children) {
                Decision::Lead => {
                    return Ok(Grant {
                        token: Some(czxid),
                        ..Grant::default()
                    });
                }
                Decision::NodeGone => {
                    self.node = None;
                    return Err(LockError::NodeGone);
                }
                Decision::Watch(other) => {
                    let path = self.path(&other);
                    let (stat, watch) =
                        retrying(&self.client, async || self.client.exists_watch(&path).await)
                            .await?;
                    if stat.is_some() {
                        self.wait(watch).await?;
                    }
                }
            }
        }
    }

    /// Deletes my node, retrying through ConnectionLoss; done once it is gone.
    async fn step_down(&mut self) -> Result<(), LockError> {
        let Some((mine, _)) = self.node.clone() else {
            return Ok(());
        };
        let path = self.path(&mine);
        match retrying(&self.client, async || self.client.delete(&path, -1).await).await {
            Ok(()) | Err(ZkError::Server(ErrorCode::NoNode)) => {
                self.node = None;
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }
}

impl Election for Candidate {
    /// Wins the election: the grant's token is my node's czxid.
    async fn lead(&mut self) -> Result<Grant, LockError> {
        Candidate::lead(self).await
    }

    async fn resign(&mut self) -> Result<(), LockError> {
        self.step_down().await
    }

    async fn leadership_lost(&mut self) {
        while let Some(e) = self.events.next().await {
            if on_event(e.event_type, e.state) == OnEvent::SessionLost {
                return;
            }
        }
    }

    async fn close(self) {
        self.client.close().await;
    }
}
