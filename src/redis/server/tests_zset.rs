//! The sorted-set commands through the server, as a client sees them: reply bytes in both
//! protocols against what redis-server 7.0.15 answered to the same session (on a fresh
//! connection of an empty server), and what each command propagates.

use super::{Config, Server};
use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::encode;

const NOW: Now = Now {
    wall_ms: 1_795_432_000_000,
    mono_ms: 1_000,
};

/// A request and the reply's bytes.
type Exchange = (&'static [&'static [u8]], &'static [u8]);

/// Generated against redis-server 7.0.15, in RESP2.
const RESP2: &[Exchange] = &[
        (&[b"ZADD", b"k", b"1.1", b"a", b"0.1", b"b", b"-0", b"c", b"1e308", b"d", b"inf", b"e"], b":5\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"-0", b"n"], b"$2\r\n-0\r\n"),
        (&[b"ZINCRBY", b"k", b"0.2", b"b"], b"$19\r\n0.30000000000000004\r\n"),
        (&[b"ZSCORE", b"k", b"b"], b"$19\r\n0.30000000000000004\r\n"),
        (&[b"ZSCORE", b"k", b"c"], b"$1\r\n0\r\n"),
        (&[b"ZSCORE", b"k", b"e"], b"$3\r\ninf\r\n"),
        (&[b"ZSCORE", b"k", b"nope"], b"$-1\r\n"),
        (&[b"ZRANK", b"k", b"nope"], b"$-1\r\n"),
        (&[b"ZADD", b"k", b"XX", b"INCR", b"1", b"nope"], b"$-1\r\n"),
        (&[b"ZADD", b"k", b"nan", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b"1e", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b" 1", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b"GT", b"LT", b"1", b"a"], b"-ERR GT, LT, and/or NX options at the same time are not compatible\r\n"),
        (&[b"ZADD", b"k", b"NX", b"XX", b"1", b"a"], b"-ERR XX and NX options at the same time are not compatible\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"1", b"a", b"2", b"b"], b"-ERR INCR option supports a single increment-element pair\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"-inf", b"e"], b"-ERR resulting score is not a number (NaN)\r\n"),
        (&[b"ZRANGE", b"k", b"0", b"-1", b"WITHSCORES"], b"*12\r\n$1\r\nc\r\n$1\r\n0\r\n$1\r\nn\r\n$1\r\n0\r\n$1\r\nb\r\n$19\r\n0.30000000000000004\r\n$1\r\na\r\n$18\r\n1.1000000000000001\r\n$1\r\nd\r\n$6\r\n1e+308\r\n$1\r\ne\r\n$3\r\ninf\r\n"),
        (&[b"ZRANGE", b"k", b"+inf", b"(0", b"BYSCORE", b"REV", b"LIMIT", b"1", b"2", b"WITHSCORES"], b"*4\r\n$1\r\nd\r\n$6\r\n1e+308\r\n$1\r\na\r\n$18\r\n1.1000000000000001\r\n"),
        (&[b"ZRANGE", b"k", b"0", b"1", b"LIMIT", b"0", b"1"], b"-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n"),
        (&[b"ZRANGEBYSCORE", b"k", b"x", b"1"], b"-ERR min or max is not a float\r\n"),
        (&[b"ZPOPMIN", b"k"], b"*2\r\n$1\r\nc\r\n$1\r\n0\r\n"),
        (&[b"ZPOPMAX", b"k", b"2"], b"*4\r\n$1\r\ne\r\n$3\r\ninf\r\n$1\r\nd\r\n$6\r\n1e+308\r\n"),
        (&[b"ZPOPMIN", b"k", b"x"], b"-ERR value is out of range, must be positive\r\n"),
        (&[b"ZREM", b"k", b"a", b"n", b"nope"], b":2\r\n"),
        (&[b"ZCARD", b"k"], b":1\r\n"),
        (&[b"SET", b"s", b"v"], b"+OK\r\n"),
        (&[b"ZADD", b"s", b"1", b"a"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
        (&[b"ZRANGE", b"s", b"0", b"-1"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
];

/// The same session in RESP3 (after `HELLO 3`).
const RESP3: &[Exchange] = &[
        (&[b"ZADD", b"k", b"1.1", b"a", b"0.1", b"b", b"-0", b"c", b"1e308", b"d", b"inf", b"e"], b":5\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"-0", b"n"], b",-0\r\n"),
        (&[b"ZINCRBY", b"k", b"0.2", b"b"], b",0.30000000000000004\r\n"),
        (&[b"ZSCORE", b"k", b"b"], b",0.30000000000000004\r\n"),
        (&[b"ZSCORE", b"k", b"c"], b",0\r\n"),
        (&[b"ZSCORE", b"k", b"e"], b",inf\r\n"),
        (&[b"ZSCORE", b"k", b"nope"], b"_\r\n"),
        (&[b"ZRANK", b"k", b"nope"], b"_\r\n"),
        (&[b"ZADD", b"k", b"XX", b"INCR", b"1", b"nope"], b"_\r\n"),
        (&[b"ZADD", b"k", b"nan", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b"1e", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b" 1", b"x"], b"-ERR value is not a valid float\r\n"),
        (&[b"ZADD", b"k", b"GT", b"LT", b"1", b"a"], b"-ERR GT, LT, and/or NX options at the same time are not compatible\r\n"),
        (&[b"ZADD", b"k", b"NX", b"XX", b"1", b"a"], b"-ERR XX and NX options at the same time are not compatible\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"1", b"a", b"2", b"b"], b"-ERR INCR option supports a single increment-element pair\r\n"),
        (&[b"ZADD", b"k", b"INCR", b"-inf", b"e"], b"-ERR resulting score is not a number (NaN)\r\n"),
        (&[b"ZRANGE", b"k", b"0", b"-1", b"WITHSCORES"], b"*6\r\n*2\r\n$1\r\nc\r\n,0\r\n*2\r\n$1\r\nn\r\n,0\r\n*2\r\n$1\r\nb\r\n,0.30000000000000004\r\n*2\r\n$1\r\na\r\n,1.1000000000000001\r\n*2\r\n$1\r\nd\r\n,1e+308\r\n*2\r\n$1\r\ne\r\n,inf\r\n"),
        (&[b"ZRANGE", b"k", b"+inf", b"(0", b"BYSCORE", b"REV", b"LIMIT", b"1", b"2", b"WITHSCORES"], b"*2\r\n*2\r\n$1\r\nd\r\n,1e+308\r\n*2\r\n$1\r\na\r\n,1.1000000000000001\r\n"),
        (&[b"ZRANGE", b"k", b"0", b"1", b"LIMIT", b"0", b"1"], b"-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n"),
        (&[b"ZRANGEBYSCORE", b"k", b"x", b"1"], b"-ERR min or max is not a float\r\n"),
        (&[b"ZPOPMIN", b"k"], b"*2\r\n$1\r\nc\r\n,0\r\n"),
        (&[b"ZPOPMAX", b"k", b"2"], b"*2\r\n*2\r\n$1\r\ne\r\n,inf\r\n*2\r\n$1\r\nd\r\n,1e+308\r\n"),
        (&[b"ZPOPMIN", b"k", b"x"], b"-ERR value is out of range, must be positive\r\n"),
        (&[b"ZREM", b"k", b"a", b"n", b"nope"], b":2\r\n"),
        (&[b"ZCARD", b"k"], b":1\r\n"),
        (&[b"SET", b"s", b"v"], b"+OK\r\n"),
        (&[b"ZADD", b"s", b"1", b"a"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
        (&[b"ZRANGE", b"s", b"0", b"-1"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
];

fn args(list: &[&[u8]]) -> Vec<Vec<u8>> {
    list.iter().map(|a| a.to_vec()).collect()
}

fn run(server: &mut Server, conn: &mut Conn, list: &[&[u8]]) -> Vec<u8> {
    let outcome = server.handle(conn, &args(list), NOW);
    let mut out = Vec::new();
    if let Some(reply) = outcome.reply {
        encode(&reply, conn.protocol(), &mut out);
    }
    out
}

fn replay(session: &[Exchange], hello: bool) {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    if hello {
        run(&mut server, &mut conn, &[b"HELLO", b"3"]);
    }
    for (request, expected) in session {
        let got = run(&mut server, &mut conn, request);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(expected),
            "{:?}",
            request
                .iter()
                .map(|a| String::from_utf8_lossy(a))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn replies_as_redis_in_resp2() {
    replay(RESP2, false);
}

#[test]
fn replies_as_redis_in_resp3() {
    replay(RESP3, true);
}

#[test]
fn propagates_what_changed_as_sent_and_nothing_else() {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    let mut propagated = |list: &[&[u8]]| server.handle(&mut conn, &args(list), NOW).propagate;
    assert_eq!(
        propagated(&[b"ZADD", b"k", b"1", b"a"]),
        [args(&[b"ZADD", b"k", b"1", b"a"])]
    );
    // ZADD INCR and ZINCRBY go as they are, not as the score they set.
    let incr: &[&[u8]] = &[b"ZADD", b"k", b"INCR", b"0.5", b"a"];
    assert_eq!(propagated(incr), [args(incr)]);
    let zincrby: &[&[u8]] = &[b"zincrby", b"k", b"1", b"a"];
    assert_eq!(propagated(zincrby), [args(zincrby)]);
    for no_op in [
        &[&b"ZADD"[..], b"k", b"2.5", b"a"][..],
        &[b"ZADD", b"k", b"NX", b"9", b"a"],
        &[b"ZADD", b"k", b"XX", b"9", b"b"],
        &[b"ZADD", b"k", b"GT", b"1", b"a"],
        &[b"ZADD", b"none", b"XX", b"INCR", b"1", b"a"],
        &[b"ZADD", b"k", b"INCR", b"0", b"a"],
        &[b"ZREM", b"k", b"b"],
        &[b"ZREMRANGEBYSCORE", b"k", b"5", b"6"],
        &[b"ZPOPMIN", b"k", b"0"],
        &[b"ZPOPMIN", b"none"],
        &[b"ZADD", b"k", b"x", b"a"],
    ] {
        assert!(propagated(no_op).is_empty(), "{no_op:?}");
    }
    assert!(propagated(&[b"EXISTS", b"none"]).is_empty());
    let pop: &[&[u8]] = &[b"ZPOPMAX", b"k", b"5"];
    assert_eq!(propagated(pop), [args(pop)]);
    assert_eq!(
        server
            .handle(&mut conn, &args(&[b"EXISTS", b"k"]), NOW)
            .reply,
        Some(crate::redis::resp::Frame::Integer(0)),
        "the last member's pop deleted the key"
    );
}

#[test]
fn a_no_op_leaves_a_watch_alone_and_a_change_breaks_it() {
    let mut server = Server::new(Config::default());
    let mut watcher = server.connect();
    let mut other = server.connect();
    let mut exec_after = |change: &[&[u8]]| {
        run(&mut server, &mut watcher, &[b"WATCH", b"k"]);
        run(&mut server, &mut other, change);
        run(&mut server, &mut watcher, &[b"MULTI"]);
        run(&mut server, &mut watcher, &[b"EXEC"])
    };
    assert_eq!(exec_after(&[b"ZADD", b"k", b"1", b"a"]), b"*-1\r\n");
    assert_eq!(exec_after(&[b"ZADD", b"k", b"1", b"a"]), b"*0\r\n");
    assert_eq!(exec_after(&[b"ZREM", b"k", b"b"]), b"*0\r\n");
    assert_eq!(exec_after(&[b"ZINCRBY", b"k", b"1", b"a"]), b"*-1\r\n");
    assert_eq!(exec_after(&[b"ZREM", b"k", b"a"]), b"*-1\r\n");
}

/// The table's entries, as src/commands/*.json at 7.0.15 has them.
#[test]
fn table_entries_carry_redis_arities_and_flags() {
    use crate::redis::command::{Flags, Lookup, lookup};
    let spec = |name: &str| match lookup(&[name.as_bytes().to_vec()]) {
        Lookup::Found(spec) => spec,
        _ => panic!("{name} missing"),
    };
    for (name, arity) in [("zadd", -4), ("zincrby", 4), ("zrem", -3), ("zpopmin", -2)] {
        let s = spec(name);
        assert!(s.flags.contains(Flags::WRITE) && s.flags.contains(Flags::FAST));
        assert_eq!(s.arity, arity, "{name}");
    }
    assert!(spec("zadd").flags.contains(Flags::DENYOOM));
    assert!(!spec("zrem").flags.contains(Flags::DENYOOM));
    for name in ["zremrangebyscore", "zremrangebyrank", "zremrangebylex"] {
        let s = spec(name);
        assert!(s.flags.contains(Flags::WRITE) && !s.flags.contains(Flags::FAST));
        assert_eq!(s.arity, 4, "{name}");
    }
    for name in ["zscore", "zcard", "zrank", "zrevrank", "zcount", "zmscore"] {
        let flags = spec(name).flags;
        assert!(
            flags.contains(Flags::READONLY) && flags.contains(Flags::FAST),
            "{name}"
        );
    }
    for name in ["zrange", "zrevrange", "zrangebyscore", "zrangebylex"] {
        let s = spec(name);
        assert!(s.flags.contains(Flags::READONLY) && !s.flags.contains(Flags::FAST));
        assert_eq!(s.arity, -4, "{name}");
    }
}

#[test]
fn a_replica_refuses_zadd_and_answers_reads() {
    use crate::redis::role::Role;
    let mut server = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut conn = server.connect();
    assert_eq!(
        run(&mut server, &mut conn, &[b"ZADD", b"k", b"1", b"a"]),
        b"-READONLY You can't write against a read only replica.\r\n"
    );
    assert_eq!(run(&mut server, &mut conn, &[b"ZCARD", b"k"]), b":0\r\n");
    // What its master propagates applies: ZADD INCR as sent, then a ZPOPMIN.
    let mut link = server.connect();
    server.replicate(
        &mut link,
        &args(&[b"ZADD", b"k", b"INCR", b"2.5", b"a"]),
        NOW,
    );
    server.replicate(&mut link, &args(&[b"ZADD", b"k", b"1", b"b"]), NOW);
    server.replicate(&mut link, &args(&[b"ZPOPMIN", b"k"]), NOW);
    assert_eq!(
        run(
            &mut server,
            &mut conn,
            &[b"ZRANGE", b"k", b"0", b"-1", b"WITHSCORES"]
        ),
        b"*2\r\n$1\r\na\r\n$3\r\n2.5\r\n"
    );
}

/// An AOF rewrite spells each score so that ZADD reads back the same double, the extreme
/// ones included.
#[test]
fn an_aof_rewrite_rebuilds_every_score_exactly() {
    use super::rewrite;
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    let zadd: &[&[u8]] = &[
        b"ZADD",
        b"k",
        b"1.1",
        b"a",
        b"1e308",
        b"b",
        b"-1e-300",
        b"c",
        b"3e-324",
        b"d",
        b"inf",
        b"e",
        b"-inf",
        b"f",
        b"0x1.fffffffffffffp1023",
        b"g",
        b"-0",
        b"h",
    ];
    assert_eq!(run(&mut server, &mut conn, zadd), b":8\r\n");
    let mut rebuilt = Server::new(Config::default());
    let mut link = rebuilt.connect();
    for op in rewrite(&server.dump(NOW)) {
        rebuilt.replicate(&mut link, &op, NOW);
    }
    assert_eq!(rebuilt.dump(NOW), server.dump(NOW));
    let mut conn = rebuilt.connect();
    assert_eq!(
        run(&mut rebuilt, &mut conn, &[b"ZSCORE", b"k", b"g"]),
        b"$23\r\n1.7976931348623157e+308\r\n"
    );
}
