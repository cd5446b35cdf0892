//! The hash and set commands: reply bytes as redis-server 7.0.15 gave them for the same
//! requests (each session on a fresh connection of an emptied server, in the protocol it
//! names), then what they propagate and whom they touch, which t_hash.c and t_set.c decide:
//! a no-op write neither propagates nor breaks a WATCH, an emptied key is deleted.

use super::test_support::*;
use crate::redis::conn::Conn;
use crate::redis::resp::{Protocol, encode};
use crate::redis::value::Value;

/// A request and the reply's bytes.
type Exchange = (&'static [&'static [u8]], &'static [u8]);

/// Generated against redis-server 7.0.15: each session on one connection of an empty
/// server, after `HELLO 3` for the RESP3 ones. Sets of other members than integers are left
/// out: the real server walks them in its hash table's random order.
const SESSIONS: &[(Protocol, &[Exchange])] = &[
    (
        Protocol::Resp2,
        &[
            (&[b"HSET", b"h", b"f1", b"v1", b"f2", b"v2"], b":2\r\n"),
            (&[b"HSET", b"h", b"f1", b"x", b"f3", b"v3"], b":1\r\n"),
            (&[b"HGETALL", b"h"], b"*6\r\n$2\r\nf1\r\n$1\r\nx\r\n$2\r\nf2\r\n$2\r\nv2\r\n$2\r\nf3\r\n$2\r\nv3\r\n"),
            (&[b"HKEYS", b"h"], b"*3\r\n$2\r\nf1\r\n$2\r\nf2\r\n$2\r\nf3\r\n"),
            (&[b"HVALS", b"h"], b"*3\r\n$1\r\nx\r\n$2\r\nv2\r\n$2\r\nv3\r\n"),
            (&[b"HGET", b"h", b"f1"], b"$1\r\nx\r\n"),
            (&[b"HGET", b"h", b"no"], b"$-1\r\n"),
            (&[b"HMGET", b"h", b"f2", b"no"], b"*2\r\n$2\r\nv2\r\n$-1\r\n"),
            (&[b"HLEN", b"h"], b":3\r\n"),
            (&[b"HEXISTS", b"h", b"f3"], b":1\r\n"),
            (&[b"HSTRLEN", b"h", b"f3"], b":2\r\n"),
            (&[b"HSETNX", b"h", b"f1", b"y"], b":0\r\n"),
            (&[b"HSETNX", b"h", b"f4", b"y"], b":1\r\n"),
            (&[b"HMSET", b"h", b"f5", b"z"], b"+OK\r\n"),
            (&[b"HDEL", b"h", b"f1", b"no", b"f1"], b":1\r\n"),
            (&[b"HGETALL", b"h"], b"*8\r\n$2\r\nf2\r\n$2\r\nv2\r\n$2\r\nf3\r\n$2\r\nv3\r\n$2\r\nf4\r\n$1\r\ny\r\n$2\r\nf5\r\n$1\r\nz\r\n"),
            (&[b"HDEL", b"h", b"f2", b"f3", b"f4", b"f5"], b":4\r\n"),
            (&[b"EXISTS", b"h"], b":0\r\n"),
            (&[b"HGETALL", b"h"], b"*0\r\n"),
            (&[b"HKEYS", b"h"], b"*0\r\n"),
            (&[b"HDEL", b"h", b"f"], b":0\r\n"),
        ],
    ),
    (
        Protocol::Resp3,
        &[
            (&[b"HSET", b"h", b"a", b"1", b"b", b"2"], b":2\r\n"),
            (&[b"HGETALL", b"h"], b"%2\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n"),
            (&[b"HGETALL", b"none"], b"%0\r\n"),
            (&[b"HKEYS", b"none"], b"*0\r\n"),
            (&[b"HMGET", b"h", b"a", b"no"], b"*2\r\n$1\r\n1\r\n_\r\n"),
            (&[b"HGET", b"h", b"no"], b"_\r\n"),
            (&[b"EVAL", b"return redis.call('hgetall', KEYS[1])", b"1", b"h"], b"*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n"),
        ],
    ),
    (
        Protocol::Resp2,
        &[
            (&[b"HSET", b"h", b"f"], b"-ERR wrong number of arguments for 'hset' command\r\n"),
            (&[b"HSET", b"h", b"f", b"v", b"g"], b"-ERR wrong number of arguments for 'hset' command\r\n"),
            (&[b"HMSET", b"h", b"f", b"v", b"g"], b"-ERR wrong number of arguments for 'hmset' command\r\n"),
            (&[b"SET", b"s", b"v"], b"+OK\r\n"),
            (&[b"HSET", b"s", b"f", b"v", b"g"], b"-ERR wrong number of arguments for 'hset' command\r\n"),
            (&[b"HSET", b"s", b"f", b"v"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HGET", b"s", b"f"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HGETALL", b"s"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HDEL", b"s", b"f"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HINCRBY", b"s", b"f", b"1"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HINCRBY", b"s", b"f", b"x"], b"-ERR value is not an integer or out of range\r\n"),
            (&[b"HSET", b"h", b"f", b"v", b"n", b"-5", b"big", b"9223372036854775807", b"z", b"01"], b":4\r\n"),
            (&[b"GET", b"h"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HINCRBY", b"h", b"n", b"7"], b":2\r\n"),
            (&[b"HINCRBY", b"h", b"new", b"-3"], b":-3\r\n"),
            (&[b"HINCRBY", b"h", b"f", b"1"], b"-ERR hash value is not an integer\r\n"),
            (&[b"HINCRBY", b"h", b"z", b"1"], b"-ERR hash value is not an integer\r\n"),
            (&[b"HINCRBY", b"h", b"big", b"1"], b"-ERR increment or decrement would overflow\r\n"),
            (&[b"HINCRBY", b"h", b"n", b"1.5"], b"-ERR value is not an integer or out of range\r\n"),
            (&[b"HINCRBY", b"no", b"n", b"x"], b"-ERR value is not an integer or out of range\r\n"),
            (&[b"EXISTS", b"no"], b":0\r\n"),
            (&[b"HGETALL", b"h"], b"*10\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\nn\r\n$1\r\n2\r\n$3\r\nbig\r\n$19\r\n9223372036854775807\r\n$1\r\nz\r\n$2\r\n01\r\n$3\r\nnew\r\n$2\r\n-3\r\n"),
        ],
    ),
    (
        Protocol::Resp2,
        &[
            (&[b"SADD", b"s", b"3", b"1", b"2", b"1"], b":3\r\n"),
            (&[b"SADD", b"s", b"2"], b":0\r\n"),
            (&[b"SMEMBERS", b"s"], b"*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n"),
            (&[b"SCARD", b"s"], b":3\r\n"),
            (&[b"SISMEMBER", b"s", b"2"], b":1\r\n"),
            (&[b"SISMEMBER", b"s", b"02"], b":0\r\n"),
            (&[b"SMISMEMBER", b"s", b"1", b"9"], b"*2\r\n:1\r\n:0\r\n"),
            (&[b"SREM", b"s", b"9"], b":0\r\n"),
            (&[b"SREM", b"s", b"1", b"1", b"9"], b":1\r\n"),
            (&[b"SMEMBERS", b"s"], b"*2\r\n$1\r\n2\r\n$1\r\n3\r\n"),
            (&[b"SREM", b"s", b"2", b"3"], b":2\r\n"),
            (&[b"EXISTS", b"s"], b":0\r\n"),
            (&[b"SMEMBERS", b"s"], b"*0\r\n"),
            (&[b"SCARD", b"s"], b":0\r\n"),
            (&[b"SADD", b"one", b"m"], b":1\r\n"),
            (&[b"SMEMBERS", b"one"], b"*1\r\n$1\r\nm\r\n"),
            (&[b"SET", b"str", b"v"], b"+OK\r\n"),
            (&[b"SADD", b"str", b"m"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SMEMBERS", b"str"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SREM", b"str", b"m"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SISMEMBER", b"str", b"m"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SMISMEMBER", b"str", b"m"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SCARD", b"str"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"GET", b"one"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HGET", b"one", b"f"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"SADD", b"one"], b"-ERR wrong number of arguments for 'sadd' command\r\n"),
            (&[b"SMISMEMBER", b"one"], b"-ERR wrong number of arguments for 'smismember' command\r\n"),
            (&[b"SMISMEMBER", b"none", b"a"], b"*1\r\n:0\r\n"),
        ],
    ),
    (
        Protocol::Resp3,
        &[
            (&[b"SADD", b"s", b"10", b"-1"], b":2\r\n"),
            (&[b"SMEMBERS", b"s"], b"~2\r\n$2\r\n-1\r\n$2\r\n10\r\n"),
            (&[b"SMEMBERS", b"none"], b"~0\r\n"),
            (&[b"SMISMEMBER", b"s", b"10", b"0"], b"*2\r\n:1\r\n:0\r\n"),
            (&[b"EVAL", b"return redis.call('smembers', KEYS[1])", b"1", b"s"], b"*2\r\n$2\r\n-1\r\n$2\r\n10\r\n"),
        ],
    ),
    (
        Protocol::Resp2,
        &[
            (&[b"HINCRBYFLOAT", b"h", b"a", b"0.1"], b"$3\r\n0.1\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"a", b"0.2"], b"$3\r\n0.3\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"a", b"-0.3"], b"$1\r\n0\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"b", b"10.5"], b"$4\r\n10.5\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"b", b"-5e-18"], b"$20\r\n10.49999999999999999\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"c", b"1e20"], b"$21\r\n100000000000000000000\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"d", b"0.000000000000000005"], b"$1\r\n0\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"e", b"0.000000000000000015"], b"$19\r\n0.00000000000000002\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"f", b"3.14159265358979323846264338327950288"], b"$19\r\n3.14159265358979324\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"g", b"0X1.8P1"], b"$1\r\n3\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"g", b"-0x.8"], b"$3\r\n2.5\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"z", b"-0.0"], b"$1\r\n0\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"y", b"5e-4951"], b"$1\r\n0\r\n"),
            (&[b"HSET", b"h2", b"x", b"1.18e4932"], b":1\r\n"),
            (&[b"HINCRBYFLOAT", b"h2", b"x", b"1e4932"], b"-ERR increment would produce NaN or Infinity\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"1e5000"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"1e-5000"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"inf"], b"-ERR value is NaN or Infinity\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"-Infinity"], b"-ERR value is NaN or Infinity\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"nan"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b" 1"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"1e"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b"0x"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"x", b""], b"-ERR value is not a valid float\r\n"),
            (&[b"HSET", b"h", b"s", b"abc", b"i", b"inf", b"n", b"10"], b":3\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"s", b"1"], b"-ERR hash value is not a float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"i", b"1"], b"-ERR increment would produce NaN or Infinity\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"n", b"1.5"], b"$4\r\n11.5\r\n"),
            (&[b"SET", b"str", b"v"], b"+OK\r\n"),
            (&[b"HINCRBYFLOAT", b"str", b"f", b"1"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
            (&[b"HINCRBYFLOAT", b"str", b"f", b"x"], b"-ERR value is not a valid float\r\n"),
            (&[b"HINCRBYFLOAT", b"h", b"f"], b"-ERR wrong number of arguments for 'hincrbyfloat' command\r\n"),
            (&[b"HGETALL", b"h"], b"*24\r\n$1\r\na\r\n$1\r\n0\r\n$1\r\nb\r\n$20\r\n10.49999999999999999\r\n$1\r\nc\r\n$21\r\n100000000000000000000\r\n$1\r\nd\r\n$1\r\n0\r\n$1\r\ne\r\n$19\r\n0.00000000000000002\r\n$1\r\nf\r\n$19\r\n3.14159265358979324\r\n$1\r\ng\r\n$3\r\n2.5\r\n$1\r\nz\r\n$1\r\n0\r\n$1\r\ny\r\n$1\r\n0\r\n$1\r\ns\r\n$3\r\nabc\r\n$1\r\ni\r\n$3\r\ninf\r\n$1\r\nn\r\n$4\r\n11.5\r\n"),
        ],
    ),
];

/// The reply's bytes in the connection's protocol.
fn reply(c: &mut Client, list: &[&[u8]]) -> String {
    let outcome = c.outcome(at(0), list);
    let mut out = Vec::new();
    if let Some(frame) = &outcome.reply {
        encode(frame, c.conn.proto, &mut out);
    }
    text(&out)
}

#[test]
fn sessions_reply_byte_for_byte() {
    for (n, (proto, session)) in SESSIONS.iter().enumerate() {
        let mut c = Client::master();
        if *proto == Protocol::Resp3 {
            c.run(at(0), &[b"HELLO", b"3"]);
        }
        for (request, expected) in session.iter() {
            let got = reply(&mut c, request);
            let request: Vec<String> = request.iter().map(|a| text(a)).collect();
            assert_eq!(got, text(expected), "session {n}: {request:?}");
        }
    }
}

#[test]
fn hincrbyfloat_prints_every_digit_of_a_long_double() {
    // As redis-server 7.0.15 answered: 4933 bytes, the integer digits of the long double
    // nearest 1.18e4932 (less 1e-4940, lost in rounding).
    let mut c = Client::master();
    c.run(at(0), &[b"HSET", b"h", b"x", b"1.18e4932"]);
    let reply = c.run(at(0), &[b"HINCRBYFLOAT", b"h", b"x", b"-1e-4940"]);
    let text = text(&reply);
    assert!(text.starts_with("$4933\r\n1180000000000000000000652812918093699202690437140160471729831240061836527728446996012081496266122792766769526197391834470385973446835903298"), "{text}");
    assert!(
        text.ends_with("\r\n") && text.len() == 4933 + 9,
        "{}",
        text.len()
    );
    assert!(text[7..4940].bytes().all(|b| b.is_ascii_digit()));
}

#[test]
fn writes_propagate_as_given_and_no_ops_not_at_all() {
    let mut c = Client::master();
    let same = |list: &[&[u8]]| vec![args(list)];
    let cases: Vec<(&[&[u8]], Vec<_>)> = vec![
        (
            &[b"HSET", b"h", b"f", b"1"],
            same(&[b"HSET", b"h", b"f", b"1"]),
        ),
        // HSET propagates even when nothing changes, as Redis's does.
        (
            &[b"HSET", b"h", b"f", b"1"],
            same(&[b"HSET", b"h", b"f", b"1"]),
        ),
        (
            &[b"HMSET", b"h", b"g", b"2"],
            same(&[b"HMSET", b"h", b"g", b"2"]),
        ),
        (&[b"HSETNX", b"h", b"f", b"9"], vec![]),
        (
            &[b"HSETNX", b"h", b"n", b"9"],
            same(&[b"HSETNX", b"h", b"n", b"9"]),
        ),
        (
            &[b"HINCRBY", b"h", b"n", b"1"],
            same(&[b"HINCRBY", b"h", b"n", b"1"]),
        ),
        (&[b"HINCRBY", b"h", b"f", b"x"], vec![]),
        (&[b"HINCRBY", b"h", b"g", b"9223372036854775807"], vec![]),
        // HINCRBYFLOAT goes out as the HSET of its result.
        (
            &[b"HINCRBYFLOAT", b"h", b"fl", b"0.1"],
            same(&[b"HSET", b"h", b"fl", b"0.1"]),
        ),
        (
            &[b"hincrbyfloat", b"h", b"fl", b"1e1"],
            same(&[b"HSET", b"h", b"fl", b"10.1"]),
        ),
        (&[b"HINCRBYFLOAT", b"h", b"fl", b"inf"], vec![]),
        (
            &[b"HINCRBYFLOAT", b"h", b"f", b"1"],
            same(&[b"HSET", b"h", b"f", b"2"]),
        ),
        (&[b"HDEL", b"h", b"nosuch"], vec![]),
        (&[b"HDEL", b"missing", b"f"], vec![]),
        (
            &[b"HDEL", b"h", b"f", b"x", b"fl"],
            same(&[b"HDEL", b"h", b"f", b"x", b"fl"]),
        ),
        // Emptied, the key is deleted; the HDEL itself is what goes out.
        (
            &[b"HDEL", b"h", b"g", b"n"],
            same(&[b"HDEL", b"h", b"g", b"n"]),
        ),
        (&[b"HGETALL", b"h"], vec![]),
        (
            &[b"SADD", b"s", b"a", b"b"],
            same(&[b"SADD", b"s", b"a", b"b"]),
        ),
        (&[b"SADD", b"s", b"a"], vec![]),
        (&[b"SREM", b"s", b"z"], vec![]),
        (&[b"SREM", b"missing", b"z"], vec![]),
        (
            &[b"SREM", b"s", b"a", b"z"],
            same(&[b"SREM", b"s", b"a", b"z"]),
        ),
        (&[b"SREM", b"s", b"b"], same(&[b"SREM", b"s", b"b"])),
        (&[b"SMEMBERS", b"s"], vec![]),
        // Refused by type: nothing changes.
        (&[b"SET", b"str", b"v"], same(&[b"SET", b"str", b"v"])),
        (&[b"HSET", b"str", b"f", b"v"], vec![]),
        (&[b"SADD", b"str", b"m"], vec![]),
    ];
    for (request, expected) in cases {
        let label: Vec<String> = request.iter().map(|a| text(a)).collect();
        assert_eq!(c.propagated(at(0), request), expected, "{label:?}");
    }
    let db = &c.server.dbs[0];
    assert!(db.get(b"h").is_none() && db.get(b"s").is_none());
    assert_eq!(db.get(b"str"), Some(&Value::String(b"v".to_vec())));
}

#[test]
fn an_expired_key_is_deleted_first_and_a_new_one_created() {
    let mut c = Client::master();
    c.run(at(0), &[b"HSET", b"h", b"old", b"1"]);
    c.run(at(0), &[b"PEXPIRE", b"h", b"100"]);
    assert_eq!(
        c.propagated(at(200), &[b"HSET", b"h", b"f", b"v"]),
        wrapped(&[&[b"DEL", b"h"], &[b"HSET", b"h", b"f", b"v"]])
    );
    assert_eq!(
        c.run(at(200), &[b"HGETALL", b"h"]),
        b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
    );
    assert_eq!(c.run(at(200), &[b"PTTL", b"h"]), b":-1\r\n");
    c.run(at(200), &[b"SADD", b"s", b"m"]);
    c.run(at(200), &[b"PEXPIRE", b"s", b"100"]);
    assert_eq!(
        c.propagated(at(400), &[b"SREM", b"s", b"m"]),
        [args(&[b"DEL", b"s"])]
    );
    assert_eq!(c.run(at(400), &[b"SCARD", b"s"]), b":0\r\n");
}

fn wrapped(ops: &[&[&[u8]]]) -> Vec<crate::redis::resp::Args> {
    super::transaction(ops.iter().map(|op| args(op)).collect())
}

/// Whether `request` from another connection breaks a WATCH of `key` (the key set up by
/// `setup` first).
fn breaks_watch(setup: &[&[&[u8]]], key: &[u8], request: &[&[u8]]) -> bool {
    let mut c = Client::master();
    for s in setup {
        c.run(at(0), s);
    }
    c.run(at(0), &[b"WATCH", key]);
    let mut other: Conn = c.server.connect();
    c.server.handle(&mut other, &args(request), at(0));
    c.run(at(0), &[b"MULTI"]);
    c.run(at(0), &[b"EXEC"]) == b"*-1\r\n"
}

#[test]
fn watchers_see_every_change_and_no_no_op() {
    let hash: &[&[&[u8]]] = &[&[b"HSET", b"h", b"f", b"1"]];
    let set: &[&[&[u8]]] = &[&[b"SADD", b"s", b"a", b"b"]];
    for (setup, key, request, breaks) in [
        (hash, &b"h"[..], &[&b"HSET"[..], b"h", b"f", b"1"][..], true),
        (hash, b"h", &[b"HMSET", b"h", b"g", b"1"], true),
        (hash, b"h", &[b"HSETNX", b"h", b"f", b"2"], false),
        (hash, b"h", &[b"HSETNX", b"h", b"g", b"2"], true),
        (hash, b"h", &[b"HINCRBY", b"h", b"f", b"1"], true),
        (hash, b"h", &[b"HINCRBY", b"h", b"f", b"x"], false),
        (hash, b"h", &[b"HINCRBYFLOAT", b"h", b"f", b"0.5"], true),
        (hash, b"h", &[b"HINCRBYFLOAT", b"h", b"f", b"nan"], false),
        (hash, b"h", &[b"HDEL", b"h", b"nosuch"], false),
        (hash, b"h", &[b"HDEL", b"h", b"f"], true),
        (hash, b"h", &[b"HGETALL", b"h"], false),
        (&[], b"h", &[b"HSET", b"h", b"f", b"1"], true),
        (&[], b"h", &[b"HDEL", b"h", b"f"], false),
        (set, b"s", &[b"SADD", b"s", b"a"], false),
        (set, b"s", &[b"SADD", b"s", b"c"], true),
        (set, b"s", &[b"SREM", b"s", b"z"], false),
        (set, b"s", &[b"SREM", b"s", b"a"], true),
        (set, b"s", &[b"SREM", b"s", b"a", b"b"], true),
        (set, b"s", &[b"SMEMBERS", b"s"], false),
        (&[], b"s", &[b"SADD", b"s", b"m"], true),
        (&[], b"s", &[b"SREM", b"s", b"m"], false),
    ] {
        let label: Vec<String> = request.iter().map(|a| text(a)).collect();
        assert_eq!(breaks_watch(setup, key, request), breaks, "{label:?}");
    }
}

#[test]
fn sets_of_other_members_walk_in_byte_order() {
    // Divergence on purpose: the real server answers these in its hash table's order.
    let mut c = Client::master();
    c.run(at(0), &[b"SADD", b"s", b"b", b"10", b"a", b"9", b""]);
    assert_eq!(
        text(&c.run(at(0), &[b"SMEMBERS", b"s"])),
        "*5\r\n$0\r\n\r\n$2\r\n10\r\n$1\r\n9\r\n$1\r\na\r\n$1\r\nb\r\n"
    );
    c.run(at(0), &[b"SADD", b"n", b"10", b"9", b"-1"]);
    assert_eq!(
        text(&c.run(at(0), &[b"SMEMBERS", b"n"])),
        "*3\r\n$2\r\n-1\r\n$1\r\n9\r\n$2\r\n10\r\n"
    );
}

#[test]
fn a_replica_and_an_aof_rewrite_rebuild_the_same_hashes_and_sets() {
    let mut c = Client::master();
    let mut stream = Vec::new();
    for request in [
        &[&b"HSET"[..], b"h", b"b", b"1", b"a", b"2"][..],
        &[b"HINCRBY", b"h", b"b", b"5"],
        &[b"HDEL", b"h", b"a"],
        &[b"HSET", b"h", b"a", b"3"],
        &[b"SADD", b"s", b"x", b"y", b"3"],
        &[b"SREM", b"s", b"y"],
        &[b"PEXPIRE", b"s", b"100000"],
        &[b"HSETNX", b"gone", b"f", b"v"],
        &[b"HDEL", b"gone", b"f"],
    ] {
        stream.extend(c.propagated(at(0), request));
    }
    let mut replica = super::Server::new(super::Config {
        role: crate::redis::role::Role::Replica,
        ..super::Config::default()
    });
    let mut link = replica.connect();
    for op in &stream {
        replica.replicate(&mut link, op, at(0));
    }
    let master = c.server.dump(at(0));
    assert_eq!(replica.dump(at(0)), master);
    let mut loaded = super::Server::new(super::Config::default());
    let mut aof = loaded.connect();
    for op in super::rewrite(&master) {
        loaded.replicate(&mut aof, &op, at(0));
    }
    assert_eq!(loaded.dump(at(0)), master);
    assert_eq!(
        text(
            &loaded
                .handle(&mut aof, &args(&[b"HGETALL", b"h"]), at(0))
                .reply
                .as_ref()
                .map(bytes)
                .unwrap_or_default()
        ),
        "*4\r\n$1\r\nb\r\n$1\r\n6\r\n$1\r\na\r\n$1\r\n3\r\n"
    );
}
