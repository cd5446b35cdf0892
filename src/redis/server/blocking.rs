//! Clients blocked on lists (Redis 7.0.15's blocked.c): after each command, script or EXEC
//! (`handleClientsBlockedOnKeys`), every key that became a list while someone waited on it
//! serves its waiters in the order they blocked, each with the pop it was waiting to do,
//! run as that client and propagated on its own (an LPOP, an RPOP or an LMOVE). Timeouts
//! are a pure function of the wall clock: the driver asks for the next deadline and calls
//! [`Server::expire_blocked`] once it has passed.

use super::{Server, transaction};
use crate::redis::clock::Now;
use crate::redis::command::{self, Args, Lookup};
use crate::redis::conn::Conn;
use crate::redis::resp::Frame;
use crate::redis::server::clients::{Blocked, Then};
use crate::redis::value::{Typed, list::List};

impl Server {
    /// Serves the clients blocked on keys signalled ready; what their pops propagate is
    /// appended to `propagate`, after the command that made the keys ready.
    pub(super) fn serve_blocked(&mut self, now: Now, propagate: &mut Vec<Args>) {
        while let Some((db, key)) = self.clients.next_ready() {
            while let Some(client) = self.clients.first_waiting(db, &key) {
                if !self.holds_list(db, &key) {
                    break;
                }
                let Some(blocked) = self.clients.unblock(client) else {
                    break;
                };
                let frame = self.serve_one(client, &blocked, &key, now, propagate);
                self.clients.answer(client, frame);
            }
        }
    }

    /// Whether `key` holds a list with elements.
    fn holds_list(&self, db: usize, key: &[u8]) -> bool {
        let value = self.dbs.get(db).and_then(|ks| ks.get(key));
        value
            .and_then(List::of)
            .is_some_and(|list| !list.is_empty())
    }

    /// Runs the pop `blocked` waited to do, on `key`, as `client`: its late reply.
    fn serve_one(
        &mut self,
        client: u64,
        blocked: &Blocked,
        key: &[u8],
        now: Now,
        propagate: &mut Vec<Args>,
    ) -> Frame {
        let args: Args = match &blocked.then {
            Then::Pop(pop) => vec![pop.to_vec(), key.to_vec()],
            Then::Move(rest) => [vec![b"LMOVE".to_vec(), key.to_vec()], rest.clone()].concat(),
        };
        let Lookup::Found(spec) = command::lookup(&args) else {
            return Frame::NullArray;
        };
        let mut conn = Conn::new(client);
        conn.db = blocked.db;
        conn.deny_blocking = true;
        let mut ops = Vec::new();
        let expiry = self.client_expiry();
        let (frame, _) = self.execute(&mut conn, expiry, spec, &args, now, &mut ops);
        propagate.extend(transaction(ops));
        match (&blocked.then, frame) {
            (Then::Pop(_), Frame::Bulk(item)) => {
                Frame::Array(vec![Frame::Bulk(key.to_vec()), Frame::Bulk(item)])
            }
            (Then::Pop(_), _) => Frame::NullArray,
            (Then::Move(_), frame) => frame,
        }
    }

    /// Answers the blocked clients whose timeout has passed by `now` with the null array
    /// (`replyToBlockedClientTimedOut`, BLMOVE's included); the replies wait in
    /// [`Server::take_deliveries`].
    pub fn expire_blocked(&mut self, now: Now) {
        for client in self.clients.timed_out(now.wall_ms) {
            self.clients.unblock(client);
            self.clients.answer(client, Frame::NullArray);
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
