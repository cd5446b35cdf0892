//! A server as a member of an ensemble, as ZooKeeper 3.8's quorum peers serve: the leader
//! orders every write (a zxid each, `PrepRequestProcessor`), proposes it to the followers and
//! commits it once a quorum, itself included, has logged it; every server applies the
//! committed writes in zxid order, a follower after its apply lag, and answers its own
//! clients. Reads are served from what the connected server has applied, so a follower's may
//! be stale. A session's requests are answered in order: one behind a write or a sync waits
//! until that is done (`CommitProcessor`). The leader owns sessions: it expires them, learns
//! of followers' clients' activity from their touches, and tracks which server each session
//! is on, so a write from a server the session has left fails with SessionMoved.
//!
//! Peers exchange [`PeerMsg`]s over links the driver keeps; a link is FIFO, and a follower
//! that sees a gap in what it receives asks the leader for everything after what it has
//! (`FOLLOWERINFO`, answered as a `DIFF`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use super::commit::{Write, WriteOp, is_write};
use rand::RngCore;

use super::{ConnId, Now, Output, Server, connected, refused_connect};
use crate::zk::acl::AuthId;
use crate::zk::proto::{ConnectRequest, ErrorCode, Request, Response};

/// A server's id in the ensemble (`myid`); the top byte of the session ids it creates.
pub type ServerId = u8;

/// Where a request came in: its server, connection and xid. Its reply is sent there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub server: ServerId,
    pub conn: ConnId,
    pub xid: i32,
}

/// The members and the leader, fixed when the ensemble starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnsembleConfig {
    /// Every member's id, this server's among them.
    pub members: Vec<ServerId>,
    pub leader: ServerId,
    /// How long a follower takes to apply a write after it learns it committed.
    pub apply_lag_ms: u64,
}

/// What peers send each other.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerMsg {
    /// A follower's client wants this ordered (ZooKeeper's `REQUEST`).
    Forward {
        origin: Origin,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: Forwarded,
    },
    /// The leader's next write, to be logged and acknowledged.
    Proposal(Write),
    Ack {
        zxid: i64,
    },
    /// The write `zxid` committed: apply it.
    Commit {
        zxid: i64,
    },
    /// A forwarded sync reached the leader when it had proposed up to `zxid`, and that is
    /// committed: answer it once applied that far.
    Synced {
        origin: Origin,
        session: i64,
        zxid: i64,
        path: String,
    },
    /// Sessions a follower's clients kept alive since its last touch.
    Touch {
        sessions: Vec<i64>,
    },
    /// A client resumes `session` on the sender (`REVALIDATE`).
    Revalidate {
        origin: Origin,
        session: i64,
    },
    Revalidated {
        origin: Origin,
        session: i64,
        valid: bool,
    },
    /// A follower has applied or logged everything up to `zxid` and wants the rest.
    FollowerInfo {
        zxid: i64,
    },
    /// The leader's heartbeat, each tick (a follower's is its Touch).
    Ping,
    /// The leader sent a follower all it missed: the follower applies what is committed
    /// and serves (`UPTODATE`).
    UpToDate,
}

impl PeerMsg {
    /// Whether it only says the link lives: the leader's ping, a touch of no session.
    pub fn is_heartbeat(&self) -> bool {
        match self {
            PeerMsg::Ping => true,
            PeerMsg::Touch { sessions } => sessions.is_empty(),
            _ => false,
        }
    }
}

/// What a follower forwards.
#[derive(Debug, Clone, PartialEq)]
pub enum Forwarded {
    Write(WriteOp),
    Sync { path: String },
}

/// A request held behind its session's earlier write or sync.
#[derive(Debug, Clone, PartialEq)]
struct Held {
    conn: ConnId,
    xid: i32,
    work: Work,
}

#[derive(Debug, Clone, PartialEq)]
enum Work {
    Request(Request),
    /// A write refused as it was read: ordered like any write.
    Refused(ErrorCode),
}

/// What a session's requests wait for, and who waits.
#[derive(Debug, Default)]
struct Line {
    /// Writes and syncs sent on and not yet answered.
    in_flight: usize,
    held: VecDeque<Held>,
}

/// A sync waiting until `barrier` is committed (leader) or applied (follower).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sync {
    barrier: i64,
    origin: Origin,
    session: i64,
    path: String,
}

/// A connect waiting for the ensemble (a new session's commit, a resume's revalidation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    timeout_ms: u64,
}

/// The ensemble state of a member.
#[derive(Debug)]
pub(super) struct Ensemble {
    me: ServerId,
    config: EnsembleConfig,
    /// Logged writes not yet applied: the leader's outstanding proposals and who logged
    /// them; a follower's log, acknowledged.
    log: BTreeMap<i64, (Write, BTreeSet<ServerId>)>,
    /// The leader's committed writes, to bring a follower up to date.
    committed: Vec<Write>,
    /// A follower's commits waiting out its apply lag: (when, zxid).
    to_apply: VecDeque<(u64, i64)>,
    /// A follower applies nothing before this (monotonic ms): a `stall_apply` fault.
    stalled_until_ms: u64,
    /// Syncs to answer once the leader committed (leader) or this server applied
    /// (follower) through their barrier.
    syncs: Vec<Sync>,
    lines: BTreeMap<i64, Line>,
    /// Connections whose connect waits.
    pending: BTreeMap<ConnId, Pending>,
    /// A follower's sessions touched since its last Touch.
    touched: BTreeSet<i64>,
    /// The leader's record of the server each session is on.
    owners: BTreeMap<i64, ServerId>,
    /// A follower serves clients only while linked to its leader and up to date.
    linked: bool,
    /// The leader's followers that are linked and up to date: it serves while they and it
    /// are a quorum.
    synced: BTreeSet<ServerId>,
}

impl Ensemble {
    pub(super) fn new(me: ServerId, config: EnsembleConfig) -> Self {
        Ensemble {
            me,
            config,
            log: BTreeMap::new(),
            committed: Vec::new(),
            to_apply: VecDeque::new(),
            stalled_until_ms: 0,
            syncs: Vec::new(),
            lines: BTreeMap::new(),
            pending: BTreeMap::new(),
            touched: BTreeSet::new(),
            owners: BTreeMap::new(),
            linked: false,
            synced: BTreeSet::new(),
        }
    }

    fn leads(&self) -> bool {
        self.me == self.config.leader
    }

    /// A restart: no client and no link survives.
    pub(super) fn restart(&mut self) {
        self.forget_clients();
        self.linked = false;
        self.synced.clear();
    }

    /// A connection is gone: a connect of its that waits is answered to nobody.
    pub(super) fn forget_conn(&mut self, conn: ConnId) {
        self.pending.remove(&conn);
    }

    /// Whether it takes clients: a leader while it and its synced followers are a quorum,
    /// a follower while linked to its leader and up to date.
    pub(super) fn serving(&self) -> bool {
        match self.leads() {
            true => self.synced.len() + 1 >= self.quorum(),
            false => self.linked,
        }
    }

    /// Forgets what clients wait for (their connections are gone); the connections whose
    /// connect waited.
    pub(super) fn forget_clients(&mut self) -> BTreeSet<ConnId> {
        self.lines.clear();
        self.syncs.clear();
        self.touched.clear();
        std::mem::take(&mut self.pending).into_keys().collect()
    }

    fn quorum(&self) -> usize {
        self.config.members.len() / 2 + 1
    }

    fn followers(&self) -> impl Iterator<Item = ServerId> + '_ {
        let me = self.me;
        self.config
            .members
            .iter()
            .copied()
            .filter(move |&m| m != me)
    }

    fn origin(&self, conn: ConnId, xid: i32) -> Origin {
        Origin {
            server: self.me,
            conn,
            xid,
        }
    }
}

fn to(to: ServerId, msg: PeerMsg) -> Output {
    Output::Peer { to, msg }
}

impl Server {
    fn ens(&mut self) -> &mut Ensemble {
        self.ensemble
            .as_mut()
            .expect("only an ensemble member gets here")
    }

    pub(super) fn leads(&self) -> bool {
        self.ensemble.as_ref().is_some_and(Ensemble::leads)
    }

    /// A member's work due at `now`: the leader's expiries and reaper, a follower's lagged
    /// applies.
    pub(super) fn ensemble_due(&mut self, now: Now) -> Vec<Output> {
        if self.leads() {
            // Without a quorum 3.8's leader has stepped down: no session expires, no
            // container is reaped, until it leads a quorum again (with fresh deadlines).
            return match self.ens().serving() {
                true => self.expire_due(now),
                false => Vec::new(),
            };
        }
        let mut out = Vec::new();
        self.apply_due(now, &mut out);
        out
    }

    /// The tick, each member's heartbeat: the leader pings the followers, a follower tells
    /// the leader which sessions its clients kept alive.
    pub(super) fn ensemble_tick(&mut self, now: Now) -> Vec<Output> {
        let mut out = self.ensemble_due(now);
        let ens = self.ens();
        if ens.leads() {
            out.extend(ens.followers().map(|f| to(f, PeerMsg::Ping)));
        } else {
            let sessions = std::mem::take(&mut ens.touched).into_iter().collect();
            out.push(to(ens.config.leader, PeerMsg::Touch { sessions }));
        }
        out
    }

    /// A connect on a member: a new session is created through the leader and answered once
    /// committed; a resume is answered once the leader has revalidated the session.
    pub(super) fn ensemble_connect(
        &mut self,
        now: Now,
        conn: ConnId,
        req: &ConnectRequest,
        timeout_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let origin = self.ens().origin(conn, 0);
        if req.session_id == 0 {
            self.ens().pending.insert(conn, Pending { timeout_ms });
            let mut passwd = [0u8; 16];
            self.rng.fill_bytes(&mut passwd);
            let session = self.sessions.next_id();
            let op = WriteOp::CreateSession { timeout_ms, passwd };
            self.submit(now, origin, session, Rc::default(), op, out);
            return;
        }
        let session = req.session_id;
        let known = self.sessions.get(session);
        if known.is_none_or(|s| s.passwd[..] != req.passwd[..]) {
            out.push(refused_connect(conn));
            return;
        }
        self.ens().pending.insert(conn, Pending { timeout_ms });
        if self.leads() {
            let valid = self.revalidate(now, origin, session);
            self.revalidated(now, origin, session, valid, out);
        } else {
            let leader = self.ens().config.leader;
            out.push(to(leader, PeerMsg::Revalidate { origin, session }));
        }
    }

    /// A request (or a write refused as it was read) on a member's connection for
    /// `session`: held while the session's earlier write or sync is on its way.
    pub(super) fn ensemble_request(
        &mut self,
        now: Now,
        conn: ConnId,
        session: i64,
        xid: i32,
        req: Result<Request, ErrorCode>,
        out: &mut Vec<Output>,
    ) {
        let work = match req {
            Ok(req) => Work::Request(req),
            Err(err) => Work::Refused(err),
        };
        if !self.leads() {
            self.ens().touched.insert(session);
        }
        let held = Held { conn, xid, work };
        let line = self.ens().lines.entry(session).or_default();
        if line.in_flight > 0 {
            line.held.push_back(held);
            return;
        }
        self.dispatch(now, session, held, out);
    }

    /// Sends a request on its way: a write or a sync to be ordered, a read answered now.
    fn dispatch(&mut self, now: Now, session: i64, held: Held, out: &mut Vec<Output>) {
        let Held { conn, xid, work } = held;
        let origin = self.ens().origin(conn, xid);
        let op = match work {
            Work::Refused(err) => WriteOp::Refused(err),
            Work::Request(req) if is_write(&req) => WriteOp::Request(req),
            Work::Request(Request::Sync { path }) => {
                self.ens().lines.entry(session).or_default().in_flight += 1;
                if self.leads() {
                    self.leader_sync(now, origin, session, path, out);
                } else {
                    let op = Forwarded::Sync { path };
                    self.forward(origin, session, Rc::default(), op, out);
                }
                return;
            }
            Work::Request(req) => {
                let result = self.read_request(conn, session, req, out);
                self.reply(origin, result, out);
                return;
            }
        };
        self.ens().lines.entry(session).or_default().in_flight += 1;
        let who = self.who(conn);
        self.submit(now, origin, session, who, op, out);
    }

    /// A write from `origin`: the leader proposes it, a follower forwards it.
    fn submit(
        &mut self,
        now: Now,
        origin: Origin,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: WriteOp,
        out: &mut Vec<Output>,
    ) {
        if self.leads() {
            self.leader_propose(now, origin, session, who, op, out);
        } else {
            self.forward(origin, session, who, Forwarded::Write(op), out);
        }
    }

    /// A follower sends its client's write or sync to the leader.
    fn forward(
        &mut self,
        origin: Origin,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: Forwarded,
        out: &mut Vec<Output>,
    ) {
        let leader = self.ens().config.leader;
        let msg = PeerMsg::Forward {
            origin,
            session,
            who,
            op,
        };
        out.push(to(leader, msg));
    }

    /// The leader orders a client's write (`checkSession`): one of a session it no longer
    /// has, or is expiring, fails with SessionExpired; one from a server the session has
    /// left fails with SessionMoved; either way the write takes its zxid.
    fn leader_propose(
        &mut self,
        now: Now,
        origin: Origin,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: WriteOp,
        out: &mut Vec<Output>,
    ) {
        let owner = self.ens().owners.get(&session).copied();
        let op = match op {
            WriteOp::Request(_) | WriteOp::Refused(_) => match self.sessions.get(session) {
                None => WriteOp::Refused(ErrorCode::SessionExpired),
                Some(s) if s.closing => WriteOp::Refused(ErrorCode::SessionExpired),
                Some(_) if owner.is_some_and(|o| o != origin.server) => {
                    WriteOp::Refused(ErrorCode::SessionMoved)
                }
                Some(_) => op,
            },
            op => op,
        };
        let mut write = self.propose(now, session, who, op);
        write.origin = Some(origin);
        self.broadcast(now, write, out);
    }

    /// The leader logs a write and proposes it to the followers.
    pub(super) fn broadcast(&mut self, now: Now, write: Write, out: &mut Vec<Output>) {
        let ens = self.ens();
        for follower in ens.followers() {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
        }
        let me = ens.me;
        ens.log.insert(write.zxid, (write, BTreeSet::from([me])));
        self.leader_commit(now, out);
    }

    /// The leader's sync: answered once what it has proposed so far is committed.
    fn leader_sync(
        &mut self,
        now: Now,
        origin: Origin,
        session: i64,
        path: String,
        out: &mut Vec<Output>,
    ) {
        let barrier = self.last_proposed;
        self.ens().syncs.push(Sync {
            barrier,
            origin,
            session,
            path,
        });
        self.release_syncs(now, out);
    }

    /// Commits, in order, every proposal a quorum has logged.
    fn leader_commit(&mut self, now: Now, out: &mut Vec<Output>) {
        loop {
            let ens = self.ens();
            let quorum = ens.quorum();
            let Some(entry) = ens.log.first_entry() else {
                break;
            };
            if entry.get().1.len() < quorum {
                break;
            }
            let (write, _) = entry.remove();
            for follower in ens.followers() {
                out.push(to(follower, PeerMsg::Commit { zxid: write.zxid }));
            }
            ens.committed.push(write.clone());
            self.apply(now, write, out);
        }
        self.release_syncs(now, out);
    }

    /// Answers the syncs whose barrier this server has reached: the leader's committed, a
    /// follower's applied.
    fn release_syncs(&mut self, now: Now, out: &mut Vec<Output>) {
        let leads = self.leads();
        let reached = match self.ens().log.first_key_value() {
            Some((&zxid, _)) if leads => zxid - 1,
            _ => self.last_zxid,
        };
        let me = self.ens().me;
        let (done, waiting): (Vec<Sync>, Vec<Sync>) = std::mem::take(&mut self.ens().syncs)
            .into_iter()
            .partition(|sync| sync.barrier <= reached);
        self.ens().syncs = waiting;
        for sync in done {
            let Sync {
                origin,
                session,
                path,
                ..
            } = sync;
            if origin.server == me {
                let reply = Ok(Response::Sync { path });
                self.answer(now, session, origin, reply, out);
            } else {
                let msg = PeerMsg::Synced {
                    origin,
                    session,
                    zxid: reached,
                    path,
                };
                out.push(to(origin.server, msg));
            }
        }
    }

    /// A message from peer `from`.
    pub fn handle_peer(&mut self, now: Now, from: ServerId, msg: PeerMsg) -> Vec<Output> {
        if self.ensemble.is_none() {
            return Vec::new();
        }
        let mut out = self.ensemble_due(now);
        match msg {
            PeerMsg::Forward {
                origin,
                session,
                who,
                op: Forwarded::Write(op),
            } => self.leader_propose(now, origin, session, who, op, &mut out),
            PeerMsg::Forward {
                origin,
                session,
                op: Forwarded::Sync { path },
                ..
            } => self.leader_sync(now, origin, session, path, &mut out),
            // A follower logs in order: its ack is for everything up to `zxid`.
            PeerMsg::Ack { zxid } => {
                for (_, acks) in self.ens().log.range_mut(..=zxid).map(|(_, e)| e) {
                    acks.insert(from);
                }
                self.leader_commit(now, &mut out);
            }
            PeerMsg::Ping => {}
            PeerMsg::Touch { sessions } => {
                for session in sessions {
                    self.sessions.touch(session, now.mono_ms);
                }
            }
            PeerMsg::Revalidate { origin, session } => {
                let valid = self.revalidate(now, origin, session);
                let msg = PeerMsg::Revalidated {
                    origin,
                    session,
                    valid,
                };
                out.push(to(from, msg));
            }
            PeerMsg::FollowerInfo { zxid } => self.sync_follower(now, from, zxid, &mut out),
            PeerMsg::UpToDate => {
                let ens = self.ens();
                ens.linked = true;
                // What the sync brought is applied before serving, whatever the lag.
                for (due, _) in ens.to_apply.iter_mut() {
                    *due = 0;
                }
                self.apply_due(now, &mut out);
            }
            PeerMsg::Proposal(write) => self.follower_log(write, &mut out),
            PeerMsg::Commit { zxid } if zxid > self.known_zxid() => {
                let known = self.known_zxid();
                out.push(to(from, PeerMsg::FollowerInfo { zxid: known }));
            }
            PeerMsg::Commit { zxid } => {
                let lag = self.ens().config.apply_lag_ms;
                let due = now.mono_ms.saturating_add(lag);
                self.ens().to_apply.push_back((due, zxid));
                self.apply_due(now, &mut out);
            }
            PeerMsg::Synced {
                origin,
                session,
                zxid,
                path,
            } => {
                self.ens().syncs.push(Sync {
                    barrier: zxid,
                    origin,
                    session,
                    path,
                });
                self.release_syncs(now, &mut out);
            }
            PeerMsg::Revalidated {
                origin,
                session,
                valid,
            } => self.revalidated(now, origin, session, valid, &mut out),
        }
        out
    }

    /// The leader's check of a resumed session: alive, and now on `origin`'s server.
    fn revalidate(&mut self, now: Now, origin: Origin, session: i64) -> bool {
        let valid = self.sessions.touch(session, now.mono_ms);
        if valid {
            self.ens().owners.insert(session, origin.server);
        }
        valid
    }

    /// Answers a resume that waited for the leader's word.
    fn revalidated(
        &mut self,
        now: Now,
        origin: Origin,
        session: i64,
        valid: bool,
        out: &mut Vec<Output>,
    ) {
        let conn = origin.conn;
        let Some(pending) = self.ens().pending.remove(&conn) else {
            return;
        };
        let passwd = self.sessions.get(session).map(|s| s.passwd);
        match passwd.filter(|_| valid) {
            Some(passwd) => {
                self.sessions.touch(session, now.mono_ms);
                self.attach(conn, session);
                out.push(connected(conn, pending.timeout_ms, session, passwd));
            }
            None => out.push(refused_connect(conn)),
        }
    }

    /// Brings follower `follower`, which has logged up to `zxid`, up to date: what it logged
    /// counts as acknowledged, it gets every later committed write and the outstanding
    /// proposals, then whatever its acknowledgements let commit, then UpToDate.
    fn sync_follower(&mut self, now: Now, follower: ServerId, zxid: i64, out: &mut Vec<Output>) {
        let ens = self.ens();
        for (_, acks) in ens.log.range_mut(..=zxid).map(|(_, e)| e) {
            acks.insert(follower);
        }
        for write in ens.committed.iter().filter(|w| w.zxid > zxid) {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
            out.push(to(follower, PeerMsg::Commit { zxid: write.zxid }));
        }
        for (write, _) in ens.log.values().filter(|(w, _)| w.zxid > zxid) {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
        }
        let was_serving = ens.serving();
        ens.synced.insert(follower);
        if !was_serving && ens.serving() {
            // A leader back with a quorum starts a new epoch, as 3.8's re-elected one does:
            // its session tracker gives every session a fresh timeout, so none expires for
            // the time the ensemble could not hear from it.
            self.sessions.rearm(now.mono_ms);
        }
        self.leader_commit(now, out);
        // What committed while it was away, its own log's proposals included.
        let zxid = self.last_zxid;
        out.push(to(follower, PeerMsg::Commit { zxid }));
        out.push(to(follower, PeerMsg::UpToDate));
    }

    /// A follower logs the leader's next write and acknowledges it; one it has already is
    /// ignored, and a gap makes it ask for what it missed.
    fn follower_log(&mut self, write: Write, out: &mut Vec<Output>) {
        let known = self.known_zxid();
        let zxid = write.zxid;
        let leader = self.ens().config.leader;
        if zxid <= known {
            // Logged already: the ack may be what was lost.
            if self.ens().log.contains_key(&zxid) {
                out.push(to(leader, PeerMsg::Ack { zxid }));
            }
            return;
        }
        if zxid != known + 1 {
            out.push(to(leader, PeerMsg::FollowerInfo { zxid: known }));
            return;
        }
        self.ens().log.insert(zxid, (write, BTreeSet::new()));
        out.push(to(leader, PeerMsg::Ack { zxid }));
    }

    /// The highest zxid this member has applied or logged.
    fn known_zxid(&self) -> i64 {
        let logged = self
            .ensemble
            .as_ref()
            .and_then(|e| e.log.last_key_value())
            .map(|(&zxid, _)| zxid);
        logged.map_or(self.last_zxid, |zxid| zxid.max(self.last_zxid))
    }

    /// Applies the commits whose lag has passed, in order, unless stalled.
    fn apply_due(&mut self, now: Now, out: &mut Vec<Output>) {
        loop {
            let ens = self.ens();
            if now.mono_ms < ens.stalled_until_ms {
                break;
            }
            // A commit commits everything logged before it too (a lost one is made up).
            match ens.to_apply.front() {
                Some(&(due, upto)) if due <= now.mono_ms => match ens.log.first_entry() {
                    Some(first) if *first.key() <= upto => {
                        let (write, _) = first.remove();
                        self.apply(now, write, out);
                    }
                    _ => {
                        ens.to_apply.pop_front();
                    }
                },
                _ => break,
            }
        }
        self.release_syncs(now, out);
    }

    /// Applies a committed write and answers it when it came in here. Only the leader
    /// reports the change, once per commit; a closed or expired session's connection here
    /// is closed, after its reply when it asked.
    fn apply(&mut self, now: Now, write: Write, out: &mut Vec<Output>) {
        let me = self.ens().me;
        let origin = write.origin.filter(|o| o.server == me);
        let session = write.session;
        let local = self.sessions.get(session).and_then(|s| s.conn);
        let created = match write.op {
            WriteOp::CreateSession { timeout_ms, passwd } => Some((timeout_ms, passwd)),
            _ => None,
        };
        let closing = matches!(write.op, WriteOp::Request(Request::CloseSession));
        if self.leads() {
            match (&write.op, write.origin) {
                (WriteOp::CreateSession { .. }, Some(from)) => {
                    self.ens().owners.insert(session, from.server);
                }
                (WriteOp::ExpireSession | WriteOp::Request(Request::CloseSession), _) => {
                    self.ens().owners.remove(&session);
                }
                _ => {}
            }
        }
        let mut applied = Vec::new();
        let result = self.commit(now, write, &mut applied);
        if !self.leads() {
            applied.retain(|o| !matches!(o, Output::Changed(_)));
        }
        out.extend(applied);
        if let Some((timeout_ms, passwd)) = created {
            let conn = origin.map(|o| o.conn);
            if let Some(conn) = conn.filter(|c| self.ens().pending.remove(c).is_some()) {
                self.attach(conn, session);
                out.push(connected(conn, timeout_ms, session, passwd));
            }
            return;
        }
        let closed = closing && result.is_ok();
        if let Some(origin) = origin {
            self.answer(now, session, origin, result, out);
        }
        if closed {
            let conn = origin.map(|o| o.conn).or(local);
            if let Some(conn) = conn {
                self.detach(conn);
                out.push(Output::Close { conn });
            }
        }
    }

    /// Replies to a request of this server's and lets its session's next requests go.
    fn answer(
        &mut self,
        now: Now,
        session: i64,
        origin: Origin,
        result: Result<Response, ErrorCode>,
        out: &mut Vec<Output>,
    ) {
        self.reply(origin, result, out);
        if let Some(line) = self.ens().lines.get_mut(&session) {
            line.in_flight = line.in_flight.saturating_sub(1);
        }
        loop {
            let next = match self.ens().lines.get_mut(&session) {
                Some(line) if line.in_flight == 0 => line.held.pop_front(),
                _ => None,
            };
            let Some(held) = next else {
                break;
            };
            self.dispatch(now, session, held, out);
        }
    }

    /// The reply to `origin`'s request, when its connection is still here.
    fn reply(&self, origin: Origin, result: Result<Response, ErrorCode>, out: &mut Vec<Output>) {
        if !self.conns.contains_key(&origin.conn) {
            return;
        }
        let (err, body) = match result {
            Ok(body) => (ErrorCode::Ok, Some(body)),
            Err(err) => (err, None),
        };
        out.push(Output::Reply {
            conn: origin.conn,
            xid: origin.xid,
            zxid: self.last_zxid,
            err,
            body,
        });
    }

    /// A follower applies nothing for `for_ms` from now (a `stall_apply` fault: a long GC
    /// pause or a slow disk behind its commit processor); it still logs and acknowledges
    /// proposals, so the ensemble commits without it. `for_ms` 0 ends a stall at once.
    pub fn stall_apply(&mut self, now: Now, for_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.ensemble.is_some() {
            self.ens().stalled_until_ms = now.mono_ms.saturating_add(for_ms);
            self.apply_due(now, &mut out);
        }
        out
    }

    /// The link to member `peer` is gone. A follower that lost its leader, and a leader
    /// left without a quorum, stop serving as 3.8's do: they drop their clients (who move
    /// to another server) and what those were waiting for.
    pub fn peer_down(&mut self, peer: ServerId) -> Vec<Output> {
        let Some(ens) = self.ensemble.as_mut() else {
            return Vec::new();
        };
        let was_serving = ens.serving();
        match ens.leads() {
            true => {
                ens.synced.remove(&peer);
            }
            false if peer == ens.config.leader => ens.linked = false,
            false => {}
        }
        if !was_serving || ens.serving() {
            return Vec::new();
        }
        let mut conns = ens.forget_clients();
        conns.extend(self.conns.keys());
        let mut out = Vec::new();
        for conn in conns {
            self.detach(conn);
            out.push(Output::Close { conn });
        }
        out
    }

    /// When (monotonic ms) the next lagged apply is due, if one waits, a stall's end
    /// included: a driver wakes the server then (`apply_lagged`).
    pub fn next_apply_ms(&self) -> Option<u64> {
        let ens = self.ensemble.as_ref()?;
        let due = ens.to_apply.front().map(|&(due, _)| due);
        due.map(|due| due.max(ens.stalled_until_ms))
    }

    /// Applies the commits whose lag has passed.
    pub fn apply_lagged(&mut self, now: Now) -> Vec<Output> {
        let mut out = Vec::new();
        if self.ensemble.is_some() {
            self.apply_due(now, &mut out);
        }
        out
    }

    /// The link to member `peer` is (re)established: a follower asks its leader for what it
    /// missed; a leader waits for that.
    pub fn peer_up(&mut self, peer: ServerId) -> Vec<Output> {
        let zxid = self.known_zxid();
        match self.ensemble.as_mut() {
            Some(ens) if !ens.leads() && peer == ens.config.leader => {
                vec![to(peer, PeerMsg::FollowerInfo { zxid })]
            }
            _ => Vec::new(),
        }
    }

    /// Whether it takes clients now: a server alone always; a member while it follows a
    /// leader, or leads a quorum.
    pub fn serving(&self) -> bool {
        self.ensemble.as_ref().is_none_or(Ensemble::serving)
    }

    /// Whether replies may come after the input that asked: writes and syncs of an
    /// ensemble's member are answered once done.
    pub fn answers_later(&self) -> bool {
        self.ensemble.is_some()
    }
}
