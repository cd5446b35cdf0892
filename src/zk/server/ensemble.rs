//! A server as a member of an ensemble, as ZooKeeper 3.8's quorum peers serve: a member is
//! LOOKING for a leader (`looking`), LEADING (`leading`, with `learner_handler` bringing
//! followers up to date) or FOLLOWING (`following`), and what it keeps whatever its role is
//! its `member` state. This file holds the roles' dispatch (3.8's `QuorumPeer.run()` loop):
//! each input goes to the role the member is in, and the role changes here. A member goes
//! LOOKING when it loses its leader, when it leads without a quorum at its tick, when it
//! cannot take up a role within initLimit, and on every restart; it votes until it
//! decides, then leads or follows.
//!
//! Peers exchange [`PeerMsg`]s over links the driver keeps. A quorum message counts only
//! between a leader and its follower: one from a former leader, or to a member that no
//! longer leads, is dropped.

use super::config::EnsembleConfig;
use super::following::Following;
use super::ids::{ConnId, Now, ServerId};
use super::leading::{Discovery, Leading, Phase, revalidate};
use super::looking::{Looking, Notification, Outcome, PeerState, Vote};
use super::member::{ClientRequest, Member, Orders, Submission};
use super::output::{Output, to};
use super::peer::{PeerMsg, QuorumRole};
use super::replica::Replica;
use crate::zk::proto::ConnectRequest;

/// What a member does in its ensemble now (3.8's `ServerState`).
#[derive(Debug)]
enum Role {
    Looking(Looking),
    Following(Following),
    Leading(Leading),
}

/// The role as it orders a client's writes and syncs.
fn orders(role: &mut Role) -> &mut dyn Orders {
    match role {
        Role::Looking(l) => l,
        Role::Following(f) => f,
        Role::Leading(l) => l,
    }
}

/// A member looking for a leader has none to send its clients' writes to; its clients are
/// closed as it starts looking, so only a request already on its way gets here.
impl Orders for Looking {
    fn leads(&self) -> bool {
        false
    }

    fn submit(
        &mut self,
        _: &mut Member,
        _: &mut Replica,
        _: Now,
        _: Submission,
        _: &mut Vec<Output>,
    ) {
    }
}

/// A member's part in its ensemble: its lasting state and its role.
#[derive(Debug)]
pub(super) struct Ensemble {
    m: Member,
    role: Role,
}

impl Ensemble {
    /// The first start's roles: the configured leader leads, every other member follows.
    /// `measures`: whether it measures its reads' margins (`ServerConfig::measures_margins`).
    pub(super) fn new(me: ServerId, config: EnsembleConfig, tick_ms: u64, measures: bool) -> Self {
        let m = Member::new(me, config, tick_ms, measures);
        let until = m.init_limit_ms;
        let role = match m.config.leader == me {
            true => Role::Leading(Leading::new(Phase::Boot { until })),
            false => Role::Following(Following::new(m.config.leader, until)),
        };
        Ensemble { m, role }
    }

    /// Whether it takes clients: a leader in its epoch (until its tick finds it without a
    /// quorum), a follower while linked to its leader and up to date.
    pub(super) fn serving(&self) -> bool {
        match &self.role {
            Role::Leading(l) => l.serving(),
            Role::Following(f) => f.linked,
            Role::Looking(_) => false,
        }
    }

    /// Who this member works with on the quorum port now.
    pub(super) fn quorum_role(&self) -> QuorumRole {
        match &self.role {
            Role::Looking(_) => QuorumRole::Look,
            Role::Following(f) => QuorumRole::Follow(f.leader),
            Role::Leading(_) => QuorumRole::Lead,
        }
    }

    /// A connection is gone: a connect of its that waits is answered to nobody.
    pub(super) fn forget_conn(&mut self, conn: ConnId) {
        self.m.forget_conn(conn);
    }

    /// A start: the first keeps the boot roles; a restart keeps no client and no link, and
    /// looks for a leader.
    pub(super) fn restart(&mut self, rep: &mut Replica, now: Now) -> Vec<Output> {
        let looks = self.m.restart();
        match &mut self.role {
            Role::Following(f) => f.linked = false,
            Role::Leading(l) => l.synced.clear(),
            Role::Looking(_) => {}
        }
        rep.restart(now);
        let mut out = Vec::new();
        if looks {
            self.start_looking(rep, now, &mut out);
        }
        out
    }

    /// A member's work due at `now`: the leader's expiries and reaper, a learner's lagged
    /// applies.
    pub(super) fn due(&mut self, rep: &mut Replica, now: Now) -> Vec<Output> {
        let m = &mut self.m;
        match &mut self.role {
            // Sessions expire, and the reaper runs, only where a leader's writes can
            // commit; a new leader's take over with fresh deadlines.
            Role::Leading(l) if l.serving() && l.has_quorum(m) => rep
                .expire_due(now, &mut |rep, now, write, out| {
                    l.broadcast(m, rep, now, write, out)
                }),
            Role::Leading(_) => Vec::new(),
            role => {
                let mut out = Vec::new();
                m.apply_due(orders(role), rep, now, &mut out);
                out
            }
        }
    }

    /// The tick: each role gives up a role it cannot keep; the leader pings its followers,
    /// a member looking for a leader decides or sends its vote again.
    pub(super) fn tick(&mut self, rep: &mut Replica, now: Now) -> Vec<Output> {
        let mut out = self.due(rep, now);
        let keeps = match &self.role {
            Role::Leading(l) => l.handle_timeout(&self.m, now, &mut out),
            Role::Following(f) => f.handle_timeout(now),
            Role::Looking(_) => true,
        };
        if !keeps {
            self.start_looking(rep, now, &mut out);
        } else if matches!(self.role, Role::Looking(_)) {
            self.election_step(now, &mut out);
        }
        out
    }

    /// Whether the tick has anything to do: a follower linked to its leader only answers
    /// its pings, and applies on its own wake-ups (`next_apply_ms`).
    pub(super) fn ticks(&self) -> bool {
        match &self.role {
            Role::Following(f) => f.poll_timeout().is_some(),
            _ => true,
        }
    }

    /// When (monotonic ms) a member looking for a leader next decides or sends its vote
    /// again.
    pub(super) fn next_vote_ms(&self) -> Option<u64> {
        match &self.role {
            Role::Looking(e) => Some(e.poll_timeout()),
            _ => None,
        }
    }

    /// When a driver must next wake the member to apply a lagged commit.
    pub(super) fn next_apply_ms(&self, rep: &Replica) -> Option<u64> {
        self.m.next_apply_ms(&rep.watches)
    }

    /// A connect on a member: a new session is created through the leader and answered once
    /// committed; a resume is answered once the leader has revalidated the session.
    pub(super) fn connect(
        &mut self,
        rep: &mut Replica,
        now: Now,
        conn: ConnId,
        req: &ConnectRequest,
        timeout_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let role = orders(&mut self.role);
        let Some(origin) = self.m.connect(role, rep, now, conn, req, timeout_ms, out) else {
            return;
        };
        let session = req.session_id;
        match &self.role {
            Role::Leading(_) => {
                let valid = revalidate(&mut self.m, rep, now, origin, session);
                self.m.revalidated(rep, now, origin, session, valid, out);
            }
            Role::Following(f) => out.push(to(f.leader, PeerMsg::Revalidate { origin, session })),
            Role::Looking(_) => {}
        }
    }

    /// A request on a member's connection for `session`.
    pub(super) fn request(
        &mut self,
        rep: &mut Replica,
        now: Now,
        session: i64,
        req: ClientRequest,
        out: &mut Vec<Output>,
    ) {
        let role = orders(&mut self.role);
        self.m.request(role, rep, now, session, req, out);
    }

    /// A message from peer `from`: a vote, or what a leader and its follower send each
    /// other.
    pub(super) fn handle_peer(
        &mut self,
        rep: &mut Replica,
        now: Now,
        from: ServerId,
        msg: PeerMsg,
    ) -> Vec<Output> {
        let mut out = self.due(rep, now);
        match msg {
            PeerMsg::Notification(n) => self.hear_vote(now, from, n, &mut out),
            msg => match &mut self.role {
                Role::Leading(l) => l.handle(&mut self.m, rep, now, from, msg, &mut out),
                Role::Following(f) if f.leader == from => {
                    f.handle(&mut self.m, rep, now, msg, &mut out);
                }
                _ => {}
            },
        }
        out
    }

    /// A learner applies nothing for `for_ms` from now; what was due goes before the stall,
    /// what waited for a stall's end after.
    pub(super) fn stall_apply(&mut self, rep: &mut Replica, now: Now, for_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        self.m.apply_due(orders(&mut self.role), rep, now, &mut out);
        self.m.stalled_until_ms = now.mono_ms.saturating_add(for_ms);
        self.m.apply_due(orders(&mut self.role), rep, now, &mut out);
        out
    }

    /// The link to member `peer` is gone. A follower that lost its leader looks for one
    /// (3.8's `followLeader` ends); a leader loses a follower, and steps down at its next
    /// tick if that leaves it without a quorum.
    pub(super) fn peer_down(&mut self, rep: &mut Replica, now: Now, peer: ServerId) -> Vec<Output> {
        let mut out = self.due(rep, now);
        match &mut self.role {
            Role::Leading(l) => l.peer_down(peer),
            Role::Following(f) if f.leader == peer => self.start_looking(rep, now, &mut out),
            _ => {}
        }
        out
    }

    /// Does what is due by `now`: the commits whose lag has passed, an election's decision.
    pub(super) fn wake(&mut self, rep: &mut Replica, now: Now) -> Vec<Output> {
        let mut out = Vec::new();
        if !matches!(self.role, Role::Leading(_)) {
            self.m.apply_due(orders(&mut self.role), rep, now, &mut out);
        }
        if matches!(self.role, Role::Looking(_)) {
            self.election_step(now, &mut out);
        }
        out
    }

    /// The link to member `peer` is (re)established: a follower tells its leader how far
    /// it got; a leader waits for that.
    pub(super) fn peer_up(&self, rep: &Replica, peer: ServerId) -> Vec<Output> {
        match &self.role {
            Role::Following(f) if f.leader == peer => vec![to(peer, self.m.follower_info_msg(rep))],
            _ => Vec::new(),
        }
    }

    /// Leaves its role to look for a leader: its clients' connections close
    /// (`closeAllConnections`), and it votes for itself in a new round.
    fn start_looking(&mut self, rep: &mut Replica, now: Now, out: &mut Vec<Output>) {
        let m = &mut self.m;
        let own = Vote {
            epoch: m.current_epoch,
            zxid: m.known_zxid(rep),
            leader: m.me,
        };
        let mut conns = m.forget_clients();
        m.ballot.round += 1;
        m.ballot.vote = own;
        let looking = Looking::start(m.me, own, m.quorum(), m.clocks, now.mono_ms);
        self.role = Role::Looking(looking);
        self.send_vote(None, out);
        conns.extend(rep.conns.keys());
        for conn in conns {
            rep.detach(conn);
            out.push(Output::Close { conn });
        }
    }

    /// Its vote, as it stands, to `peer` or to every other member.
    fn send_vote(&self, peer: Option<ServerId>, out: &mut Vec<Output>) {
        let state = match self.role {
            Role::Looking(_) => PeerState::Looking,
            Role::Following(_) => PeerState::Following,
            Role::Leading(_) => PeerState::Leading,
        };
        let n = Notification {
            vote: self.m.ballot.vote,
            round: self.m.ballot.round,
            state,
        };
        let peers: Vec<ServerId> = match peer {
            Some(peer) => vec![peer],
            None => self.m.followers().collect(),
        };
        out.extend(peers.into_iter().map(|p| to(p, PeerMsg::Notification(n))));
    }

    /// A vote from `from`: counted while looking; a member that follows or leads answers
    /// a looking one with the vote it decided on.
    fn hear_vote(&mut self, now: Now, from: ServerId, n: Notification, out: &mut Vec<Output>) {
        let outcome = match &mut self.role {
            Role::Looking(e) => e.handle(&mut self.m.ballot, from, n, now.mono_ms),
            _ if n.state == PeerState::Looking => Outcome::Answer,
            _ => return,
        };
        self.follow_outcome(now, from, outcome, out);
    }

    /// An election's tick or wake: it decides, or sends its vote again.
    fn election_step(&mut self, now: Now, out: &mut Vec<Output>) {
        let ballot = self.m.ballot;
        let Role::Looking(e) = &mut self.role else {
            return;
        };
        let outcome = e.handle_timeout(ballot, now.mono_ms);
        self.follow_outcome(now, self.m.me, outcome, out);
    }

    fn follow_outcome(
        &mut self,
        now: Now,
        from: ServerId,
        outcome: Outcome,
        out: &mut Vec<Output>,
    ) {
        match outcome {
            Outcome::Looking { send: false } => {}
            Outcome::Looking { send: true } => self.send_vote(None, out),
            Outcome::Answer => self.send_vote(Some(from), out),
            Outcome::Decided(leader) => self.take_role(now, leader),
        }
    }

    /// The election decided: lead, or follow `leader`, within initLimit.
    fn take_role(&mut self, now: Now, leader: ServerId) {
        let until = now.mono_ms.saturating_add(self.m.init_limit_ms);
        self.role = match leader == self.m.me {
            true => {
                self.m.to_apply.clear();
                let discovery = Discovery {
                    until,
                    ..Discovery::default()
                };
                Role::Leading(Leading::new(Phase::Discovery(discovery)))
            }
            false => Role::Following(Following::new(leader, until)),
        };
    }
}
