//! What a member of an ensemble keeps whatever its role (3.8's `QuorumPeer` and its
//! `ZKDatabase` log): its vote and epochs, the writes it logged and applied, and its
//! clients' requests on their way. A session's requests are answered in order: one behind a
//! write or a sync waits until that is done (`CommitProcessor`). Reads are served from
//! what this member applied, so a follower's may be stale. Writes and syncs go to the role
//! ([`Orders`]): the leader orders them, a follower forwards them to its leader.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use super::config::{EPOCH, EnsembleConfig};
use super::ids::{ConnId, Now, Origin, ServerId};
use super::looking::{Ballot, Clocks, Vote};
use super::ops::is_write;
use super::output::{Output, connected, refused_connect, to};
use super::own_writes::OwnWrites;
use super::peer::{Forwarded, PeerMsg};
use super::replica::Replica;
use super::write::{Write, WriteOp};
use crate::zk::acl::AuthId;
use crate::zk::proto::{ConnectRequest, ErrorCode, Request, Response};

/// initLimit in ticks, as 3.8's sample configuration has it.
const INIT_LIMIT_TICKS: u64 = 10;

/// What differs between the roles on a client's path: who orders its writes and syncs.
pub(super) trait Orders {
    /// Whether it is the leader: it orders writes itself, answers syncs once committed,
    /// tracks each session's server and reports the changes.
    fn leads(&self) -> bool;

    /// Sends a client's write or sync on its way: the leader orders it, a follower forwards
    /// it to its leader, a member looking for one drops it (its client is closed soon).
    fn submit(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        sub: Submission,
        out: &mut Vec<Output>,
    );
}

/// A client's write or sync on its way to be ordered: where it came in, its session and
/// its identities, and what it asks.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Submission {
    pub(super) origin: Origin,
    pub(super) session: i64,
    pub(super) who: Rc<Vec<AuthId>>,
    pub(super) op: Forwarded,
}

/// A request on a client's connection, held behind its session's earlier write or sync
/// while that is on its way.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ClientRequest {
    conn: ConnId,
    xid: i32,
    work: Work,
}

impl ClientRequest {
    /// Request `xid` on `conn` (`Err`: a write refused as it was read).
    pub(super) fn new(conn: ConnId, xid: i32, req: Result<Request, ErrorCode>) -> Self {
        let work = match req {
            Ok(req) => Work::Request(req),
            Err(err) => Work::Refused(err),
        };
        ClientRequest { conn, xid, work }
    }
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
    held: VecDeque<ClientRequest>,
}

/// A sync waiting until `barrier` is committed (leader) or applied (follower).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Sync {
    pub(super) barrier: i64,
    pub(super) origin: Origin,
    pub(super) session: i64,
    pub(super) path: String,
}

/// A connect waiting for the ensemble (a new session's commit, a resume's revalidation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    timeout_ms: u64,
}

/// A member's state that outlives its roles.
#[derive(Debug)]
pub(super) struct Member {
    pub(super) me: ServerId,
    pub(super) config: EnsembleConfig,
    /// Its logical clock and vote (`FastLeaderElection`'s).
    pub(super) ballot: Ballot,
    /// The highest epoch it agreed to follow, and the one it acts in (3.8 keeps both on
    /// disk, so they outlive crashes as the core does).
    pub(super) accepted_epoch: u32,
    pub(super) current_epoch: u32,
    /// Whether it started once: every later start looks for a leader.
    booted: bool,
    pub(super) clocks: Clocks,
    /// initLimit: how long a new leader's discovery, or a follower's joining, may take.
    pub(super) init_limit_ms: u64,
    pub(super) tick_ms: u64,
    /// Logged writes not yet applied: the leader's outstanding proposals and who logged
    /// them; a follower's log, acknowledged.
    pub(super) log: BTreeMap<i64, (Write, BTreeSet<ServerId>)>,
    /// The writes it applied, in order: any member may have to bring another up to date.
    pub(super) committed: Vec<Write>,
    /// A learner's commits waiting out its apply lag: (when, zxid).
    pub(super) to_apply: VecDeque<(u64, i64)>,
    /// A learner applies nothing before this (monotonic ms): a `stall_apply` fault.
    pub(super) stalled_until_ms: u64,
    /// Syncs to answer once the leader committed (leader) or this server applied
    /// (follower) through their barrier.
    pub(super) syncs: Vec<Sync>,
    lines: BTreeMap<i64, Line>,
    /// Connections whose connect waits.
    pending: BTreeMap<ConnId, Pending>,
    /// A follower's sessions touched since its last Touch, and when (monotonic ms) it sent
    /// that.
    pub(super) touched: BTreeSet<i64>,
    pub(super) touch_sent_ms: u64,
    /// The leader's record of the server each session is on; a new leader's starts empty
    /// once it establishes its epoch.
    pub(super) owners: BTreeMap<i64, ServerId>,
    /// When it measures its reads' margins (`ServerConfig::measures_margins`): its
    /// sessions' last writes from elsewhere, and when they were due here.
    pub(super) own_writes: Option<OwnWrites>,
}

impl Member {
    pub(super) fn new(me: ServerId, config: EnsembleConfig, tick_ms: u64, measures: bool) -> Self {
        let own_writes = measures.then(OwnWrites::default);
        let ballot = Ballot {
            round: 1,
            vote: Vote {
                epoch: 1,
                zxid: EPOCH << 32,
                leader: config.leader,
            },
        };
        Member {
            me,
            config,
            ballot,
            accepted_epoch: 1,
            current_epoch: 1,
            booted: false,
            clocks: Clocks::of_tick(tick_ms),
            init_limit_ms: tick_ms.saturating_mul(INIT_LIMIT_TICKS),
            tick_ms,
            log: BTreeMap::new(),
            committed: Vec::new(),
            to_apply: VecDeque::new(),
            stalled_until_ms: 0,
            syncs: Vec::new(),
            lines: BTreeMap::new(),
            pending: BTreeMap::new(),
            touched: BTreeSet::new(),
            touch_sent_ms: 0,
            owners: BTreeMap::new(),
            own_writes,
        }
    }

    /// A start: whether it started before (every restart looks for a leader). It keeps no
    /// client.
    pub(super) fn restart(&mut self) -> bool {
        self.forget_clients();
        std::mem::replace(&mut self.booted, true)
    }

    /// A connection is gone: a connect of its that waits is answered to nobody.
    pub(super) fn forget_conn(&mut self, conn: ConnId) {
        self.pending.remove(&conn);
    }

    /// Forgets what clients wait for (their connections are gone); the connections whose
    /// connect waited.
    pub(super) fn forget_clients(&mut self) -> BTreeSet<ConnId> {
        self.lines.clear();
        self.syncs.clear();
        self.touched.clear();
        std::mem::take(&mut self.pending).into_keys().collect()
    }

    pub(super) fn quorum(&self) -> usize {
        self.config.members.len() / 2 + 1
    }

    /// Every other member.
    pub(super) fn followers(&self) -> impl Iterator<Item = ServerId> + '_ {
        let me = self.me;
        self.config
            .members
            .iter()
            .copied()
            .filter(move |&m| m != me)
    }

    pub(super) fn origin(&self, conn: ConnId, xid: i32) -> Origin {
        Origin {
            server: self.me,
            conn,
            xid,
        }
    }

    /// The highest zxid this member has applied or logged.
    pub(super) fn known_zxid(&self, rep: &Replica) -> i64 {
        let logged = self.log.last_key_value().map(|(&zxid, _)| zxid);
        logged.map_or(rep.last_zxid, |zxid| zxid.max(rep.last_zxid))
    }

    /// What a follower tells its leader when it joins or finds a gap: how far it got, and
    /// the highest epoch it accepted.
    pub(super) fn follower_info_msg(&self, rep: &Replica) -> PeerMsg {
        PeerMsg::FollowerInfo {
            zxid: self.known_zxid(rep),
            accepted_epoch: self.accepted_epoch,
        }
    }

    /// A connect: a new session is created through the leader and answered once
    /// committed; a resume waits for the leader's revalidation (`Err`: the session is
    /// worth asking about), or is refused at once.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn connect(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        conn: ConnId,
        req: &ConnectRequest,
        timeout_ms: u64,
        out: &mut Vec<Output>,
    ) -> Option<Origin> {
        let origin = self.origin(conn, 0);
        if req.session_id == 0 {
            self.pending.insert(conn, Pending { timeout_ms });
            let passwd = rep.new_passwd();
            let session = rep.sessions.next_id();
            let op = Forwarded::Write(WriteOp::CreateSession { timeout_ms, passwd });
            let sub = Submission {
                origin,
                session,
                who: Rc::default(),
                op,
            };
            role.submit(self, rep, now, sub, out);
            return None;
        }
        let known = rep.sessions.get(req.session_id);
        if known.is_none_or(|s| s.passwd[..] != req.passwd[..]) {
            out.push(refused_connect(conn));
            return None;
        }
        self.pending.insert(conn, Pending { timeout_ms });
        if let Some(own) = &mut self.own_writes {
            own.connected(req.session_id, req.last_zxid_seen);
        }
        Some(origin)
    }

    /// Answers a resume that waited for the leader's word.
    pub(super) fn revalidated(
        &mut self,
        rep: &mut Replica,
        now: Now,
        origin: Origin,
        session: i64,
        valid: bool,
        out: &mut Vec<Output>,
    ) {
        let conn = origin.conn;
        let Some(pending) = self.pending.remove(&conn) else {
            return;
        };
        let passwd = rep.sessions.get(session).map(|s| s.passwd);
        match passwd.filter(|_| valid) {
            Some(passwd) => {
                rep.sessions.touch(session, now.mono_ms);
                rep.attach(conn, session);
                out.push(connected(conn, pending.timeout_ms, session, passwd));
            }
            None => out.push(refused_connect(conn)),
        }
    }

    /// A request on a member's connection for `session`: held while the session's earlier
    /// write or sync is on its way.
    pub(super) fn request(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        session: i64,
        held: ClientRequest,
        out: &mut Vec<Output>,
    ) {
        if !role.leads() {
            self.touched.insert(session);
        }
        let line = self.lines.entry(session).or_default();
        if line.in_flight > 0 {
            line.held.push_back(held);
            return;
        }
        self.dispatch(role, rep, now, session, held, out);
    }

    /// Sends a request on its way: a write or a sync to be ordered, a read answered now.
    fn dispatch(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        session: i64,
        held: ClientRequest,
        out: &mut Vec<Output>,
    ) {
        let ClientRequest { conn, xid, work } = held;
        let origin = self.origin(conn, xid);
        let op = match work {
            Work::Refused(err) => WriteOp::Refused(err),
            Work::Request(req) if is_write(&req) => WriteOp::Request(req),
            Work::Request(Request::Sync { path }) => {
                self.lines.entry(session).or_default().in_flight += 1;
                let sub = Submission {
                    origin,
                    session,
                    who: Rc::default(),
                    op: Forwarded::Sync { path },
                };
                role.submit(self, rep, now, sub, out);
                return;
            }
            Work::Request(req) => {
                if let Some(own) = &self.own_writes {
                    let waiting = self.log.values().map(|(write, _)| write);
                    let due = |zxid| self.apply_due_ms(zxid);
                    if let Some(ms) = own.read_margin(self.me, session, now.mono_ms, waiting, due) {
                        out.push(Output::ReadMargin(ms));
                    }
                }
                let result = rep.read_request(conn, session, req, out);
                reply(rep, origin, result, out);
                return;
            }
        };
        self.lines.entry(session).or_default().in_flight += 1;
        let sub = Submission {
            origin,
            session,
            who: rep.who(conn),
            op: Forwarded::Write(op),
        };
        role.submit(self, rep, now, sub, out);
    }

    /// Applies a committed write and answers it when it came in here, on a connection
    /// that is still open. Only the leader reports the change, once per commit; a closed or
    /// expired session's connection here is closed, after its reply when it asked.
    pub(super) fn apply(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        write: Write,
        out: &mut Vec<Output>,
    ) {
        let me = self.me;
        self.committed.push(write.clone());
        let origin = write.origin.filter(|o| o.server == me);
        let session = write.session;
        let local = rep.sessions.get(session).and_then(|s| s.conn);
        let created = match write.op {
            WriteOp::CreateSession { timeout_ms, passwd } => Some((timeout_ms, passwd)),
            _ => None,
        };
        let closing = matches!(write.op, WriteOp::Request(Request::CloseSession));
        let leads = role.leads();
        if leads {
            match (&write.op, write.origin) {
                (WriteOp::CreateSession { .. }, Some(from)) => {
                    self.owners.insert(session, from.server);
                }
                (WriteOp::ExpireSession | WriteOp::Request(Request::CloseSession), _) => {
                    self.owners.remove(&session);
                }
                _ => {}
            }
        }
        let mut applied = Vec::new();
        let result = rep.commit(now, write, &mut applied);
        if !leads {
            applied.retain(|o| !matches!(o, Output::Changed(_)));
        }
        out.extend(applied);
        if let Some((timeout_ms, passwd)) = created {
            let conn = origin.map(|o| o.conn);
            if let Some(conn) = conn.filter(|c| self.pending.remove(c).is_some()) {
                rep.attach(conn, session);
                out.push(connected(conn, timeout_ms, session, passwd));
            }
            return;
        }
        let closed = closing && result.is_ok();
        // A connection gone since (a restart, a role given up) takes no answer, and the
        // session's new one here must not count it as its own.
        let origin = origin.filter(|o| rep.conns.contains_key(&o.conn));
        if let Some(origin) = origin.filter(|_| result == Err(ErrorCode::SessionMoved)) {
            // 3.8 answers nothing: a session moved is a connection-level error, and the
            // connection is torn down (`FinalRequestProcessor`, ZOOKEEPER-710).
            self.lines.remove(&session);
            rep.detach(origin.conn);
            out.push(Output::Close { conn: origin.conn });
            return;
        }
        if let Some(origin) = origin {
            self.answer(role, rep, now, session, origin, result, out);
        }
        if closed {
            let conn = origin.map(|o| o.conn).or(local);
            if let Some(conn) = conn {
                rep.detach(conn);
                out.push(Output::Close { conn });
            }
        }
    }

    /// Replies to a request of this server's and lets its session's next requests go.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        session: i64,
        origin: Origin,
        result: Result<Response, ErrorCode>,
        out: &mut Vec<Output>,
    ) {
        reply(rep, origin, result, out);
        if let Some(line) = self.lines.get_mut(&session) {
            line.in_flight = line.in_flight.saturating_sub(1);
        }
        loop {
            let next = match self.lines.get_mut(&session) {
                Some(line) if line.in_flight == 0 => line.held.pop_front(),
                _ => None,
            };
            let Some(held) = next else {
                break;
            };
            self.dispatch(role, rep, now, session, held, out);
        }
    }

    /// Answers the syncs whose barrier this server has reached: the leader's committed, a
    /// follower's applied.
    pub(super) fn release_syncs(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        if self.syncs.is_empty() {
            return;
        }
        let reached = match self.log.first_key_value() {
            Some((&zxid, _)) if role.leads() => zxid - 1,
            _ => rep.last_zxid,
        };
        let me = self.me;
        let (done, waiting): (Vec<Sync>, Vec<Sync>) = std::mem::take(&mut self.syncs)
            .into_iter()
            .partition(|sync| sync.barrier <= reached);
        self.syncs = waiting;
        for sync in done {
            let Sync {
                origin,
                session,
                path,
                ..
            } = sync;
            if origin.server == me {
                let reply = Ok(Response::Sync { path });
                self.answer(role, rep, now, session, origin, reply, out);
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

    /// When the logged write `zxid` applies here, a stall's end included: None before its
    /// commit came.
    fn apply_due_ms(&self, zxid: i64) -> Option<u64> {
        self.to_apply
            .iter()
            .find(|&&(_, upto)| upto >= zxid)
            .map(|&(due, _)| due.max(self.stalled_until_ms))
    }

    /// A learner (a follower, or a member looking for a leader) applies the commits whose
    /// lag has passed, in order, unless stalled.
    pub(super) fn apply_due(
        &mut self,
        role: &mut dyn Orders,
        rep: &mut Replica,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        loop {
            if now.mono_ms < self.stalled_until_ms {
                break;
            }
            // A commit commits everything logged before it too (a lost one is made up).
            match self.to_apply.front() {
                Some(&(due, upto)) if due <= now.mono_ms => match self.log.first_entry() {
                    Some(first) if *first.key() <= upto => {
                        let (write, _) = first.remove();
                        if let Some(own) = &mut self.own_writes {
                            own.applied(self.me, &write, due.max(self.stalled_until_ms));
                        }
                        self.apply(role, rep, now, write, out);
                    }
                    _ => {
                        self.to_apply.pop_front();
                    }
                },
                _ => break,
            }
        }
        self.release_syncs(role, rep, now, out);
    }
}

/// The reply to `origin`'s request, when its connection is still here.
fn reply(
    rep: &Replica,
    origin: Origin,
    result: Result<Response, ErrorCode>,
    out: &mut Vec<Output>,
) {
    if !rep.conns.contains_key(&origin.conn) {
        return;
    }
    let (err, body) = match result {
        Ok(body) => (ErrorCode::Ok, Some(body)),
        Err(err) => (err, None),
    };
    out.push(Output::Reply {
        conn: origin.conn,
        xid: origin.xid,
        zxid: rep.last_zxid,
        err,
        body,
    });
}
