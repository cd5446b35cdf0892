//! The ZooKeeper mutants: a lock, an election and a queue written as a user would, on
//! locksim's own client with the recipe kit, that settle a request whose reply was lost
//! (ConnectionLoss: applied or not, nobody knows) by syncing and looking. The correct recipe
//! looks until it knows; each mutant gives up after a few looks and guesses, as a bounded
//! retry policy does (Curator's `RetryNTimes` around protected mode's lookup, kazoo's
//! `KazooRetry(max_tries)` around a release). The guess is right unless the looks failed
//! too: one lost reply is survived, the flaw needs the looks' own replies lost after it.

use locksim::recipes::zk::kit::{
    self, ELECTION_DIR, LOCK_DIR, QUEUE_DIR, Report, ensure_path, is_transient, retrying,
};
use locksim::zk::client::{SessionEvents, ZkClient, ZkError};
use locksim::zk::proto::{CreateMode, ErrorCode, MultiOp, Stat, multi_error};
use locksim::{Election, Grant, Lock, LockError, Node, Queue, RecipeError, Taken};
use std::cell::RefCell;
use std::rc::Rc;

/// How long a recipe keeps looking to settle a request whose reply was lost.
#[derive(Debug, Clone, Copy)]
pub enum Patience {
    /// Until it knows (the recipe).
    Unbounded,
    /// At most this many looks whose own reply came back lost, then it guesses (flawed).
    Looks(u32),
}

/// One look: waits until the session is connected again (a read retried through
/// ConnectionLoss), then syncs with the leader. Whether the sync's reply came back.
async fn look(client: &ZkClient, dir: &str) -> Result<bool, ZkError> {
    retrying(client, async || client.exists(dir).await).await?;
    match client.sync(dir).await {
        Ok(_) => Ok(true),
        Err(e) if is_transient(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Looks until a sync comes back, or until `patience` runs out: whether it may now read
/// what a lost reply left unknown.
async fn settle(client: &ZkClient, dir: &str, patience: Patience) -> Result<bool, ZkError> {
    let mut failed = 0;
    loop {
        if look(client, dir).await? {
            return Ok(true);
        }
        failed += 1;
        if let Patience::Looks(most) = patience
            && failed >= most
        {
            return Ok(false);
        }
    }
}

/// Puts an ephemeral sequential `{guid}lock-` in line under `dir`, as `kit::enqueue` does:
/// after a lost create reply it settles and looks for the node carrying `guid`. Out of
/// patience, it creates again without looking: if the lost create was applied, that node
/// is an orphan of a live session ahead of everyone (Z1).
async fn enqueue(
    client: &ZkClient,
    dir: &str,
    guid: &str,
    report: &Report,
    patience: Patience,
) -> Result<(String, i64), LockError> {
    enqueue_as(
        client,
        dir,
        guid,
        report,
        patience,
        CreateMode::EphemeralSequential,
    )
    .await
}

/// `enqueue` with nodes of `mode`.
async fn enqueue_as(
    client: &ZkClient,
    dir: &str,
    guid: &str,
    report: &Report,
    patience: Patience,
    mode: CreateMode,
) -> Result<(String, i64), LockError> {
    let path = format!("{dir}/{guid}lock-");
    let create = async || client.create2(&path, b"", mode).await;
    let enqueued = |(created, stat): (String, Stat)| {
        let name = created[dir.len() + 1..].to_string();
        report.enqueued(&name, None);
        (name, stat.czxid)
    };
    loop {
        match create().await {
            Ok(created) => return Ok(enqueued(created)),
            Err(e) if is_transient(&e) => {
                if !settle(client, dir, patience).await? {
                    // Out of patience: creates again, retried through ConnectionLoss.
                    return Ok(enqueued(retrying(client, create).await?));
                }
                let children = kit::list(client, dir).await?;
                let Some(own) = kit::find_own(&children, guid) else {
                    continue;
                };
                let at = format!("{dir}/{own}");
                if let Some(stat) = retrying(client, async || client.exists(&at).await).await? {
                    report.enqueued(own, None);
                    return Ok((own.to_string(), stat.czxid));
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Deletes `path`; after a lost reply it settles and deletes again (gone counts as
/// deleted). Out of patience, it takes the delete for done and forgets the node: if the
/// delete never reached the server, the node stays, held by a live session (Z7,
/// CURATOR-678).
async fn remove(
    client: &ZkClient,
    dir: &str,
    path: &str,
    patience: Patience,
) -> Result<(), LockError> {
    loop {
        match client.delete(path, -1).await {
            Ok(()) | Err(ZkError::Server(ErrorCode::NoNode)) => return Ok(()),
            Err(e) if is_transient(&e) => {
                if !settle(client, dir, patience).await? {
                    return Ok(());
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// A line of ephemeral sequential nodes named with a GUID, each member watching the node
/// just below its own and listing again when it fires, the first holding it: the lock's and
/// the election's recipe alike, with the patience of joining and of leaving.
struct PatientLine {
    client: ZkClient,
    events: SessionEvents,
    report: Report,
    dir: &'static str,
    join: Patience,
    leave: Patience,
    guid: String,
    joined: u64,
    mine: Option<(String, i64)>,
}

impl PatientLine {
    fn new(node: &Node, client: ZkClient, dir: &'static str, patience: [Patience; 2]) -> Self {
        let guid = format!("_c_{}_{:x}_", node.name, client.session_id());
        let (events, report) = (client.events(), Report::new(node, dir));
        PatientLine {
            client,
            events,
            report,
            dir,
            join: patience[0],
            leave: patience[1],
            guid,
            joined: 0,
            mine: None,
        }
    }

    /// Joins the line if it is not in it, and waits until it is first.
    async fn first(&mut self) -> Result<Grant, RecipeError> {
        if self.mine.is_none() {
            self.joined += 1;
            let guid = format!("{}{}_", self.guid, self.joined);
            let (client, report) = (&self.client, &self.report);
            self.mine = Some(enqueue(client, self.dir, &guid, report, self.join).await?);
        }
        let (mine, czxid) = self.mine.clone().expect("joined above");
        loop {
            let line = kit::line(&kit::list(&self.client, self.dir).await?);
            let Some(at) = line.iter().position(|c| *c == mine) else {
                self.mine = None;
                return Err(RecipeError::NodeGone);
            };
            if at == 0 {
                return Ok(Grant {
                    token: Some(czxid),
                    ..Grant::default()
                });
            }
            let below = format!("{}/{}", self.dir, line[at - 1]);
            let (stat, mut watch) = retrying(&self.client, async || {
                self.client.exists_watch(&below).await
            })
            .await?;
            if stat.is_some() {
                kit::wait(&mut watch, &self.report).await?;
            }
        }
    }

    /// Leaves the line, if it is in it.
    async fn leave(&mut self) -> Result<(), RecipeError> {
        match self.mine.take() {
            Some((mine, _)) => {
                let path = format!("{}/{mine}", self.dir);
                remove(&self.client, self.dir, &path, self.leave).await
            }
            None => Ok(()),
        }
    }
}

/// The lock recipe on a `PatientLine`, with the patience of its enqueue and of its release.
pub struct PatientLock(PatientLine);

impl PatientLock {
    pub async fn new(
        node: Node,
        client: ZkClient,
        enqueue: Patience,
        release: Patience,
    ) -> Result<PatientLock, LockError> {
        let line = PatientLine::new(&node, client, LOCK_DIR, [enqueue, release]);
        Ok(PatientLock(line))
    }
}

impl Lock for PatientLock {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.0.first().await
    }

    async fn release(&mut self) -> Result<(), LockError> {
        self.0.leave().await
    }

    async fn lost(&mut self) {
        kit::session_lost(&mut self.0.events).await
    }

    async fn close(self) {
        self.0.client.close().await
    }
}

/// The election recipe on a `PatientLine` (the lowest candidate leads), with the patience
/// of its stand and of its resign.
pub struct PatientElection(PatientLine);

impl PatientElection {
    pub async fn new(
        node: Node,
        client: ZkClient,
        stand: Patience,
        resign: Patience,
    ) -> Result<PatientElection, RecipeError> {
        let line = PatientLine::new(&node, client, ELECTION_DIR, [stand, resign]);
        Ok(PatientElection(line))
    }
}

impl Election for PatientElection {
    async fn lead(&mut self) -> Result<Grant, RecipeError> {
        self.0.first().await
    }

    async fn resign(&mut self) -> Result<(), RecipeError> {
        self.0.leave().await
    }

    async fn leadership_lost(&mut self) {
        kit::session_lost(&mut self.0.events).await
    }

    async fn close(self) {
        self.0.client.close().await
    }
}

/// Where a consumer marks each item node it removed: `taken/<node>` holds its name and
/// the item, created in the same multi as the delete.
const TAKEN: &str = "/mutants-queue/taken";
/// Where a producer marks each item it offered: `offered/<item>`, created in the same multi
/// as the item's node.
const OFFERED: &str = "/mutants-queue/offered";

/// How an attempt on one head ended.
enum Head {
    Taken(String),
    /// Someone else took it: try the next.
    Gone,
    /// Perhaps still there: list again.
    Again,
}

/// The node a consumer was taking when its session ended, kept across its sessions.
#[derive(Default)]
struct InFlight(Option<String>);

/// A queue whose producers offer each item with a multi that also marks it offered, and
/// whose consumers take the lowest node with a multi that deletes it and marks who took it;
/// after a lost reply each settles and reads its marker. The patience of its offer and of
/// its take: a producer out of patience offers the item again (it is queued twice), a
/// consumer out of patience takes the head for someone else's and goes on (the item its
/// multi removed is lost, CURATOR-605's shape).
pub struct PatientQueue {
    client: ZkClient,
    me: String,
    report: Report,
    offer: Patience,
    take: Patience,
    in_flight: Rc<RefCell<InFlight>>,
}

impl PatientQueue {
    pub async fn new(
        node: Node,
        client: ZkClient,
        offer: Patience,
        take: Patience,
    ) -> Result<PatientQueue, RecipeError> {
        for dir in [TAKEN, OFFERED] {
            ensure_path(&client, dir).await?;
        }
        Ok(PatientQueue {
            report: Report::new(&node, QUEUE_DIR),
            in_flight: node.kept(),
            me: node.name,
            client,
            offer,
            take,
        })
    }

    /// The item node `head` held if my take removed it, from its marker.
    async fn taken_by_me(&self, head: &str) -> Result<Option<String>, RecipeError> {
        let marker = format!("{TAKEN}/{head}");
        match retrying(&self.client, async || self.client.get_data(&marker).await).await {
            Ok((data, _)) => {
                let data = String::from_utf8_lossy(&data).into_owned();
                let (by, item) = data.split_once(' ').unwrap_or_default();
                Ok((by == self.me).then(|| item.to_string()))
            }
            Err(ZkError::Server(ErrorCode::NoNode)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Takes `head` if it is still there.
    async fn take_head(&mut self, head: &str) -> Result<Head, RecipeError> {
        let path = format!("{QUEUE_DIR}/{head}");
        let item = match retrying(&self.client, async || self.client.get_data(&path).await).await {
            Ok((data, _)) => String::from_utf8_lossy(&data).into_owned(),
            Err(ZkError::Server(ErrorCode::NoNode)) => return Ok(Head::Gone),
            Err(e) => return Err(e.into()),
        };
        self.report.claimed(&item, head);
        self.in_flight.borrow_mut().0 = Some(head.to_string());
        let marker = MultiOp::create(
            format!("{TAKEN}/{head}"),
            format!("{} {item}", self.me).as_bytes(),
            CreateMode::Persistent,
        );
        let taken = match self
            .client
            .multi(vec![MultiOp::delete(&path, -1), marker])
            .await
        {
            Ok(results) if multi_error(&results).is_none() => Head::Taken(item),
            Ok(_) => Head::Gone,
            Err(e) if is_transient(&e) => {
                if !settle(&self.client, QUEUE_DIR, self.take).await? {
                    // Out of patience: takes the head for someone else's.
                    self.in_flight.borrow_mut().0 = None;
                    return Ok(Head::Gone);
                }
                match self.taken_by_me(head).await? {
                    Some(item) => Head::Taken(item),
                    None => Head::Again,
                }
            }
            Err(e) => return Err(e.into()),
        };
        self.in_flight.borrow_mut().0 = None;
        Ok(taken)
    }
}

impl Queue for PatientQueue {
    async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
        let marker = format!("{OFFERED}/{item}");
        let create_item = || {
            let mode = CreateMode::PersistentSequential;
            MultiOp::create(format!("{QUEUE_DIR}/item-"), item.as_bytes(), mode)
        };
        loop {
            let ops = vec![
                create_item(),
                MultiOp::create(&marker, b"", CreateMode::Persistent),
            ];
            match self.client.multi(ops).await {
                Ok(results) if multi_error(&results).is_none() => return Ok(()),
                // The marker exists: an earlier offer of the item was applied.
                Ok(_) => return Ok(()),
                Err(e) if is_transient(&e) => {
                    if !settle(&self.client, QUEUE_DIR, self.offer).await? {
                        // Out of patience: offers the item alone, retried through
                        // ConnectionLoss, since the multi with its marker is what failed.
                        let offer = async || self.client.multi(vec![create_item()]).await;
                        retrying(&self.client, offer).await?;
                        return Ok(());
                    }
                    let offered = async || self.client.exists(&marker).await;
                    if retrying(&self.client, offered).await?.is_some() {
                        return Ok(());
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    async fn take(&mut self) -> Result<Taken, RecipeError> {
        let settling = self.in_flight.borrow().0.clone();
        if let Some(head) = settling {
            let item = self.taken_by_me(&head).await?;
            self.in_flight.borrow_mut().0 = None;
            if let Some(item) = item {
                return Ok(Taken::new(item).at(head));
            }
        }
        loop {
            let (children, mut watch) = retrying(&self.client, async || {
                self.client.get_children_watch(QUEUE_DIR).await
            })
            .await?;
            let line = kit::line(&children);
            if line.is_empty() {
                self.report.listed_empty();
                kit::wait(&mut watch, &self.report).await?;
                continue;
            }
            for head in line {
                match self.take_head(&head).await? {
                    Head::Taken(item) => return Ok(Taken::new(item).at(head)),
                    Head::Gone => {}
                    Head::Again => break,
                }
            }
        }
    }

    async fn close(self) {
        self.client.close().await
    }
}

/// A barrier of the user's own: each process puts a persistent sequential node (named with
/// a GUID unique to the process and the round, so an arrival outlives its session and is
/// never made twice) under its round's directory and passes once `parties` nodes are there.
/// Out of patience after a lost create reply, it creates a second node of its own; counted
/// twice, it lifts the barrier while someone has not arrived.
pub struct PatientBarrier {
    client: ZkClient,
    report: Report,
    patience: Patience,
    parties: usize,
    guid: String,
}

/// The directory of round `round`'s barrier.
fn round_dir(round: u32) -> String {
    format!("{}/r{round}", kit::BARRIER_DIR)
}

impl PatientBarrier {
    /// Makes the directories of rounds `0..rounds` first, so that a process's creates after
    /// this are its arrivals.
    pub async fn new(
        node: Node,
        client: ZkClient,
        patience: Patience,
        parties: u32,
        rounds: u32,
    ) -> Result<PatientBarrier, RecipeError> {
        for round in 0..rounds {
            ensure_path(&client, &round_dir(round)).await?;
        }
        let guid = format!("_c_{}_", node.name);
        Ok(PatientBarrier {
            report: Report::new(&node, kit::BARRIER_DIR),
            client,
            patience,
            parties: parties as usize,
            guid,
        })
    }
}

impl locksim::Barrier for PatientBarrier {
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError> {
        let dir = round_dir(round);
        let guid = format!("{}r{round}_", self.guid);
        // Arrived already, in an earlier session?
        if kit::find_own(&kit::list(&self.client, &dir).await?, &guid).is_none() {
            let (client, report) = (&self.client, &self.report);
            let mode = CreateMode::PersistentSequential;
            enqueue_as(client, &dir, &guid, report, self.patience, mode).await?;
        }
        loop {
            let (children, mut watch) = retrying(&self.client, async || {
                self.client.get_children_watch(&dir).await
            })
            .await?;
            if children.len() >= self.parties {
                return Ok(());
            }
            kit::wait(&mut watch, &self.report).await?;
        }
    }
}
