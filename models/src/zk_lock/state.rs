//! The zk-lock model's state: the lock directory's children, each client's phase, watch and
//! pending event, the faults left, and what the properties look at.

use crate::symmetry::Renaming;
use locksim::zk::proto::EventType;
use stateright::Representative;

/// A child of the lock directory: its place in creation order (its name's number is the
/// counter's, `seq_start` on; the order is also its czxid's, the fencing token: the
/// directory's creates are the only writes) and the session that owns it: its client's
/// current one, or one the client abandoned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    pub seq: u8,
    pub owner: u8,
    /// Whether its session is one its client abandoned for a new one (`stale-session`).
    pub abandoned: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// About to send the create of its node.
    Idle,
    /// Its create's reply was lost: it lists the directory to look for its GUID.
    Looking,
    /// In line: it lists the directory and decides.
    Listing,
    /// The listing named `pred` its predecessor: it sends `exists` with a watch on it.
    Exists { pred: u8 },
    /// Waiting for its watch to fire.
    Waiting,
    /// It believes it holds the lock; `wrote` once it has written the resource.
    Holding { wrote: bool },
    /// Released, or gave up when its session or node was gone.
    Done,
}

/// What a one-shot watch is set on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WatchOn {
    Node(u8),
    Children,
}

/// An event delivered to a client that has not read it yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Event {
    /// Its watch fired: the watched node was deleted, or the directory's children changed.
    Watch(EventType),
    /// Its connection dropped and came back within the session timeout: a session event
    /// (Disconnected) on its watch, which stays set. A watch that fires before it is read
    /// takes its place.
    Disconnected,
    /// Its session expired.
    Expired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client {
    pub phase: Phase,
    /// The node it knows as its own (the driver's `node`).
    pub node: Option<u8>,
    pub session_alive: bool,
    pub watch: Option<WatchOn>,
    pub event: Option<Event>,
    /// Whether it has ever believed it holds the lock.
    pub acquired: bool,
    /// Whether a session it abandoned for its current one still lives on the server.
    pub abandoned_alive: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub next_seq: u8,
    /// The lock directory's children, in creation order.
    pub nodes: Vec<Node>,
    pub clients: Vec<Client>,
    /// Create replies that may still be lost.
    pub lost_left: u8,
    /// Sessions that may still expire under a paused client.
    pub expiries_left: u8,
    /// Deletes that may still be lost.
    pub lost_deletes_left: u8,
    /// Connections that may still drop under a waiter.
    pub disconnects_left: u8,
    /// Lookups that may still be served by a follower behind the looker's create.
    pub stale_reads_left: u8,
    /// The highest token the resource has accepted.
    pub store_max: Option<u8>,
    /// Whether the resource accepted a write with a token below one it had accepted.
    pub stale_write: bool,
    /// Whether one node's deletion woke more than one waiter.
    pub multi_wake: bool,
    /// The node of the last grant, and whether some grant went to a node created before it.
    pub last_grant: Option<u8>,
    pub out_of_order: bool,
}

impl State {
    /// Whether client `c` believes it holds the lock.
    pub fn believes(&self, c: usize) -> bool {
        matches!(self.clients[c].phase, Phase::Holding { .. })
    }

    /// How many clients whose sessions the server still keeps believe they hold the lock.
    /// ZooKeeper's lock promises at most one: a holder whose session expired unknown to it
    /// (Z2) is what fencing is for.
    pub fn live_believers(&self) -> usize {
        (0..self.clients.len())
            .filter(|&c| self.believes(c) && self.clients[c].session_alive)
            .count()
    }

    /// Client `c` takes the lock with its node; notes a grant out of line.
    pub(super) fn grant(&mut self, c: usize) {
        let seq = self.clients[c].node;
        if self.last_grant.is_some_and(|last| Some(last) > seq) {
            self.out_of_order = true;
        }
        self.last_grant = seq;
        let client = &mut self.clients[c];
        client.phase = Phase::Holding { wrote: false };
        client.acquired = true;
        client.watch = None;
    }

    /// A node of a live session that its own client does not know as its node and is not
    /// looking for (after a lost create reply).
    pub fn orphan(&self) -> Option<Node> {
        self.nodes.iter().copied().find(|n| {
            let c = &self.clients[usize::from(n.owner)];
            c.session_alive && c.node != Some(n.seq) && c.phase != Phase::Looking
        })
    }

    /// Deletes node `seq` and fires the watches on it (and every children watch); returns
    /// how many waiters it woke.
    pub(super) fn delete(&mut self, seq: u8) -> usize {
        self.nodes.retain(|n| n.seq != seq);
        let mut woken = 0;
        for c in &mut self.clients {
            let event = match c.watch {
                Some(WatchOn::Node(s)) if s == seq => EventType::NodeDeleted,
                Some(WatchOn::Children) => EventType::NodeChildrenChanged,
                _ => continue,
            };
            c.watch = None;
            c.event = Some(Event::Watch(event));
            woken += 1;
        }
        if woken > 1 {
            self.multi_wake = true;
        }
        woken
    }

    /// Client `c` gives its session up for a new one: its nodes stay with the old session,
    /// which the server keeps until it expires.
    pub(super) fn abandon_session(&mut self, c: u8) {
        for n in self.nodes.iter_mut().filter(|n| n.owner == c) {
            n.abandoned = true;
        }
        let client = &mut self.clients[usize::from(c)];
        client.abandoned_alive = true;
        client.watch = None;
        client.event = None;
    }

    /// The server ends a session of client `c`, its current one or (`abandoned`) the one it
    /// abandoned: that session's nodes vanish, firing their watches.
    pub(super) fn delete_session(&mut self, c: u8, abandoned: bool) {
        let owned: Vec<u8> = self
            .nodes
            .iter()
            .filter(|n| n.owner == c && n.abandoned == abandoned)
            .map(|n| n.seq)
            .collect();
        for seq in owned {
            self.delete(seq);
        }
    }

    /// The same state with its clients renamed: they sit at their new index and own their
    /// nodes under their new id. Nothing else names a client: watches, events, tokens and
    /// grants name nodes by sequence number.
    pub fn renamed(&self, renaming: &Renaming) -> State {
        State {
            nodes: self
                .nodes
                .iter()
                .map(|n| Node {
                    owner: renaming.client(n.owner),
                    ..*n
                })
                .collect(),
            clients: renaming.reorder(&self.clients),
            ..self.clone()
        }
    }

    /// Creates a node for `owner` and fires every children watch.
    pub(super) fn create(&mut self, owner: u8) -> u8 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.nodes.push(Node {
            seq,
            owner,
            abandoned: false,
        });
        for c in &mut self.clients {
            if c.watch == Some(WatchOn::Children) {
                c.watch = None;
                c.event = Some(Event::Watch(EventType::NodeChildrenChanged));
            }
        }
        seq
    }
}

/// Clients are interchangeable: a node's name carries its owner's GUID, but the queue is
/// ordered by sequence number, and every property counts clients or looks at nodes. The
/// representative orders the clients by what they know and the nodes they own (sequence
/// numbers are unique, so only clients with identical states and no nodes tie).
impl Representative for State {
    fn representative(&self) -> State {
        let keys: Vec<(Client, Vec<u8>)> = (0..self.clients.len())
            .map(|c| {
                let owned = self.nodes.iter().filter(|n| usize::from(n.owner) == c);
                (self.clients[c], owned.map(|n| n.seq).collect())
            })
            .collect();
        self.renamed(&Renaming::sorting(&keys))
    }
}
