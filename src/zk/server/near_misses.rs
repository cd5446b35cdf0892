//! How near a session's reads came to missing a node, at either end of the node's life:
//!
//! - **read-before-end**: a read that found an ephemeral node of another session, and the
//!   end of that session (an expiry, a close) that deleted the node later, have the time
//!   between them to spare: were the read that much later, it would find no node. That is
//!   the window of a lock waiter whose predecessor vanishes between its listing and its look
//!   at it (bug Z4). The reader's previous request came before the node went, so making the
//!   reader's requests late from that one on moves the read alone past the end.
//! - **create-before-read**: a session's first look at a node another session created by
//!   name (`exists`, `getData`; not after listing its parent since the create) came that
//!   long after the create: were the create that much later, the look would find no node,
//!   as where a process takes a barrier node not made yet for one lifted (the window of
//!   `zk-barrier-unarmed`). The creator's previous request came before, so making its
//!   requests late from that one on moves the create alone past the look. A look after a
//!   listing that showed the node is left out: there the create made late moves the node
//!   out of the listing too, and the recipe sees a world that is merely later.
//!
//! `explore::mutate`'s squeeze closes them. The guided search pushes the runs that came
//! nearest (`recorder::Margin`), so they are measured in its runs only. A server measures
//! what its own clients asked: on an ensemble, a create and a look that came in through
//! different members are not paired.

use std::collections::{BTreeMap, BTreeSet};

use super::ids::ConnId;
use super::output::{Output, RequestMargin};
use crate::zk::tree::parent_of;

/// The margin of a read before the end of the session whose node it found.
pub(super) const READ_BEFORE_END: &str = "read-before-end";
/// The margin of a create by name before another session's first look at the node.
pub(super) const CREATE_BEFORE_READ: &str = "create-before-read";

/// A request on a connection: when its session's previous request came in, and when it
/// did (monotonic ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Asked {
    conn: ConnId,
    since_ms: u64,
    at_ms: u64,
}

/// What a request does that a near miss is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Looks<'a> {
    /// Nothing measured.
    Other,
    /// Reads a node that is there (`exists`, `getData`); `ephemeral_of_other` when it is an
    /// ephemeral node another session owns.
    Finds {
        path: &'a str,
        ephemeral_of_other: bool,
    },
    /// Creates a node by name (not sequential) that is not there yet.
    Creates { path: &'a str },
    /// Lists a node's children.
    Lists { path: &'a str },
}

/// The reads and creates that may come near a miss, until their nodes go.
#[derive(Debug, Default)]
pub(super) struct NearMisses {
    /// When each session's last request (a ping aside) came in.
    last: BTreeMap<i64, u64>,
    /// For each ephemeral node read by sessions other than its owner, each reader's last
    /// read of it.
    reads: BTreeMap<String, BTreeMap<i64, Asked>>,
    /// Reads of nodes a session's end deleted, whose margins are not yet out.
    ended: Vec<Asked>,
    /// Each node created by name, by which session and request.
    creates: BTreeMap<String, (i64, Asked)>,
    /// For each node created by name, the sessions that looked at it since.
    looked: BTreeMap<String, BTreeSet<i64>>,
    /// When each session last listed each node's children.
    listed: BTreeMap<(i64, String), u64>,
}

impl NearMisses {
    /// `session`'s request on `conn`, which `looks` as said, came in at `now_ms`; a
    /// create-before-read margin it closes goes into `out`. A request with no earlier one
    /// of its session has nothing to make late without making what it follows late too.
    pub(super) fn request(
        &mut self,
        session: i64,
        conn: ConnId,
        now_ms: u64,
        looks: Looks<'_>,
        out: &mut Vec<Output>,
    ) {
        let since = self.last.insert(session, now_ms);
        let asked = since.map(|since_ms| Asked {
            conn,
            since_ms,
            at_ms: now_ms,
        });
        match looks {
            Looks::Other => {}
            Looks::Lists { path } => {
                self.listed.insert((session, path.to_string()), now_ms);
            }
            Looks::Creates { path } => {
                self.looked.remove(path);
                match asked {
                    Some(asked) => self.creates.insert(path.to_string(), (session, asked)),
                    None => self.creates.remove(path),
                };
            }
            Looks::Finds {
                path,
                ephemeral_of_other,
            } => {
                if let (Some(asked), true) = (asked, ephemeral_of_other) {
                    let reads = self.reads.entry(path.to_string()).or_default();
                    reads.insert(session, asked);
                }
                self.first_look(session, now_ms, path, out);
            }
        }
    }

    /// `session` looked at `path` at `now_ms`: the first time since another session created
    /// it, and not after a listing that showed it, a near miss.
    fn first_look(&mut self, session: i64, now_ms: u64, path: &str, out: &mut Vec<Output>) {
        let Some(&(creator, create)) = self.creates.get(path) else {
            return;
        };
        let first = self
            .looked
            .entry(path.to_string())
            .or_default()
            .insert(session);
        let listed = self.listed.get(&(session, parent_of(path).to_string()));
        if creator == session || !first || listed.is_some_and(|&ms| ms >= create.at_ms) {
            return;
        }
        out.push(Output::RequestMargin(RequestMargin {
            name: CREATE_BEFORE_READ,
            conn: create.conn,
            since_ms: create.since_ms,
            at_ms: create.at_ms,
            ms: now_ms.saturating_sub(create.at_ms),
            reader: false,
        }));
    }

    /// Node `path` is deleted, by the end of its owner's session when `by_end`: only then
    /// could a later read have found it gone and its owner no longer there to be ahead.
    pub(super) fn deleted(&mut self, path: &str, by_end: bool) {
        self.creates.remove(path);
        self.looked.remove(path);
        if let Some(reads) = self.reads.remove(path)
            && by_end
        {
            self.ended.extend(reads.into_values());
        }
    }

    /// `session` ended: it makes no more requests.
    pub(super) fn ended(&mut self, session: i64) {
        self.last.remove(&session);
        self.listed.retain(|(s, _), _| *s != session);
    }

    /// The margins of the reads whose nodes a session's end deleted, now at `now_ms`, into
    /// `out`.
    pub(super) fn margins(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        for read in self.ended.drain(..) {
            out.push(Output::RequestMargin(RequestMargin {
                name: READ_BEFORE_END,
                conn: read.conn,
                since_ms: read.since_ms,
                at_ms: read.at_ms,
                ms: now_ms.saturating_sub(read.at_ms),
                reader: true,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(misses: &mut NearMisses, session: i64, at_ms: u64, looks: Looks<'_>) -> Vec<Output> {
        let mut out = Vec::new();
        misses.request(session, 10 + session as u64, at_ms, looks, &mut out);
        out
    }

    fn finds(path: &str) -> Looks<'_> {
        Looks::Finds {
            path,
            ephemeral_of_other: true,
        }
    }

    fn margins(misses: &mut NearMisses, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        misses.margins(now_ms, &mut out);
        out
    }

    /// A margin on session `session`'s connection.
    fn margin(name: &'static str, session: u64, span: (u64, u64), ms: u64) -> Output {
        Output::RequestMargin(RequestMargin {
            name,
            conn: 10 + session,
            since_ms: span.0,
            at_ms: span.1,
            ms,
            reader: name == READ_BEFORE_END,
        })
    }

    #[test]
    fn a_read_of_a_node_a_session_end_deleted_has_the_time_since_to_spare() {
        let mut misses = NearMisses::default();
        ask(&mut misses, 2, 100, Looks::Other);
        ask(&mut misses, 2, 104, finds("/lock/n1"));
        misses.deleted("/lock/n1", true);
        let read = margin(READ_BEFORE_END, 2, (100, 104), 26);
        assert_eq!(margins(&mut misses, 130), [read]);
        assert!(
            margins(&mut misses, 140).is_empty(),
            "each margin goes out once"
        );
    }

    #[test]
    fn a_node_its_owner_deleted_or_a_read_with_nothing_before_it_has_no_margin() {
        let mut misses = NearMisses::default();
        ask(&mut misses, 2, 100, Looks::Other);
        ask(&mut misses, 2, 104, finds("/lock/n1"));
        misses.deleted("/lock/n1", false);
        misses.deleted("/lock/n1", true);
        ask(&mut misses, 3, 110, finds("/lock/n2"));
        misses.deleted("/lock/n2", true);
        assert!(margins(&mut misses, 130).is_empty());
    }

    #[test]
    fn only_each_readers_last_read_counts_and_an_ended_reader_starts_over() {
        let mut misses = NearMisses::default();
        ask(&mut misses, 2, 100, Looks::Other);
        ask(&mut misses, 2, 104, finds("/lock/n1"));
        ask(&mut misses, 2, 120, finds("/lock/n1"));
        misses.ended(2);
        ask(&mut misses, 2, 125, finds("/lock/n1"));
        misses.deleted("/lock/n1", true);
        let read = margin(READ_BEFORE_END, 2, (104, 120), 10);
        assert_eq!(margins(&mut misses, 130), [read]);
    }

    #[test]
    fn a_first_look_at_a_node_another_session_created_had_the_time_since_the_create() {
        let mut misses = NearMisses::default();
        ask(&mut misses, 1, 90, Looks::Other);
        ask(&mut misses, 2, 95, Looks::Lists { path: "/b" });
        ask(&mut misses, 1, 100, Looks::Creates { path: "/b/r0" });
        let out = ask(&mut misses, 2, 107, finds("/b/r0"));
        assert_eq!(out, [margin(CREATE_BEFORE_READ, 1, (90, 100), 7)]);
        assert!(
            ask(&mut misses, 2, 120, finds("/b/r0")).is_empty(),
            "the first look only"
        );
        misses.deleted("/b/r0", false);
        ask(&mut misses, 1, 130, Looks::Creates { path: "/b/r0" });
        let out = ask(&mut misses, 2, 133, finds("/b/r0"));
        assert_eq!(
            out,
            [margin(CREATE_BEFORE_READ, 1, (100, 130), 3)],
            "created again"
        );
    }

    #[test]
    fn a_look_by_the_creator_or_after_a_listing_since_or_at_a_first_create_has_no_margin() {
        let mut misses = NearMisses::default();
        ask(&mut misses, 1, 100, Looks::Creates { path: "/first" });
        assert!(ask(&mut misses, 2, 105, finds("/first")).is_empty());
        ask(&mut misses, 1, 110, Looks::Creates { path: "/b/r0" });
        assert!(ask(&mut misses, 1, 112, finds("/b/r0")).is_empty());
        ask(&mut misses, 2, 115, Looks::Lists { path: "/b" });
        assert!(ask(&mut misses, 2, 117, finds("/b/r0")).is_empty());
    }
}
