//! The links between an ensemble's members over the simulated network, so partitions,
//! latency and loss strike them as they strike clients. Each follower connects to the
//! leader's peer port (2888, as ZooKeeper's quorum port); both ends then send their
//! messages in order on that one connection.
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
use crate::zk::host::{Env, SharedHost};
use crate::zk::server::{PeerMsg, ServerId};
use crate::zk::sim_host::Member;

/// Where followers connect to their leader.
pub const PEER_PORT: u16 = 2888;

/// Ticks of silence after which a link is taken for dead (ZooKeeper's syncLimit, 5 in
/// its sample configuration).
const SYNC_LIMIT_TICKS: u32 = 5;

/// A ticket's bytes: its sequence number on the link, then its number in the mailbox.
const TICKET_BYTES: usize = 16;

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
    /// Keeps the member's links up for as long as its software runs: the leader takes the
    /// followers' connections, a follower connects to the leader again whenever its link
    /// is gone.
    pub async fn run(self) {
        let leader = self.member.servers;
        if self.member.id == leader {
            self.lead().await;
            return;
        }
        let name = format!("zk{leader}");
        let give_up = self.tick * SYNC_LIMIT_TICKS;
        loop {
            let connect = TcpStream::connect((name.as_str(), PEER_PORT));
            let connected = tokio::select! {
                biased;
                stream = connect => stream.ok(),
                _ = turmoil::sleep(give_up) => None,
            };
            if let Some(mut stream) = connected
                && stream.write_all(&[self.member.id]).await.is_ok()
            {
                self.carry(leader, stream).await;
            }
            turmoil::sleep(self.tick).await;
        }
    }

    /// The leader's side: each follower's connection, which opens with its id.
    async fn lead(self) {
        let Ok(listener) = TcpListener::bind(("0.0.0.0", PEER_PORT)).await else {
            return;
        };
        let this = Rc::new(self);
        let node = this.node.clone();
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let this = this.clone();
            node.spawn(async move {
                let mut id = [0u8; 1];
                let hello = tokio::select! {
                    biased;
                    read = stream.read_exact(&mut id) => read.is_ok(),
                    _ = turmoil::sleep(this.tick * SYNC_LIMIT_TICKS) => false,
                };
                if hello {
                    this.carry(id[0], stream).await;
                }
            });
        }
    }

    /// Carries messages both ways on the link to `peer` until it breaks, loses a message or
    /// falls silent.
    async fn carry(&self, peer: ServerId, stream: TcpStream) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let generation = self.host.borrow_mut().link_up(peer, tx);
        let mailbox: Rc<RefCell<Mailbox>> = self.member.mailbox.clone();
        let (mut rd, mut wr) = tokio::io::split(stream);
        let mut ticket = [0u8; TICKET_BYTES];
        let mut filled = 0;
        let (mut sent, mut expected) = (0u64, 0u64);
        let silence = self.tick * SYNC_LIMIT_TICKS;
        let mut heard = Instant::now();
        // One timer per silent stretch, not one per message: when it fires early (something
        // was heard since it was set), it is set again from then.
        let mut timer = Box::pin(turmoil::sleep_until(heard + silence));
        loop {
            tokio::select! {
                biased;
                msg = rx.recv() => {
                    let Some(msg) = msg else { break };
                    let number = mailbox.borrow_mut().park(msg);
                    let mut bytes = [0u8; TICKET_BYTES];
                    bytes[..8].copy_from_slice(&sent.to_be_bytes());
                    bytes[8..].copy_from_slice(&number.to_be_bytes());
                    sent += 1;
                    if wr.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
                read = rd.read(&mut ticket[filled..]) => {
                    let Ok(n @ 1..) = read else { break };
                    filled += n;
                    if filled < TICKET_BYTES {
                        continue;
                    }
                    filled = 0;
                    let (seq, number) = ticket.split_at(8);
                    let seq = u64::from_be_bytes(seq.try_into().expect("8 bytes"));
                    let number = u64::from_be_bytes(number.try_into().expect("8 bytes"));
                    if seq != expected {
                        break;
                    }
                    expected += 1;
                    heard = Instant::now();
                    let msg = mailbox.borrow_mut().take(number);
                    let lagged = msg.and_then(|msg| self.host.borrow_mut().peer_message(peer, msg));
                    if let Some(wait) = lagged {
                        // The apply is due between ticks: wake the server then.
                        let host = self.host.clone();
                        self.node.spawn(async move {
                            turmoil::sleep(wait).await;
                            host.borrow_mut().apply_lagged();
                        });
                    }
                }
                _ = &mut timer => {
                    if Instant::now() >= heard + silence {
                        break;
                    }
                    timer = Box::pin(turmoil::sleep_until(heard + silence));
                }
            }
        }
        self.host.borrow_mut().link_down(peer, generation);
    }
}
