//! What the server does for a connection as a whole (Redis 7.0.15's networking.c and
//! server.c): the RESP2 pub/sub context that allows only a few commands, RESET, a
//! connection's end, and handing the driver what commands sent to other connections.

use super::Server;
use crate::redis::clients::Delivery;
use crate::redis::clock::Now;
use crate::redis::cmd::table::{CommandSpec, FAST, Keys, NOSCRIPT, Proc, STALE, by};
use crate::redis::conn::Conn;
use crate::redis::replies;
use crate::redis::resp::{Args, Frame, Protocol};

/// RESET, which the server runs: it clears the transaction too.
pub(crate) static COMMANDS: &[CommandSpec] = &[by(
    "reset",
    1,
    NOSCRIPT.and(STALE).and(FAST),
    Keys::None,
    Proc::Server(Server::reset),
)];

impl Server {
    /// `processCommand`'s pub/sub guard: a RESP2 client subscribed to anything may only
    /// (un)subscribe, PING, QUIT or RESET; the refusal, if `spec` is something else.
    pub(super) fn outside_pubsub_context(&self, conn: &Conn, spec: &CommandSpec) -> Option<Frame> {
        if conn.proto != Protocol::Resp2 || !self.clients.subscribed(conn.id) {
            return None;
        }
        let allowed = matches!(
            spec.fullname,
            "ping" | "subscribe" | "unsubscribe" | "psubscribe" | "punsubscribe" | "quit" | "reset"
        );
        if allowed {
            return None;
        }
        let msg = format!(
            "Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET \
             are allowed in this context",
            spec.fullname
        );
        Some(replies::error_format(msg.as_bytes()))
    }

    /// RESET (`clearClientConnectionState`): database 0, out of MULTI with no watches, no
    /// subscriptions (unannounced), no name, back to RESP2; `+RESET`.
    fn reset(&mut self, conn: &mut Conn, _: &[Vec<u8>], _: Now, _: &mut Vec<Args>) -> Frame {
        conn.db = 0;
        self.discard_transaction(conn);
        self.clients.subs.forget(conn.id);
        conn.name = None;
        conn.proto = Protocol::Resp2;
        Frame::Simple(b"RESET".to_vec())
    }

    /// The connection is gone (`freeClient`): its watches, subscriptions and undelivered
    /// frames go with it. Every driver calls this when a connection ends, however it ends.
    pub fn disconnect(&mut self, conn: &mut Conn) {
        self.discard_transaction(conn);
        self.clients.remove(conn.id);
    }

    /// What commands sent to connections, each encoded in its receiver's protocol, in the
    /// order Redis would write them; taken, so each is handed out once. A driver that calls
    /// [`Server::handle_input`] gets only frames for other connections here (those for the
    /// caller are in its output); one that calls [`Server::handle`] also gets the caller's
    /// own frames that precede its reply (a SUBSCRIBE's confirmations but the last, a
    /// message a RESP3 client published to itself), to write before that reply.
    pub fn take_deliveries(&mut self) -> Vec<Delivery> {
        self.clients.take_all()
    }

    /// Whether the client `id` listens to a channel or a pattern: other connections'
    /// PUBLISHes may send it messages.
    pub fn is_subscribed(&self, id: u64) -> bool {
        self.clients.subscribed(id)
    }
}
