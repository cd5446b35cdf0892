//! The ZooKeeper family's simulation glue: serves the core (`zk::host`) on its host's port
//! 2181 with the node's clocks, records tree changes in the history, and carries out
//! `lose_reply` and `stall_apply` faults. The core outlives crashes; a restart re-arms every session deadline.

use crate::history::Kind;
use crate::sim::fault::Fault;
use crate::sim::node::Node;
use crate::sim::software::{ServerFamily, ServerFuture, ServerSoftware};
use crate::zk::PORT;
use crate::zk::events::ZkEvent;
use crate::zk::host::{self, Env, Host, HostEvent, SharedHost};
use crate::zk::proto::Request;
use crate::zk::server::{
    Change, ConnId, EnsembleConfig, Now, READ_YOUR_WRITES, Server, ServerConfig, ServerId,
};
use crate::zk::sim_peers::{Links, Mailbox};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use turmoil::net::TcpListener;

/// Simulated ZooKeeper servers with this tickTime (sessions clamp to 2..20 ticks), whose
/// nodes' sequence counters start at `seq_start`, whose reaper runs every
/// `container_check_ms`, and which make TTL nodes when `extended_types`; a `member` of an
/// ensemble, or a server alone.
#[derive(Debug, Clone)]
pub struct ZkFamily {
    pub tick_ms: u64,
    pub seq_start: i32,
    pub container_check_ms: u64,
    pub extended_types: bool,
    pub member: Option<Member>,
}

/// A scenario's ensemble of `servers` members zk1..zkN, led by the last until it is lost;
/// their peer messages wait in one mailbox while their tickets cross the simulated network.
#[derive(Debug)]
pub struct Ensemble {
    servers: u32,
    max_lag_ms: u64,
    mailbox: Rc<RefCell<Mailbox>>,
    reported: Reported,
}

/// The last change recorded, by zxid and by the member that reported it: a new leader
/// applies the writes its predecessor may have committed (and reported) already, and those
/// are recorded once.
pub type Reported = Rc<Cell<(i64, ServerId)>>;

impl Ensemble {
    /// An ensemble of `servers` whose followers' apply lags are drawn up to `max_lag_ms`.
    pub fn new(servers: u32, max_lag_ms: u64) -> Ensemble {
        Ensemble {
            servers,
            max_lag_ms,
            mailbox: Rc::default(),
            reported: Rc::default(),
        }
    }

    /// Member `id`'s place; None for a server alone.
    pub fn member(&self, id: u32) -> Option<Member> {
        (self.servers > 1).then(|| Member {
            id: ServerId::try_from(id).unwrap_or(ServerId::MAX),
            servers: ServerId::try_from(self.servers).unwrap_or(ServerId::MAX),
            max_lag_ms: self.max_lag_ms,
            mailbox: self.mailbox.clone(),
            reported: self.reported.clone(),
        })
    }
}

/// One member's place in its ensemble.
#[derive(Debug, Clone)]
pub struct Member {
    pub id: ServerId,
    /// Members 1..=servers; the last leads.
    pub servers: ServerId,
    pub max_lag_ms: u64,
    pub mailbox: Rc<RefCell<Mailbox>>,
    pub reported: Reported,
}

impl Member {
    fn leader(&self) -> ServerId {
        self.servers
    }

    /// The member's server configuration: its apply lag drawn from the host's seed.
    fn config(&self, node: &Node) -> EnsembleConfig {
        let seed = node.seeds.derive(&format!("{}/apply-lag", node.name));
        let lag = ChaCha8Rng::seed_from_u64(seed).random_range(0..=self.max_lag_ms);
        EnsembleConfig {
            members: (1..=self.servers).collect(),
            leader: self.leader(),
            apply_lag_ms: if self.id == self.leader() { 0 } else { lag },
        }
    }
}

/// The requests whose reply a ZooKeeper host can lose, as `lose_reply`'s `op` names them:
/// every request, by its name in the Java client in snake case (`Request::name`, from its
/// op's row: `create` covers create2, createContainer and createTTL; `get_children`
/// getChildren2; `set_watches` setWatches2). A write's (the five after `any`) is lost only
/// once it applied; any other's at once. The guided search draws from this list, so it
/// stays as it is: an op added later loses its reply under `any` only.
const REPLY_OPS: &[&str] = &[
    ANY,
    "create",
    "delete",
    "set_data",
    "multi",
    "set_acl",
    "sync",
    "exists",
    "get_data",
    "get_children",
    "get_acl",
    "get_ephemerals",
    "get_all_children_number",
    "multi_read",
    "check_watches",
    "remove_watches",
    "add_watch",
    "set_watches",
    "auth",
    "whoami",
    "reconfig",
    "ping",
    "close_session",
];

/// The `op` of a lost reply that is the client's next request's, whichever it is and
/// whatever it answered: the reply that happens to be on the wire.
const ANY: &str = "any";

/// `REPLY_OPS` up to here (after `any`) are writes, whose reply is lost only once they
/// applied.
const WRITES: usize = 6;

impl ServerFamily for ZkFamily {
    fn describe(&self) -> &'static str {
        "a ZooKeeper server"
    }

    fn reply_ops(&self) -> &'static [&'static str] {
        REPLY_OPS
    }

    /// A follower of an ensemble; never a server alone or the leader, which applies as it
    /// commits.
    fn stalls_apply(&self) -> bool {
        self.member.as_ref().is_some_and(|m| m.id != m.leader())
    }

    fn ensemble_member(&self) -> bool {
        self.member.is_some()
    }

    /// The reply to a client's next request, whichever the run sends then: the requests a
    /// recipe sends most are lost most, its reads and syncs as its creates.
    fn swarm_reply_ops(&self) -> &'static [&'static str] {
        &REPLY_OPS[..1]
    }

    fn install(&self, node: Node) -> Box<dyn ServerSoftware> {
        let server = Server::new(ServerConfig {
            seq_start: self.seq_start,
            container_check_ms: self.container_check_ms,
            extended_types: self.extended_types,
            server_id: self.member.as_ref().map_or(1, |m| m.id),
            ensemble: self.member.as_ref().map(|m| m.config(&node)),
            measures_margins: node.keeps_server_log(),
            ..ServerConfig::with_tick(self.tick_ms, node.seed())
        });
        let env = SimEnv {
            node,
            lose: Vec::new(),
            clients: BTreeMap::new(),
            reported: self.member.as_ref().map(|m| (m.id, m.reported.clone())),
        };
        let host = Host::new(env, server, self.tick_ms);
        Box::new(ZkSoftware {
            host,
            member: self.member.clone(),
            tick: Duration::from_millis(self.tick_ms),
        })
    }
}

struct ZkSoftware {
    host: SharedHost<SimEnv>,
    member: Option<Member>,
    tick: Duration,
}

impl ServerSoftware for ZkSoftware {
    fn start(&self) -> ServerFuture {
        let links = self.member.clone().map(|member| Links {
            node: self.host.borrow().env.node.clone(),
            host: self.host.clone(),
            member,
            tick: self.tick,
        });
        Box::pin(serve(self.host.clone(), links))
    }

    fn apply(&mut self, fault: &Fault) {
        match fault {
            Fault::LoseReply { op, client, .. } => {
                let lose = &mut self.host.borrow_mut().env.lose;
                lose.push((client.clone(), op.clone()));
            }
            Fault::StallApply { for_ms, .. } => self.host.borrow_mut().stall_apply(*for_ms),
            _ => {}
        }
    }

    /// Replies armed to be lost are delivered after all; a stalled apply goes on.
    fn heal(&mut self) {
        let mut host = self.host.borrow_mut();
        host.env.lose.clear();
        host.stall_apply(0);
    }

    /// Every wait of its is one the stepper sees (`Node::timer`, `turmoil::sleep`).
    fn lazy(&self) -> bool {
        true
    }
}

struct SimEnv {
    node: Node,
    /// Armed lose_reply faults: (client, op).
    lose: Vec<(String, String)>,
    /// The client host of each connection, when it measures margins: a margin names the
    /// client it would make late, after its connection may have closed.
    clients: BTreeMap<ConnId, String>,
    /// A member's id and its ensemble's last recorded change.
    reported: Option<(ServerId, Reported)>,
}

impl SimEnv {
    /// Whether `change` is new to the history: not one an earlier leader reported.
    fn first_report(&self, change: &Change) -> bool {
        let Some((me, reported)) = &self.reported else {
            return true;
        };
        let (zxid, by) = reported.get();
        let new = change.zxid() > zxid || (change.zxid() == zxid && by == *me);
        if new {
            reported.set((change.zxid(), *me));
        }
        new
    }
}

impl Env for SimEnv {
    fn now(&self) -> Now {
        let (mono_ms, wall_ms) = self.node.clocks_ms();
        Now { mono_ms, wall_ms }
    }

    fn wait_until(&self, mono_ms: u64) -> Duration {
        let true_ms = Node::true_ms();
        let at = self.node.clock.borrow().true_ms_when(mono_ms, true_ms);
        Duration::from_millis(at - true_ms)
    }

    fn lose_reply(&mut self, client: &str, request: &Request, applied: bool) -> bool {
        let op = request.name();
        let write = REPLY_OPS[..WRITES].contains(&op);
        let armed = self
            .lose
            .iter()
            .position(|(c, o)| c == client && (o == ANY || (o == op && (applied || !write))));
        if self.node.keeps_server_log() {
            self.node.answered(client, op, armed.is_some());
        }
        let Some(index) = armed else {
            return false;
        };
        self.lose.remove(index);
        let lost = ZkEvent::ReplyLost {
            client: client.to_string(),
            request: op.to_string(),
        };
        self.node.record(Kind::Info, lost.into());
        true
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        let change = match event {
            HostEvent::Changed(change) => change,
            HostEvent::ReadMargin(ms) => return self.node.margin(READ_YOUR_WRITES, ms),
            HostEvent::Accepted { conn, client } if self.node.keeps_server_log() => {
                self.clients.insert(conn, client.to_string());
                return;
            }
            HostEvent::RequestMargin(m) => {
                if let Some(client) = self.clients.get(&m.conn) {
                    let span = (m.since_ms, m.at_ms);
                    self.node
                        .request_margin(m.name, client, span, m.ms, m.reader);
                }
                return;
            }
            _ => return,
        };
        if !self.first_report(change) {
            return;
        }
        let event = match change.clone() {
            Change::Created { path, session, .. } => ZkEvent::ZnodeCreated { path, session },
            Change::Deleted { path, session, .. } => ZkEvent::ZnodeDeleted { path, session },
            Change::SessionExpired { session, .. } => ZkEvent::SessionExpired { session },
            Change::Leading { epoch, .. } => ZkEvent::Leading { epoch },
        };
        self.node.record(Kind::Info, event.into());
    }
}

/// The host's software; turmoil calls it again on every restart.
async fn serve(host: SharedHost<SimEnv>, links: Option<Links<SimEnv>>) -> turmoil::Result {
    host.borrow_mut().restart();
    let node = host.borrow().env.node.clone();
    node.spawn(host::tick(host.clone()));
    if let Some(links) = links {
        node.spawn(host::wake_when_due(host.clone()));
        node.spawn(links.run());
    }
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        node.spawn(host::serve_conn(host.clone(), client, peer.ip(), stream));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::Recorder;
    use crate::sim::clock::Clock;
    use crate::sim::pause::PauseGate;
    use crate::sim::seed::Seeds;
    use crate::zk::proto::MultiOp;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn env(lose: &[(&str, &str)]) -> SimEnv {
        SimEnv {
            node: Node {
                name: "zk1".into(),
                clock: Rc::new(RefCell::new(Clock::default())),
                gate: PauseGate::default(),
                recorder: Recorder::default(),
                seeds: Seeds::new(1),
                params: Default::default(),
                kept: Default::default(),
            },
            lose: lose
                .iter()
                .map(|(c, o)| (c.to_string(), o.to_string()))
                .collect(),
            clients: BTreeMap::new(),
            reported: None,
        }
    }

    /// A read's reply is lost whatever it answered: the connection drops under it, as a
    /// recipe listing its line after a cut sees it.
    #[test]
    fn any_request_s_reply_can_be_lost_and_a_read_s_whatever_it_answered() {
        let list = Request::GetChildren2 {
            path: "/lock".into(),
            watch: false,
        };
        let exists = Request::Exists {
            path: "/lock/x".into(),
            watch: true,
        };
        let mut named = env(&[("c1", "get_children"), ("c1", "exists")]);
        assert!(
            named.lose_reply("c1", &list, true),
            "getChildren2 is a get_children"
        );
        assert!(
            named.lose_reply("c1", &exists, false),
            "a NoNode answer is lost too"
        );
        let mut any = env(&[("c1", "any")]);
        assert!(!any.lose_reply("c2", &list, true), "another client's");
        assert!(
            any.lose_reply("c1", &exists, false),
            "the next, whatever it answered"
        );
        assert!(!any.lose_reply("c1", &list, true), "once");
        for request in [list, exists, Request::Ping, Request::CloseSession] {
            assert!(REPLY_OPS.contains(&request.name()), "{request:?}");
        }
    }

    #[test]
    fn a_multi_s_reply_is_lost_once_it_applied_and_a_sync_s_at_once() {
        let multi = Request::Multi {
            ops: vec![MultiOp::delete("/a", -1)],
        };
        let sync = Request::Sync { path: "/".into() };
        let mut env = env(&[("c1", "multi"), ("c1", "sync")]);
        assert!(!env.lose_reply("c2", &multi, true), "another client's");
        assert!(
            !env.lose_reply("c1", &multi, false),
            "a failed multi's stays armed"
        );
        assert!(env.lose_reply("c1", &multi, true));
        assert!(!env.lose_reply("c1", &multi, true), "once");
        assert!(env.lose_reply("c1", &sync, true));
        assert!(REPLY_OPS.contains(&"multi") && REPLY_OPS.contains(&"sync"));
    }
}
