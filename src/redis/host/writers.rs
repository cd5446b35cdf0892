//! Each open connection's writer: the queue of bytes other connections' commands send it
//! (pub/sub messages, a blocked command's answer), which its task writes between reads, and
//! what is queued and not yet written, which Redis's output limit bounds for subscribers.

use super::{Env, HostEvent};
use crate::redis::clock::Now;
use crate::redis::output_limit;
use crate::redis::server::Server;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use tokio::sync::{Notify, mpsc};

/// Bytes for a connection, with whether they answer its blocked command.
pub(super) type Queue = mpsc::UnboundedReceiver<(Vec<u8>, bool)>;

/// The writers of the open connections, by client id.
#[derive(Default)]
pub(super) struct Writers(BTreeMap<u64, Writer>);

struct Writer {
    client: String,
    queue: mpsc::UnboundedSender<(Vec<u8>, bool)>,
    state: Rc<Queued>,
    /// Since when its unwritten bytes have been at the soft output limit.
    soft_since: Option<u64>,
}

/// What the host and a connection's task share about its queue.
#[derive(Default)]
pub(super) struct Queued {
    /// Bytes queued and not yet written.
    pub(super) unwritten: Cell<usize>,
    /// Told when the host drops the connection for its output limit.
    pub(super) dropped: Notify,
}

impl Writers {
    /// A writer for `client`'s connection `id`: the queue its task reads, and what they
    /// share about it.
    pub(super) fn open(&mut self, id: u64, client: &str) -> (Queue, Rc<Queued>) {
        let (queue, from_others) = mpsc::unbounded_channel();
        let state = Rc::new(Queued::default());
        let writer = Writer {
            client: client.to_string(),
            queue,
            state: state.clone(),
            soft_since: None,
        };
        self.0.insert(id, writer);
        (from_others, state)
    }

    /// The connection `id` whose writer shares `state` ended. A failover swaps the server
    /// under open connections, whose ids the new server may hand out again: a writer goes
    /// only with the connection that opened it.
    pub(super) fn close(&mut self, id: u64, state: &Rc<Queued>) {
        if self.0.get(&id).is_some_and(|w| Rc::ptr_eq(&w.state, state)) {
            self.0.remove(&id);
        }
    }

    /// Drops connection `id` with nothing more written to it: what is queued for it from
    /// now on is not delivered (a lost reply).
    pub(super) fn drop_conn(&mut self, id: u64) {
        if let Some(writer) = self.0.remove(&id) {
            writer.state.dropped.notify_one();
        }
    }

    /// The client of connection `id`, while it is open.
    pub(super) fn client(&self, id: u64) -> Option<&str> {
        self.0.get(&id).map(|w| w.client.as_str())
    }

    /// Hands what the last commands sent to other connections to their writers, and drops
    /// a subscriber whose unwritten messages reach its output limit.
    pub(super) fn route(&mut self, server: &mut Server, env: &mut impl Env, now: Now) {
        for delivery in server.take_deliveries() {
            let client = delivery.client;
            let Some(writer) = self.0.get_mut(&client) else {
                continue;
            };
            let unwritten = writer.state.unwritten.get() + delivery.bytes.len();
            writer.state.unwritten.set(unwritten);
            // A connection that is ending no longer reads its queue.
            let _ = writer.queue.send((delivery.bytes, delivery.unblocks));
            if !server.is_subscribed(client) {
                // A normal client's output has no limit, and its soft time starts again.
                writer.soft_since = None;
                continue;
            }
            if output_limit::PUBSUB.reached(unwritten, &mut writer.soft_since, now.mono_ms) {
                writer.state.dropped.notify_one();
                if let Some(writer) = self.0.remove(&client) {
                    env.observe(HostEvent::OutputLimit {
                        conn: client,
                        client: &writer.client,
                        unwritten,
                    });
                }
            }
        }
    }
}
