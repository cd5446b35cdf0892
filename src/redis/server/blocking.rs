//! Clients blocked on lists (Redis 7.0.15's blocked.c): after each command, script or EXEC
//! (`handleClientsBlockedOnKeys`), every key that became a list while someone waited on it
//! serves its waiters in the order they blocked, each with the pop it was waiting to do,
//! run as that client and propagated on its own (an LPOP, an RPOP or an LMOVE). Timeouts
//! are a pure function of the wall clock: the driver asks for the next deadline and calls
//! [`Server::expire_blocked`] once it has passed.

use super::{Server, transaction};
use crate::redis::clients::{Blocked, Then};
use crate::redis::clock::Now;
use crate::redis::command::{self, Lookup};
use crate::redis::conn::Conn;
use crate::redis::resp::Args;
use crate::redis::resp::Frame;
use crate::redis::value::{Typed, list::List};

/// A blocked client served: the command it ran in the end, its reply (already on its way
/// through the deliveries), and what to propagate for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// Its client id.
    pub client: u64,
    /// The pop it did: `LPOP key`, `RPOP key` or `LMOVE source destination from to`.
    pub args: Args,
    /// What it was answered.
    pub reply: Frame,
    /// The pop, to send to replicas and the AOF after the command that served it.
    pub propagate: Vec<Args>,
}

impl Server {
    /// `handleClientsBlockedOnKeys`, which a driver calls after each command it hands to
    /// [`Server::handle`] ([`Server::handle_input`] does it itself): serves the clients
    /// blocked on keys that became lists, in the order they blocked. Their replies wait in
    /// [`Server::take_deliveries`]; what each pop did is returned, to propagate after the
    /// command and to record.
    pub fn serve_blocked(&mut self, now: Now) -> Vec<Served> {
        let mut served = Vec::new();
        while let Some((db, key)) = self.clients.next_ready() {
            while let Some(client) = self.clients.first_waiting(db, &key) {
                if !self.holds_list(db, &key) {
                    break;
                }
                let Some(blocked) = self.clients.unblock(client) else {
                    break;
                };
                let Some(one) = self.serve_one(client, &blocked, &key, now) else {
                    break;
                };
                self.clients.answer(client, one.reply.clone());
                self.repl_offset += one.propagate.len() as u64;
                served.push(one);
            }
        }
        served
    }

    /// How many commands this master has propagated: the offset a replica acknowledges.
    pub fn repl_offset(&self) -> u64 {
        self.repl_offset
    }

    /// A replica has applied the stream up to `offset` (a full sync acknowledges the offset
    /// it was taken at; None: the server has no replica any more). The WAITs it satisfies
    /// are answered with the count, in client-id order.
    pub fn replica_acked(&mut self, offset: Option<u64>) {
        self.replica_ack = offset;
        for (client, replicas, woff) in self.clients.waiting_for_acks() {
            let acked = self.acked_replicas(woff);
            if acked >= replicas {
                self.clients.unblock(client);
                self.clients.answer(client, Frame::Integer(acked));
            }
        }
    }

    /// `replicationCountAcksByOffset`: how many replicas have acknowledged `offset`.
    pub(super) fn acked_replicas(&self, offset: u64) -> i64 {
        i64::from(self.replica_ack.is_some_and(|acked| acked >= offset))
    }

    /// Whether `key` holds a list with elements.
    fn holds_list(&self, db: usize, key: &[u8]) -> bool {
        let value = self.dbs.get(db).and_then(|ks| ks.get(key));
        value
            .and_then(List::of)
            .is_some_and(|list| !list.is_empty())
    }

    /// Runs the pop `blocked` waited to do, on `key`, as `client` (a WAIT waits on no key).
    fn serve_one(
        &mut self,
        client: u64,
        blocked: &Blocked,
        key: &[u8],
        now: Now,
    ) -> Option<Served> {
        let args: Args = match &blocked.then {
            Then::Pop(pop) => vec![pop.to_vec(), key.to_vec()],
            Then::Move(rest) => [vec![b"LMOVE".to_vec(), key.to_vec()], rest.clone()].concat(),
            Then::Acks { .. } => return None,
        };
        let Lookup::Found(spec) = command::lookup(&args) else {
            return None;
        };
        let mut conn = Conn::new(client);
        conn.db = blocked.db;
        conn.deny_blocking = true;
        let mut ops = Vec::new();
        let expiry = self.client_expiry();
        let (frame, _) = self.execute(&mut conn, expiry, spec, &args, now, &mut ops);
        let reply = match (&blocked.then, frame) {
            (Then::Pop(_), Frame::Bulk(item)) => {
                Frame::Array(vec![Frame::Bulk(key.to_vec()), Frame::Bulk(item)])
            }
            (Then::Pop(_), _) => Frame::NullArray,
            (_, frame) => frame,
        };
        Some(Served {
            client,
            args,
            reply,
            propagate: transaction(ops),
        })
    }

    /// Answers the blocked clients whose timeout has passed by `now`
    /// (`replyToBlockedClientTimedOut`): a pop with the null array (BLMOVE's included), a
    /// WAIT with the replicas that acknowledged its offset by then. The replies wait in
    /// [`Server::take_deliveries`].
    pub fn expire_blocked(&mut self, now: Now) {
        for client in self.clients.timed_out(now.wall_ms) {
            let Some(blocked) = self.clients.unblock(client) else {
                continue;
            };
            let reply = match blocked.then {
                Then::Acks { offset, .. } => Frame::Integer(self.acked_replicas(offset)),
                _ => Frame::NullArray,
            };
            self.clients.answer(client, reply);
        }
    }

    /// Whether the client `id` waits in a blocking pop: its driver reads no more of its
    /// requests until the delivery that answers it.
    pub fn is_blocked(&self, id: u64) -> bool {
        self.clients.is_blocked(id)
    }

    /// When the next blocked client times out, ms on the wall clock (`Now::wall_ms`); the
    /// driver calls [`Server::expire_blocked`] after it. Redis checks on its event loop,
    /// which `hz 10` wakes at least every 100 ms.
    pub fn next_block_deadline(&self) -> Option<i64> {
        self.clients.next_deadline()
    }
}
