//! The turmoil driver of the simulated ZooKeeper: serves the sans-IO core on `zk1:2181`,
//! moving bytes and time only. The core outlives crashes (as the transaction log would);
//! a restart re-arms every session deadline. It also carries out `lose_reply` faults.

use crate::history::{Kind, Op};
use crate::sim::fault::ReplyOp;
use crate::sim::node::Node;
use crate::zk::proto::{self, OpCode, Request};
use crate::zk::server::{Change, ConnId, ErrorCode, Now, Output, Server};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use turmoil::net::{TcpListener, TcpStream};

pub const PORT: u16 = 2181;

enum Outgoing {
    Bytes(Vec<u8>),
    Close,
}

/// State shared by the host's tasks and the driver loop; survives crashes and restarts.
pub struct ZkHost {
    node: Node,
    tick_ms: u64,
    server: Server,
    conns: BTreeMap<ConnId, mpsc::UnboundedSender<Outgoing>>,
    next_conn: ConnId,
    /// Pending lose_reply faults: (client, op).
    lose: Vec<(String, ReplyOp)>,
}

pub type SharedZkHost = Rc<RefCell<ZkHost>>;

impl ZkHost {
    pub fn new(node: Node, server: Server, tick_ms: u64) -> SharedZkHost {
        Rc::new(RefCell::new(ZkHost {
            node,
            tick_ms,
            server,
            conns: BTreeMap::new(),
            next_conn: 1,
            lose: Vec::new(),
        }))
    }

    /// Arms a lose_reply fault for `client`'s next `op` request that the server applies.
    pub fn lose_next_reply(&mut self, client: &str, op: ReplyOp) {
        self.lose.push((client.to_string(), op));
    }

    /// The heal phase admits no faults: replies armed to be lost are delivered after all.
    pub fn disarm_lost_replies(&mut self) {
        self.lose.clear();
    }

    fn now(&self) -> Now {
        Now {
            mono_ms: self.node.mono_ms(),
            wall_ms: self.node.wall_ms(),
        }
    }

    /// Which armed lose_reply fault (index into `lose`) this request from `client` would
    /// spend, if the server applies it.
    fn armed_loss(&self, client: &str, req: &Request) -> Option<usize> {
        let op = match req.op() {
            OpCode::Create | OpCode::Create2 => ReplyOp::Create,
            OpCode::Delete => ReplyOp::Delete,
            OpCode::SetData => ReplyOp::SetData,
            _ => return None,
        };
        self.lose.iter().position(|(c, o)| c == client && *o == op)
    }

    fn send(&self, conn: ConnId, out: Outgoing) {
        if let Some(tx) = self.conns.get(&conn) {
            let _ = tx.send(out);
        }
    }

    fn dispatch(&mut self, outputs: Vec<Output>) {
        for output in outputs {
            if let Some((conn, bytes)) = output.packet() {
                self.send(conn, Outgoing::Bytes(bytes));
            }
            match output {
                Output::Connected {
                    conn, close: true, ..
                }
                | Output::Close { conn } => self.send(conn, Outgoing::Close),
                Output::Changed(change) => self.record(change),
                _ => {}
            }
        }
    }

    fn record(&self, change: Change) {
        let op = match change {
            Change::Created { path, session, .. } => Op::ZnodeCreated { path, session },
            Change::Deleted { path, session, .. } => Op::ZnodeDeleted { path, session },
            Change::SessionExpired { session } => Op::SessionExpired { session },
        };
        self.node.record(Kind::Info, op);
    }
}

/// The host's software; turmoil calls it again on every restart.
pub async fn serve(host: SharedZkHost) -> turmoil::Result {
    {
        let mut h = host.borrow_mut();
        let now = h.now();
        h.conns.clear();
        h.server.restart(now);
    }
    let node = host.borrow().node.clone();
    node.spawn(expire_sessions(host.clone()));
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        let conn = {
            let mut h = host.borrow_mut();
            h.next_conn += 1;
            h.next_conn
        };
        node.spawn(serve_conn(host.clone(), conn, client, stream));
    }
}

/// Session expiry runs on the server's tick, as ZooKeeper's SessionTracker does.
async fn expire_sessions(host: SharedZkHost) {
    let tick = Duration::from_millis(host.borrow().tick_ms);
    loop {
        tokio::time::sleep(tick).await;
        let mut h = host.borrow_mut();
        let now = h.now();
        let outputs = h.server.handle_timeout(now);
        h.dispatch(outputs);
    }
}

/// What to do after one frame from a connection.
enum Next {
    Continue,
    /// Drop the connection: a malformed frame or a lost reply.
    Drop,
}

fn handle_frame(
    host: &SharedZkHost,
    conn: ConnId,
    client: &str,
    connected: &mut bool,
    body: &[u8],
) -> Next {
    let mut h = host.borrow_mut();
    let now = h.now();
    if !*connected {
        let Ok(req) = proto::decode_connect_request(body) else {
            return Next::Drop;
        };
        *connected = true;
        let outputs = h.server.handle_connect(now, conn, &req);
        h.dispatch(outputs);
        return Next::Continue;
    }
    let Ok((header, req)) = proto::decode_request(body) else {
        return Next::Drop;
    };
    let armed = h.armed_loss(client, &req);
    let mut outputs = h.server.handle_request(now, conn, header.xid, req);
    let applied = outputs.iter().any(
        |o| matches!(o, Output::Reply { conn: c, xid, err: ErrorCode::Ok, .. } if *c == conn && *xid == header.xid),
    );
    if let Some(index) = armed.filter(|_| applied) {
        h.lose.remove(index);
        outputs.retain(|o| !matches!(o, Output::Reply { conn: c, .. } | Output::Notify { conn: c, .. } if *c == conn));
        h.dispatch(outputs);
        return Next::Drop;
    }
    h.dispatch(outputs);
    Next::Continue
}

async fn serve_conn(host: SharedZkHost, conn: ConnId, client: String, stream: TcpStream) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    host.borrow_mut().conns.insert(conn, tx);
    let (mut rd, mut wr) = stream.into_split();
    let mut buf = Vec::new();
    let mut connected = false;
    let server_closed = 'conn: loop {
        tokio::select! {
            biased;
            out = rx.recv() => match out {
                Some(Outgoing::Bytes(bytes)) => {
                    if wr.write_all(&bytes).await.is_err() {
                        break 'conn false;
                    }
                }
                Some(Outgoing::Close) | None => break 'conn true,
            },
            read = rd.read_buf(&mut buf) => {
                if !matches!(read, Ok(n) if n > 0) {
                    break 'conn false;
                }
                loop {
                    let (consumed, next) = match proto::split_frame(&buf) {
                        Ok(Some((body, consumed))) => (consumed, handle_frame(&host, conn, &client, &mut connected, body)),
                        Ok(None) => break,
                        Err(_) => break 'conn false,
                    };
                    buf.drain(..consumed);
                    if let Next::Drop = next {
                        break 'conn false;
                    }
                }
            }
        }
    };
    let mut h = host.borrow_mut();
    h.conns.remove(&conn);
    if !server_closed {
        let now = h.now();
        let outputs = h.server.handle_disconnect(now, conn);
        h.dispatch(outputs);
    }
}
