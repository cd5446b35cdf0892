//! The LEADING role, as 3.8's `Leader` runs it: it orders every write (a zxid each,
//! `PrepRequestProcessor`), proposes it to the followers and commits it once a quorum,
//! itself included, has logged it. It owns the sessions: it expires them, learns of its
//! followers' clients' activity from their touches, and tracks which server each session
//! is on, so a write from a server the session has left fails with SessionMoved. It pings
//! its followers each tick and steps down at a tick that finds it without a quorum. Bringing
//! a follower up to date is `learner_handler`'s.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::ids::{Now, Origin, ServerId};
use super::member::{Member, Orders, Submission, Sync};
use super::output::{Output, to};
use super::peer::{Forwarded, PeerMsg};
use super::replica::Replica;
use super::write::{Write, WriteOp};
use crate::zk::acl::AuthId;
use crate::zk::proto::ErrorCode;

/// A leader's state.
#[derive(Debug)]
pub(super) struct Leading {
    pub(super) phase: Phase,
    /// Its followers that are linked and up to date: without a quorum of them and itself,
    /// it steps down at its next tick.
    pub(super) synced: BTreeSet<ServerId>,
    /// When each follower last touched its sessions unasked.
    touched_unasked: BTreeMap<ServerId, u64>,
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
    pub(super) until: u64,
    /// Each registered follower's accepted epoch and last logged zxid.
    pub(super) infos: BTreeMap<ServerId, (u32, i64)>,
    /// The new epoch, once a quorum registered: one above every accepted epoch among them.
    pub(super) epoch: Option<u32>,
    /// Followers that took the new epoch and logged the leader's history.
    pub(super) acked: BTreeSet<ServerId>,
}

impl Leading {
    pub(super) fn new(phase: Phase) -> Self {
        Leading {
            phase,
            synced: BTreeSet::new(),
            touched_unasked: BTreeMap::new(),
        }
    }

    /// Whether it and its synced followers are a quorum.
    pub(super) fn has_quorum(&self, m: &Member) -> bool {
        self.synced.len() + 1 >= m.quorum()
    }

    /// Whether it takes clients: in its epoch, until its tick finds it without a quorum.
    pub(super) fn serving(&self) -> bool {
        matches!(self.phase, Phase::Broadcast)
    }

    /// When it gives up taking up its role (initLimit), while it is doing so; in its epoch
    /// it keeps it while its tick finds a quorum.
    pub(super) fn poll_timeout(&self) -> Option<u64> {
        match &self.phase {
            Phase::Boot { until } => Some(*until),
            Phase::Discovery(d) => Some(d.until),
            Phase::Broadcast => None,
        }
    }

    /// Its tick: false when it cannot keep its role (no quorum in its epoch, or initLimit
    /// passed while taking it up); else it pings the followers that have not touched their
    /// sessions unasked in the last half tick (each answers with a Touch).
    pub(super) fn handle_timeout(&self, m: &Member, now: Now, out: &mut Vec<Output>) -> bool {
        let gives_up = match self.poll_timeout() {
            Some(until) => now.mono_ms >= until,
            None => !self.has_quorum(m),
        };
        if gives_up {
            return false;
        }
        let recent = now.mono_ms.saturating_sub(m.tick_ms / 2);
        let heard = |f: &ServerId| self.touched_unasked.get(f).is_some_and(|&t| t > recent);
        let quiet: Vec<_> = m.followers().filter(|f| !heard(f)).collect();
        out.extend(quiet.into_iter().map(|f| to(f, PeerMsg::Ping)));
        true
    }

    /// The link to follower `peer` is gone.
    pub(super) fn peer_down(&mut self, peer: ServerId) {
        self.synced.remove(&peer);
        if let Phase::Discovery(d) = &mut self.phase {
            d.infos.remove(&peer);
            d.acked.remove(&peer);
        }
    }

    /// What followers send their leader.
    pub(super) fn handle(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        from: ServerId,
        msg: PeerMsg,
        out: &mut Vec<Output>,
    ) {
        match msg {
            PeerMsg::Forward {
                origin,
                session,
                who,
                op,
            } => {
                let sub = Submission {
                    origin,
                    session,
                    who,
                    op,
                };
                self.submit(m, rep, now, sub, out);
            }
            // A follower logs in order: its ack is for everything up to `zxid`.
            PeerMsg::Ack { zxid } => {
                for (_, acks) in m.log.range_mut(..=zxid).map(|(_, e)| e) {
                    acks.insert(from);
                }
                self.commit(m, rep, now, out);
            }
            PeerMsg::Touch { sessions, answer } => {
                if !answer {
                    self.touched_unasked.insert(from, now.mono_ms);
                }
                for session in sessions {
                    rep.sessions.touch(session, now.mono_ms);
                }
            }
            PeerMsg::Revalidate { origin, session } => {
                let valid = revalidate(m, rep, now, origin, session);
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
            } => self.follower_info(m, rep, now, from, zxid, accepted_epoch, out),
            PeerMsg::AckNewLeader { epoch } => self.ack_new_leader(m, rep, now, from, epoch, out),
            _ => {}
        }
    }

    /// The leader orders a client's write (`checkSession`): one of a session it no longer
    /// has, or is expiring, fails with SessionExpired; one from a server the session has
    /// left fails with SessionMoved; either way the write takes its zxid.
    #[allow(clippy::too_many_arguments)]
    fn propose(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        origin: Origin,
        session: i64,
        who: Rc<Vec<AuthId>>,
        op: WriteOp,
        out: &mut Vec<Output>,
    ) {
        let op = match op {
            WriteOp::Request(_) | WriteOp::Refused(_) => match rep.sessions.get(session) {
                None => WriteOp::Refused(ErrorCode::SessionExpired),
                Some(s) if s.closing => WriteOp::Refused(ErrorCode::SessionExpired),
                // A new leader's sessions have no owner until their first request
                // (`checkSession`).
                Some(_) => match *m.owners.entry(session).or_insert(origin.server) {
                    owner if owner != origin.server => WriteOp::Refused(ErrorCode::SessionMoved),
                    _ => op,
                },
            },
            op => op,
        };
        let mut write = rep.propose(now, session, who, op);
        write.origin = Some(origin);
        self.broadcast(m, rep, now, write, out);
    }

    /// The leader logs a write and proposes it to its synced followers (3.8's
    /// `forwardingFollowers`): one still joining gets it with its history, after what it
    /// lacks, never before (it would log the new write ahead of its gap and skip the history
    /// as known).
    pub(super) fn broadcast(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        write: Write,
        out: &mut Vec<Output>,
    ) {
        for &follower in &self.synced {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
        }
        m.log.insert(write.zxid, (write, BTreeSet::from([m.me])));
        self.commit(m, rep, now, out);
    }

    /// Commits, in order, every proposal a quorum has logged; a leader still gathering
    /// its quorum commits its history only once it has one (`establish`).
    pub(super) fn commit(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        if matches!(self.phase, Phase::Discovery(_)) {
            return;
        }
        loop {
            let quorum = m.quorum();
            let Some(entry) = m.log.first_entry() else {
                break;
            };
            if entry.get().1.len() < quorum {
                break;
            }
            let (write, _) = entry.remove();
            for &follower in &self.synced {
                out.push(to(follower, PeerMsg::Commit { zxid: write.zxid }));
            }
            m.apply(self, rep, now, write, out);
        }
        m.release_syncs(self, rep, now, out);
    }
}

impl Orders for Leading {
    fn leads(&self) -> bool {
        true
    }

    fn submit(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        sub: Submission,
        out: &mut Vec<Output>,
    ) {
        match sub.op {
            Forwarded::Write(op) => {
                self.propose(m, rep, now, sub.origin, sub.session, sub.who, op, out);
            }
            // The leader's sync: answered once what it has proposed so far is committed.
            Forwarded::Sync { path } => {
                m.syncs.push(Sync {
                    barrier: rep.last_proposed,
                    origin: sub.origin,
                    session: sub.session,
                    path,
                });
                m.release_syncs(self, rep, now, out);
            }
        }
    }
}

/// The leader's check of a resumed session: alive, and now on `origin`'s server.
pub(super) fn revalidate(
    m: &mut Member,
    rep: &mut Replica,
    now: Now,
    origin: Origin,
    session: i64,
) -> bool {
    let valid = rep.sessions.touch(session, now.mono_ms);
    if valid {
        m.owners.insert(session, origin.server);
    }
    valid
}
