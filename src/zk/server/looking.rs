//! The LOOKING role: leader election, as 3.8's `FastLeaderElection` runs it. A member that
//! loses its leader (or a leader that loses its quorum) goes LOOKING: it raises its round,
//! votes for itself and sends its vote to every other member; it adopts any better vote it
//! hears and sends that on. Once a quorum holds its vote, and no better one arrives for
//! `finalizeWait`, it decides: it leads, or follows the member it voted for. A member that
//! is not LOOKING answers a LOOKING one with the vote it decided on, so a member that comes
//! back joins the leader a quorum already follows rather than starting over (`checkLeader`:
//! the leader's own answer must say it leads). Votes come in through [`Looking::handle`],
//! time through [`Looking::handle_timeout`], and [`Looking::poll_timeout`] says when it
//! next needs it.

use std::collections::BTreeMap;

use super::ids::ServerId;

/// A vote: who should lead, and why. Votes order by the candidate's current epoch, then its
/// last logged zxid, then its id (`totalOrderPredicate`): the member whose log is the most
/// complete wins, so every write a quorum logged survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Vote {
    pub epoch: u32,
    pub zxid: i64,
    pub leader: ServerId,
}

/// Where the sender stands, as its notification says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerState {
    Looking,
    Following,
    Leading,
}

/// An election message (sent on the election port, 3888).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notification {
    pub vote: Vote,
    /// The sender's logical clock: its election round.
    pub round: u64,
    pub state: PeerState,
}

/// A member's logical clock and current vote: what it sends while LOOKING, and what it
/// answers with once it follows or leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ballot {
    pub round: u64,
    pub vote: Vote,
}

/// A LOOKING member's election in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Looking {
    me: ServerId,
    /// Its own vote this election: itself, with its epoch and last logged zxid.
    own: Vote,
    quorum: usize,
    clocks: Clocks,
    /// This round's votes from LOOKING members, its own included.
    recv: BTreeMap<ServerId, Vote>,
    /// Votes of members already following or leading: (vote, their round, state).
    decided: BTreeMap<ServerId, (Vote, u64, PeerState)>,
    /// When it decides, if no better vote comes first (monotonic ms).
    pub decide_at: Option<u64>,
    /// When it sends its vote again for want of an answer, and how long it waits after.
    resend_at: u64,
    backoff_ms: u64,
}

/// What an election step leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Still looking; send the vote to every other member when `send`.
    Looking { send: bool },
    /// Still looking: the sender is in an older round, and learns ours from our answer.
    Answer,
    /// Decided: follow this member, or lead when it is the member itself.
    Decided(ServerId),
}

/// The election's clocks, in 3.8's sample ratios to the tick: `finalizeWait` is a tenth
/// of a tick (200 ms of 2 s) and the resend interval doubles from it up to 30 ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Clocks {
    pub finalize_ms: u64,
    pub max_backoff_ms: u64,
}

impl Clocks {
    pub fn of_tick(tick_ms: u64) -> Clocks {
        Clocks {
            finalize_ms: (tick_ms / 10).max(1),
            max_backoff_ms: tick_ms.saturating_mul(30).max(1),
        }
    }
}

impl Looking {
    /// A new round: the member votes for itself (`own`), which it sends at once.
    pub fn start(me: ServerId, own: Vote, quorum: usize, clocks: Clocks, now_ms: u64) -> Looking {
        Looking {
            me,
            own,
            quorum,
            clocks,
            recv: BTreeMap::from([(me, own)]),
            decided: BTreeMap::new(),
            decide_at: None,
            resend_at: now_ms.saturating_add(clocks.finalize_ms),
            backoff_ms: clocks.finalize_ms,
        }
    }

    /// A notification from `from`, while this member is LOOKING with `ballot` (updated
    /// here).
    pub fn handle(
        &mut self,
        ballot: &mut Ballot,
        from: ServerId,
        n: Notification,
        now_ms: u64,
    ) -> Outcome {
        if n.state != PeerState::Looking {
            return self.hear_decided(ballot, from, n);
        }
        let mut send = false;
        if n.round > ballot.round {
            // A newer round: start it over, with the better of our own vote and theirs.
            ballot.round = n.round;
            self.recv.clear();
            ballot.vote = self.own.max(n.vote);
            self.decide_at = None;
            send = true;
        } else if n.round < ballot.round {
            // An older round counts for nothing.
            return Outcome::Answer;
        } else if n.vote > ballot.vote {
            ballot.vote = n.vote;
            self.decide_at = None;
            send = true;
        }
        self.recv.insert(self.me, ballot.vote);
        self.recv.insert(from, n.vote);
        let holding = self.recv.values().filter(|v| **v == ballot.vote).count();
        if holding >= self.quorum && self.decide_at.is_none() {
            self.decide_at = Some(now_ms.saturating_add(self.clocks.finalize_ms));
        }
        if send {
            self.resend_at = now_ms.saturating_add(self.backoff_ms);
        }
        Outcome::Looking { send }
    }

    /// A member that follows or leads: join its leader once a quorum of such members agree
    /// on it and the leader itself says it leads.
    fn hear_decided(&mut self, ballot: &mut Ballot, from: ServerId, n: Notification) -> Outcome {
        if n.round == ballot.round {
            // A member that decided in this very round counts as a vote in it; when the
            // vote is for this member, it leads (`checkLeader` of its own id).
            self.recv.insert(from, n.vote);
            let holding = self.recv.values().filter(|v| **v == n.vote).count();
            let leads = n.vote.leader == self.me
                || self.decided.get(&n.vote.leader).is_some_and(|(v, r, s)| {
                    *v == n.vote && *r == n.round && *s == PeerState::Leading
                });
            if holding >= self.quorum && leads {
                ballot.vote = n.vote;
                return Outcome::Decided(n.vote.leader);
            }
        }
        self.decided.insert(from, (n.vote, n.round, n.state));
        let agree = self
            .decided
            .values()
            .filter(|(v, r, _)| *v == n.vote && *r == n.round)
            .count();
        let leads = self
            .decided
            .get(&n.vote.leader)
            .is_some_and(|(v, r, s)| *v == n.vote && *r == n.round && *s == PeerState::Leading);
        if agree >= self.quorum && leads {
            *ballot = Ballot {
                round: n.round,
                vote: n.vote,
            };
            return Outcome::Decided(n.vote.leader);
        }
        Outcome::Looking { send: false }
    }

    /// Time passing: decide once the finalize wait is over, or send the vote again once
    /// nobody answered for a while.
    pub fn handle_timeout(&mut self, ballot: Ballot, now_ms: u64) -> Outcome {
        if self.decide_at.is_some_and(|at| at <= now_ms) {
            return Outcome::Decided(ballot.vote.leader);
        }
        if now_ms < self.resend_at {
            return Outcome::Looking { send: false };
        }
        let max = self.clocks.max_backoff_ms;
        self.backoff_ms = self.backoff_ms.saturating_mul(2).min(max);
        self.resend_at = now_ms.saturating_add(self.backoff_ms);
        Outcome::Looking { send: true }
    }

    /// When it next decides or sends its vote again.
    pub fn poll_timeout(&self) -> u64 {
        self.decide_at
            .map_or(self.resend_at, |at| at.min(self.resend_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLOCKS: Clocks = Clocks {
        finalize_ms: 2,
        max_backoff_ms: 600,
    };

    fn vote(leader: ServerId, zxid: i64) -> Vote {
        Vote {
            epoch: 1,
            zxid,
            leader,
        }
    }

    fn looking(vote: Vote, round: u64) -> Notification {
        Notification {
            vote,
            round,
            state: PeerState::Looking,
        }
    }

    /// Member `me` LOOKING in `round`, voting for itself with `own`.
    fn election(me: ServerId, own: Vote, round: u64, quorum: usize) -> (Looking, Ballot) {
        let ballot = Ballot { round, vote: own };
        (Looking::start(me, own, quorum, CLOCKS, 0), ballot)
    }

    #[test]
    fn votes_order_by_epoch_then_zxid_then_id() {
        let older_epoch = Vote {
            epoch: 1,
            zxid: 99,
            leader: 3,
        };
        let newer_epoch = Vote {
            epoch: 2,
            zxid: 1,
            leader: 1,
        };
        assert!(newer_epoch > older_epoch);
        assert!(vote(1, 5) > vote(3, 4));
        assert!(vote(3, 5) > vote(2, 5));
    }

    #[test]
    fn a_member_adopts_a_better_vote_and_decides_after_the_finalize_wait() {
        let (mut e, mut ballot) = election(1, vote(1, 4), 1, 2);
        let out = e.handle(&mut ballot, 2, looking(vote(2, 5), 1), 10);
        assert_eq!(out, Outcome::Looking { send: true });
        assert_eq!(ballot.vote, vote(2, 5));
        assert_eq!(e.decide_at, Some(12));
        assert_eq!(
            e.handle_timeout(ballot, 11),
            Outcome::Looking { send: false }
        );
        assert_eq!(e.handle_timeout(ballot, 12), Outcome::Decided(2));
    }

    #[test]
    fn a_better_vote_during_the_finalize_wait_puts_the_decision_off() {
        let (mut e, mut ballot) = election(2, vote(2, 5), 1, 2);
        e.handle(&mut ballot, 1, looking(vote(2, 5), 1), 10);
        assert_eq!(e.decide_at, Some(12));
        e.handle(&mut ballot, 3, looking(vote(3, 5), 1), 11);
        assert_eq!(ballot.vote, vote(3, 5));
        assert_eq!(
            e.handle_timeout(ballot, 12),
            Outcome::Looking { send: false }
        );
    }

    #[test]
    fn a_worse_vote_changes_nothing_and_an_older_round_is_answered() {
        let own = vote(3, 9);
        let (mut e, mut ballot) = election(3, own, 2, 3);
        let out = e.handle(&mut ballot, 1, looking(vote(1, 2), 2), 1);
        assert_eq!(out, Outcome::Looking { send: false });
        assert_eq!(ballot.vote, own);
        let out = e.handle(&mut ballot, 1, looking(vote(1, 2), 1), 1);
        assert_eq!(out, Outcome::Answer);
        assert_eq!(ballot.round, 2);
    }

    #[test]
    fn a_member_joins_an_established_leader_only_with_a_quorum_and_the_leader_s_word() {
        let (mut e, mut ballot) = election(1, vote(1, 1), 5, 2);
        let decided = vote(3, 7);
        let following = Notification {
            vote: decided,
            round: 4,
            state: PeerState::Following,
        };
        let leading = Notification {
            state: PeerState::Leading,
            ..following
        };
        let out = e.handle(&mut ballot, 2, following, 1);
        assert_eq!(out, Outcome::Looking { send: false });
        let out = e.handle(&mut ballot, 3, leading, 2);
        assert_eq!(out, Outcome::Decided(3));
        assert_eq!(
            ballot,
            Ballot {
                round: 4,
                vote: decided
            }
        );
    }

    #[test]
    fn silence_sends_the_vote_again_less_and_less_often() {
        let (mut e, ballot) = election(1, vote(1, 1), 1, 2);
        assert_eq!(
            e.handle_timeout(ballot, 1),
            Outcome::Looking { send: false }
        );
        assert_eq!(e.handle_timeout(ballot, 2), Outcome::Looking { send: true });
        assert_eq!(
            e.handle_timeout(ballot, 5),
            Outcome::Looking { send: false }
        );
        assert_eq!(e.handle_timeout(ballot, 6), Outcome::Looking { send: true });
    }
}
