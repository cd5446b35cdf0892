//! A distributed queue of the user's own over Redis, written against redis-rs: a list,
//! offered to at its tail and taken from its head. What makes it exact under lost replies:
//! an offer is one script that pushes the item only if the set of offered items did not
//! hold it yet, so an offer asked again pushes nothing twice; a take moves the head into
//! the consumer's own processing list (`LMOVE`), where it stays until the consumer's next
//! take, so a take asked again finds the item it moved there. The consumer remembers the
//! item it last returned in the host's memory (`Node::kept`), to tell it from one a lost
//! reply left there. The variant takes by a plain `LPOP`: an item whose pop's reply is lost
//! is gone.

use locksim::redis_rs::aio::MultiplexedConnection;
use locksim::redis_rs::{AsyncCommands, Direction, Script};
use locksim::{Node, Queue, RecipeError, Taken};
use std::cell::RefCell;
use std::rc::Rc;

/// The list the items wait in.
pub const QUEUE: &str = "my-queue";
/// Every item ever offered.
const OFFERED: &str = "my-queue:offered";
/// How long a consumer waits before it looks at an empty queue again.
const RETRY_MS: u64 = 10;

/// Pushes an item unless it was offered before.
const OFFER: &str = "if redis.call('sadd', KEYS[1], ARGV[1]) == 1 then \
    redis.call('rpush', KEYS[2], ARGV[1]) end return 1";

/// How a consumer takes the head.
#[derive(Debug, Clone, Copy)]
pub enum Take {
    /// Moves it into its processing list, where a lost reply leaves it found.
    Move,
    /// Pops it (flawed: a lost reply loses it).
    Pop,
}

/// The item a consumer last returned, kept across its sessions.
#[derive(Default)]
struct Returned(Option<String>);

/// One client's queue, on its own redis-rs connection to `redis1`.
pub struct MyQueue {
    conn: MultiplexedConnection,
    node: Node,
    take: Take,
    /// This consumer's processing list.
    processing: String,
    returned: Rc<RefCell<Returned>>,
}

impl MyQueue {
    /// Connects the client on `node`.
    pub async fn connect(node: Node, take: Take) -> Result<MyQueue, RecipeError> {
        let conn = locksim::redis::rs::connect(&node, "redis1").await?;
        Ok(MyQueue {
            conn,
            processing: format!("{QUEUE}:processing:{}", node.name),
            returned: node.kept(),
            node,
            take,
        })
    }

    fn returning(&self, item: String) -> Taken {
        self.returned.borrow_mut().0 = Some(item.clone());
        Taken::new(item)
    }
}

impl Queue for MyQueue {
    async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
        let offer = Script::new(OFFER);
        let _: u32 = offer
            .key(OFFERED)
            .key(QUEUE)
            .arg(item)
            .invoke_async(&mut self.conn)
            .await?;
        Ok(())
    }

    async fn take(&mut self) -> Result<Taken, RecipeError> {
        if let Take::Move = self.take {
            // What the processing list holds is the item returned last time (done with), or
            // one a take whose reply was lost moved there (this take's).
            let moved: Option<String> = self.conn.lindex(&self.processing, 0).await?;
            let returned = self.returned.borrow().0.clone();
            match moved {
                Some(item) if Some(&item) != returned.as_ref() => return Ok(self.returning(item)),
                Some(_) => self.conn.del::<_, ()>(&self.processing).await?,
                None => {}
            }
        }
        loop {
            let head: Option<String> = match self.take {
                Take::Move => {
                    let (from, to) = (Direction::Left, Direction::Right);
                    self.conn.lmove(QUEUE, &self.processing, from, to).await?
                }
                Take::Pop => self.conn.lpop(QUEUE, None).await?,
            };
            match head {
                Some(item) => return Ok(self.returning(item)),
                None => self.node.timer().sleep(RETRY_MS).await,
            }
        }
    }
}
