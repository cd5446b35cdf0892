//! The leader's side of a follower's joining, as 3.8's `LearnerHandler` and `lead()` run
//! it. A leader in its epoch brings a registering follower up to date at once. A new
//! leader runs discovery and synchronization: once a quorum of followers registered it
//! takes a new epoch above every epoch they accepted, sends each its history (a `TRUNC` of
//! what it logged that no quorum did, then a `DIFF`) and `NEWLEADER`; once a quorum
//! acknowledged, it commits its own log's tail, which every write a quorum logged is in,
//! and serves. Its zxids restart at `epoch << 32`, and it takes over every session with a
//! fresh timeout.
//!
//! Folded: discovery's `LEADERINFO`/`ACKEPOCH` round trip is the `NEWLEADER` one here (a
//! follower takes the epoch it is sent unless it accepted a later one), and `SNAP` is not
//! needed: a member only ever applies committed writes, so a `TRUNC` never cuts what it
//! applied.

use super::config::EPOCH;
use super::ids::{Now, ServerId};
use super::leading::{Leading, Phase};
use super::member::Member;
use super::output::{Change, Output, to};
use super::peer::PeerMsg;
use super::replica::Replica;

impl Leading {
    /// A follower registers with its leader (`FOLLOWERINFO`): a leader in its epoch brings
    /// it up to date at once; a new leader counts it, and once a quorum registered takes
    /// its epoch and sends each its history.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn follower_info(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        from: ServerId,
        zxid: i64,
        accepted_epoch: u32,
        out: &mut Vec<Output>,
    ) {
        let quorum = m.quorum();
        let mine = m.accepted_epoch;
        let Phase::Discovery(d) = &mut self.phase else {
            self.sync_follower(m, rep, now, from, zxid, out);
            return;
        };
        d.infos.insert(from, (accepted_epoch, zxid));
        let to_sync: Vec<(ServerId, i64)> = match d.epoch {
            Some(_) => vec![(from, zxid)],
            None if d.infos.len() + 1 >= quorum => {
                let highest = d.infos.values().map(|&(e, _)| e).fold(mine, u32::max);
                d.epoch = Some(highest + 1);
                d.infos.iter().map(|(&f, &(_, z))| (f, z)).collect()
            }
            None => Vec::new(),
        };
        let Some(epoch) = d.epoch else {
            return;
        };
        m.accepted_epoch = epoch;
        for (follower, zxid) in to_sync {
            send_history(m, follower, zxid, out);
            out.push(to(follower, PeerMsg::NewLeader { epoch }));
        }
    }

    /// A follower took the new epoch and logged the history: with a quorum, the leader
    /// starts its epoch; a later one is brought up to date.
    pub(super) fn ack_new_leader(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        from: ServerId,
        epoch: u32,
        out: &mut Vec<Output>,
    ) {
        let quorum = m.quorum();
        match &mut self.phase {
            Phase::Discovery(d) if d.epoch == Some(epoch) => {
                d.acked.insert(from);
                if d.acked.len() + 1 >= quorum {
                    self.establish(m, rep, now, out);
                }
            }
            Phase::Broadcast if m.current_epoch == epoch => {
                self.synced.insert(from);
                up_to_date(m, rep, from, out);
            }
            _ => {}
        }
    }

    /// The new leader's quorum has its history: the history's tail commits, the epoch
    /// starts, and every session is taken over with a fresh timeout (3.8's new
    /// `LeaderSessionTracker`), an expiry the old leader had under way undone.
    fn establish(&mut self, m: &mut Member, rep: &mut Replica, now: Now, out: &mut Vec<Output>) {
        let Phase::Discovery(d) = std::mem::replace(&mut self.phase, Phase::Broadcast) else {
            return;
        };
        let epoch = d.epoch.unwrap_or(m.accepted_epoch);
        m.current_epoch = epoch;
        self.synced = d.acked.clone();
        let tail = std::mem::take(&mut m.log);
        for (write, _) in tail.into_values() {
            m.apply(self, rep, now, write, out);
        }
        for follower in d.acked {
            up_to_date(m, rep, follower, out);
        }
        let base = i64::from(epoch) << 32;
        rep.last_zxid = base;
        rep.last_proposed = base;
        rep.sessions.take_over(now.mono_ms);
        m.owners.clear();
        out.push(Output::Changed(Change::Leading { epoch, zxid: base }));
    }

    /// Brings follower `follower`, which has logged up to `zxid`, up to date in the
    /// current epoch: what it logged counts as acknowledged, it gets the history after
    /// that, then whatever its acknowledgements let commit, then UpToDate. The ensemble's
    /// first leader serves once a quorum is.
    fn sync_follower(
        &mut self,
        m: &mut Member,
        rep: &mut Replica,
        now: Now,
        follower: ServerId,
        zxid: i64,
        out: &mut Vec<Output>,
    ) {
        let common = send_history(m, follower, zxid, out);
        for (_, acks) in m.log.range_mut(..=common).map(|(_, e)| e) {
            acks.insert(follower);
        }
        self.synced.insert(follower);
        if matches!(self.phase, Phase::Boot { .. }) && self.has_quorum(m) {
            self.phase = Phase::Broadcast;
        }
        self.commit(m, rep, now, out);
        up_to_date(m, rep, follower, out);
    }
}

/// Commit what committed while it was away, its own log's proposals included, and
/// `UPTODATE`.
fn up_to_date(m: &Member, rep: &Replica, follower: ServerId, out: &mut Vec<Output>) {
    let last = m.committed.last().map(|w| w.zxid);
    let zxid = last.unwrap_or(rep.last_zxid);
    let epoch = m.current_epoch;
    out.push(to(follower, PeerMsg::Commit { zxid }));
    out.push(to(follower, PeerMsg::UpToDate { epoch }));
}

/// Sends `follower`, which has logged up to `zxid`, the history after the last point
/// they share: a `TRUNC` first when it logged what the leader does not have, then
/// every committed write after that point (proposal and commit) and the outstanding
/// proposals. The shared point.
fn send_history(m: &Member, follower: ServerId, zxid: i64, out: &mut Vec<Output>) -> i64 {
    let committed_upto = m.committed.partition_point(|w| w.zxid <= zxid);
    let last_committed = committed_upto.checked_sub(1).map(|i| m.committed[i].zxid);
    let last_logged = m.log.range(..=zxid).next_back().map(|(&z, _)| z);
    let common = last_committed
        .into_iter()
        .chain(last_logged)
        .max()
        .unwrap_or(EPOCH << 32)
        .min(zxid);
    if common < zxid {
        out.push(to(follower, PeerMsg::Trunc { zxid: common }));
    }
    for write in &m.committed[m.committed.partition_point(|w| w.zxid <= common)..] {
        out.push(to(follower, PeerMsg::Proposal(write.clone())));
        out.push(to(follower, PeerMsg::Commit { zxid: write.zxid }));
    }
    for (write, _) in m.log.range(common + 1..).map(|(_, e)| e) {
        out.push(to(follower, PeerMsg::Proposal(write.clone())));
    }
    common
}
