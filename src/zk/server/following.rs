//! The FOLLOWING role, as 3.8's `Follower` (a `Learner`) runs it: it logs its leader's
//! proposals and acknowledges them, applies what committed after its apply lag, forwards
//! its clients' writes and syncs to the leader, and keeps its clients' sessions alive by
//! touching them on the leader. It serves clients only once linked to its leader and up to
//! date (`UPTODATE`). A link is FIFO: a follower that sees a gap in what it receives asks
//! the leader for everything after what it has (`FOLLOWERINFO`, answered as a `DIFF`).

use std::collections::BTreeSet;

use super::config::EPOCH;
use super::ids::{Now, ServerId};
use super::member::{Member, Orders, Submission, Sync};
use super::output::{Output, to};
use super::peer::PeerMsg;
use super::replica::Replica;
use super::write::Write;

/// A follower's state.
#[derive(Debug)]
pub(super) struct Following {
    pub(super) leader: ServerId,
    /// Until it is up to date, it gives up at `until` (initLimit).
    until: u64,
    /// Whether it is linked to its leader and up to date: only then it serves clients.
    pub(super) linked: bool,
}

impl Following {
    pub(super) fn new(leader: ServerId, until: u64) -> Self {
        Following {
            leader,
            until,
            linked: false,
        }
    }

    /// When it gives up joining its leader (initLimit), while it is not yet up to date.
    pub(super) fn poll_timeout(&self) -> Option<u64> {
        (!self.linked).then_some(self.until)
    }

    /// Its tick: false when it cannot keep its role (it did not join within initLimit).
    pub(super) fn handle_timeout(&self, now: Now) -> bool {
        self.poll_timeout().is_none_or(|until| now.mono_ms < until)
    }

    /// What its leader sends it.
    pub(super) fn handle(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        msg: PeerMsg,
        out: &mut Vec<Output>,
    ) {
        let from = self.leader;
        match msg {
            PeerMsg::UpToDate { epoch } => {
                self.linked = true;
                m.accepted_epoch = m.accepted_epoch.max(epoch);
                m.current_epoch = m.current_epoch.max(epoch);
                // What the sync brought is applied before serving, whatever the lag.
                for (due, _) in m.to_apply.iter_mut() {
                    *due = 0;
                }
                m.apply_due(self, rep, now, out);
            }
            PeerMsg::Ping => touch(m, now, from, true, out),
            PeerMsg::Proposal(write) => self.log(m, rep, now, write, out),
            PeerMsg::Commit { zxid } if zxid > m.known_zxid(rep) => {
                out.push(to(from, m.follower_info_msg(rep)));
            }
            PeerMsg::Commit { zxid } => {
                let due = now.mono_ms.saturating_add(m.config.apply_lag_ms);
                m.to_apply.push_back((due, zxid));
                m.apply_due(self, rep, now, out);
            }
            PeerMsg::Synced {
                origin,
                session,
                zxid,
                path,
            } => {
                m.syncs.push(Sync {
                    barrier: zxid,
                    origin,
                    session,
                    path,
                });
                m.release_syncs(self, rep, now, out);
            }
            PeerMsg::Revalidated {
                origin,
                session,
                valid,
            } => m.revalidated(rep, now, origin, session, valid, out),
            PeerMsg::Trunc { zxid } => truncate(m, rep, zxid),
            PeerMsg::NewLeader { epoch } => new_leader(m, from, epoch, out),
            _ => {}
        }
    }

    /// Logs the leader's next write and acknowledges it; one it has already is ignored,
    /// and a gap makes it ask for what it missed.
    fn log(&self, m: &mut Member, rep: &Replica, now: Now, write: Write, out: &mut Vec<Output>) {
        let known = m.known_zxid(rep);
        let zxid = write.zxid;
        let leader = self.leader;
        if zxid <= known {
            // Logged already: the ack may be what was lost.
            if m.log.contains_key(&zxid) {
                out.push(to(leader, PeerMsg::Ack { zxid }));
            }
            return;
        }
        // The next write is the next zxid, or the first of a later epoch.
        let next_epoch = zxid >> 32 > known >> 32 && zxid & 0xffff_ffff == 1;
        if zxid != known + 1 && !next_epoch {
            out.push(to(leader, m.follower_info_msg(rep)));
            return;
        }
        m.log.insert(zxid, (write, BTreeSet::new()));
        out.push(to(leader, PeerMsg::Ack { zxid }));
        if now.mono_ms >= m.touch_sent_ms.saturating_add(m.tick_ms / 2) {
            touch(m, now, leader, false, out);
        }
    }
}

impl Orders for Following {
    fn leads(&self) -> bool {
        false
    }

    /// Sends its client's write or sync to the leader.
    fn submit(
        &mut self,
        _: &mut Member,
        _: &mut Replica,
        _: Now,
        sub: Submission,
        out: &mut Vec<Output>,
    ) {
        let msg = PeerMsg::Forward {
            origin: sub.origin,
            session: sub.session,
            who: sub.who,
            op: sub.op,
        };
        out.push(to(self.leader, msg));
    }
}

/// Tells the leader which sessions its clients kept alive: in answer to a ping, as 3.8's
/// `Learner.ping`, or with an ack half a tick after its last, as often as 3.8's leader
/// pings (every half tick), so that a busy link needs no ping.
fn touch(m: &mut Member, now: Now, leader: ServerId, answer: bool, out: &mut Vec<Output>) {
    m.touch_sent_ms = now.mono_ms;
    let sessions = std::mem::take(&mut m.touched).into_iter().collect();
    out.push(to(leader, PeerMsg::Touch { sessions, answer }));
}

/// Drops what it logged after `zxid`, which no quorum logged. It applied none of it:
/// members apply only what committed.
fn truncate(m: &mut Member, rep: &mut Replica, zxid: i64) {
    m.log.split_off(&(zxid + 1));
    let applied = m.committed.last().map_or(EPOCH << 32, |w| w.zxid);
    if rep.last_zxid > zxid {
        // A deposed leader's: its epoch's start, which no write carries.
        rep.last_zxid = applied;
    }
}

/// The new leader's `NEWLEADER`: it takes its epoch, unless it accepted a later one, and
/// acknowledges.
fn new_leader(m: &mut Member, from: ServerId, epoch: u32, out: &mut Vec<Output>) {
    if epoch < m.accepted_epoch {
        return;
    }
    m.accepted_epoch = epoch;
    m.current_epoch = epoch;
    out.push(to(from, PeerMsg::AckNewLeader { epoch }));
}
