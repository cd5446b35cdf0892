//! redis-rs, in this test's process, in its default configuration (a `(host, port)` and nothing
//! else): the sync connection through every family, and the async multiplexed connection with
//! `pipe().atomic()`. Each prints a transcript like the Python and Node programs, one line per
//! step, nothing that varies between runs or servers.

use locksim::redis_rs::{
    self, AsyncCommands, Client, Commands, ExistenceCheck, RedisResult, Script, SetExpiry,
    SetOptions, SortedSetAddOptions,
};
use std::collections::BTreeMap;
use std::fmt::{Debug, Display};
use std::sync::mpsc::Sender;
use std::thread;
use std::time::Duration;

/// Compare-and-delete, the classic lock release.
const RELEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
                       return redis.call('DEL', KEYS[1]) else return 0 end";
const TABLE: &str = "return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}";
/// A bound on every wait, well inside the harness's time limit.
const WAIT: Duration = Duration::from_secs(5);

/// Prints the transcript's lines to the harness.
struct Transcript(Sender<String>);

impl Transcript {
    fn say(&self, step: &str, text: impl Display) {
        let _ = self.0.send(format!("{step}: {text}"));
    }

    /// Prints `result` (its `Debug` form) or its error; hands the value on.
    fn step<T: Debug>(&self, step: &str, result: RedisResult<T>) -> Option<T> {
        match result {
            Ok(value) => {
                self.say(step, format_args!("{value:?}"));
                Some(value)
            }
            Err(error) => {
                self.say(step, format_args!("ERR {error}"));
                None
            }
        }
    }

    /// Prints `connected` or the error; hands the connection on.
    fn open<C>(&self, step: &str, result: RedisResult<C>) -> Option<C> {
        match result {
            Ok(conn) => {
                self.say(step, "connected");
                Some(conn)
            }
            Err(error) => {
                self.say(step, format_args!("ERR {error}"));
                None
            }
        }
    }

    fn done(&self) {
        let _ = self.0.send("done".to_string());
    }
}

fn client(port: u16) -> Client {
    Client::open(("127.0.0.1", port)).expect("a (host, port) is a valid address")
}

fn set_nx_px() -> SetOptions {
    SetOptions::default()
        .conditional_set(ExistenceCheck::NX)
        .with_expiration(SetExpiry::PX(10_000))
}

/// The sync connection: strings, hashes, sorted sets, a transaction, scripts, lists with
/// blocking pops (one woken by a push from another connection), pub/sub.
pub fn sync_transcript(port: u16, out: Sender<String>) {
    let t = Transcript(out);
    let client = client(port);
    let Some(mut c) = t.open("connect", client.get_connection()) else {
        return t.done();
    };
    let c = &mut c;
    t.step::<String>("ping", redis_rs::cmd("PING").query(c));
    t.step::<Option<String>>(
        "set nx px (absent)",
        c.set_options("rs:lock", "token-1", set_nx_px()),
    );
    t.step::<Option<String>>(
        "set nx px (held)",
        c.set_options("rs:lock", "token-2", set_nx_px()),
    );
    t.step::<Option<String>>("get", c.get("rs:lock"));
    t.step(
        "pttl within px",
        c.pttl::<_, i64>("rs:lock").map(|ms| 0 < ms && ms <= 10_000),
    );
    t.step::<Option<String>>("get (absent)", c.get("rs:absent"));
    t.step::<i64>("incr (new)", c.incr("rs:fence", 1));
    t.step::<i64>("incr", c.incr("rs:fence", 1));
    t.step::<i64>("incrby", c.incr("rs:fence", 10));
    t.step::<i64>("incr (not an integer)", c.incr("rs:lock", 1));

    t.step::<i64>("hset", c.hset("rs:hash", "owner", "a"));
    t.step::<Option<String>>("hget", c.hget("rs:hash", "owner"));
    t.step::<i64>("hincrby", c.hincr("rs:hash", "count", 3));
    t.step::<BTreeMap<String, String>>("hgetall", c.hgetall("rs:hash"));
    t.step::<Option<String>>("hget (wrong type)", c.hget("rs:lock", "owner"));

    t.step::<usize>(
        "zadd",
        c.zadd_multiple("rs:zset", &[(3, "c"), (1, "a"), (2, "b")]),
    );
    t.step::<Vec<String>>("zrange", c.zrange("rs:zset", 0, -1));
    t.step::<Vec<(String, f64)>>("zrange withscores", c.zrange_withscores("rs:zset", 0, 1));
    let nx = SortedSetAddOptions::add_only();
    t.step::<usize>(
        "zadd nx (present)",
        c.zadd_multiple_options("rs:zset", &[(9, "a")], &nx),
    );
    t.step::<Option<f64>>("zscore", c.zscore("rs:zset", "a"));

    t.step::<(String, i64, String, i64)>(
        "pipe atomic",
        redis_rs::pipe()
            .atomic()
            .set("rs:tx", "1")
            .incr("rs:tx", 1)
            .get("rs:tx")
            .hset("rs:tx-hash", "f", "v")
            .query(c),
    );
    t.step::<(String, i64)>(
        "pipe atomic (runtime error)",
        redis_rs::pipe()
            .atomic()
            .set("rs:tx", "x")
            .incr("rs:tx", 1)
            .query(c),
    );
    t.step::<(i64, String)>(
        "pipe (no transaction)",
        redis_rs::pipe().incr("rs:tx-n", 3).get("rs:tx-n").query(c),
    );

    let release = Script::new(RELEASE);
    let releasing = |token: &str, c: &mut redis_rs::Connection| {
        release.key("rs:lock").arg(token).invoke::<i64>(c)
    };
    t.step("script (not the holder)", releasing("token-2", c));
    t.step("script (the holder)", releasing("token-1", c));
    t.step("script (gone)", releasing("token-1", c));
    t.step::<(String, String, i64)>(
        "script (table)",
        Script::new(TABLE)
            .key("rs:script-counter")
            .arg("x")
            .invoke(c),
    );

    t.step::<usize>("lpush", c.lpush("rs:list", &["a", "b", "c"]));
    t.step::<Vec<String>>("lrange", c.lrange("rs:list", 0, -1));
    t.step::<Option<[String; 2]>>("blpop (ready)", c.blpop("rs:list", 1.0));
    t.step::<Option<[String; 2]>>("brpop (ready)", c.brpop("rs:list", 1.0));
    t.step::<Option<[String; 2]>>("blpop (timeout)", c.blpop("rs:empty", 0.1));
    // The waiter on a connection of its own: a blocked connection cannot send the push.
    let waiter = {
        let client = client.clone();
        thread::spawn(move || {
            client
                .get_connection()
                .and_then(|mut w| w.blpop::<_, Option<[String; 2]>>("rs:wake", WAIT.as_secs_f64()))
        })
    };
    thread::sleep(Duration::from_millis(200));
    t.step::<usize>("lpush (wakes the waiter)", c.lpush("rs:wake", "ready"));
    t.step(
        "blpop (woken)",
        waiter.join().expect("the waiter does not panic"),
    );
    t.step::<usize>("llen after wake", c.llen("rs:wake"));

    pubsub(&t, &client, c);
    t.done();
}

/// A subscriber on a connection of its own; the publisher on `c`.
fn pubsub(t: &Transcript, client: &Client, c: &mut redis_rs::Connection) {
    let Some(mut conn) = t.open("subscriber connect", client.get_connection()) else {
        return;
    };
    let mut sub = conn.as_pubsub();
    if t.step("read timeout", sub.set_read_timeout(Some(WAIT)))
        .is_none()
        || t.step("subscribe", sub.subscribe("rs:chan")).is_none()
    {
        return;
    }
    t.step::<usize>("publish", c.publish("rs:chan", "unlocked"));
    t.step(
        "message",
        sub.get_message()
            .and_then(|m| Ok((m.get_channel_name().to_string(), m.get_payload::<String>()?))),
    );
    t.step::<usize>("publish (no subscriber)", c.publish("rs:nobody", "x"));
    t.step("unsubscribe", sub.unsubscribe("rs:chan"));
    t.step::<usize>("publish (after unsubscribe)", c.publish("rs:chan", "x"));
}

/// The async multiplexed connection: the string, hash and sorted-set steps, `pipe().atomic()`,
/// a script, a blocking pop that times out.
pub fn async_transcript(port: u16, out: Sender<String>) {
    let t = Transcript(out);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let client = client(port);
        let connected = client.get_multiplexed_async_connection().await;
        let Some(mut c) = t.open("connect", connected) else {
            return t.done();
        };
        let c = &mut c;
        t.step::<String>("ping", redis_rs::cmd("PING").query_async(c).await);
        t.step::<Option<String>>(
            "set nx px (absent)",
            c.set_options("rs:a:lock", "token-1", set_nx_px()).await,
        );
        t.step::<Option<String>>(
            "set nx px (held)",
            c.set_options("rs:a:lock", "token-2", set_nx_px()).await,
        );
        t.step::<Option<String>>("get", c.get("rs:a:lock").await);
        t.step::<i64>("incr (new)", c.incr("rs:a:fence", 1).await);
        t.step::<i64>("hset", c.hset("rs:a:hash", "owner", "a").await);
        t.step::<Option<String>>("hget", c.hget("rs:a:hash", "owner").await);
        t.step::<usize>(
            "zadd",
            c.zadd_multiple("rs:a:zset", &[(2, "b"), (1, "a")]).await,
        );
        t.step::<Vec<String>>("zrange", c.zrange("rs:a:zset", 0, -1).await);
        t.step::<(String, i64, String, i64)>(
            "pipe atomic",
            redis_rs::pipe()
                .atomic()
                .set("rs:a:tx", "1")
                .incr("rs:a:tx", 1)
                .get("rs:a:tx")
                .hset("rs:a:tx-hash", "f", "v")
                .query_async(c)
                .await,
        );
        t.step::<(String, i64)>(
            "pipe atomic (runtime error)",
            redis_rs::pipe()
                .atomic()
                .set("rs:a:tx", "x")
                .incr("rs:a:tx", 1)
                .query_async(c)
                .await,
        );
        let release = Script::new(RELEASE);
        t.step::<i64>(
            "script (the holder)",
            release
                .key("rs:a:lock")
                .arg("token-1")
                .invoke_async(c)
                .await,
        );
        t.step::<usize>("lpush", c.lpush("rs:a:list", "a").await);
        t.step::<Option<[String; 2]>>("blpop (ready)", c.blpop("rs:a:list", 1.0).await);
        t.step::<Option<[String; 2]>>("blpop (timeout)", c.blpop("rs:a:empty", 0.1).await);
        t.done();
    });
}
