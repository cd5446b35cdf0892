//! Serving the sans-IO core over byte streams: connections, framing, dispatch of outputs,
//! session expiry on the server's tick. Shared by the turmoil driver (`zk::sim_host`) and
//! `locksim serve zk` (`zk::serve`); what differs between them (clocks, what to record or
//! log, which replies to lose) is the `Env`. Nothing here spawns tasks or reads a clock.

use crate::zk::proto::{self, DecodeError, FrameReader, OpCode, ReplyHeader, Request};
use crate::zk::server::{
    Change, ConnId, ErrorCode, Now, Output, PeerMsg, QuorumRole, Refusal, RequestMargin, Response,
    Server, ServerId,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// What a host reports as it serves, for a log or a history.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent<'a> {
    Accepted {
        conn: ConnId,
        client: &'a str,
    },
    /// A connect was answered: `timeout_ms` 0 means refused (expired session, bad password).
    Connected {
        conn: ConnId,
        session: i64,
        timeout_ms: i32,
    },
    /// A request was handled; `err` is the server's answer, `lost` whether the reply was
    /// dropped (a lose-reply fault).
    Handled {
        conn: ConnId,
        xid: i32,
        request: &'a Request,
        err: Option<ErrorCode>,
        lost: bool,
    },
    /// The connection's bytes were not a valid packet: it is closed.
    Malformed {
        conn: ConnId,
        client: &'a str,
        error: DecodeError,
    },
    Closed {
        conn: ConnId,
    },
    /// A write refused as it was read (a create whose flags name no mode): answered `err`,
    /// the connection stays.
    Refused {
        conn: ConnId,
        xid: i32,
        error: DecodeError,
        err: ErrorCode,
    },
    Changed(&'a Change),
    /// A read had this many ms to spare before it would miss its session's own write
    /// (`Output::ReadMargin`).
    ReadMargin(i64),
    /// A request came near making a read miss a node (`Output::RequestMargin`).
    RequestMargin(RequestMargin),
}

/// Everything about the surroundings the core's driver needs.
pub trait Env {
    /// The server's clocks now.
    fn now(&self) -> Now;
    /// How long, in true time, until the server's monotonic clock reads `mono_ms`.
    fn wait_until(&self, mono_ms: u64) -> Duration;
    /// Whether to drop the reply to `request` from `client` (and the connection with it).
    /// `applied`: the server answered Ok, so the request took effect.
    fn lose_reply(&mut self, client: &str, request: &Request, applied: bool) -> bool;
    fn observe(&mut self, event: HostEvent<'_>);
}

enum Outgoing {
    Bytes(Vec<u8>),
    /// Close after what was queued before; the core has already let go of the connection.
    Close,
    /// Drop the connection now; the core learns it was disconnected.
    Drop,
}

/// What a connection does after a frame.
enum Next {
    /// Go on reading frames.
    Read,
    /// Read no more: write what is queued (it ends with a Close).
    Flush,
    /// Drop the connection now; the core learns it was disconnected.
    Drop,
}

/// The core and its live connections; outlives a crash of the host's software, as
/// ZooKeeper's transaction log would.
pub struct Host<E> {
    pub env: E,
    server: Server,
    tick: Duration,
    conns: BTreeMap<ConnId, mpsc::UnboundedSender<Outgoing>>,
    next_conn: ConnId,
    /// The longest frame body a connection may send (jute.maxbuffer).
    max_frame: usize,
    /// Requests whose reply comes later (an ensemble member's writes and syncs), by
    /// connection and xid: who sent them, and what.
    awaiting: BTreeMap<(ConnId, i32), (String, Request)>,
    /// The live quorum links to other members of the ensemble, each with its generation.
    peers: BTreeMap<ServerId, (u64, mpsc::UnboundedSender<PeerMsg>)>,
    /// The live election links, each with its generation, oldest first: two members that
    /// dial each other at once have two, and votes go on the first.
    election: BTreeMap<ServerId, Vec<(u64, mpsc::UnboundedSender<PeerMsg>)>>,
    /// Votes for members with no election link yet, which the driver is dialing.
    unsent: BTreeMap<ServerId, Vec<PeerMsg>>,
    /// Where to ask the driver for an election link.
    dialer: Option<mpsc::UnboundedSender<ServerId>>,
    /// Generations of links made so far.
    links: u64,
    /// The member's part on the quorum port, for the driver that keeps those links.
    role: watch::Sender<Option<QuorumRole>>,
    /// When (monotonic ms) a member is next due to apply a lagged commit, or, looking for
    /// a leader, to decide or vote again.
    due: watch::Sender<Option<u64>>,
    /// Whether the server's tick has anything to do (`Server::ticks`).
    ticking: watch::Sender<bool>,
}

/// Which of a member's links: to or from its leader, or for an election.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Quorum,
    Election,
}

pub type SharedHost<E> = Rc<RefCell<Host<E>>>;

impl<E: Env> Host<E> {
    pub fn new(env: E, server: Server, tick_ms: u64) -> SharedHost<E> {
        let role = watch::Sender::new(server.quorum_role());
        let ticking = watch::Sender::new(server.ticks());
        Rc::new(RefCell::new(Host {
            env,
            server,
            tick: Duration::from_millis(tick_ms),
            conns: BTreeMap::new(),
            next_conn: 0,
            max_frame: proto::JUTE_MAXBUFFER,
            awaiting: BTreeMap::new(),
            peers: BTreeMap::new(),
            election: BTreeMap::new(),
            unsent: BTreeMap::new(),
            dialer: None,
            links: 0,
            role,
            due: watch::Sender::new(None),
            ticking,
        }))
    }

    /// jute.maxbuffer: a connection that announces a longer frame (or a negative length) is
    /// closed before its body is read. ZooKeeper's default, 0xfffff, unless `serve` sets it.
    #[cfg(feature = "serve")]
    pub fn set_max_frame(&mut self, bytes: usize) {
        self.max_frame = bytes;
    }

    /// A (re)start of the software: no connection survives, every session deadline is
    /// re-armed from now.
    pub fn restart(&mut self) {
        self.conns.clear();
        self.awaiting.clear();
        self.peers.clear();
        self.election.clear();
        self.unsent.clear();
        self.dialer = None;
        let now = self.env.now();
        let outputs = self.server.restart(now);
        self.dispatch(outputs);
    }

    fn send(&self, conn: ConnId, out: Outgoing) {
        if let Some(tx) = self.conns.get(&conn) {
            let _ = tx.send(out);
        }
    }

    fn dispatch(&mut self, mut outputs: Vec<Output>) {
        let lost = self.late_replies(&outputs);
        if !lost.is_empty() {
            outputs.retain(|o| !matches!(o, Output::Reply { conn, .. } | Output::Notify { conn, .. } if lost.contains(conn)));
        }
        for output in outputs {
            if let Some((conn, bytes)) = output.packet() {
                self.send(conn, Outgoing::Bytes(bytes));
            }
            match output {
                Output::Connected {
                    conn, close: true, ..
                }
                | Output::Close { conn } => self.send(conn, Outgoing::Close),
                Output::Changed(change) => self.env.observe(HostEvent::Changed(&change)),
                Output::ReadMargin(ms) => self.env.observe(HostEvent::ReadMargin(ms)),
                Output::RequestMargin(m) => self.env.observe(HostEvent::RequestMargin(m)),
                Output::Peer { to, msg } if msg.is_election() => self.vote_to(to, msg),
                Output::Peer { to, msg } => {
                    if let Some((_, link)) = self.peers.get(&to) {
                        let _ = link.send(msg);
                    }
                }
                _ => {}
            }
        }
        for conn in lost {
            self.send(conn, Outgoing::Drop);
        }
        let role = self.server.quorum_role();
        let changed = self
            .role
            .send_if_modified(|r| std::mem::replace(r, role) != role);
        if changed {
            // A role given up takes its quorum links with it; the driver makes the new
            // role's.
            self.peers.clear();
        }
        let apply = self.server.next_apply_ms();
        let due = apply.into_iter().chain(self.server.next_vote_ms()).min();
        self.due
            .send_if_modified(|d| std::mem::replace(d, due) != due);
        let ticking = self.server.ticks();
        self.ticking
            .send_if_modified(|t| std::mem::replace(t, ticking) != ticking);
    }

    /// A vote goes on the election link to `to`, or waits for the driver to dial one.
    fn vote_to(&mut self, to: ServerId, msg: PeerMsg) {
        if let Some((_, link)) = self.election.get(&to).and_then(|links| links.first()) {
            let _ = link.send(msg);
            return;
        }
        let waiting = self.unsent.entry(to).or_default();
        if waiting.is_empty()
            && let Some(dialer) = &self.dialer
        {
            let _ = dialer.send(to);
        }
        waiting.push(msg);
    }

    /// The driver dials election links on request from now on: first to every member a
    /// vote waits for.
    pub fn set_dialer(&mut self, dialer: mpsc::UnboundedSender<ServerId>) {
        for &peer in self.unsent.keys() {
            let _ = dialer.send(peer);
        }
        self.dialer = Some(dialer);
    }

    /// Dialing `peer`'s election port failed: the votes for it are dropped (the election
    /// sends them again).
    pub fn dial_failed(&mut self, peer: ServerId) {
        self.unsent.remove(&peer);
    }

    /// The member's part on the quorum port, as it changes.
    pub fn quorum_role(&self) -> watch::Receiver<Option<QuorumRole>> {
        self.role.subscribe()
    }

    /// Reports the replies among `outputs` to requests handled earlier, and says which
    /// connections lose theirs (a lose-reply fault): those are dropped.
    fn late_replies(&mut self, outputs: &[Output]) -> BTreeSet<ConnId> {
        let mut lost = BTreeSet::new();
        if self.awaiting.is_empty() {
            return lost;
        }
        for output in outputs {
            let Output::Reply {
                conn,
                xid,
                err,
                body,
                ..
            } = output
            else {
                continue;
            };
            let Some((client, request)) = self.awaiting.remove(&(*conn, *xid)) else {
                continue;
            };
            let dropped = self.env.lose_reply(&client, &request, applied(*err, body));
            self.env.observe(HostEvent::Handled {
                conn: *conn,
                xid: *xid,
                request: &request,
                err: Some(*err),
                lost: dropped,
            });
            if dropped {
                lost.insert(*conn);
            }
        }
        lost
    }

    /// A link to member `peer` is up: messages for it go there. Its generation.
    pub fn link_up(
        &mut self,
        peer: ServerId,
        kind: LinkKind,
        link: mpsc::UnboundedSender<PeerMsg>,
    ) -> u64 {
        self.links += 1;
        if kind == LinkKind::Election {
            for msg in self.unsent.remove(&peer).unwrap_or_default() {
                let _ = link.send(msg);
            }
            self.election
                .entry(peer)
                .or_default()
                .push((self.links, link));
            return self.links;
        }
        self.peers.insert(peer, (self.links, link));
        let outputs = self.server.peer_up(peer);
        self.dispatch(outputs);
        self.links
    }

    /// The link of generation `generation` to `peer` is gone (a newer one may have taken
    /// its place).
    pub fn link_down(&mut self, peer: ServerId, kind: LinkKind, generation: u64) {
        if kind == LinkKind::Election {
            if let Some(links) = self.election.get_mut(&peer) {
                links.retain(|(g, _)| *g != generation);
            }
            return;
        }
        if self.peers.get(&peer).is_some_and(|(g, _)| *g == generation) {
            self.peers.remove(&peer);
            let now = self.env.now();
            let outputs = self.server.peer_down(now, peer);
            self.dispatch(outputs);
        }
    }

    /// A message from member `from`.
    pub fn peer_message(&mut self, from: ServerId, msg: PeerMsg) {
        let now = self.env.now();
        let outputs = self.server.handle_peer(now, from, msg);
        self.dispatch(outputs);
    }

    /// Applies nothing for `for_ms` from now (0: applies what is due at once).
    pub fn stall_apply(&mut self, for_ms: u64) {
        let now = self.env.now();
        let outputs = self.server.stall_apply(now, for_ms);
        self.dispatch(outputs);
    }

    /// Does the member's work due by now ([`wake_when_due`] calls it).
    fn wake(&mut self) {
        let now = self.env.now();
        let outputs = self.server.wake(now);
        self.dispatch(outputs);
    }

    /// Handles one frame and says what the connection does next.
    fn frame(&mut self, conn: ConnId, client: &str, connected: &mut bool, body: &[u8]) -> Next {
        let now = self.env.now();
        if !*connected {
            return match proto::decode_connect_request(body) {
                Ok(req) => {
                    *connected = true;
                    let outputs = self.server.handle_connect(now, conn, &req);
                    for output in &outputs {
                        if let Output::Connected { conn, response, .. } = output {
                            let (session, timeout_ms) = (response.session_id, response.timeout_ms);
                            self.env.observe(HostEvent::Connected {
                                conn: *conn,
                                session,
                                timeout_ms,
                            });
                        }
                    }
                    self.dispatch(outputs);
                    Next::Read
                }
                Err(error) => self.malformed(conn, client, error),
            };
        }
        let (header, request) = match proto::decode_request(body) {
            Ok(decoded) => decoded,
            Err(error @ DecodeError::UnknownOp(op)) if body.len() >= 8 => {
                return match refused_op(op) {
                    Some(refusal) => self.refused(conn, xid_of(body), error, refusal),
                    None => self.unimplemented(conn, client, xid_of(body), error),
                };
            }
            Err(error) => {
                return match refusal(&error, body) {
                    Some(refusal) => self.refused(conn, xid_of(body), error, refusal),
                    None => self.malformed(conn, client, error),
                };
            }
        };
        let mut outputs = self
            .server
            .handle_request(now, conn, header.xid, request.clone());
        let answered = outputs.iter().any(
            |o| matches!(o, Output::Reply { conn: c, xid, .. } if *c == conn && *xid == header.xid),
        );
        if !answered && self.server.answers_later() {
            // An ensemble member answers a write or a sync once it is done.
            let key = (conn, header.xid);
            self.awaiting.insert(key, (client.to_string(), request));
            self.dispatch(outputs);
            return Next::Read;
        }
        let (err, applied) = outputs
            .iter()
            .find_map(|o| match o {
                Output::Reply {
                    conn: c,
                    xid,
                    err,
                    body,
                    ..
                } if *c == conn && *xid == header.xid => Some((Some(*err), applied(*err, body))),
                _ => None,
            })
            .unwrap_or((None, false));
        let lost = self.env.lose_reply(client, &request, applied);
        let xid = header.xid;
        self.env.observe(HostEvent::Handled {
            conn,
            xid,
            request: &request,
            err,
            lost,
        });
        if lost {
            outputs.retain(|o| !matches!(o, Output::Reply { conn: c, .. } | Output::Notify { conn: c, .. } if *c == conn));
        }
        self.dispatch(outputs);
        if lost { Next::Drop } else { Next::Read }
    }

    /// A request the core does not serve: an op code it does not know, answered as ZooKeeper
    /// 3.8 answers one (Unimplemented with zxid -1, then the connection closes once the answer
    /// is out); or one that 3.8 serves and the core does not yet (`not_served`), answered the
    /// same way rather than wrongly.
    fn unimplemented(&mut self, conn: ConnId, client: &str, xid: i32, error: DecodeError) -> Next {
        let header = ReplyHeader {
            xid,
            zxid: -1,
            err: ErrorCode::Unimplemented,
        };
        self.env.observe(HostEvent::Malformed {
            conn,
            client,
            error,
        });
        self.send(conn, Outgoing::Bytes(proto::encode_reply(&header, None)));
        let now = self.env.now();
        let outputs = self.server.handle_disconnect(now, conn);
        self.dispatch(outputs);
        self.send(conn, Outgoing::Close);
        Next::Flush
    }

    /// A request the server refuses as it reads it: the answer is the refusal's code, the
    /// connection stays.
    fn refused(&mut self, conn: ConnId, xid: i32, error: DecodeError, refusal: Refusal) -> Next {
        self.env.observe(HostEvent::Refused {
            conn,
            xid,
            error,
            err: refusal.err,
        });
        let now = self.env.now();
        let outputs = self.server.handle_refused(now, conn, xid, refusal);
        self.dispatch(outputs);
        Next::Read
    }

    fn malformed(&mut self, conn: ConnId, client: &str, error: DecodeError) -> Next {
        self.env.observe(HostEvent::Malformed {
            conn,
            client,
            error,
        });
        Next::Drop
    }

    fn closed(&mut self, conn: ConnId, by_server: bool) {
        self.conns.remove(&conn);
        self.awaiting.retain(|(c, _), _| *c != conn);
        self.env.observe(HostEvent::Closed { conn });
        if !by_server {
            let now = self.env.now();
            let outputs = self.server.handle_disconnect(now, conn);
            self.dispatch(outputs);
        }
    }
}

/// How ZooKeeper 3.8 answers an op code it knows and the core does not serve whatever its
/// body: deleteContainer (20) sent by a client gets `BadArguments`, a write taking a zxid,
/// the connection kept (3.8 reads its path from the whole packet, header bytes included, so
/// never a valid one). `None` for the rest.
fn refused_op(op: i32) -> Option<Refusal> {
    (op == 20).then_some(Refusal {
        err: ErrorCode::BadArguments,
        write: true,
    })
}

/// The xid of a request body at least 4 bytes long.
fn xid_of(body: &[u8]) -> i32 {
    i32::from_be_bytes([body[0], body[1], body[2], body[3]])
}

/// How ZooKeeper 3.8 answers a request whose body names what it has no meaning for, keeping
/// the connection: a create's flags that name no mode (`CreateMode.fromFlag`, in the prep
/// stage of a write); a multi entry of a type it does not take (its prep stage fails to read
/// the multi, after taking a zxid); and, as a marshalling error of the final stage, a watch
/// type that names no kind (`WatcherType.fromInt` throws) or a multiRead entry that is not a
/// read, or a reconfig whose body is not a ReconfigRequest. `None` for the rest.
fn refusal(error: &DecodeError, body: &[u8]) -> Option<Refusal> {
    let op = body.get(4..8)?;
    let op = OpCode::try_from(i32::from_be_bytes([op[0], op[1], op[2], op[3]])).ok()?;
    match (error, op) {
        (
            DecodeError::UnknownCreateMode(_),
            OpCode::Create | OpCode::Create2 | OpCode::CreateContainer | OpCode::CreateTtl,
        ) => Some(Refusal {
            err: ErrorCode::BadArguments,
            write: true,
        }),
        (DecodeError::UnknownMultiOp(_), OpCode::Multi) => Some(Refusal {
            err: ErrorCode::MarshallingError,
            write: true,
        }),
        (DecodeError::UnknownWatcherType(_), OpCode::CheckWatches | OpCode::RemoveWatches)
        | (DecodeError::UnknownAddWatchMode(_), OpCode::AddWatch)
        | (DecodeError::Truncated | DecodeError::TrailingBytes(_), OpCode::Reconfig)
        | (DecodeError::UnknownMultiOp(_), OpCode::MultiRead) => Some(Refusal {
            err: ErrorCode::MarshallingError,
            write: false,
        }),
        _ => None,
    }
}

/// Whether a reply says its request took effect: a multi's header is Ok even when it
/// failed, its results tell.
fn applied(err: ErrorCode, body: &Option<Response>) -> bool {
    match body {
        Some(Response::Multi { results }) => proto::multi_error(results).is_none(),
        _ => err == ErrorCode::Ok,
    }
}

/// Whether `request` creates a node (create2, createContainer and createTTL too): the
/// requests whose replies `serve zk --lose-reply-every N` loses.
#[cfg(feature = "serve")]
pub fn is_create(request: &Request) -> bool {
    matches!(
        request.op(),
        OpCode::Create | OpCode::Create2 | OpCode::CreateContainer | OpCode::CreateTtl
    )
}

/// Runs the server's tick (session expiry, as ZooKeeper's SessionTracker; a leader's
/// pings). A member whose tick has nothing to do is not woken for it, and ticks again in
/// the same phase once it has.
pub async fn tick<E: Env>(host: SharedHost<E>) {
    let tick = host.borrow().tick;
    let mut ticking = host.borrow().ticking.subscribe();
    let started = Instant::now();
    loop {
        if *ticking.borrow_and_update() {
            // tokio's sleep on a real socket; in a simulation, one its stepper sees.
            turmoil::sleep(tick).await;
        } else {
            if ticking.changed().await.is_err() {
                return;
            }
            let into = started.elapsed().as_nanos() % tick.as_nanos().max(1);
            let into = Duration::from_nanos(u64::try_from(into).unwrap_or(0));
            turmoil::sleep(tick - into).await;
        }
        let mut h = host.borrow_mut();
        if h.server.ticks() {
            let now = h.env.now();
            let outputs = h.server.handle_timeout(now);
            h.dispatch(outputs);
        }
    }
}

/// Wakes the server when a member's lagged apply, or its election, is next due.
pub async fn wake_when_due<E: Env>(host: SharedHost<E>) {
    let mut due = host.borrow().due.subscribe();
    loop {
        let Some(at) = *due.borrow_and_update() else {
            if due.changed().await.is_err() {
                return;
            }
            continue;
        };
        let wait = host.borrow().env.wait_until(at);
        tokio::select! {
            biased;
            changed = due.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            _ = turmoil::sleep(wait) => host.borrow_mut().wake(),
        }
    }
}

/// Serves one connection from `client` at the address `peer` until either side closes it.
pub async fn serve_conn<E: Env, S: AsyncRead + AsyncWrite>(
    host: SharedHost<E>,
    client: String,
    peer: IpAddr,
    stream: S,
) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let conn = {
        let mut h = host.borrow_mut();
        h.next_conn += 1;
        let conn = h.next_conn;
        h.conns.insert(conn, tx);
        h.server.handle_accept(conn, peer);
        h.env.observe(HostEvent::Accepted {
            conn,
            client: &client,
        });
        conn
    };
    let (mut rd, mut wr) = tokio::io::split(stream);
    let mut frames = FrameReader::new(host.borrow().max_frame);
    let mut connected = false;
    let mut reading = true;
    let by_server = 'conn: loop {
        tokio::select! {
            biased;
            out = rx.recv() => match out {
                Some(Outgoing::Bytes(bytes)) => {
                    if wr.write_all(&bytes).await.is_err() {
                        break 'conn false;
                    }
                }
                Some(Outgoing::Close) | None => break 'conn true,
                Some(Outgoing::Drop) => break 'conn false,
            },
            read = rd.read_buf(frames.buffer()), if reading => {
                if !matches!(read, Ok(n) if n > 0) {
                    break 'conn false;
                }
                'frames: loop {
                    let next = match frames.next_frame() {
                        Ok(Some(body)) => host.borrow_mut().frame(conn, &client, &mut connected, body),
                        Ok(None) => break 'frames,
                        Err(error) => {
                            host.borrow_mut().malformed(conn, &client, error);
                            break 'conn false;
                        }
                    };
                    match next {
                        Next::Read => {}
                        Next::Flush => {
                            reading = false;
                            break 'frames;
                        }
                        Next::Drop => break 'conn false,
                    }
                }
            }
        }
    };
    let _ = wr.shutdown().await;
    host.borrow_mut().closed(conn, by_server);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::proto::OpResult;

    #[test]
    fn a_failed_multi_answered_ok_did_not_apply() {
        let multi = |err| {
            Some(Response::Multi {
                results: vec![
                    OpResult::Error { err: ErrorCode::Ok },
                    OpResult::Error { err },
                ],
            })
        };
        assert!(!applied(ErrorCode::Ok, &multi(ErrorCode::NoNode)));
        let done = Some(Response::Multi {
            results: vec![OpResult::Delete],
        });
        assert!(applied(ErrorCode::Ok, &done));
        assert!(applied(ErrorCode::Ok, &Some(Response::Delete)));
        assert!(!applied(ErrorCode::NoNode, &None));
    }
}
