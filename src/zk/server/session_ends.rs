//! How near a session's reads came to missing a node that another session's end deleted. A
//! read that found an ephemeral node of another session, and the end of that session (an
//! expiry, a close) that deleted the node later, have the time between them to spare: were
//! the read that much later, it would find no node. That is the window of a lock waiter
//! whose predecessor vanishes between its listing and its look at it (bug Z4), and of any
//! recipe that reads the nodes of others' sessions. The reader's previous request came
//! before the node went, so making the reader's requests late from that one on moves the
//! read alone past the end (`explore::mutate`'s squeeze). The guided search pushes the runs
//! that came nearest (`recorder::Margin`), so it is measured in its runs only.

use std::collections::BTreeMap;

use super::ids::ConnId;
use super::output::{Output, ReadBeforeEnd};

/// The margin's name, as the search reads it.
pub const READ_BEFORE_END: &str = "read-before-end";

/// A read of another session's ephemeral node: on which connection, when the reader's
/// previous request came in, and when the read did (monotonic ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Read {
    conn: ConnId,
    since_ms: u64,
    at_ms: u64,
}

/// The reads of other sessions' ephemeral nodes, until the nodes go.
#[derive(Debug, Default)]
pub(super) struct SessionEnds {
    /// When each session's last request (a ping aside) came in.
    last: BTreeMap<i64, u64>,
    /// For each ephemeral node read by sessions other than its owner, each reader's last
    /// read of it.
    reads: BTreeMap<String, BTreeMap<i64, Read>>,
    /// Reads of nodes a session's end deleted, whose margins are not yet out.
    ended: Vec<Read>,
}

impl SessionEnds {
    /// `session`'s request on `conn` came in at `now_ms`; `reads` names the node when it is
    /// a read of an ephemeral node another session owns. A read with no earlier request of
    /// its session has nothing to make late without making the node's listing late too.
    pub(super) fn request(&mut self, session: i64, conn: ConnId, now_ms: u64, reads: Option<&str>) {
        let since = self.last.insert(session, now_ms);
        if let (Some(path), Some(since_ms)) = (reads, since) {
            let read = Read {
                conn,
                since_ms,
                at_ms: now_ms,
            };
            self.reads
                .entry(path.to_string())
                .or_default()
                .insert(session, read);
        }
    }

    /// Node `path` is deleted, by the end of its owner's session when `by_end`: only then
    /// could a later read have found it gone and its owner no longer there to be ahead.
    pub(super) fn deleted(&mut self, path: &str, by_end: bool) {
        if let Some(reads) = self.reads.remove(path)
            && by_end
        {
            self.ended.extend(reads.into_values());
        }
    }

    /// `session` ended: it makes no more requests.
    pub(super) fn ended(&mut self, session: i64) {
        self.last.remove(&session);
    }

    /// The margins of the reads whose nodes a session's end deleted, now at `now_ms`, into
    /// `out`.
    pub(super) fn margins(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        for read in self.ended.drain(..) {
            out.push(Output::ReadBeforeEnd(ReadBeforeEnd {
                conn: read.conn,
                since_ms: read.since_ms,
                read_ms: read.at_ms,
                ms: now_ms.saturating_sub(read.at_ms),
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn margins(ends: &mut SessionEnds, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        ends.margins(now_ms, &mut out);
        out
    }

    #[test]
    fn a_read_of_a_node_a_session_end_deleted_has_the_time_since_to_spare() {
        let mut ends = SessionEnds::default();
        ends.request(2, 7, 100, None);
        ends.request(2, 7, 104, Some("/lock/n1"));
        ends.deleted("/lock/n1", true);
        let read = ReadBeforeEnd {
            conn: 7,
            since_ms: 100,
            read_ms: 104,
            ms: 26,
        };
        assert_eq!(margins(&mut ends, 130), [Output::ReadBeforeEnd(read)]);
        assert!(
            margins(&mut ends, 140).is_empty(),
            "each margin goes out once"
        );
    }

    #[test]
    fn a_node_its_owner_deleted_or_a_read_with_nothing_before_it_has_no_margin() {
        let mut ends = SessionEnds::default();
        ends.request(2, 7, 100, None);
        ends.request(2, 7, 104, Some("/lock/n1"));
        ends.deleted("/lock/n1", false);
        ends.deleted("/lock/n1", true);
        ends.request(3, 8, 110, Some("/lock/n2"));
        ends.deleted("/lock/n2", true);
        assert!(margins(&mut ends, 130).is_empty());
    }

    #[test]
    fn only_each_readers_last_read_counts_and_an_ended_reader_starts_over() {
        let mut ends = SessionEnds::default();
        ends.request(2, 7, 100, None);
        ends.request(2, 7, 104, Some("/lock/n1"));
        ends.request(2, 7, 120, Some("/lock/n1"));
        ends.ended(2);
        ends.request(2, 9, 125, Some("/lock/n1"));
        ends.deleted("/lock/n1", true);
        let out = margins(&mut ends, 130);
        assert!(
            matches!(
                out.as_slice(),
                [Output::ReadBeforeEnd(ReadBeforeEnd {
                    read_ms: 120,
                    ms: 10,
                    ..
                })]
            ),
            "{out:?}"
        );
    }
}
