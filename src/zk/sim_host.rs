//! The turmoil driver of the simulated ZooKeeper, the family's own simulation glue: serves
//! the core (`zk::host`) on its host's port 2181 with the node's clocks, records tree changes
//! in the history, and carries out `lose_reply` faults. The core outlives crashes; a restart
//! re-arms every session deadline.

use crate::history::{Kind, Op};
use crate::sim::fault::ReplyOp;
use crate::sim::node::Node;
use crate::zk::PORT;
use crate::zk::host::{self, Env, Host, HostEvent, SharedHost};
use crate::zk::proto::{OpCode, Request};
use crate::zk::server::{Change, Now, Server};
use turmoil::net::TcpListener;

pub struct SimEnv {
    node: Node,
    /// Armed lose_reply faults: (client, op).
    lose: Vec<(String, ReplyOp)>,
}

pub type SharedZkHost = SharedHost<SimEnv>;

impl SimEnv {
    /// Arms a lose_reply fault for `client`'s next `op` request that the server applies.
    pub fn lose_next_reply(&mut self, client: &str, op: ReplyOp) {
        self.lose.push((client.to_string(), op));
    }

    /// The heal phase admits no faults: replies armed to be lost are delivered after all.
    pub fn disarm_lost_replies(&mut self) {
        self.lose.clear();
    }
}

impl Env for SimEnv {
    fn now(&self) -> Now {
        Now {
            mono_ms: self.node.mono_ms(),
            wall_ms: self.node.wall_ms(),
        }
    }

    fn lose_reply(&mut self, client: &str, request: &Request, applied: bool) -> bool {
        let op = match request.op() {
            _ if host::is_create(request) => ReplyOp::Create,
            OpCode::Delete => ReplyOp::Delete,
            OpCode::SetData => ReplyOp::SetData,
            _ => return false,
        };
        let armed = self.lose.iter().position(|(c, o)| c == client && *o == op);
        match armed.filter(|_| applied) {
            Some(index) => {
                self.lose.remove(index);
                true
            }
            None => false,
        }
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        let HostEvent::Changed(change) = event else {
            return;
        };
        let op = match change.clone() {
            Change::Created { path, session, .. } => Op::ZnodeCreated { path, session },
            Change::Deleted { path, session, .. } => Op::ZnodeDeleted { path, session },
            Change::SessionExpired { session } => Op::SessionExpired { session },
        };
        self.node.record(Kind::Info, op);
    }
}

pub fn new(node: Node, server: Server, tick_ms: u64) -> SharedZkHost {
    Host::new(
        SimEnv {
            node,
            lose: Vec::new(),
        },
        server,
        tick_ms,
    )
}

/// The host's software; turmoil calls it again on every restart.
pub async fn serve(host: SharedZkHost) -> turmoil::Result {
    host.borrow_mut().restart();
    let node = host.borrow().env.node.clone();
    node.spawn(host::expire_sessions(host.clone()));
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        node.spawn(host::serve_conn(host.clone(), client, stream));
    }
}
