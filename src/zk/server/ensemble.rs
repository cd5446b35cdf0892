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
//! (`FOLLOWERINFO`, answered as a `DIFF`). Who leads changes when the leader is lost
//! (`leadership`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use super::commit::{Write, WriteOp, is_write};
use super::election::{Ballot, Clocks, Election, Notification, Vote};
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

/// The members, and who leads when the ensemble starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnsembleConfig {
    /// Every member's id, this server's among them.
    pub members: Vec<ServerId>,
    /// The first election's winner: with every log empty, the highest id.
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
    /// The sessions a follower's clients kept alive since its last Touch: its answer to
    /// the leader's ping (3.8's `Learner.ping`), or sent unasked with an acknowledgement.
    Touch {
        sessions: Vec<i64>,
        /// Whether it answers a ping.
        answer: bool,
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
    /// A follower has applied or logged everything up to `zxid` and wants the rest; it
    /// has accepted epochs up to `accepted_epoch`.
    FollowerInfo {
        zxid: i64,
        accepted_epoch: u32,
    },
    /// The leader's heartbeat, each tick; a follower answers it with a Touch.
    Ping,
    /// The leader sent a follower all it missed: the follower applies what is committed
    /// and serves (`UPTODATE`), in the leader's epoch.
    UpToDate {
        epoch: u32,
    },
    /// A vote, on the election port.
    Notification(Notification),
    /// A new leader's word to drop what was logged after `zxid`: no quorum logged it.
    Trunc {
        zxid: i64,
    },
    /// A new leader sent its history: the follower takes `epoch` and acknowledges.
    NewLeader {
        epoch: u32,
    },
    AckNewLeader {
        epoch: u32,
    },
}

impl PeerMsg {
    /// Whether it goes on the election port rather than the leader's.
    pub fn is_election(&self) -> bool {
        matches!(self, PeerMsg::Notification(_))
    }
}

/// A member's part on the quorum port (2888): what its driver listens for or dials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuorumRole {
    /// Takes its followers' connections.
    Lead,
    /// Connects to this leader.
    Follow(ServerId),
    /// Neither: it is looking for a leader.
    Look,
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

/// What a member does in its ensemble now.
#[derive(Debug)]
pub(super) enum Role {
    Looking(Election),
    /// Following `leader`; until it is up to date, it gives up at `until` (initLimit).
    Following {
        leader: ServerId,
        until: u64,
    },
    Leading(Phase),
}

/// How far a leader is in taking up its role.
#[derive(Debug)]
pub(super) enum Phase {
    /// The ensemble's first leader, in epoch 1 with every log empty: it serves once a
    /// quorum is up to date, or gives up at `until`.
    Boot { until: u64 },
    /// An elected leader gathering a quorum to start its epoch (`lead()`'s discovery and
    /// synchronization), or giving up at `until`.
    Discovery(Discovery),
    /// Leading a quorum in its epoch: ordering writes and serving clients.
    Broadcast,
}

/// A new leader's discovery: the followers that registered, and what follows from them.
#[derive(Debug, Default)]
pub(super) struct Discovery {
    pub until: u64,
    /// Each registered follower's accepted epoch and last logged zxid.
    pub infos: BTreeMap<ServerId, (u32, i64)>,
    /// The new epoch, once a quorum registered: one above every accepted epoch among them.
    pub epoch: Option<u32>,
    /// Followers that took the new epoch and logged the leader's history.
    pub acked: BTreeSet<ServerId>,
}

/// The ensemble state of a member.
#[derive(Debug)]
pub(super) struct Ensemble {
    pub(super) me: ServerId,
    pub(super) config: EnsembleConfig,
    pub(super) role: Role,
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
    /// Logged writes not yet applied: the leader's outstanding proposals and who logged
    /// them; a follower's log, acknowledged.
    pub(super) log: BTreeMap<i64, (Write, BTreeSet<ServerId>)>,
    /// The writes it applied, in order: any member may have to bring another up to date.
    pub(super) committed: Vec<Write>,
    /// A follower's commits waiting out its apply lag: (when, zxid).
    pub(super) to_apply: VecDeque<(u64, i64)>,
    /// A follower applies nothing before this (monotonic ms): a `stall_apply` fault.
    pub(super) stalled_until_ms: u64,
    /// Syncs to answer once the leader committed (leader) or this server applied
    /// (follower) through their barrier.
    syncs: Vec<Sync>,
    lines: BTreeMap<i64, Line>,
    /// Connections whose connect waits.
    pending: BTreeMap<ConnId, Pending>,
    /// A follower's sessions touched since its last Touch, and when (monotonic ms) it sent
    /// that.
    touched: BTreeSet<i64>,
    touch_sent_ms: u64,
    /// The leader's record of when each follower last touched its sessions unasked.
    pub(super) touched_unasked: BTreeMap<ServerId, u64>,
    tick_ms: u64,
    /// The leader's record of the server each session is on.
    pub(super) owners: BTreeMap<i64, ServerId>,
    /// A follower serves clients only while linked to its leader and up to date.
    pub(super) linked: bool,
    /// The leader's followers that are linked and up to date: without a quorum of them
    /// and itself, it steps down at its next tick.
    pub(super) synced: BTreeSet<ServerId>,
}

impl Ensemble {
    pub(super) fn new(me: ServerId, config: EnsembleConfig, tick_ms: u64) -> Self {
        let init_limit_ms = tick_ms.saturating_mul(INIT_LIMIT_TICKS);
        let role = match config.leader == me {
            true => Role::Leading(Phase::Boot {
                until: init_limit_ms,
            }),
            false => Role::Following {
                leader: config.leader,
                until: init_limit_ms,
            },
        };
        let ballot = Ballot {
            round: 1,
            vote: Vote {
                epoch: 1,
                zxid: super::EPOCH << 32,
                leader: config.leader,
            },
        };
        Ensemble {
            me,
            config,
            role,
            ballot,
            accepted_epoch: 1,
            current_epoch: 1,
            booted: false,
            clocks: Clocks::of_tick(tick_ms),
            init_limit_ms,
            log: BTreeMap::new(),
            committed: Vec::new(),
            to_apply: VecDeque::new(),
            stalled_until_ms: 0,
            syncs: Vec::new(),
            lines: BTreeMap::new(),
            pending: BTreeMap::new(),
            touched: BTreeSet::new(),
            touch_sent_ms: 0,
            touched_unasked: BTreeMap::new(),
            tick_ms,
            owners: BTreeMap::new(),
            linked: false,
            synced: BTreeSet::new(),
        }
    }

    pub(super) fn leads(&self) -> bool {
        matches!(self.role, Role::Leading(_))
    }

    /// The member it follows or is, when it is not looking.
    pub(super) fn leader(&self) -> Option<ServerId> {
        match self.role {
            Role::Looking(_) => None,
            Role::Following { leader, .. } => Some(leader),
            Role::Leading(_) => Some(self.me),
        }
    }

    /// Whether it and its synced followers are a quorum.
    pub(super) fn has_quorum(&self) -> bool {
        self.synced.len() + 1 >= self.quorum()
    }

    /// A start: the first keeps the boot roles; a restart keeps no client and no link,
    /// and says whether it must look for a leader (every restart does).
    pub(super) fn restart(&mut self) -> bool {
        self.forget_clients();
        self.linked = false;
        self.synced.clear();
        std::mem::replace(&mut self.booted, true)
    }

    /// A connection is gone: a connect of its that waits is answered to nobody.
    pub(super) fn forget_conn(&mut self, conn: ConnId) {
        self.pending.remove(&conn);
    }

    /// Whether it takes clients: a leader in its epoch (until its tick finds it without a
    /// quorum), a follower while linked to its leader and up to date.
    pub(super) fn serving(&self) -> bool {
        match self.role {
            Role::Leading(Phase::Broadcast) => true,
            Role::Following { .. } => self.linked,
            _ => false,
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

    /// Whether a sync waits for this member to apply or commit further.
    pub(super) fn syncs_wait(&self) -> bool {
        !self.syncs.is_empty()
    }

    pub(super) fn quorum(&self) -> usize {
        self.config.members.len() / 2 + 1
    }

    pub(super) fn followers(&self) -> impl Iterator<Item = ServerId> + '_ {
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

/// initLimit in ticks, as 3.8's sample configuration has it.
const INIT_LIMIT_TICKS: u64 = 10;

pub(super) fn to(to: ServerId, msg: PeerMsg) -> Output {
    Output::Peer { to, msg }
}

impl Server {
    pub(super) fn ens(&mut self) -> &mut Ensemble {
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
        let ens = self.ens();
        match ens.role {
            // Sessions expire, and the reaper runs, only where a leader's writes can
            // commit; a new leader's take over with fresh deadlines.
            Role::Leading(Phase::Broadcast) if ens.has_quorum() => self.expire_due(now),
            Role::Leading(_) => Vec::new(),
            _ => {
                let mut out = Vec::new();
                self.apply_due(now, &mut out);
                out
            }
        }
    }

    /// The tick: the leader pings the followers that have not touched their sessions
    /// unasked in the last half tick (each answers with a Touch), a member looking for a leader sends its vote again; and each
    /// gives up a role it cannot keep.
    pub(super) fn ensemble_tick(&mut self, now: Now) -> Vec<Output> {
        let mut out = self.ensemble_due(now);
        if self.gives_up(now) {
            self.start_looking(now, &mut out);
            return out;
        }
        let ens = self.ens();
        match ens.role {
            Role::Leading(_) => {
                let recent = now.mono_ms.saturating_sub(ens.tick_ms / 2);
                let heard = |f: &ServerId| ens.touched_unasked.get(f).is_some_and(|&t| t > recent);
                let quiet: Vec<_> = ens.followers().filter(|f| !heard(f)).collect();
                out.extend(quiet.into_iter().map(|f| to(f, PeerMsg::Ping)));
            }
            Role::Following { .. } => {}
            Role::Looking(_) => self.election_step(now, &mut out),
        }
        out
    }

    /// Whether the member's tick has anything to do: a follower linked to its leader only
    /// answers its pings, and applies on its own wake-ups (`next_apply_ms`).
    pub(super) fn ensemble_ticks(&self) -> bool {
        self.ensemble
            .as_ref()
            .is_none_or(|ens| !matches!(ens.role, Role::Following { .. }) || !ens.linked)
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
        match self.ens().leader() {
            Some(leader) if leader == origin.server => {
                let valid = self.revalidate(now, origin, session);
                self.revalidated(now, origin, session, valid, out);
            }
            Some(leader) => out.push(to(leader, PeerMsg::Revalidate { origin, session })),
            None => {}
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
        let Some(leader) = self.ens().leader() else {
            return;
        };
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
        let op = match op {
            WriteOp::Request(_) | WriteOp::Refused(_) => match self.sessions.get(session) {
                None => WriteOp::Refused(ErrorCode::SessionExpired),
                Some(s) if s.closing => WriteOp::Refused(ErrorCode::SessionExpired),
                // A new leader's sessions have no owner until their first request
                // (`checkSession`).
                Some(_) => match *self.ens().owners.entry(session).or_insert(origin.server) {
                    owner if owner != origin.server => WriteOp::Refused(ErrorCode::SessionMoved),
                    _ => op,
                },
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

    /// Commits, in order, every proposal a quorum has logged; a leader still gathering
    /// its quorum commits its history only once it has one (`establish`).
    pub(super) fn leader_commit(&mut self, now: Now, out: &mut Vec<Output>) {
        if matches!(self.ens().role, Role::Leading(Phase::Discovery(_))) {
            return;
        }
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
            self.apply(now, write, out);
        }
        self.release_syncs(now, out);
    }

    /// Answers the syncs whose barrier this server has reached: the leader's committed, a
    /// follower's applied.
    fn release_syncs(&mut self, now: Now, out: &mut Vec<Output>) {
        if self.ens().syncs.is_empty() {
            return;
        }
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

    /// A message from peer `from`. A quorum message counts only between a leader and its
    /// follower: one from a former leader, or to a member that no longer leads, is dropped.
    pub fn handle_peer(&mut self, now: Now, from: ServerId, msg: PeerMsg) -> Vec<Output> {
        let Some(ens) = self.ensemble.as_ref() else {
            return Vec::new();
        };
        let leads = ens.leads();
        let from_leader = !leads && ens.leader() == Some(from);
        let mut out = self.ensemble_due(now);
        match msg {
            PeerMsg::Notification(n) => self.hear_vote(now, from, n, &mut out),
            msg if leads => self.leader_hears(now, from, msg, &mut out),
            msg if from_leader => self.follower_hears(now, from, msg, &mut out),
            _ => {}
        }
        out
    }

    /// What followers send their leader.
    fn leader_hears(&mut self, now: Now, from: ServerId, msg: PeerMsg, out: &mut Vec<Output>) {
        match msg {
            PeerMsg::Forward {
                origin,
                session,
                who,
                op: Forwarded::Write(op),
            } => self.leader_propose(now, origin, session, who, op, out),
            PeerMsg::Forward {
                origin,
                session,
                op: Forwarded::Sync { path },
                ..
            } => self.leader_sync(now, origin, session, path, out),
            // A follower logs in order: its ack is for everything up to `zxid`.
            PeerMsg::Ack { zxid } => {
                for (_, acks) in self.ens().log.range_mut(..=zxid).map(|(_, e)| e) {
                    acks.insert(from);
                }
                self.leader_commit(now, out);
            }
            PeerMsg::Touch { sessions, answer } => {
                if !answer {
                    self.ens().touched_unasked.insert(from, now.mono_ms);
                }
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
            PeerMsg::FollowerInfo {
                zxid,
                accepted_epoch,
            } => self.follower_info(now, from, zxid, accepted_epoch, out),
            PeerMsg::AckNewLeader { epoch } => self.ack_new_leader(now, from, epoch, out),
            _ => {}
        }
    }

    /// What a leader sends its followers.
    fn follower_hears(&mut self, now: Now, from: ServerId, msg: PeerMsg, out: &mut Vec<Output>) {
        match msg {
            PeerMsg::UpToDate { epoch } => {
                let ens = self.ens();
                ens.linked = true;
                ens.accepted_epoch = ens.accepted_epoch.max(epoch);
                ens.current_epoch = ens.current_epoch.max(epoch);
                // What the sync brought is applied before serving, whatever the lag.
                for (due, _) in ens.to_apply.iter_mut() {
                    *due = 0;
                }
                self.apply_due(now, out);
            }
            PeerMsg::Ping => self.touch(now, from, true, out),
            PeerMsg::Proposal(write) => self.follower_log(now, write, out),
            PeerMsg::Commit { zxid } if zxid > self.known_zxid() => {
                let msg = self.follower_info_msg();
                out.push(to(from, msg));
            }
            PeerMsg::Commit { zxid } => {
                let lag = self.ens().config.apply_lag_ms;
                let due = now.mono_ms.saturating_add(lag);
                self.ens().to_apply.push_back((due, zxid));
                self.apply_due(now, out);
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
                self.release_syncs(now, out);
            }
            PeerMsg::Revalidated {
                origin,
                session,
                valid,
            } => self.revalidated(now, origin, session, valid, out),
            PeerMsg::Trunc { zxid } => self.truncate(zxid),
            PeerMsg::NewLeader { epoch } => self.new_leader(from, epoch, out),
            _ => {}
        }
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

    /// A follower logs the leader's next write and acknowledges it; one it has already is
    /// ignored, and a gap makes it ask for what it missed.
    fn follower_log(&mut self, now: Now, write: Write, out: &mut Vec<Output>) {
        let known = self.known_zxid();
        let zxid = write.zxid;
        let Some(leader) = self.ens().leader() else {
            return;
        };
        if zxid <= known {
            // Logged already: the ack may be what was lost.
            if self.ens().log.contains_key(&zxid) {
                out.push(to(leader, PeerMsg::Ack { zxid }));
            }
            return;
        }
        // The next write is the next zxid, or the first of a later epoch.
        let next_epoch = zxid >> 32 > known >> 32 && zxid & 0xffff_ffff == 1;
        if zxid != known + 1 && !next_epoch {
            let msg = self.follower_info_msg();
            out.push(to(leader, msg));
            return;
        }
        self.ens().log.insert(zxid, (write, BTreeSet::new()));
        out.push(to(leader, PeerMsg::Ack { zxid }));
        let ens = self.ens();
        if now.mono_ms >= ens.touch_sent_ms.saturating_add(ens.tick_ms / 2) {
            self.touch(now, leader, false, out);
        }
    }

    /// A follower tells its leader which sessions its clients kept alive: in answer to a
    /// ping, as 3.8's `Learner.ping`, or with an ack half a tick after its last, as often as
    /// 3.8's leader pings (every half tick), so that a busy link needs no ping.
    fn touch(&mut self, now: Now, leader: ServerId, answer: bool, out: &mut Vec<Output>) {
        let ens = self.ens();
        ens.touch_sent_ms = now.mono_ms;
        let sessions = std::mem::take(&mut ens.touched).into_iter().collect();
        out.push(to(leader, PeerMsg::Touch { sessions, answer }));
    }

    /// What a follower tells its leader when it joins or finds a gap: how far it got, and
    /// the highest epoch it accepted.
    pub(super) fn follower_info_msg(&self) -> PeerMsg {
        let accepted_epoch = self.ensemble.as_ref().map_or(0, |e| e.accepted_epoch);
        PeerMsg::FollowerInfo {
            zxid: self.known_zxid(),
            accepted_epoch,
        }
    }

    /// The highest zxid this member has applied or logged.
    pub(super) fn known_zxid(&self) -> i64 {
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

    /// Applies a committed write and answers it when it came in here, on a connection
    /// that is still open. Only the leader reports the change, once per commit; a closed or
    /// expired session's connection here is closed, after its reply when it asked.
    pub(super) fn apply(&mut self, now: Now, write: Write, out: &mut Vec<Output>) {
        let me = self.ens().me;
        self.ens().committed.push(write.clone());
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
        // A connection gone since (a restart, a role given up) takes no answer, and the
        // session's new one here must not count it as its own.
        let origin = origin.filter(|o| self.conns.contains_key(&o.conn));
        if let Some(origin) = origin.filter(|_| result == Err(ErrorCode::SessionMoved)) {
            // 3.8 answers nothing: a session moved is a connection-level error, and the
            // connection is torn down (`FinalRequestProcessor`, ZOOKEEPER-710).
            self.ens().lines.remove(&session);
            self.detach(origin.conn);
            out.push(Output::Close { conn: origin.conn });
            return;
        }
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
            // What was due goes before the stall; what waited for a stall's end, after.
            self.apply_due(now, &mut out);
            self.ens().stalled_until_ms = now.mono_ms.saturating_add(for_ms);
            self.apply_due(now, &mut out);
        }
        out
    }

    /// The link to member `peer` is gone. A follower that lost its leader looks for one
    /// (3.8's `followLeader` ends); a leader loses a follower, and steps down at its next
    /// tick if that leaves it without a quorum.
    pub fn peer_down(&mut self, now: Now, peer: ServerId) -> Vec<Output> {
        if self.ensemble.is_none() {
            return Vec::new();
        }
        let mut out = self.ensemble_due(now);
        let ens = self.ens();
        match &mut ens.role {
            Role::Leading(phase) => {
                ens.synced.remove(&peer);
                if let Phase::Discovery(d) = phase {
                    d.infos.remove(&peer);
                    d.acked.remove(&peer);
                }
            }
            Role::Following { leader, .. } if *leader == peer => self.start_looking(now, &mut out),
            _ => {}
        }
        out
    }

    /// When (monotonic ms) a member looking for a leader next decides or sends its vote
    /// again: a driver wakes the server then (`wake`).
    pub fn next_vote_ms(&self) -> Option<u64> {
        match &self.ensemble.as_ref()?.role {
            Role::Looking(e) => Some(e.next_wake_ms()),
            _ => None,
        }
    }

    /// Does what is due by `now`: the commits whose lag has passed, an election's decision.
    pub fn wake(&mut self, now: Now) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(ens) = self.ensemble.as_ref() else {
            return out;
        };
        let looking = matches!(ens.role, Role::Looking(_));
        if !ens.leads() {
            self.apply_due(now, &mut out);
        }
        if looking {
            self.election_step(now, &mut out);
        }
        out
    }

    /// The link to member `peer` is (re)established: a follower tells its leader how far
    /// it got; a leader waits for that.
    pub fn peer_up(&mut self, peer: ServerId) -> Vec<Output> {
        match self.ensemble.as_ref().and_then(Ensemble::leader) {
            Some(leader) if leader == peer && !self.leads() => {
                vec![to(peer, self.follower_info_msg())]
            }
            _ => Vec::new(),
        }
    }

    /// Who this member works with on the quorum port now: `None` for a server alone.
    pub fn quorum_role(&self) -> Option<QuorumRole> {
        let ens = self.ensemble.as_ref()?;
        Some(match ens.role {
            Role::Looking(_) => QuorumRole::Look,
            Role::Following { leader, .. } => QuorumRole::Follow(leader),
            Role::Leading(_) => QuorumRole::Lead,
        })
    }

    /// Whether replies may come after the input that asked: writes and syncs of an
    /// ensemble's member are answered once done.
    pub fn answers_later(&self) -> bool {
        self.ensemble.is_some()
    }
}
