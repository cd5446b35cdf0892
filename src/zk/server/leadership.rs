//! Who leads, and taking up a role: a member goes LOOKING when it loses its leader, when
//! it leads without a quorum at its tick, when it cannot take up a role within initLimit,
//! and on every restart; it votes (`election`) until it decides. A new leader then runs
//! 3.8's discovery and synchronization: once a quorum of followers registered it takes a
//! new epoch above every epoch they accepted, sends each its history (a `TRUNC` of what it
//! logged that no quorum did, then a `DIFF`) and `NEWLEADER`; once a quorum acknowledged,
//! it commits its own log's tail, which every write a quorum logged is in, and serves. Its
//! zxids restart at `epoch << 32`, and it takes over every session with a fresh timeout.
//!
//! Folded: discovery's `LEADERINFO`/`ACKEPOCH` round trip is the `NEWLEADER` one here (a
//! follower takes the epoch it is sent unless it accepted a later one), and `SNAP` is not
//! needed: a member only ever applies committed writes, so a `TRUNC` never cuts what it
//! applied.

use super::election::{Election, Notification, Outcome, PeerState, Vote};
use super::ensemble::{Discovery, Phase, Role, to};
use super::{Change, Now, Output, PeerMsg, Server, ServerId};

impl Server {
    /// Whether the member can no longer keep its role: a leader without a quorum at its
    /// tick, a leader or follower that did not take up its role within initLimit.
    pub(super) fn gives_up(&mut self, now: Now) -> bool {
        let ens = self.ens();
        match &ens.role {
            Role::Leading(Phase::Broadcast) => !ens.has_quorum(),
            Role::Leading(Phase::Boot { until }) => now.mono_ms >= *until,
            Role::Leading(Phase::Discovery(d)) => now.mono_ms >= d.until,
            Role::Following { until, .. } => !ens.linked && now.mono_ms >= *until,
            Role::Looking(_) => false,
        }
    }

    /// Leaves its role to look for a leader: its clients' connections close
    /// (`closeAllConnections`), and it votes for itself in a new round.
    pub(super) fn start_looking(&mut self, now: Now, out: &mut Vec<Output>) {
        let own = Vote {
            epoch: self.ens().current_epoch,
            zxid: self.known_zxid(),
            leader: self.ens().me,
        };
        let ens = self.ens();
        let mut conns = ens.forget_clients();
        ens.linked = false;
        ens.synced.clear();
        ens.touched_unasked.clear();
        ens.ballot.round += 1;
        ens.ballot.vote = own;
        ens.role = Role::Looking(Election::start(
            ens.me,
            own,
            ens.quorum(),
            ens.clocks,
            now.mono_ms,
        ));
        self.send_vote(None, out);
        conns.extend(self.conns.keys());
        for conn in conns {
            self.detach(conn);
            out.push(Output::Close { conn });
        }
    }

    /// Its vote, as it stands, to `peer` or to every other member.
    fn send_vote(&mut self, peer: Option<ServerId>, out: &mut Vec<Output>) {
        let ens = self.ens();
        let state = match ens.role {
            Role::Looking(_) => PeerState::Looking,
            Role::Following { .. } => PeerState::Following,
            Role::Leading(_) => PeerState::Leading,
        };
        let n = Notification {
            vote: ens.ballot.vote,
            round: ens.ballot.round,
            state,
        };
        let peers: Vec<ServerId> = match peer {
            Some(peer) => vec![peer],
            None => ens.followers().collect(),
        };
        out.extend(peers.into_iter().map(|p| to(p, PeerMsg::Notification(n))));
    }

    /// A vote from `from`: counted while looking; a member that follows or leads answers
    /// a looking one with the vote it decided on.
    pub(super) fn hear_vote(
        &mut self,
        now: Now,
        from: ServerId,
        n: Notification,
        out: &mut Vec<Output>,
    ) {
        let ens = self.ens();
        let outcome = match &mut ens.role {
            Role::Looking(e) => e.hear(&mut ens.ballot, from, n, now.mono_ms),
            _ if n.state == PeerState::Looking => Outcome::Answer,
            _ => return,
        };
        self.follow_outcome(now, from, outcome, out);
    }

    /// An election's tick or wake: it decides, or sends its vote again.
    pub(super) fn election_step(&mut self, now: Now, out: &mut Vec<Output>) {
        let ens = self.ens();
        let ballot = ens.ballot;
        let Role::Looking(e) = &mut ens.role else {
            return;
        };
        let outcome = e.tick(ballot, now.mono_ms);
        let me = ens.me;
        self.follow_outcome(now, me, outcome, out);
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
        let ens = self.ens();
        let until = now.mono_ms.saturating_add(ens.init_limit_ms);
        ens.role = match leader == ens.me {
            true => {
                ens.to_apply.clear();
                Role::Leading(Phase::Discovery(Discovery {
                    until,
                    ..Discovery::default()
                }))
            }
            false => Role::Following { leader, until },
        };
    }

    /// A follower registers with its leader (`FOLLOWERINFO`): a leader in its epoch brings
    /// it up to date at once; a new leader counts it, and once a quorum registered takes
    /// its epoch and sends each its history.
    pub(super) fn follower_info(
        &mut self,
        now: Now,
        from: ServerId,
        zxid: i64,
        accepted_epoch: u32,
        out: &mut Vec<Output>,
    ) {
        let ens = self.ens();
        let quorum = ens.quorum();
        let mine = ens.accepted_epoch;
        let Role::Leading(Phase::Discovery(d)) = &mut ens.role else {
            self.sync_follower(now, from, zxid, out);
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
        ens.accepted_epoch = epoch;
        for (follower, zxid) in to_sync {
            self.send_history(follower, zxid, out);
            out.push(to(follower, PeerMsg::NewLeader { epoch }));
        }
    }

    /// A follower took the new epoch and logged the history: with a quorum, the leader
    /// starts its epoch; a later one is brought up to date.
    pub(super) fn ack_new_leader(
        &mut self,
        now: Now,
        from: ServerId,
        epoch: u32,
        out: &mut Vec<Output>,
    ) {
        let ens = self.ens();
        let quorum = ens.quorum();
        match &mut ens.role {
            Role::Leading(Phase::Discovery(d)) if d.epoch == Some(epoch) => {
                d.acked.insert(from);
                if d.acked.len() + 1 >= quorum {
                    self.establish(now, out);
                }
            }
            Role::Leading(Phase::Broadcast) if ens.current_epoch == epoch => {
                ens.synced.insert(from);
                self.up_to_date(from, out);
            }
            _ => {}
        }
    }

    /// The new leader's quorum has its history: the history's tail commits, the epoch
    /// starts, and every session is taken over with a fresh timeout (3.8's new
    /// `LeaderSessionTracker`), an expiry the old leader had under way undone.
    fn establish(&mut self, now: Now, out: &mut Vec<Output>) {
        let ens = self.ens();
        let Role::Leading(Phase::Discovery(d)) =
            std::mem::replace(&mut ens.role, Role::Leading(Phase::Broadcast))
        else {
            return;
        };
        let epoch = d.epoch.unwrap_or(ens.accepted_epoch);
        ens.current_epoch = epoch;
        ens.synced = d.acked.clone();
        let tail = std::mem::take(&mut ens.log);
        for (write, _) in tail.into_values() {
            self.apply(now, write, out);
        }
        for follower in d.acked {
            self.up_to_date(follower, out);
        }
        let base = i64::from(epoch) << 32;
        self.last_zxid = base;
        self.last_proposed = base;
        self.sessions.take_over(now.mono_ms);
        self.ens().owners.clear();
        out.push(Output::Changed(Change::Leading { epoch, zxid: base }));
    }

    /// Brings follower `follower`, which has logged up to `zxid`, up to date in the
    /// current epoch: what it logged counts as acknowledged, it gets the history after
    /// that, then whatever its acknowledgements let commit, then UpToDate. The ensemble's
    /// first leader serves once a quorum is.
    pub(super) fn sync_follower(
        &mut self,
        now: Now,
        follower: ServerId,
        zxid: i64,
        out: &mut Vec<Output>,
    ) {
        let common = self.send_history(follower, zxid, out);
        let ens = self.ens();
        for (_, acks) in ens.log.range_mut(..=common).map(|(_, e)| e) {
            acks.insert(follower);
        }
        ens.synced.insert(follower);
        if matches!(ens.role, Role::Leading(Phase::Boot { .. })) && ens.has_quorum() {
            ens.role = Role::Leading(Phase::Broadcast);
        }
        self.leader_commit(now, out);
        self.up_to_date(follower, out);
    }

    /// Commit what committed while it was away, its own log's proposals included, and
    /// `UPTODATE`.
    fn up_to_date(&mut self, follower: ServerId, out: &mut Vec<Output>) {
        let last = self.ens().committed.last().map(|w| w.zxid);
        let zxid = last.unwrap_or(self.last_zxid);
        let epoch = self.ens().current_epoch;
        out.push(to(follower, PeerMsg::Commit { zxid }));
        out.push(to(follower, PeerMsg::UpToDate { epoch }));
    }

    /// Sends `follower`, which has logged up to `zxid`, the history after the last point
    /// they share: a `TRUNC` first when it logged what the leader does not have, then
    /// every committed write after that point (proposal and commit) and the outstanding
    /// proposals. The shared point.
    fn send_history(&mut self, follower: ServerId, zxid: i64, out: &mut Vec<Output>) -> i64 {
        let ens = self.ens();
        let committed_upto = ens.committed.partition_point(|w| w.zxid <= zxid);
        let last_committed = committed_upto.checked_sub(1).map(|i| ens.committed[i].zxid);
        let last_logged = ens.log.range(..=zxid).next_back().map(|(&z, _)| z);
        let common = last_committed
            .into_iter()
            .chain(last_logged)
            .max()
            .unwrap_or(super::EPOCH << 32)
            .min(zxid);
        if common < zxid {
            out.push(to(follower, PeerMsg::Trunc { zxid: common }));
        }
        for write in &ens.committed[ens.committed.partition_point(|w| w.zxid <= common)..] {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
            out.push(to(follower, PeerMsg::Commit { zxid: write.zxid }));
        }
        for (write, _) in ens.log.range(common + 1..).map(|(_, e)| e) {
            out.push(to(follower, PeerMsg::Proposal(write.clone())));
        }
        common
    }

    /// A follower drops what it logged after `zxid`, which no quorum logged. It applied
    /// none of it: members apply only what committed.
    pub(super) fn truncate(&mut self, zxid: i64) {
        let ens = self.ens();
        ens.log.split_off(&(zxid + 1));
        let applied = ens.committed.last().map_or(super::EPOCH << 32, |w| w.zxid);
        if self.last_zxid > zxid {
            // A deposed leader's: its epoch's start, which no write carries.
            self.last_zxid = applied;
        }
    }

    /// The new leader's `NEWLEADER`: the follower takes its epoch, unless it accepted a
    /// later one, and acknowledges.
    pub(super) fn new_leader(&mut self, from: ServerId, epoch: u32, out: &mut Vec<Output>) {
        let ens = self.ens();
        if epoch < ens.accepted_epoch {
            return;
        }
        ens.accepted_epoch = epoch;
        ens.current_epoch = epoch;
        out.push(to(from, PeerMsg::AckNewLeader { epoch }));
    }
}
