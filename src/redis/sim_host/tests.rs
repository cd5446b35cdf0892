//! The glue in a small turmoil world: one Redis host and a client speaking raw RESP.

use super::*;
use crate::history::{History, Op};
use crate::recorder::Recorder;
use crate::redis::events::KeyChange;
use crate::redis::resp;
use crate::sim::test_world::{self, TimedStep};
use std::cell::RefCell;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use turmoil::net::TcpStream;

fn family(persistence: Persistence) -> RedisFamily {
    RedisFamily {
        expiry_clock: ExpiryClock::Wall,
        persistence,
        restart_delay_ms: 0,
        replica_lag_ms: None,
    }
}

fn node(name: &str, recorder: &Recorder) -> Node {
    test_world::node(name, recorder, &Default::default())
}

/// A command as a client sends it: a RESP2 array of bulk strings.
fn request(command: &[&str]) -> Vec<u8> {
    let frame = resp::Frame::Array(
        command
            .iter()
            .map(|a| resp::Frame::Bulk(a.as_bytes().to_vec()))
            .collect(),
    );
    let mut out = Vec::new();
    resp::encode(&frame, resp::Protocol::Resp2, &mut out);
    out
}

/// One request on a fresh connection: the reply's bytes, or what went wrong.
async fn ask(command: &[&str]) -> Result<Vec<u8>, String> {
    let mut stream = TcpStream::connect(("redis1", PORT))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream
        .write_all(&request(command))
        .await
        .map_err(|e| e.to_string())?;
    let mut reply = vec![0u8; 256];
    let n = stream.read(&mut reply).await.map_err(|e| e.to_string())?;
    reply.truncate(n);
    Ok(reply)
}

type Step = TimedStep<RefCell<Box<dyn ServerSoftware>>>;

/// Runs `client` against a Redis host of `family`, doing `at` to the world at those times.
fn world(
    family: RedisFamily,
    steps: Vec<Step>,
    client: impl std::future::Future<Output = Result<(), String>> + 'static,
) -> Vec<Op> {
    let clients: Vec<(&str, Client)> = vec![("c1", Box::pin(client))];
    world_of(family, steps, clients)
        .events
        .into_iter()
        .map(|e| e.op)
        .collect()
}

type Client = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>>>>;

/// Runs named clients against a Redis host of `family`, doing `at` to the world at those
/// times: the history.
fn world_of(family: RedisFamily, steps: Vec<Step>, clients: Vec<(&str, Client)>) -> History {
    let recorder = Recorder::default();
    let mut sim = test_world::sim();
    let software = Rc::new(RefCell::new(family.install(node("redis1", &recorder))));
    let started = software.clone();
    sim.host("redis1", move || started.borrow().start());
    for (name, client) in clients {
        sim.client(name, async move { client.await.map_err(Into::into) });
    }
    test_world::run(&mut sim, steps, &*software);
    recorder.take()
}

fn crash_and_restart(at: u64) -> Vec<Step> {
    vec![
        (at, Box::new(|sim, _| sim.crash("redis1"))),
        (at + 10, Box::new(|sim, _| sim.bounce("redis1"))),
    ]
}

async fn sleep(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

fn expect(reply: Result<Vec<u8>, String>, want: &[u8]) -> Result<(), String> {
    match reply {
        Ok(got) if got == want => Ok(()),
        other => Err(format!(
            "wanted {:?}, got {other:?}",
            String::from_utf8_lossy(want)
        )),
    }
}

#[test]
fn what_a_restart_keeps_depends_on_persistence() {
    let cases = [
        (Persistence::None, &b"$-1\r\n"[..], 1),
        (Persistence::AofAlways, b"$1\r\nv\r\n", 0),
        (
            Persistence::AofEverysec {
                fsync_every_ms: 1_000,
            },
            b"$-1\r\n",
            1,
        ),
        (
            Persistence::AofEverysec { fsync_every_ms: 50 },
            b"$1\r\nv\r\n",
            0,
        ),
    ];
    for (persistence, after, lost) in cases {
        let ops = world(family(persistence), crash_and_restart(200), async move {
            expect(ask(&["SET", "k", "v"]).await, b"+OK\r\n")?;
            sleep(400).await;
            expect(ask(&["GET", "k"]).await, after)
        });
        let restarted: Op = RedisEvent::Restarted { lost }.into();
        assert!(ops.contains(&restarted), "{persistence:?}: {ops:?}");
    }
}

#[test]
fn a_delayed_restart_refuses_connections_until_the_delay_has_passed() {
    let delayed = RedisFamily {
        restart_delay_ms: 300,
        ..family(Persistence::None)
    };
    world(delayed, crash_and_restart(100), async {
        sleep(150).await;
        if ask(&["PING"]).await.is_ok() {
            return Err("answered while restarting".into());
        }
        sleep(400).await;
        expect(ask(&["PING"]).await, b"+PONG\r\n")
    });
}

#[test]
fn a_failover_promotes_the_replica_without_what_it_had_not_received() {
    let replicated = RedisFamily {
        replica_lag_ms: Some(50),
        ..family(Persistence::None)
    };
    let failover: Step = (
        120,
        Box::new(|_, software| {
            software.borrow_mut().apply(&Fault::Failover {
                node: "redis1".into(),
            })
        }),
    );
    let ops = world(replicated, vec![failover], async {
        expect(ask(&["SET", "old", "v"]).await, b"+OK\r\n")?;
        sleep(100).await;
        expect(ask(&["SET", "new", "v"]).await, b"+OK\r\n")?;
        sleep(100).await;
        expect(ask(&["GET", "old"]).await, b"$1\r\nv\r\n")?;
        expect(ask(&["GET", "new"]).await, b"$-1\r\n")
    });
    let failed_over: Op = RedisEvent::FailedOver { lost: 1 }.into();
    assert!(ops.contains(&failed_over), "{ops:?}");
}

#[test]
fn a_lost_reply_is_applied_and_its_connection_dropped() {
    let lose: Step = (
        0,
        Box::new(|_, software| {
            software.borrow_mut().apply(&Fault::LoseReply {
                node: "redis1".into(),
                op: "set".into(),
                client: "c1".into(),
            })
        }),
    );
    world(family(Persistence::None), vec![lose], async {
        if let Ok(reply) = ask(&["SET", "k", "v"]).await
            && !reply.is_empty()
        {
            return Err(format!("a reply came: {reply:?}"));
        }
        expect(ask(&["GET", "k"]).await, b"$1\r\nv\r\n")
    });
}

#[test]
fn the_expiry_cycle_deletes_and_records_keys_past_their_deadline() {
    let ops = world(family(Persistence::None), vec![], async {
        expect(ask(&["SET", "k", "v", "PX", "50"]).await, b"+OK\r\n")?;
        sleep(300).await;
        Ok(())
    });
    let expired: Op = RedisEvent::KeyExpired { key: "k".into() }.into();
    assert!(ops.contains(&expired), "{ops:?}");
}

/// Issue 20: whose DEL removed whose key. c2 takes the lock; c1's plain DEL removes it.
#[test]
fn a_del_of_another_clients_key_is_recorded_with_both_clients_and_the_token() {
    let clients: Vec<(&str, Client)> = vec![
        (
            "c2",
            Box::pin(async {
                expect(
                    ask(&["SET", "lock", "t2", "NX", "PX", "200"]).await,
                    b"+OK\r\n",
                )
            }),
        ),
        (
            "c1",
            Box::pin(async {
                sleep(20).await;
                expect(
                    ask(&["SET", "lock", "t1", "NX", "PX", "200"]).await,
                    b"$-1\r\n",
                )?;
                expect(ask(&["DEL", "lock"]).await, b":1\r\n")?;
                expect(ask(&["DEL", "lock"]).await, b":0\r\n")
            }),
        ),
    ];
    let history = world_of(family(Persistence::None), vec![], clients);
    let change =
        |client: &str, command: &str, before, owner: Option<&str>, after, ttl_ms, result: &str| {
            Op::from(RedisEvent::KeyChanged(KeyChange {
                client: client.into(),
                command: command.into(),
                key: "lock".into(),
                before,
                owner: owner.map(Into::into),
                after,
                ttl_ms,
                result: result.into(),
            }))
        };
    let recorded: Vec<(&str, &Op)> = history
        .events
        .iter()
        .map(|e| (e.node.as_str(), &e.op))
        .collect();
    assert_eq!(
        recorded,
        [
            (
                "redis1",
                &change("c2", "SET", None, None, Some("t2".into()), Some(200), "OK")
            ),
            (
                "redis1",
                &change("c1", "DEL", Some("t2".into()), Some("c2"), None, None, "1")
            ),
        ]
    );
    let Op::Server(del) = &history.events[1].op else {
        unreachable!("compared above")
    };
    assert!(!del.routine, "another client's key removed is news");
    assert_eq!(
        del.told.as_deref(),
        Some(r#"c1 DEL lock removed c2's "t2""#)
    );
}

/// Sends each command on one connection and reads its reply: the replies, until the
/// connection ends.
async fn one_by_one(commands: &[&[&str]]) -> Result<Vec<Vec<u8>>, String> {
    let mut stream = TcpStream::connect(("redis1", PORT))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut replies = Vec::new();
    for command in commands {
        stream
            .write_all(&request(command))
            .await
            .map_err(|e| e.to_string())?;
        let mut reply = vec![0u8; 256];
        match stream.read(&mut reply).await {
            Ok(n) if n > 0 => reply.truncate(n),
            _ => break,
        }
        replies.push(reply);
    }
    Ok(replies)
}

/// A transaction is one step: its changes are recorded together, as EXEC's, and a
/// `lose_reply` of `exec` applies it whole and drops the connection.
#[test]
fn a_transaction_is_recorded_as_one_exec_and_its_lost_reply_applies_it_whole() {
    let lose: Step = (
        0,
        Box::new(|_, software| {
            for op in ["set", "exec"] {
                software.borrow_mut().apply(&Fault::LoseReply {
                    node: "redis1".into(),
                    op: op.into(),
                    client: "c1".into(),
                })
            }
        }),
    );
    let clients: Vec<(&str, Client)> = vec![(
        "c1",
        Box::pin(async {
            // The queued SETs are not applied yet: their +QUEUED replies are not lost.
            let replies = one_by_one(&[
                &["MULTI"],
                &["SET", "a", "1"],
                &["SET", "b", "2"],
                &["EXEC"],
            ])
            .await?;
            let queued: &[&[u8]] = &[b"+OK\r\n", b"+QUEUED\r\n", b"+QUEUED\r\n"];
            if replies != queued {
                return Err(format!("wanted no reply to EXEC: {replies:?}"));
            }
            expect(ask(&["GET", "b"]).await, b"$1\r\n2\r\n")?;
            // The armed `set` fault still waits for a SET that is applied.
            if let Ok(reply) = ask(&["SET", "c", "3"]).await
                && !reply.is_empty()
            {
                return Err(format!("a reply came: {reply:?}"));
            }
            Ok(())
        }),
    )];
    let history = world_of(family(Persistence::None), vec![lose], clients);
    let change = |command: &str, key: &str, after: &str, result: &str| {
        Op::from(RedisEvent::KeyChanged(KeyChange {
            client: "c1".into(),
            command: command.into(),
            key: key.into(),
            before: None,
            owner: None,
            after: Some(after.into()),
            ttl_ms: None,
            result: result.into(),
        }))
    };
    let lost = |command: &str| {
        Op::from(RedisEvent::ReplyLost {
            client: "c1".into(),
            command: command.into(),
        })
    };
    let recorded: Vec<&Op> = history.events.iter().map(|e| &e.op).collect();
    assert_eq!(
        recorded,
        [
            &change("EXEC", "a", "1", "[OK, OK]"),
            &change("EXEC", "b", "2", "[OK, OK]"),
            &lost("exec"),
            &change("SET", "c", "3", "OK"),
            &lost("set"),
        ]
    );
}

/// redis-rs's `pipe().atomic()` (MULTI ... EXEC) over the simulated network returns the
/// values, and a broken WATCH its nil.
#[test]
fn redis_rs_transactions_run_in_the_simulation() {
    world(family(Persistence::None), vec![], async {
        let me = node("c1", &Recorder::default());
        let fail = |e: redis_rs::RedisError| e.to_string();
        let mut conn = crate::redis::rs::connect(&me, "redis1")
            .await
            .map_err(fail)?;
        let mut other = crate::redis::rs::connect(&me, "redis1")
            .await
            .map_err(fail)?;
        let (old, value): (Option<String>, String) = redis_rs::pipe()
            .atomic()
            .cmd("SET")
            .arg("k")
            .arg("1")
            .arg("GET")
            .get("k")
            .query_async(&mut conn)
            .await
            .map_err(fail)?;
        if (old.as_deref(), value.as_str()) != (None, "1") {
            return Err(format!("{old:?}, {value:?}"));
        }
        let () = redis_rs::cmd("WATCH")
            .arg("k")
            .query_async(&mut conn)
            .await
            .map_err(fail)?;
        let () = redis_rs::cmd("SET")
            .arg("k")
            .arg("2")
            .query_async(&mut other)
            .await
            .map_err(fail)?;
        let aborted: Option<(String,)> = redis_rs::pipe()
            .atomic()
            .set("k", "3")
            .query_async(&mut conn)
            .await
            .map_err(fail)?;
        if aborted.is_some() {
            return Err(format!("EXEC ran: {aborted:?}"));
        }
        expect(ask(&["GET", "k"]).await, b"$1\r\n2\r\n")
    });
}

#[test]
fn redis_rs_speaks_resp3_to_the_simulated_host() {
    use redis_rs::{AsyncConnectionConfig, ProtocolVersion, RedisConnectionInfo, Value, cmd};
    let client = async {
        let node = node("c1", &Recorder::default());
        let info = RedisConnectionInfo::default().set_protocol(ProtocolVersion::RESP3);
        let config = AsyncConnectionConfig::new();
        let mut conn = crate::redis::rs::connect_as(&node, "redis1", info, config)
            .await
            .map_err(|e| e.to_string())?;
        let mut query = async |c: &mut redis_rs::Cmd| {
            c.query_async::<Value>(&mut conn)
                .await
                .map_err(|e| e.to_string())
        };
        let hello = query(&mut cmd("HELLO")).await?;
        let proto = (Value::BulkString(b"proto".to_vec()), Value::Int(3));
        if !matches!(&hello, Value::Map(pairs) if pairs.contains(&proto)) {
            return Err(format!("HELLO: {hello:?}"));
        }
        let set = query(cmd("SET").arg("k").arg("v").arg("NX")).await?;
        let again = query(cmd("SET").arg("k").arg("v").arg("NX")).await?;
        let missing = query(cmd("GET").arg("nokey")).await?;
        let falsy = query(cmd("EVAL").arg("return {1, false}").arg(0)).await?;
        let info = query(cmd("INFO").arg("replication")).await?;
        let got = (set, again, missing, falsy);
        let want = (
            Value::Okay,
            Value::Nil,
            Value::Nil,
            Value::Array(vec![Value::Int(1), Value::Nil]),
        );
        if got != want || !matches!(info, Value::VerbatimString { .. }) {
            return Err(format!("{got:?} {info:?}"));
        }
        Ok(())
    };
    world(family(Persistence::None), vec![], client);
}

/// A connection's next read before `ms` after `start`: its bytes, or `None` if nothing
/// came.
async fn read_until(
    stream: &mut TcpStream,
    start: tokio::time::Instant,
    ms: u64,
) -> Result<Option<Vec<u8>>, String> {
    let mut buf = vec![0u8; 256];
    let deadline = start + Duration::from_millis(ms);
    match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
        Err(_) => Ok(None),
        Ok(Ok(n)) => Ok(Some(buf[..n].to_vec())),
        Ok(Err(e)) => Err(e.to_string()),
    }
}

/// c1 subscribes to `news` at once and reads until 350 ms, then until 650 ms, while c2
/// publishes at 100 ms and 400 ms, with `steps` done to the world: what c1 received in
/// each window, and c2's replies.
fn subscriber_and_publisher(steps: Vec<Step>) -> (Vec<Option<Vec<u8>>>, Vec<Vec<u8>>) {
    let received = Rc::new(RefCell::new(Vec::new()));
    let replies = Rc::new(RefCell::new(Vec::new()));
    let got = received.clone();
    let subscriber: Client = Box::pin(async move {
        let start = tokio::time::Instant::now();
        let mut stream = subscribe().await?;
        for until in [350, 650] {
            let read = read_until(&mut stream, start, until).await?;
            got.borrow_mut().push(read);
        }
        Ok(())
    });
    let answers = replies.clone();
    let publisher: Client = Box::pin(async move {
        let start = tokio::time::Instant::now();
        for (at, message) in [(100, "one"), (400, "two")] {
            tokio::time::sleep_until(start + Duration::from_millis(at)).await;
            let reply = ask(&["PUBLISH", "news", message]).await?;
            answers.borrow_mut().push(reply);
        }
        Ok(())
    });
    let clients = vec![("c1", subscriber), ("c2", publisher)];
    world_of(family(Persistence::None), steps, clients);
    let received = received.borrow().clone();
    let replies = replies.borrow().clone();
    (received, replies)
}

/// A connection subscribed to `news`, its confirmation read.
async fn subscribe() -> Result<TcpStream, String> {
    let mut stream = TcpStream::connect(("redis1", PORT))
        .await
        .map_err(|e| e.to_string())?;
    stream
        .write_all(&request(&["SUBSCRIBE", "news"]))
        .await
        .map_err(|e| e.to_string())?;
    let start = tokio::time::Instant::now();
    let confirmed = read_until(&mut stream, start, 50).await?;
    if confirmed.as_deref() != Some(b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n") {
        return Err(format!("confirmation: {confirmed:?}"));
    }
    Ok(stream)
}

fn message(text: &str) -> Option<Vec<u8>> {
    let mut frame = b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n".to_vec();
    frame.extend(format!("${}\r\n{text}\r\n", text.len()).into_bytes());
    Some(frame)
}

#[test]
fn a_subscriber_receives_each_publish_and_a_held_link_delays_it() {
    let (received, replies) = subscriber_and_publisher(Vec::new());
    assert_eq!(received, vec![message("one"), message("two")]);
    assert_eq!(replies, vec![b":1\r\n".to_vec(), b":1\r\n".to_vec()]);
    // Held from before the second publish until after c1 stopped waiting for it: it was
    // sent (the publisher counts c1) but c1 did not get it in time.
    let hold: Vec<Step> = vec![
        (300, Box::new(|sim, _| sim.hold("c1", "redis1"))),
        (700, Box::new(|sim, _| sim.release("c1", "redis1"))),
    ];
    let (received, replies) = subscriber_and_publisher(hold);
    assert_eq!(received, vec![message("one"), None]);
    assert_eq!(replies, vec![b":1\r\n".to_vec(), b":1\r\n".to_vec()]);
}

#[test]
fn a_partition_loses_the_message_and_a_subscriber_that_leaves_is_forgotten() {
    let partition: Vec<Step> = vec![
        (300, Box::new(|sim, _| sim.partition("c1", "redis1"))),
        (500, Box::new(|sim, _| sim.repair("c1", "redis1"))),
    ];
    let (received, replies) = subscriber_and_publisher(partition);
    assert_eq!(received, vec![message("one"), None]);
    assert_eq!(replies, vec![b":1\r\n".to_vec(), b":1\r\n".to_vec()]);
    // c1 leaves at once: by c2's publishes the server has forgotten it.
    let subscriber: Client = Box::pin(async move {
        subscribe().await?;
        Ok(())
    });
    let publisher: Client = Box::pin(async move {
        sleep(100).await;
        expect(ask(&["PUBLISH", "news", "x"]).await, b":0\r\n")?;
        expect(
            ask(&["PUBSUB", "NUMSUB", "news"]).await,
            b"*2\r\n$4\r\nnews\r\n:0\r\n",
        )
    });
    let clients = vec![("c1", subscriber), ("c2", publisher)];
    world_of(family(Persistence::None), Vec::new(), clients);
}

/// As in `serve` (`host`'s test of it): a subscriber that stops reading is dropped once its
/// unwritten messages reach the pub/sub class's hard limit, 32 MiB. The simulated TCP holds
/// 64 segments unread before a write waits, so the server hears more PUBLISHes first.
#[test]
fn a_subscriber_that_stops_reading_is_dropped_at_the_output_limit_as_in_serve() {
    let subscriber: Client = Box::pin(async move {
        let stream = subscribe().await?;
        sleep(1_000).await;
        drop(stream);
        Ok(())
    });
    let counts = Rc::new(RefCell::new(Vec::new()));
    let heard = counts.clone();
    let publisher: Client = Box::pin(async move {
        sleep(100).await;
        let mut stream = TcpStream::connect(("redis1", PORT))
            .await
            .map_err(|e| e.to_string())?;
        let publish = request(&["PUBLISH", "news", &"m".repeat(1 << 20)]);
        while heard.borrow().last() != Some(&b":0\r\n".to_vec()) && heard.borrow().len() < 200 {
            stream
                .write_all(&publish)
                .await
                .map_err(|e| e.to_string())?;
            let mut count = vec![0; 4];
            stream
                .read_exact(&mut count)
                .await
                .map_err(|e| e.to_string())?;
            heard.borrow_mut().push(count);
        }
        Ok(())
    });
    let clients = vec![("c1", subscriber), ("c2", publisher)];
    let history = world_of(family(Persistence::None), Vec::new(), clients);
    let counts = counts.borrow();
    let subscribed = counts.iter().filter(|c| c.as_slice() == b":1\r\n").count();
    // 64 in flight, one being written, 31 queued behind it: the 96th reaches the limit.
    assert_eq!((subscribed, counts.len()), (96, 97));
    let dropped: Vec<String> = history
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(server) => Some(format!("{server:?}")),
            _ => None,
        })
        .filter(|e| e.contains("output_limit"))
        .collect();
    // Each message is 39 bytes of framing around its 1 MiB.
    let unwritten = 32 * ((1 << 20) + 39);
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert!(
        dropped[0].contains(r#""client": String("c1")"#),
        "{dropped:?}"
    );
    assert!(
        dropped[0].contains(&format!("Number({unwritten})")),
        "{dropped:?}"
    );
}

/// c1 sends `BLPOP q 0` at once and reads until 650 ms; c2 pushes `a` and `b` at 100 ms,
/// with `steps` done to the world: what c1 read, and the history.
fn blocked_and_pusher(steps: Vec<Step>) -> (Option<Vec<u8>>, History) {
    let received = Rc::new(RefCell::new(None));
    let got = received.clone();
    let waiter: Client = Box::pin(async move {
        let start = tokio::time::Instant::now();
        let mut stream = TcpStream::connect(("redis1", PORT))
            .await
            .map_err(|e| e.to_string())?;
        stream
            .write_all(&request(&["BLPOP", "q", "0"]))
            .await
            .map_err(|e| e.to_string())?;
        *got.borrow_mut() = read_until(&mut stream, start, 650).await?;
        Ok(())
    });
    let pusher: Client = Box::pin(async move {
        sleep(100).await;
        expect(ask(&["RPUSH", "q", "a", "b"]).await, b":2\r\n")?;
        sleep(600).await;
        // `b` stays: `a` went to the waiter, even when its link holds the answer back.
        let left = ask(&["LLEN", "q"]).await?;
        expect(Ok(left), b":1\r\n")
    });
    let clients = vec![("c1", waiter), ("c2", pusher)];
    let history = world_of(family(Persistence::None), steps, clients);
    let received = received.borrow().clone();
    (received, history)
}

#[test]
fn a_blocked_pop_is_served_by_a_push_held_by_a_held_link_and_recorded() {
    let (received, history) = blocked_and_pusher(Vec::new());
    assert_eq!(received, Some(b"*2\r\n$1\r\nq\r\n$1\r\na\r\n".to_vec()));
    let changes: Vec<String> = history
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(server) => Some(format!("{server:?}")),
            _ => None,
        })
        .collect();
    assert!(
        changes
            .iter()
            .any(|c| c.contains(r#""command": String("LPOP")"#) && c.contains(r#"String("c1")"#)),
        "the served pop is recorded as c1's: {changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c.contains(r#""command": String("RPUSH")"#)),
        "{changes:?}"
    );
    let hold: Vec<Step> = vec![
        (50, Box::new(|sim, _| sim.hold("c1", "redis1"))),
        (700, Box::new(|sim, _| sim.release("c1", "redis1"))),
    ];
    let (received, _) = blocked_and_pusher(hold);
    assert_eq!(received, None, "the answer is held with the link");
}

#[test]
fn a_blocked_client_whose_connection_ends_is_forgotten() {
    let waiter: Client = Box::pin(async move {
        let mut stream = TcpStream::connect(("redis1", PORT))
            .await
            .map_err(|e| e.to_string())?;
        stream
            .write_all(&request(&["BLPOP", "q", "0"]))
            .await
            .map_err(|e| e.to_string())?;
        sleep(50).await;
        Ok(())
    });
    let pusher: Client = Box::pin(async move {
        sleep(100).await;
        expect(ask(&["RPUSH", "q", "a"]).await, b":1\r\n")?;
        expect(ask(&["LLEN", "q"]).await, b":1\r\n")
    });
    let clients = vec![("c1", waiter), ("c2", pusher)];
    let history = world_of(family(Persistence::None), Vec::new(), clients);
    let popped = history
        .events
        .iter()
        .any(|e| format!("{:?}", e.op).contains("LPOP"));
    assert!(!popped, "nobody was left to pop");
}

#[test]
fn a_partition_loses_the_answer_to_a_served_pop_and_the_element_with_it() {
    // c1 blocked before the partition; the push at 100 ms pops `a` for it, and the answer is
    // dropped on the cut link, as turmoil's TCP drops a segment: `a` is gone from the list
    // (the pusher still finds only `b`) and c1 never hears of it.
    let partition: Vec<Step> = vec![
        (50, Box::new(|sim, _| sim.partition("c1", "redis1"))),
        (500, Box::new(|sim, _| sim.repair("c1", "redis1"))),
    ];
    let (received, history) = blocked_and_pusher(partition);
    assert_eq!(received, None);
    let popped_for_c1 = history.events.iter().any(|e| {
        let op = format!("{:?}", e.op);
        op.contains("LPOP") && op.contains(r#"String("c1")"#)
    });
    assert!(popped_for_c1, "the pop was done, and recorded as c1's");
}

/// A step at 0 ms that arms `lose_reply` of c1's next `op`.
fn lose(op: &'static str) -> Step {
    (
        0,
        Box::new(move |_, software| {
            software.borrow_mut().apply(&Fault::LoseReply {
                node: "redis1".into(),
                op: op.into(),
                client: "c1".into(),
            })
        }),
    )
}

/// The lost replies the history records: (client, command).
fn lost_replies(history: &History) -> Vec<(String, String)> {
    history
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(server) => match server.read::<RedisEvent>() {
                Some(RedisEvent::ReplyLost { client, command }) => Some((client, command)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn a_blocked_pops_reply_is_lost_once_it_is_served_and_the_element_with_it() {
    for op in ["blpop", "any"] {
        let (received, history) = blocked_and_pusher(vec![lose(op)]);
        assert_eq!(
            received,
            Some(vec![]),
            "{op}: c1's connection ends, its pop unheard"
        );
        assert_eq!(lost_replies(&history), [("c1".into(), "blpop".into())]);
    }
}

#[test]
fn any_loses_the_next_reply_whatever_it_is_and_a_named_one_skips_queued_commands() {
    let run = |op: &'static str| {
        let client: Client = Box::pin(async move {
            let replies = one_by_one(&[&["MULTI"], &["INCR", "n"], &["EXEC"]]).await?;
            // `any` loses MULTI's +OK and ends the connection with its transaction.
            let (count, n) = match op {
                "any" => (0, &b"$-1\r\n"[..]),
                _ => (3, &b"$1\r\n1\r\n"[..]),
            };
            if replies.len() != count {
                return Err(format!("{op}: {replies:?}"));
            }
            expect(ask(&["GET", "n"]).await, n)
        });
        lost_replies(&world_of(
            family(Persistence::None),
            vec![lose(op)],
            vec![("c1", client)],
        ))
    };
    assert_eq!(run("any"), [("c1".into(), "multi".into())]);
    assert_eq!(
        run("incr"),
        Vec::<(String, String)>::new(),
        "a +QUEUED is not lost"
    );
}

/// Runs `commands` on one connection: the replies and how long they took, ms.
async fn timed(commands: &[&[&str]]) -> Result<(Vec<Vec<u8>>, u128), String> {
    let start = tokio::time::Instant::now();
    let replies = one_by_one(commands).await?;
    Ok((replies, start.elapsed().as_millis()))
}

#[test]
fn wait_answers_once_the_replica_has_applied_the_write_or_at_its_timeout() {
    let replicated = |lag_ms| RedisFamily {
        replica_lag_ms: Some(lag_ms),
        ..family(Persistence::None)
    };
    world(replicated(50), vec![], async {
        // The write reaches the replica 50 ms later; WAIT answers then.
        let (replies, ms) = timed(&[&["SET", "k", "v"], &["WAIT", "1", "0"]]).await?;
        if replies != [b"+OK\r\n".to_vec(), b":1\r\n".to_vec()] || !(50..100).contains(&ms) {
            return Err(format!("{replies:?} after {ms} ms"));
        }
        // A connection that wrote nothing has nothing to wait for.
        let (replies, ms) = timed(&[&["WAIT", "1", "0"]]).await?;
        if replies != [b":1\r\n".to_vec()] || ms > 10 {
            return Err(format!("{replies:?} after {ms} ms"));
        }
        Ok(())
    });
    world(replicated(1000), vec![], async {
        // The replica lags past the timeout: none has acknowledged by then.
        let (replies, ms) = timed(&[&["SET", "k", "v"], &["WAIT", "1", "150"]]).await?;
        if replies != [b"+OK\r\n".to_vec(), b":0\r\n".to_vec()] || !(150..300).contains(&ms) {
            return Err(format!("{replies:?} after {ms} ms"));
        }
        Ok(())
    });
    world(family(Persistence::None), vec![], async {
        // No replica: WAIT 0 answers at once, WAIT 1 at its timeout.
        let (replies, _) = timed(&[&["WAIT", "0", "0"], &["WAIT", "1", "100"]]).await?;
        if replies != [b":0\r\n".to_vec(), b":0\r\n".to_vec()] {
            return Err(format!("{replies:?}"));
        }
        Ok(())
    });
}

/// c1 on redis-rs (RESP3, subscribed to `news`) blocks in `BLPOP q 0`; c2 publishes to
/// `news` and pushes onto `q` from 100 ms. When `paused`, c1's process is frozen from 50 ms to
/// 300 ms: when c1 heard its pop answered, what it popped, and whether the message came.
fn paused_waiter(paused: bool) -> (u64, Option<[String; 2]>, bool) {
    use redis_rs::{AsyncCommands, AsyncConnectionConfig, ProtocolVersion, PushKind};
    let heard = Rc::new(RefCell::new(None));
    let got = heard.clone();
    let waiter: Client = Box::pin(async move {
        let me = node("c1", &Recorder::default());
        let start = tokio::time::Instant::now();
        let fail = |e: redis_rs::RedisError| e.to_string();
        let (pushes, mut received) = tokio::sync::mpsc::unbounded_channel();
        let info = redis_rs::RedisConnectionInfo::default().set_protocol(ProtocolVersion::RESP3);
        let config = AsyncConnectionConfig::new().set_push_sender(pushes);
        let mut conn = crate::redis::rs::connect_as(&me, "redis1", info, config)
            .await
            .map_err(fail)?;
        conn.subscribe("news").await.map_err(fail)?;
        let gate = me.gate.clone();
        let freeze = async {
            if paused {
                tokio::time::sleep_until(start + Duration::from_millis(50)).await;
                gate.pause();
                tokio::time::sleep_until(start + Duration::from_millis(300)).await;
                gate.resume();
            }
        };
        let (_, popped) = tokio::join!(freeze, conn.blpop::<_, Option<[String; 2]>>("q", 0.0));
        let at = start.elapsed().as_millis() as u64;
        let mut message = false;
        while let Ok(push) = received.try_recv() {
            message |= push.kind == PushKind::Message;
        }
        *got.borrow_mut() = Some((at, popped.map_err(fail)?, message));
        Ok(())
    });
    let pusher: Client = Box::pin(async move {
        sleep(100).await;
        expect(ask(&["PUBLISH", "news", "x"]).await, b":1\r\n")?;
        expect(ask(&["RPUSH", "q", "a"]).await, b":1\r\n")
    });
    let clients = vec![("c1", waiter), ("c2", pusher)];
    world_of(family(Persistence::None), Vec::new(), clients);
    heard.take().expect("c1 finished")
}

#[test]
fn a_paused_client_hears_its_served_pop_and_its_message_when_it_resumes() {
    let popped = Some(["q".to_string(), "a".to_string()]);
    let (at, got, message) = paused_waiter(false);
    assert!(at < 150, "answered at {at} ms");
    assert_eq!((got, message), (popped.clone(), true));
    // Served and published while c1 was frozen: both wait in its socket until it thaws.
    let (at, got, message) = paused_waiter(true);
    assert!((300..350).contains(&at), "answered at {at} ms");
    assert_eq!((got, message), (popped, true));
}

#[test]
fn redis_rs_pubsub_hears_each_message_until_the_server_crashes() {
    use futures_util::StreamExt;
    let subscriber: Client = Box::pin(async move {
        let me = node("c1", &Recorder::default());
        let fail = |e: redis_rs::RedisError| e.to_string();
        let mut pubsub = crate::redis::rs::pubsub(&me, "redis1")
            .await
            .map_err(fail)?;
        pubsub.subscribe("news").await.map_err(fail)?;
        let mut messages = pubsub.into_on_message();
        for want in ["one", "two"] {
            let message = messages.next().await.ok_or("the stream ended")?;
            let got: String = message.get_payload().map_err(fail)?;
            if (message.get_channel_name(), got.as_str()) != ("news", want) {
                return Err(format!("{message:?}"));
            }
        }
        // The crash at 300 ms ends the connection, and the stream with it.
        match messages.next().await {
            None => Ok(()),
            Some(message) => Err(format!("after the crash: {message:?}")),
        }
    });
    let publisher: Client = Box::pin(async move {
        sleep(100).await;
        expect(ask(&["PUBLISH", "news", "one"]).await, b":1\r\n")?;
        expect(ask(&["PUBLISH", "news", "two"]).await, b":1\r\n")
    });
    let clients = vec![("c1", subscriber), ("c2", publisher)];
    world_of(family(Persistence::None), crash_and_restart(300), clients);
}
