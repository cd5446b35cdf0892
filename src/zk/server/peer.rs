//! What the members of an ensemble send each other ([`PeerMsg`]), and who a member works
//! with on the quorum port ([`QuorumRole`]). Messages on the quorum port (2888) go between a
//! leader and its followers (3.8's `QuorumPacket`s); votes go on the election port (3888).

use std::rc::Rc;

use super::ids::{Origin, ServerId};
use super::looking::Notification;
use super::write::{Write, WriteOp};
use crate::zk::acl::AuthId;

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
