//! What the clients' commands change in a simulated Redis host's keyspace, as history
//! events. The host keeps what each key held after the last change it saw (its value, its
//! deadline, and which client wrote the value). A master propagates every change of its
//! keyspace (that is how its replicas keep up), so after a command the keys its propagated
//! writes name are the keys it changed, a script's included: each is compared with what
//! the server stores now. A command that propagates nothing (a read, a SET NX that lost, a
//! DEL of a missing key) costs nothing here.

use crate::redis::clock::Now;
use crate::redis::command::{self, Lookup};
use crate::redis::events::{KeyChange, RedisEvent};
use crate::redis::resp::Args;
use crate::redis::resp::Frame;
use crate::redis::server::Server;
use std::collections::BTreeMap;

/// The longest reply text an event keeps.
const RESULT_MAX_CHARS: usize = 80;

/// The keyspace as the host last saw it change.
#[derive(Debug, Default)]
pub(super) struct Watch {
    /// By database and key.
    keys: BTreeMap<(usize, Vec<u8>), Seen>,
    /// The database the server's propagated stream is in (its SELECTs move it).
    db: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    value: Vec<u8>,
    deadline: Option<i64>,
    /// The client whose command wrote `value`; None when the host did not see it written.
    writer: Option<String>,
}

impl Watch {
    /// `client`'s command `args` ran on `server` at `now`, answered `reply` and propagated
    /// `ops`: the keys it found expired, then what it changed, key by key in the order its
    /// writes name them.
    pub(super) fn command(
        &mut self,
        server: &Server,
        now: Now,
        client: &str,
        args: &[Vec<u8>],
        reply: Option<&Frame>,
        ops: &[Args],
    ) -> Vec<RedisEvent> {
        let mut events = Vec::new();
        let clock_now = server.expiry_clock().now(now);
        for (db, key) in written_keys(ops, &mut self.db) {
            let id = (db, key.to_vec());
            let mut before = self.keys.remove(&id);
            if before
                .as_ref()
                .and_then(|seen| seen.deadline)
                .is_some_and(|deadline| clock_now > deadline)
            {
                // Lazily expired: gone before the command itself touched it.
                before = None;
                events.push(RedisEvent::KeyExpired {
                    key: key_text(db, key),
                });
            }
            let after = server.peek(db, key).map(|(value, deadline)| {
                let value = value.render();
                let writer = match &before {
                    Some(seen) if seen.value == value => seen.writer.clone(),
                    _ => Some(client.to_string()),
                };
                Seen {
                    value,
                    deadline,
                    writer,
                }
            });
            if after != before {
                events.push(RedisEvent::KeyChanged(KeyChange {
                    client: client.to_string(),
                    command: text(args.first().map_or(&[][..], Vec::as_slice)).to_uppercase(),
                    key: key_text(db, key),
                    before: before.as_ref().map(|seen| text(&seen.value)),
                    owner: before.and_then(|seen| seen.writer),
                    after: after.as_ref().map(|seen| text(&seen.value)),
                    ttl_ms: after
                        .as_ref()
                        .and_then(|seen| seen.deadline)
                        .map(|deadline| deadline.saturating_sub(clock_now)),
                    result: reply.map_or_else(|| "no reply".into(), brief),
                }));
            }
            if let Some(seen) = after {
                self.keys.insert(id, seen);
            }
        }
        events
    }

    /// The expiry cycle deleted the keys of `dels`.
    pub(super) fn expired(&mut self, dels: &[Args]) {
        for (db, key) in written_keys(dels, &mut self.db) {
            self.keys.remove(&(db, key.to_vec()));
        }
    }

    /// The server was replaced (a restart, a failover): what it holds now, each value's
    /// writer kept where the value is the one seen.
    pub(super) fn resync(&mut self, server: &Server) {
        let old = std::mem::take(&mut self.keys);
        // A new server's stream starts in database 0.
        self.db = 0;
        for (db, key, value, deadline) in server.stored() {
            let id = (db, key.to_vec());
            let value = value.render();
            let writer = old
                .get(&id)
                .filter(|seen| seen.value == value)
                .and_then(|seen| seen.writer.clone());
            let seen = Seen {
                value,
                deadline,
                writer,
            };
            self.keys.insert(id, seen);
        }
    }
}

/// The keys the propagated commands `ops` write, each once with its database, in order
/// (MULTI and EXEC name none); `db` is the stream's database, which their SELECTs move.
fn written_keys<'a>(ops: &'a [Args], db: &mut usize) -> Vec<(usize, &'a [u8])> {
    let mut keys: Vec<(usize, &[u8])> = Vec::new();
    for op in ops {
        if let [name, index] = op.as_slice()
            && name.eq_ignore_ascii_case(b"select")
        {
            *db = std::str::from_utf8(index)
                .ok()
                .and_then(|i| i.parse().ok())
                .unwrap_or(*db);
            continue;
        }
        let Lookup::Found(spec) = command::lookup(op) else {
            continue;
        };
        for key in spec.keys(op) {
            if !keys.contains(&(*db, key.as_slice())) {
                keys.push((*db, key));
            }
        }
    }
    keys
}

/// A key as the history names it: as it is in database 0, `dbN:key` elsewhere.
fn key_text(db: usize, key: &[u8]) -> String {
    match db {
        0 => text(key),
        _ => format!("db{db}:{}", text(key)),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A reply in a few words: `OK`, `1`, `nil`, `"v"`, `[1, nil]`, an error's text.
fn brief(frame: &Frame) -> String {
    let mut out = String::new();
    write_brief(frame, &mut out);
    if out.chars().count() > RESULT_MAX_CHARS {
        out = out.chars().take(RESULT_MAX_CHARS).collect();
        out.push('…');
    }
    out
}

fn write_brief(frame: &Frame, out: &mut String) {
    if out.len() > RESULT_MAX_CHARS * 4 {
        return;
    }
    match frame {
        Frame::Simple(s) | Frame::Error(s) => out.push_str(&text(s)),
        Frame::Integer(n) => out.push_str(&n.to_string()),
        Frame::Bulk(b) => out.push_str(&format!("{:?}", text(b))),
        Frame::Null | Frame::NullArray => out.push_str("nil"),
        Frame::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if out.len() > RESULT_MAX_CHARS * 4 {
                    return;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_brief(item, out);
            }
            out.push(']');
        }
        // The RESP3 types, as a RESP2 reader would see them.
        other => write_brief(&other.clone().into_resp2(), out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::role::Role;
    use crate::redis::server::Config;

    const RELEASE: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
        return redis.call('del', KEYS[1]) else return 0 end";
    const EXTEND: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then \
        return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

    fn at(ms: i64) -> Now {
        Now {
            wall_ms: 1_700_000_000_000 + ms,
            mono_ms: 1_000 + ms as u64,
        }
    }

    /// A master and the host's watch over it; clients by name.
    struct Host {
        server: Server,
        watch: Watch,
    }

    impl Host {
        fn new() -> Host {
            Host {
                server: Server::new(Config::default()),
                watch: Watch::default(),
            }
        }

        /// `client` sends `list` at `ms`: what the host records.
        fn send(&mut self, ms: i64, client: &str, list: &[&str]) -> Vec<RedisEvent> {
            let args: Args = list.iter().map(|a| a.as_bytes().to_vec()).collect();
            let mut conn = self.server.connect();
            let outcome = self.server.handle(&mut conn, &args, at(ms));
            let reply = outcome.reply.as_ref();
            let ops = &outcome.propagate;
            self.watch
                .command(&self.server, at(ms), client, &args, reply, ops)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn changed(
        client: &str,
        command: &str,
        key: &str,
        before: Option<&str>,
        owner: Option<&str>,
        after: Option<&str>,
        ttl_ms: Option<i64>,
        result: &str,
    ) -> RedisEvent {
        RedisEvent::KeyChanged(KeyChange {
            client: client.into(),
            command: command.into(),
            key: key.into(),
            before: before.map(Into::into),
            owner: owner.map(Into::into),
            after: after.map(Into::into),
            ttl_ms,
            result: result.into(),
        })
    }

    #[test]
    fn a_del_of_another_clients_key_records_both_clients_and_the_token() {
        let mut host = Host::new();
        assert_eq!(
            host.send(0, "c2", &["SET", "lock", "t2", "NX", "PX", "200"]),
            [changed(
                "c2",
                "SET",
                "lock",
                None,
                None,
                Some("t2"),
                Some(200),
                "OK"
            )]
        );
        assert_eq!(
            host.send(10, "c1", &["del", "lock"]),
            [changed(
                "c1",
                "DEL",
                "lock",
                Some("t2"),
                Some("c2"),
                None,
                None,
                "1"
            )]
        );
    }

    #[test]
    fn reads_and_writes_that_change_nothing_record_nothing() {
        let mut host = Host::new();
        host.send(0, "c2", &["SET", "lock", "t2", "PX", "200"]);
        for (client, list) in [
            ("c1", &["SET", "lock", "t1", "NX", "PX", "200"][..]),
            ("c1", &["GET", "lock"]),
            ("c1", &["DEL", "missing"]),
            ("c1", &["EVAL", RELEASE, "1", "lock", "t1"]),
            ("c1", &["EVAL", EXTEND, "1", "lock", "t1", "500"]),
            ("c1", &["PEXPIRE", "missing", "500"]),
            ("c1", &["PING"]),
        ] {
            assert_eq!(host.send(5, client, list), [], "{list:?}");
        }
    }

    #[test]
    fn a_scripts_effects_are_recorded_key_by_key() {
        let mut host = Host::new();
        host.send(0, "c1", &["SET", "lock", "t1", "PX", "200"]);
        assert_eq!(
            host.send(50, "c1", &["EVAL", EXTEND, "1", "lock", "t1", "500"]),
            [changed(
                "c1",
                "EVAL",
                "lock",
                Some("t1"),
                Some("c1"),
                Some("t1"),
                Some(500),
                "1"
            )]
        );
        let both = "redis.call('set', KEYS[2], ARGV[1]) return redis.call('del', KEYS[1])";
        assert_eq!(
            host.send(60, "c2", &["EVAL", both, "2", "lock", "mine", "t2"]),
            [
                changed("c2", "EVAL", "mine", None, None, Some("t2"), None, "1"),
                changed(
                    "c2",
                    "EVAL",
                    "lock",
                    Some("t1"),
                    Some("c1"),
                    None,
                    None,
                    "1"
                ),
            ]
        );
        assert_eq!(
            host.send(70, "c2", &["EVAL", RELEASE, "1", "mine", "t2"]),
            [changed(
                "c2",
                "EVAL",
                "mine",
                Some("t2"),
                Some("c2"),
                None,
                None,
                "1"
            )]
        );
    }

    #[test]
    fn a_key_a_command_finds_expired_is_recorded_as_expired_not_as_the_commands() {
        let mut host = Host::new();
        host.send(0, "c1", &["SET", "lock", "t1", "PX", "100"]);
        assert_eq!(
            host.send(150, "c2", &["SET", "lock", "t2", "NX", "PX", "100"]),
            [
                RedisEvent::KeyExpired { key: "lock".into() },
                changed("c2", "SET", "lock", None, None, Some("t2"), Some(100), "OK"),
            ]
        );
        // A DEL that only finds the key expired deleted nothing of its own.
        assert_eq!(
            host.send(300, "c1", &["DEL", "lock"]),
            [RedisEvent::KeyExpired { key: "lock".into() }]
        );
        // The expiry cycle's deletions are forgotten: a new key is nobody's to overwrite.
        host.send(300, "c1", &["SET", "lock", "t1", "PX", "100"]);
        let dels = host.server.active_expire(at(500));
        host.watch.expired(&dels);
        assert_eq!(
            host.send(500, "c2", &["SET", "lock", "t2"]),
            [changed(
                "c2",
                "SET",
                "lock",
                None,
                None,
                Some("t2"),
                None,
                "OK"
            )]
        );
    }

    #[test]
    fn an_overwrite_and_a_replaced_server_keep_the_values_writer() {
        let mut host = Host::new();
        host.send(0, "c1", &["SET", "lock", "t1"]);
        assert_eq!(
            host.send(1, "c2", &["SET", "lock", "t2", "GET"]),
            [changed(
                "c2",
                "SET",
                "lock",
                Some("t1"),
                Some("c1"),
                Some("t2"),
                None,
                "\"t1\""
            )]
        );
        let mut promoted = Server::new(Config {
            role: Role::Replica,
            ..Config::default()
        });
        promoted.load(host.server.dump(at(2)), at(2));
        promoted.set_role(Role::Master);
        host.server = promoted;
        host.watch.resync(&host.server);
        assert_eq!(
            host.send(3, "c1", &["DEL", "lock"]),
            [changed(
                "c1",
                "DEL",
                "lock",
                Some("t2"),
                Some("c2"),
                None,
                None,
                "1"
            )]
        );
    }

    #[test]
    fn replies_in_brief() {
        assert_eq!(brief(&Frame::Simple(b"OK".to_vec())), "OK");
        assert_eq!(brief(&Frame::Integer(-2)), "-2");
        assert_eq!(brief(&Frame::Null), "nil");
        assert_eq!(
            brief(&Frame::Array(vec![
                Frame::Bulk(b"a\"b".to_vec()),
                Frame::Null
            ])),
            r#"["a\"b", nil]"#
        );
        let long = brief(&Frame::Bulk(vec![b'x'; 500]));
        assert_eq!(long.chars().count(), RESULT_MAX_CHARS + 1);
        assert!(long.ends_with('…'));
        let mut deep = Frame::Null;
        for _ in 0..1_000 {
            deep = Frame::Array(vec![deep]);
        }
        assert_eq!(brief(&deep), format!("{}…", "[".repeat(RESULT_MAX_CHARS)));
    }
}
