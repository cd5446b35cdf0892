//! The Redis family's simulation glue: the host core (`host`) on its host's port 6379 with
//! the node's clocks and timers, a delayed restart that recovers what persisted, a
//! `failover` to the replica, and `lose_reply` of a SET, a script or a transaction's EXEC;
//! it records what its clients' commands change (`watch`).
//!
//! What one connection's command sends to another (a pub/sub message) is written by that
//! connection's task over the simulated TCP: a partition or a pause stalls it as it stalls
//! replies, a connection that breaks ends the subscription (the server forgets the client),
//! and a subscriber that stops reading is dropped at Redis's output limit, as in `serve`.
//!
//! The replica lives inside its master's host: it shares the master's clocks and failure
//! fate, and the master's name, as clients behind a virtual address would see it. What it
//! models is the asynchronous stream (its lag) and what a promotion loses.

use crate::history::Kind;
use crate::redis::PORT;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::cmd::TABLE;
use crate::redis::cmd::table::Flags;
use crate::redis::events::RedisEvent;
pub use crate::redis::host::Persistence;
use crate::redis::host::{self, Env, Host, HostEvent, SharedHost};
use crate::redis::resp::Args;
use crate::redis::resp::Frame;
use crate::redis::server::{Config, Server};
use crate::sim::fault::Fault;
use crate::sim::node::Node;
use crate::sim::software::{ServerFamily, ServerFuture, ServerSoftware};
use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::sync::LazyLock;
use turmoil::net::TcpListener;
use watch::Watch;

mod watch;

/// Simulated Redis masters with these options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RedisFamily {
    pub expiry_clock: ExpiryClock,
    pub persistence: Persistence,
    /// After a crash, the server stays unreachable this long after its host is back
    /// (antirez's answer to restarts without fsync: wait out every TTL).
    pub restart_delay_ms: u64,
    /// The lag of an asynchronous replica; None: no replica.
    pub replica_lag_ms: Option<u64>,
}

/// The requests whose reply a Redis host can lose, as `lose_reply`'s `op` names them:
/// `any` (the client's next command, whichever it is and whatever it answered, even a
/// `+QUEUED`), every command that changes the keyspace (Redis's `write` flag: `set`, `del`,
/// `incr`, `pexpire`, `lpop`, `lmove`, `blmove` ...), a script (`eval`, also EVALSHA) and a
/// transaction's `exec`, each lost once it ran (a blocking one once it was served), never
/// its `+QUEUED` inside MULTI.
static REPLY_OPS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let writes = TABLE
        .iter()
        .flat_map(|rows| rows.iter())
        .filter(|spec| spec.flags.contains(Flags::WRITE))
        .map(|spec| spec.fullname);
    let mut ops: Vec<&'static str> = writes.chain(["eval", "exec"]).collect();
    ops.sort_unstable();
    ops.insert(0, ANY);
    ops
});

/// The `op` of a lost reply that is the client's next command's, whichever it is.
const ANY: &str = "any";

/// `command`'s name as `lose_reply` names it: lower case, EVALSHA an `eval`.
fn reply_op(command: &[u8]) -> String {
    match command.to_ascii_lowercase().as_slice() {
        b"evalsha" => "eval".to_string(),
        name => String::from_utf8_lossy(name).into_owned(),
    }
}

impl ServerFamily for RedisFamily {
    fn describe(&self) -> &'static str {
        "a Redis server"
    }

    fn reply_ops(&self) -> &'static [&'static str] {
        &REPLY_OPS
    }

    /// The reply to a client's next command, whichever the run sends then.
    fn swarm_reply_ops(&self) -> &'static [&'static str] {
        &REPLY_OPS[..1]
    }

    fn fails_over(&self) -> bool {
        self.replica_lag_ms.is_some()
    }

    fn install(&self, node: Node) -> Box<dyn ServerSoftware> {
        let config = Config {
            expiry_clock: self.expiry_clock,
            ..Config::default()
        };
        let sim = Sim {
            node,
            watch: Watch::default(),
            lose: Vec::new(),
        };
        let mut host = Host::new(sim, config).persisting(self.persistence);
        if let Some(lag_ms) = self.replica_lag_ms {
            host = host.replicated(lag_ms);
        }
        Box::new(RedisSoftware {
            host: host.shared(),
            family: *self,
            started: Rc::new(Cell::new(false)),
        })
    }
}

/// The host's surroundings in the simulation: its node's clocks and timers, the history it
/// records, and the armed `lose_reply` faults.
struct Sim {
    node: Node,
    /// The keyspace as the history last saw it change.
    watch: Watch,
    /// Armed lose_reply faults: (client, op).
    lose: Vec<(String, String)>,
}

impl Env for Sim {
    fn now(&self) -> Now {
        let (mono_ms, wall_ms) = self.node.clocks_ms();
        Now { wall_ms, mono_ms }
    }

    fn sleep_until(&self, mono_ms: u64) -> impl Future<Output = ()> + 'static {
        let timer = self.node.timer();
        async move { timer.sleep_until(mono_ms).await }
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        match event {
            HostEvent::Propagated {
                conn: None,
                commands,
            } => {
                for del in commands {
                    if let Some(key) = del.get(1) {
                        let key = String::from_utf8_lossy(key).into_owned();
                        self.record(RedisEvent::KeyExpired { key });
                    }
                }
                self.watch.expired(commands);
            }
            HostEvent::OutputLimit {
                client, unwritten, ..
            } => self.record(RedisEvent::OutputLimit {
                client: client.to_string(),
                unwritten: unwritten as u64,
            }),
            _ => {}
        }
    }

    /// Whether the reply to `client`'s command `args`, which ran, is to be lost (and
    /// disarms it, recording the loss). A command queued in a transaction has not run: only
    /// `any` loses its `+QUEUED`.
    fn loses_reply(&mut self, client: &str, args: &[Vec<u8>], queuing: bool) -> bool {
        let logs = self.node.keeps_server_log();
        if self.lose.is_empty() && !logs {
            return false;
        }
        let op = reply_op(args.first().map_or(&[][..], Vec::as_slice));
        let ran = !queuing || op == "exec";
        let armed = self
            .lose
            .iter()
            .position(|(c, o)| c == client && (o == ANY || (*o == op && ran)));
        if logs
            && ran
            && let Ok(i) = REPLY_OPS[1..].binary_search(&op.as_str())
        {
            self.node
                .answered(client, REPLY_OPS[1 + i], armed.is_some());
        }
        let Some(index) = armed else {
            return false;
        };
        self.lose.remove(index);
        let client = client.to_string();
        self.record(RedisEvent::ReplyLost {
            client,
            command: op,
        });
        true
    }

    /// Whether the reply to the pop `args` that served `client`'s blocked command is to be
    /// lost: an armed `any`, or the blocking command it serves (`blpop` for an LPOP,
    /// `blmove` or `brpoplpush` for an LMOVE).
    fn loses_served_reply(&mut self, client: &str, args: &[Vec<u8>]) -> bool {
        if self.lose.is_empty() {
            return false;
        }
        let pop = reply_op(args.first().map_or(&[][..], Vec::as_slice));
        let blocking = format!("b{pop}");
        let armed = self.lose.iter().position(|(c, o)| {
            c == client && (o == ANY || *o == blocking || (pop == "lmove" && o == "brpoplpush"))
        });
        let Some(index) = armed else {
            return false;
        };
        let (client, op) = self.lose.remove(index);
        let command = if op == ANY { blocking } else { op };
        self.record(RedisEvent::ReplyLost { client, command });
        true
    }

    fn changed(
        &mut self,
        server: &Server,
        client: &str,
        args: &[Vec<u8>],
        reply: Option<&Frame>,
        ops: &[Args],
        now: Now,
    ) {
        let events = self.watch.command(server, now, client, args, reply, ops);
        for event in events {
            self.record(event);
        }
    }

    fn replaced(&mut self, server: &Server) {
        self.watch.resync(server);
    }
}

impl Sim {
    fn record(&self, event: RedisEvent) {
        self.node.record(Kind::Info, event.into());
    }
}

struct RedisSoftware {
    host: SharedHost<Sim>,
    family: RedisFamily,
    /// Whether the software ran before: the next start is a restart after a crash.
    started: Rc<Cell<bool>>,
}

impl ServerSoftware for RedisSoftware {
    fn start(&self) -> ServerFuture {
        Box::pin(serve(self.host.clone(), self.family, self.started.clone()))
    }

    fn apply(&mut self, fault: &Fault) {
        let mut host = self.host.borrow_mut();
        match fault {
            Fault::LoseReply { op, client, .. } => {
                host.env.lose.push((client.clone(), op.clone()));
            }
            Fault::Failover { .. } => {
                if let Some(lost) = host.fail_over() {
                    host.env.record(RedisEvent::FailedOver { lost });
                }
            }
            _ => {}
        }
    }

    fn heal(&mut self) {
        self.host.borrow_mut().env.lose.clear();
    }

    /// Every wait of its is one the stepper sees (`Node::timer`, `turmoil::sleep`).
    fn lazy(&self) -> bool {
        true
    }
}

/// The host's software; turmoil calls it again on every restart.
async fn serve(
    host: SharedHost<Sim>,
    family: RedisFamily,
    started: Rc<Cell<bool>>,
) -> turmoil::Result {
    let node = host.borrow().env.node.clone();
    if started.replace(true) {
        let lost = host.borrow_mut().recover();
        node.record(Kind::Info, RedisEvent::Restarted { lost }.into());
        node.timer().sleep(family.restart_delay_ms).await;
    }
    node.spawn(host::expire_keys(host.clone()));
    node.spawn(host::replicate(host.clone()));
    if let Persistence::AofEverysec { .. } = family.persistence {
        node.spawn(host::fsync(host.clone()));
    }
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        let host = host.clone();
        // The stream is dropped as its connection ends: a FIN, or a RST over unread bytes.
        node.spawn(async move {
            host::serve_conn(host, client, stream).await;
        });
    }
}

#[cfg(test)]
mod tests;
