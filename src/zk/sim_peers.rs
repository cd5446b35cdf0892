//! The links between an ensemble's members over the simulated network, so partitions,
//! latency and loss strike them as they strike clients. Each follower connects to its
//! leader's peer port (2888, as ZooKeeper's quorum port); both ends then send their
//! messages in order on that one connection. Who leads changes: each member's links follow
//! its role as the core reports it. Votes go on links of their own, to the election port
//! (3888), dialed when a vote has no link to go on.
//!
//! A message crosses the link as a ticket, its sequence number and its number in the
//! ensemble's mailbox, where the message itself waits: every member runs in one process, and
//! the link only has to decide whether and when a message arrives. A link that loses one
//! (the receiver sees a gap in the sequence) or falls silent for `SYNC_LIMIT_TICKS` ticks is
//! dropped, as ZooKeeper drops a learner past its syncLimit; the follower connects again
//! and asks for what it missed.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use turmoil::net::{TcpListener, TcpStream};

use crate::sim::node::Node;
use crate::zk::host::{Env, LinkKind, SharedHost};
use crate::zk::server::{PeerMsg, QuorumRole, ServerId};
use crate::zk::sim_host::Member;

/// Where followers connect to their leader.
pub const PEER_PORT: u16 = 2888;

/// Where members send each other their votes.
pub const ELECTION_PORT: u16 = 3888;

/// Ticks of silence after which a link is taken for dead (ZooKeeper's syncLimit, 5 in
/// its sample configuration).
const SYNC_LIMIT_TICKS: u32 = 5;

/// A ticket's bytes: its sequence number on the link, then its number in the mailbox.
const TICKET_BYTES: usize = 16;

/// The most bytes one read takes off a link.
const READ_BYTES: usize = 64 * TICKET_BYTES;

/// Peer messages in flight, by ticket.
#[derive(Debug, Default)]
pub struct Mailbox {
    next: u64,
    parked: BTreeMap<u64, PeerMsg>,
}

impl Mailbox {
    fn park(&mut self, msg: PeerMsg) -> u64 {
        self.next += 1;
        self.parked.insert(self.next, msg);
        self.next
    }

    fn take(&mut self, ticket: u64) -> Option<PeerMsg> {
        self.parked.remove(&ticket)
    }
}

/// One member's side of the ensemble's links.
pub struct Links<E> {
    pub host: SharedHost<E>,
    /// The member's host, whose tasks carry the links.
    pub node: Node,
    pub member: Member,
    pub tick: Duration,
}

impl<E: Env + 'static> Links<E> {
    /// Keeps the member's links up for as long as its software runs: while it leads, it
    /// takes its followers' connections; while it follows, it connects to its leader again
    /// whenever its link is gone; and it dials election links as its votes need them.
    pub async fn run(self) {
        let this = Rc::new(self);
        let mut role = this.host.borrow().quorum_role();
        this.node.spawn(this.clone().elect());
        loop {
            let current = *role.borrow_and_update();
            let work = async {
                match current {
                    Some(QuorumRole::Lead) => this.lead().await,
                    Some(QuorumRole::Follow(leader)) => this.follow(leader).await,
                    _ => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                changed = role.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                () = work => return,
            }
        }
    }

    /// A follower's side: connects to `leader`, and again half a tick after a failed try
    /// (3.8's `connectToLeader` waits a second, half its sample tick).
    async fn follow(&self, leader: ServerId) {
        let name = format!("zk{leader}");
        loop {
            if let Some(stream) = self.dial(&name, PEER_PORT).await {
                self.carry(leader, LinkKind::Quorum, stream).await;
            }
            turmoil::sleep(self.tick / 2).await;
        }
    }

    /// Connects to `name`'s `port` and says who it is, within syncLimit.
    async fn dial(&self, name: &str, port: u16) -> Option<TcpStream> {
        let connect = TcpStream::connect((name, port));
        let give_up = self.tick * SYNC_LIMIT_TICKS;
        let mut stream = tokio::select! {
            biased;
            stream = connect => stream.ok()?,
            _ = turmoil::sleep(give_up) => return None,
        };
        stream.write_all(&[self.member.id]).await.ok()?;
        Some(stream)
    }

    /// The leader's side: each follower's connection, which opens with its id.
    async fn lead(self: &Rc<Self>) {
        let Ok(listener) = TcpListener::bind(("0.0.0.0", PEER_PORT)).await else {
            return;
        };
        self.accept(listener, LinkKind::Quorum).await;
    }

    /// Carries every link `listener` accepts; each opens with the dialer's id.
    async fn accept(self: &Rc<Self>, listener: TcpListener, kind: LinkKind) {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let this = self.clone();
            self.node.spawn(async move {
                let mut id = [0u8; 1];
                let hello = tokio::select! {
                    biased;
                    read = stream.read_exact(&mut id) => read.is_ok(),
                    _ = turmoil::sleep(this.tick * SYNC_LIMIT_TICKS) => false,
                };
                if hello {
                    this.carry(id[0], kind, stream).await;
                }
            });
        }
    }

    /// The election port: takes other members' election links, and dials those the
    /// member's votes ask for.
    async fn elect(self: Rc<Self>) {
        let Ok(listener) = TcpListener::bind(("0.0.0.0", ELECTION_PORT)).await else {
            return;
        };
        let (dialer, mut dials) = mpsc::unbounded_channel();
        self.host.borrow_mut().set_dialer(dialer);
        let accepting = self.accept(listener, LinkKind::Election);
        let dialing = async {
            while let Some(peer) = dials.recv().await {
                let this = self.clone();
                self.node.spawn(async move {
                    match this.dial(&format!("zk{peer}"), ELECTION_PORT).await {
                        Some(stream) => this.carry(peer, LinkKind::Election, stream).await,
                        None => this.host.borrow_mut().dial_failed(peer),
                    }
                });
            }
        };
        tokio::join!(accepting, dialing);
    }

    /// Carries messages both ways on the link to `peer` until it breaks, loses a message or
    /// falls silent. The messages queued together go out as one write, as a socket's
    /// buffer would send them.
    async fn carry(&self, peer: ServerId, kind: LinkKind, stream: TcpStream) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let generation = self.host.borrow_mut().link_up(peer, kind, tx);
        let mailbox: Rc<RefCell<Mailbox>> = self.member.mailbox.clone();
        let (mut rd, mut wr) = tokio::io::split(stream);
        let mut tickets = Tickets::default();
        let (mut out, mut read) = (Vec::new(), [0u8; READ_BYTES]);
        let silence = self.tick * SYNC_LIMIT_TICKS;
        let mut heard = Instant::now();
        // One timer per silent stretch, not one per message: when it fires early (something
        // was heard since it was set), it is set again from then.
        let mut timer = Box::pin(turmoil::sleep_until(heard + silence));
        loop {
            // What the member sends goes first, as it did before the next ticket was read.
            let queued = match rx.try_recv() {
                Ok(msg) => Some(msg),
                Err(mpsc::error::TryRecvError::Empty) => None,
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            };
            if let Some(msg) = queued {
                out.clear();
                let mut next = Some(msg);
                while let Some(msg) = next {
                    let number = mailbox.borrow_mut().park(msg);
                    tickets.write(number, &mut out);
                    next = rx.try_recv().ok();
                }
                if !write_unless_silent(&mut wr, &out, heard + silence).await {
                    break;
                }
                continue;
            }
            if let Some(ticket) = tickets.next() {
                let Some(number) = ticket else { break };
                heard = Instant::now();
                let msg = mailbox.borrow_mut().take(number);
                if let Some(msg) = msg {
                    self.host.borrow_mut().peer_message(peer, msg);
                }
                continue;
            }
            tokio::select! {
                biased;
                msg = rx.recv() => {
                    let Some(msg) = msg else { break };
                    let number = mailbox.borrow_mut().park(msg);
                    out.clear();
                    tickets.write(number, &mut out);
                    if !write_unless_silent(&mut wr, &out, heard + silence).await {
                        break;
                    }
                }
                n = rd.read(&mut read) => {
                    let Ok(n @ 1..) = n else { break };
                    tickets.read(&read[..n]);
                }
                _ = &mut timer => {
                    if Instant::now() >= heard + silence {
                        break;
                    }
                    timer = Box::pin(turmoil::sleep_until(heard + silence));
                }
            }
        }
        self.host.borrow_mut().link_down(peer, kind, generation);
    }
}

/// Writes `out`; false when the link broke, or fell silent (nothing heard until `silent`)
/// while the write waited. A write to a member cut off waits for good: the network drops its
/// segments, and their room in the stream's window is never given back. A link that only
/// noticed silence between writes would then never notice it, and a leader cut off from
/// its quorum would go on leading its own clients; 3.8's leader counts a follower only while
/// its acks keep coming (`LearnerHandler.synced`), whatever its socket does.
async fn write_unless_silent(
    wr: &mut tokio::io::WriteHalf<TcpStream>,
    out: &[u8],
    silent: Instant,
) -> bool {
    tokio::select! {
        biased;
        wrote = wr.write_all(out) => wrote.is_ok(),
        _ = turmoil::sleep_until(silent) => false,
    }
}

/// One end's tickets: those it sent so far, and the bytes it read and has not yet taken.
#[derive(Default)]
struct Tickets {
    sent: u64,
    expected: u64,
    read: Vec<u8>,
    taken: usize,
}

impl Tickets {
    /// Appends the next ticket, for the message parked as `number`.
    fn write(&mut self, number: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.sent.to_be_bytes());
        out.extend_from_slice(&number.to_be_bytes());
        self.sent += 1;
    }

    /// The next whole ticket read: `Some(None)` when it is out of sequence (a message was
    /// lost), `None` when no whole one is buffered.
    fn next(&mut self) -> Option<Option<u64>> {
        let ticket = self.read.get(self.taken..self.taken + TICKET_BYTES)?;
        let (seq, number) = ticket.split_at(8);
        let seq = u64::from_be_bytes(seq.try_into().expect("8 bytes"));
        let number = u64::from_be_bytes(number.try_into().expect("8 bytes"));
        self.taken += TICKET_BYTES;
        if seq != self.expected {
            return Some(None);
        }
        self.expected += 1;
        Some(Some(number))
    }

    /// Takes in `bytes` read off the link.
    fn read(&mut self, bytes: &[u8]) {
        self.read.drain(..self.taken);
        self.taken = 0;
        self.read.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(numbers: &[u64]) -> (Tickets, Vec<u8>) {
        let mut tickets = Tickets::default();
        let mut out = Vec::new();
        for &number in numbers {
            tickets.write(number, &mut out);
        }
        (tickets, out)
    }

    #[test]
    fn tickets_written_together_are_read_one_by_one_however_the_bytes_arrive() {
        let (_, out) = sent(&[7, 8, 9]);
        let mut read = Tickets::default();
        read.read(&out[..20]);
        assert_eq!(read.next(), Some(Some(7)));
        assert_eq!(read.next(), None, "the second is not whole yet");
        read.read(&out[20..]);
        assert_eq!(read.next(), Some(Some(8)));
        assert_eq!(read.next(), Some(Some(9)));
        assert_eq!(read.next(), None);
    }

    #[test]
    fn a_ticket_out_of_sequence_says_a_message_was_lost() {
        let (mut writer, _) = sent(&[1]);
        let mut out = Vec::new();
        writer.write(2, &mut out);
        let mut read = Tickets::default();
        read.read(&out);
        assert_eq!(read.next(), Some(None));
    }
}
