//! How near a member's reads come to missing their session's own writes. For each session,
//! the member keeps the last write of the session's it applied that came in on another
//! member, and when that write was due here. A read the session makes here then has the
//! time since to spare. A read while such a write still waits here has none: it misses the
//! session's own write, which 3.8 allows across members without `sync` (bugs Z15, Z16).
//! Only a write the session had not seen answered when it connected here counts: a member
//! refuses a client that saw a newer zxid than its own, so a seen write is applied here
//! before the session's first read, and no delay of its apply could make a read miss it.
//! The guided search pushes the runs whose reads came nearest (`recorder::Margin`), so it is
//! measured in its runs only.

use std::collections::BTreeMap;

use super::ids::ServerId;
use super::write::{Write, WriteOp};

/// The margin's name, as the search reads it.
pub const READ_YOUR_WRITES: &str = "read-your-writes";

/// For each session, the zxid of the last write of its a member applied that came in on
/// another member and when it was due there (monotonic ms), and the last zxid the session
/// had seen when it connected there.
#[derive(Debug, Default)]
pub(super) struct OwnWrites {
    last: BTreeMap<i64, (i64, u64)>,
    seen: BTreeMap<i64, i64>,
}

/// Whether `write` is a client's write that came in on a member other than `me`.
fn from_elsewhere(me: ServerId, write: &Write) -> bool {
    matches!(write.op, WriteOp::Request(_))
        && write.session != 0
        && write.origin.is_some_and(|o| o.server != me)
}

impl OwnWrites {
    /// Member `me` applies `write`, due at `due_ms`. A write that came in here ends what
    /// a read could miss: its session's next requests wait for its answer.
    pub(super) fn applied(&mut self, me: ServerId, write: &Write, due_ms: u64) {
        if from_elsewhere(me, write) {
            self.last.insert(write.session, (write.zxid, due_ms));
        } else if write.origin.is_some_and(|o| o.server == me) {
            self.last.remove(&write.session);
        }
    }

    /// `session` connects to the member, having seen zxids up to `seen`.
    pub(super) fn connected(&mut self, session: i64, seen: i64) {
        self.seen.insert(session, seen);
    }
}

impl OwnWrites {
    /// What a read by `session` at `now_ms` on member `me` has to spare (ms) before it would
    /// miss the session's last write that came in on another member, unseen when it
    /// connected here: negative while such a write still waits here among `waiting` (the
    /// member's logged writes), by the time until `due` says it applies (no commit yet:
    /// -1). None when the session has no such write.
    pub(super) fn read_margin<'a>(
        &self,
        me: ServerId,
        session: i64,
        now_ms: u64,
        waiting: impl IntoIterator<Item = &'a Write>,
        due: impl Fn(i64) -> Option<u64>,
    ) -> Option<i64> {
        let ms = |due: u64| now_ms as i64 - due as i64;
        let waiting = waiting
            .into_iter()
            .find(|write| write.session == session && from_elsewhere(me, write));
        if let Some(write) = waiting {
            return Some(due(write.zxid).map_or(-1, |due| ms(due).min(-1)));
        }
        let seen = self.seen.get(&session).copied().unwrap_or(i64::MAX);
        self.last
            .get(&session)
            .filter(|&&(zxid, _)| zxid > seen)
            .map(|&(_, due)| ms(due))
    }
}
