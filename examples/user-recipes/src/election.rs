//! A leader election of the user's own over ZooKeeper, built from locksim's recipe kit:
//! candidates stand with ephemeral sequential nodes named with a GUID, the lowest leads, and
//! every other candidate watches the one just below its own. What a candidate does when its
//! watch fires is the variant: list again and lead only if lowest (the recipe), or take any
//! event on the watch for its turn, a session event included, which elects a second leader
//! while the first still leads.

use locksim::recipes::zk::kit::{self, ELECTION_DIR, Report, retrying};
use locksim::zk::client::{SessionEvents, ZkClient};
use locksim::{Election, Grant, Node, RecipeError};

/// What a candidate does when the watch on the candidate below it fires.
#[derive(Debug, Clone, Copy)]
pub enum OnWatch {
    /// Lists the candidates again: it leads only when its node is the lowest.
    ListAgain,
    /// Leads at once, whatever the event (flawed).
    Lead,
}

/// One client's candidacy, bound to one session.
pub struct MyElection {
    client: ZkClient,
    events: SessionEvents,
    report: Report,
    on_watch: OnWatch,
    /// Unique to the session; with a count, to each time it stands.
    guid: String,
    stood: u64,
    mine: Option<(String, i64)>,
}

impl MyElection {
    pub async fn new(
        node: Node,
        client: ZkClient,
        on_watch: OnWatch,
    ) -> Result<MyElection, RecipeError> {
        let guid = format!("_c_{}_{:x}_", node.name, client.session_id());
        let (events, report) = (client.events(), Report::new(&node, ELECTION_DIR));
        Ok(MyElection {
            client,
            events,
            report,
            on_watch,
            guid,
            stood: 0,
            mine: None,
        })
    }
}

impl Election for MyElection {
    async fn lead(&mut self) -> Result<Grant, RecipeError> {
        if self.mine.is_none() {
            self.stood += 1;
            let guid = format!("{}{}_", self.guid, self.stood);
            let dir = ELECTION_DIR;
            self.mine = Some(kit::enqueue(&self.client, dir, &guid, &self.report, None).await?);
        }
        let (mine, czxid) = self.mine.clone().expect("stood above");
        let leads = Grant {
            token: Some(czxid),
            ..Grant::default()
        };
        loop {
            let line = kit::line(&kit::list(&self.client, ELECTION_DIR).await?);
            let Some(at) = line.iter().position(|c| *c == mine) else {
                self.mine = None;
                return Err(RecipeError::NodeGone);
            };
            if at == 0 {
                return Ok(leads);
            }
            let below = format!("{ELECTION_DIR}/{}", line[at - 1]);
            let (stat, mut watch) = retrying(&self.client, async || {
                self.client.exists_watch(&below).await
            })
            .await?;
            if stat.is_none() {
                continue;
            }
            match self.on_watch {
                OnWatch::ListAgain => kit::wait(&mut watch, &self.report).await?,
                OnWatch::Lead => {
                    watch.next().await;
                    return Ok(leads);
                }
            }
        }
    }

    async fn resign(&mut self) -> Result<(), RecipeError> {
        match self.mine.take() {
            Some((mine, _)) => kit::delete(&self.client, &format!("{ELECTION_DIR}/{mine}")).await,
            None => Ok(()),
        }
    }

    async fn leadership_lost(&mut self) {
        kit::session_lost(&mut self.events).await
    }

    async fn close(self) {
        self.client.close().await
    }
}
