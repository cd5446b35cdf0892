//! A distributed queue of the user's own over ZooKeeper: items are persistent sequential
//! nodes, a consumer takes the lowest. What makes it exact under lost replies is a marker
//! beside each operation, created in the same multi: `offered/<item>` says an offer was
//! applied, `taken/<node>` (holding the consumer and the item) says whose take removed a
//! node. A consumer remembers the node it was taking in the host's memory (`Node::kept`), so
//! on its next session it still finds out whether that take happened. The variant deletes
//! the head before it reads it: the read then finds nothing, and the item is lost.

use locksim::recipes::zk::kit::{self, QUEUE_DIR, Report, ensure_path, is_transient, retrying};
use locksim::zk::client::{ZkClient, ZkError};
use locksim::zk::proto::{CreateMode, ErrorCode, MultiOp, multi_error};
use locksim::{Node, Queue, RecipeError, Taken};
use std::cell::RefCell;
use std::rc::Rc;

/// Where the markers live.
const OFFERED: &str = "/my-queue/offered";
const TAKEN: &str = "/my-queue/taken";

/// How a consumer takes the head.
#[derive(Debug, Clone, Copy)]
pub enum Take {
    /// Reads it, then deletes it together with a marker of the take.
    ReadThenDelete,
    /// Deletes it, then reads it (flawed: a deleted node cannot be read).
    DeleteFirst,
}

/// How an attempt on one head ended.
enum Head {
    Taken(String),
    /// Someone else took it: try the next.
    Gone,
    /// Not taken by me, and perhaps still there (a lost reply, and no marker of mine): list
    /// again, since it may still be the lowest.
    Again,
}

/// The node a consumer was taking when its reply was lost, kept across its sessions.
#[derive(Default)]
struct InFlight(Option<String>);

/// One client's queue, bound to one session.
pub struct MyQueue {
    client: ZkClient,
    me: String,
    report: Report,
    take: Take,
    in_flight: Rc<RefCell<InFlight>>,
}

impl MyQueue {
    pub async fn new(node: Node, client: ZkClient, take: Take) -> Result<MyQueue, RecipeError> {
        for dir in [OFFERED, TAKEN] {
            ensure_path(&client, dir).await?;
        }
        Ok(MyQueue {
            report: Report::new(&node, QUEUE_DIR),
            in_flight: node.kept(),
            me: node.name,
            client,
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
        let read = async || match retrying(&self.client, async || self.client.get_data(&path).await)
            .await
        {
            Ok((data, _)) => Ok(Some(String::from_utf8_lossy(&data).into_owned())),
            Err(ZkError::Server(ErrorCode::NoNode)) => Ok(None),
            Err(e) => Err(RecipeError::from(e)),
        };
        let item = match self.take {
            Take::ReadThenDelete => match read().await? {
                Some(item) => item,
                None => return Ok(Head::Gone),
            },
            Take::DeleteFirst => {
                kit::delete(&self.client, &path).await?;
                return Ok(read().await?.map_or(Head::Gone, Head::Taken));
            }
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
            Err(e) if is_transient(&e) => match self.taken_by_me(head).await? {
                Some(item) => Head::Taken(item),
                None => Head::Again,
            },
            Err(e) => return Err(e.into()),
        };
        self.in_flight.borrow_mut().0 = None;
        Ok(taken)
    }
}

impl Queue for MyQueue {
    async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
        let marker = format!("{OFFERED}/{item}");
        loop {
            if retrying(&self.client, async || self.client.exists(&marker).await)
                .await?
                .is_some()
            {
                return Ok(());
            }
            let ops = vec![
                MultiOp::create(
                    format!("{QUEUE_DIR}/item-"),
                    item.as_bytes(),
                    CreateMode::PersistentSequential,
                ),
                MultiOp::create(&marker, b"", CreateMode::Persistent),
            ];
            match self.client.multi(ops).await {
                Ok(results) if multi_error(&results).is_none() => return Ok(()),
                Err(e) if !is_transient(&e) => return Err(e.into()),
                _ => {}
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
