//! MULTI, EXEC, DISCARD, WATCH and UNWATCH, and what `processCommand` does for a client in a
//! transaction (Redis 7.0.15's multi.c and server.c): a command refused while queuing
//! dooms the transaction (EXEC answers EXECABORT); any other is queued and answered
//! `+QUEUED`, save the few that act on the transaction itself. EXEC runs the queue as one
//! step, each command as it would run alone, errors included in the array and nothing
//! rolled back, and propagates their effects once, wrapped in MULTI/EXEC when there are
//! several. A change to a watched key (by anyone, an expiry or a flush included) or a
//! watched key's expiry makes EXEC answer the null array instead.

use super::{Outcome, Server};
use crate::redis::clock::Now;
use crate::redis::cmd::table::{ALL, CommandSpec, FAST, Keys, NOSCRIPT, Proc, STALE, by};
use crate::redis::command::{self, Flags, Lookup};
use crate::redis::conn::Conn;
use crate::redis::replies;
use crate::redis::resp::{Args, Frame};
use crate::redis::role::Role;

/// MULTI, EXEC, DISCARD, WATCH and UNWATCH.
pub(crate) static COMMANDS: &[CommandSpec] = &[
    by(
        "multi",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Server(Server::multi),
    ),
    by(
        "exec",
        1,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Server(Server::exec),
    ),
    by(
        "discard",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Server(Server::discard),
    ),
    by(
        "watch",
        -2,
        NOSCRIPT.and(STALE).and(FAST),
        ALL,
        Proc::Server(Server::watch),
    ),
    by(
        "unwatch",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Server(Server::unwatch),
    ),
];

/// Whether a client in MULTI runs `spec` at once instead of queuing it.
pub(super) fn runs_while_queuing(spec: &CommandSpec) -> bool {
    matches!(
        spec.fullname,
        "multi" | "exec" | "discard" | "watch" | "quit" | "reset"
    )
}

fn answer(frame: Frame) -> Outcome {
    Outcome {
        reply: Some(frame),
        propagate: Vec::new(),
        close: None,
    }
}

/// `shared.execaborterr`.
fn exec_aborted() -> Frame {
    replies::error(b"-EXECABORT Transaction discarded because of previous errors.")
}

impl Server {
    /// `rejectCommand`: a refusal, which dooms the transaction of a client in MULTI; EXEC
    /// refused discards it at once, the refusal's text (without `ERR`) in its EXECABORT.
    pub(super) fn refuse(&mut self, conn: &mut Conn, exec: bool, reply: Frame) -> Outcome {
        answer(self.refusal(conn, exec, reply))
    }

    /// What `refuse` answers.
    fn refusal(&mut self, conn: &mut Conn, exec: bool, reply: Frame) -> Frame {
        if conn.queued.is_some() {
            conn.queue_refused = true;
        }
        if !exec {
            return reply;
        }
        self.discard_transaction(conn);
        let Frame::Error(text) = reply else {
            return reply;
        };
        let reason = text.strip_prefix(b"ERR ").unwrap_or(&text);
        let abort = [
            &b"-EXECABORT Transaction discarded because of: "[..],
            reason,
        ]
        .concat();
        replies::error(&abort)
    }

    /// `queueMultiCommand`: `+QUEUED`; a doomed transaction keeps nothing.
    pub(super) fn queue(&mut self, conn: &mut Conn, args: &[Vec<u8>]) -> Outcome {
        if let Some(queued) = conn.queued.as_mut().filter(|_| !conn.queue_refused) {
            queued.push(args.to_vec());
        }
        answer(Frame::Simple(b"QUEUED".to_vec()))
    }

    /// MULTI: the connection queues what follows, until EXEC or DISCARD.
    fn multi(&mut self, conn: &mut Conn, _: &[Vec<u8>], _: Now, _: &mut Vec<Args>) -> Frame {
        if conn.queued.is_some() {
            return replies::error(b"MULTI calls can not be nested");
        }
        conn.queued = Some(Vec::new());
        replies::ok()
    }

    /// DISCARD: out of MULTI, the queue and the watches dropped.
    fn discard(&mut self, conn: &mut Conn, _: &[Vec<u8>], _: Now, _: &mut Vec<Args>) -> Frame {
        if conn.queued.is_none() {
            return replies::error(b"DISCARD without MULTI");
        }
        self.discard_transaction(conn);
        replies::ok()
    }

    /// UNWATCH: no more watches (the one transaction command that is queued).
    fn unwatch(&mut self, conn: &mut Conn, _: &[Vec<u8>], _: Now, _: &mut Vec<Args>) -> Frame {
        self.unwatch_all(conn);
        replies::ok()
    }

    /// EXEC: the queue run as one step, its effects appended to `ops` (which the server
    /// propagates wrapped once).
    fn exec(&mut self, conn: &mut Conn, _: &[Vec<u8>], now: Now, ops: &mut Vec<Args>) -> Frame {
        let Some(queued) = conn.queued.take() else {
            return replies::error(b"EXEC without MULTI");
        };
        let specs: Vec<&CommandSpec> = queued
            .iter()
            .filter_map(|args| match command::lookup(args) {
                Lookup::Found(spec) => Some(spec),
                Lookup::UnknownCommand | Lookup::UnknownSubcommand => None,
            })
            .collect();
        let writes = specs.iter().any(|s| s.flags.contains(Flags::WRITE));
        if self.config.role == Role::Replica && writes {
            // Demoted since the commands were queued: `processCommand` refuses EXEC as a
            // write before it looks at the transaction.
            return self.refusal(conn, true, replies::readonly());
        }
        if conn.queue_refused {
            self.discard_transaction(conn);
            return exec_aborted();
        }
        if self.watch_broken(conn, now) {
            self.discard_transaction(conn);
            return Frame::NullArray;
        }
        self.unwatch_all(conn);
        let expiry = self.client_expiry();
        let mut replies = Vec::with_capacity(queued.len());
        conn.deny_blocking = true;
        for (i, (spec, args)) in specs.into_iter().zip(&queued).enumerate() {
            let reply = match spec.proc {
                // A script, or UNWATCH: the server's own commands that are queued.
                Proc::Server(run) => run(self, conn, args, now, ops),
                _ => self.execute(conn, expiry, spec, args, now, ops).0,
            };
            replies.push(reply);
            let sent_itself = self.clients.take_frames(conn.id);
            if !sent_itself.is_empty() {
                conn.inside_reply.push((i, sent_itself));
            }
        }
        conn.deny_blocking = false;
        self.discard_transaction(conn);
        Frame::Array(replies)
    }

    /// Whether a watched key changed, or expired since WATCH (`isWatchedKeyExpired`).
    fn watch_broken(&self, conn: &Conn, now: Now) -> bool {
        let clock_now = self.config.expiry_clock.now(now);
        self.dbs.iter().any(|ks| ks.watched().is_dirty(conn.id))
            || conn.watching.iter().any(|(db, key)| {
                self.dbs.get(*db).is_some_and(|ks| {
                    !ks.watched().was_expired(conn.id, key) && ks.is_expired(key, clock_now)
                })
            })
    }

    /// WATCH key...: refused inside MULTI; a connection already doomed watches nothing more.
    fn watch(&mut self, conn: &mut Conn, args: &[Vec<u8>], now: Now, _: &mut Vec<Args>) -> Frame {
        if conn.queued.is_some() {
            return replies::error(b"WATCH inside MULTI is not allowed");
        }
        if self.dbs.iter().any(|ks| ks.watched().is_dirty(conn.id)) {
            return replies::ok();
        }
        let clock_now = self.config.expiry_clock.now(now);
        let db = conn.db;
        for key in args.iter().skip(1) {
            let watch = (db, key.clone());
            if conn.watching.contains(&watch) {
                continue;
            }
            let ks = self.db_mut(db);
            let expired = ks.is_expired(key, clock_now);
            ks.watched_mut().watch(conn.id, key, expired);
            conn.watching.push(watch);
        }
        replies::ok()
    }

    /// UNWATCH, and what EXEC does first: no more watches, no doom.
    fn unwatch_all(&mut self, conn: &mut Conn) {
        let watching = std::mem::take(&mut conn.watching);
        for (db, ks) in self.dbs.iter_mut().enumerate() {
            let keys: Vec<Vec<u8>> = watching
                .iter()
                .filter(|(watched_db, _)| *watched_db == db)
                .map(|(_, key)| key.clone())
                .collect();
            ks.watched_mut().forget(conn.id, &keys);
        }
    }

    /// `discardTransaction`: out of MULTI, the queue and the watches dropped.
    pub(super) fn discard_transaction(&mut self, conn: &mut Conn) {
        conn.queued = None;
        conn.queue_refused = false;
        self.unwatch_all(conn);
    }
}
