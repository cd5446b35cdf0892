//! Sorted sets: ZADD with its flags and score spellings, the ZRANGE family, ZREM and the
//! ZREMRANGEBY family, ZPOPMIN / ZPOPMAX, the point reads, WRONGTYPE both ways, sorted
//! sets in transactions (and a WATCH they break), in scripts, and a counting semaphore as
//! the libraries build one. Each case deletes its keys first: both passes start alike.

use super::case::{Step, cmd};

/// A semaphore's acquire, as redis-semaphore (npm) writes it: drop expired holders, then
/// join if there is room.
const SEMAPHORE_ACQUIRE: &str = "local key = KEYS[1]
local limit = tonumber(ARGV[1])
local identifier = ARGV[2]
local lockTimeout = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
redis.call('zremrangebyscore', key, '-inf', now - lockTimeout)
if redis.call('zcard', key) < limit then
  redis.call('zadd', key, now, identifier)
  redis.call('pexpire', key, lockTimeout)
  return 1
end
return 0";

pub fn zadd_flags() -> Vec<Step> {
    vec![
        cmd(&["DEL", "za:k", "za:n"]),
        cmd(&["ZADD", "za:k", "1", "a", "2", "b"]),
        cmd(&["ZADD", "za:k", "1", "a", "3", "c"]),
        cmd(&["ZADD", "za:k", "CH", "5", "a", "3", "c", "4", "d"]),
        cmd(&["ZADD", "za:k", "NX", "9", "a", "9", "e"]),
        cmd(&["ZADD", "za:k", "XX", "8", "a", "8", "f"]),
        cmd(&["ZADD", "za:k", "XX", "CH", "8", "a", "7", "b"]),
        cmd(&["ZADD", "za:k", "GT", "CH", "1", "a", "10", "b", "1", "g"]),
        cmd(&["ZADD", "za:k", "LT", "CH", "100", "a", "0", "b"]),
        cmd(&["ZADD", "za:k", "xx", "gt", "ch", "50", "a", "50", "h"]),
        cmd(&["ZRANGE", "za:k", "0", "-1", "WITHSCORES"]),
        cmd(&["ZADD", "za:k", "INCR", "2.5", "a"]),
        cmd(&["ZADD", "za:k", "INCR", "NX", "1", "a"]),
        cmd(&["ZADD", "za:k", "INCR", "XX", "1", "nope"]),
        cmd(&["ZADD", "za:k", "INCR", "GT", "-1", "a"]),
        cmd(&["ZADD", "za:k", "INCR", "LT", "-1", "a"]),
        cmd(&["ZADD", "za:n", "XX", "1", "a"]),
        cmd(&["ZADD", "za:n", "XX", "INCR", "1", "a"]),
        cmd(&["EXISTS", "za:n"]),
        cmd(&["ZINCRBY", "za:n", "2", "m"]),
        cmd(&["ZINCRBY", "za:n", "-0.5", "m"]),
        cmd(&["ZINCRBY", "za:n", "1", "nx"]),
        cmd(&["ZINCRBY", "za:n", "nx", "m"]),
        cmd(&["ZINCRBY", "za:n", "x", "m"]),
        cmd(&["ZINCRBY", "za:n", "1"]),
        // Option errors, in Redis's order of checks.
        cmd(&["ZADD", "za:k", "NX", "XX", "1", "a"]),
        cmd(&["ZADD", "za:k", "GT", "LT", "1", "a"]),
        cmd(&["ZADD", "za:k", "NX", "GT", "1", "a"]),
        cmd(&["ZADD", "za:k", "NX", "LT", "x", "a"]),
        cmd(&["ZADD", "za:k", "INCR", "1", "a", "2", "b"]),
        cmd(&["ZADD", "za:k", "NX", "XX", "1"]),
        cmd(&["ZADD", "za:k", "1", "a", "2"]),
        cmd(&["ZADD", "za:k", "FOO", "a", "2"]),
        cmd(&["ZADD", "za:k", "1", "a", "x", "b"]),
        cmd(&["ZADD", "za:k", "XX"]),
        cmd(&["ZADD", "za:k", "1"]),
        cmd(&["ZADD"]),
        cmd(&["ZADD", "za:k", "nx\0junk", "1", "late"]),
        cmd(&["ZADD", "za:k", "inf", "i", "-inf", "j"]),
        cmd(&["ZADD", "za:k", "INCR", "-inf", "i"]),
        cmd(&["ZADD", "za:k", "INCR", "inf", "j"]),
        cmd(&["ZINCRBY", "za:k", "+inf", "j"]),
        cmd(&["ZSCORE", "za:k", "i"]),
        cmd(&["ZRANGE", "za:k", "0", "-1", "WITHSCORES"]),
        cmd(&["ZCARD", "za:k"]),
    ]
}

pub fn score_spellings() -> Vec<Step> {
    let mut steps = vec![cmd(&["DEL", "zs:k"])];
    for (score, member) in [
        ("1.1", "a"),
        ("0.1", "b"),
        ("1e308", "c"),
        ("-1e308", "d"),
        ("-0", "e"),
        ("inf", "f"),
        ("-INF", "g"),
        ("+Infinity", "h"),
        ("0x10", "i"),
        ("1e-5", "j"),
        ("123456789012345678", "k"),
        ("3e-324", "l"),
        ("+1.5", "m"),
        (".5", "n"),
        ("5.", "o"),
        ("1E3", "p"),
        // Refused: "value is not a valid float".
        ("nan", "x"),
        ("-nan", "x"),
        ("1e", "x"),
        (" 1", "x"),
        ("1 ", "x"),
        ("", "x"),
        ("1e400", "x"),
        ("1e-400", "x"),
        ("1\0", "x"),
        ("abc", "x"),
        ("0x", "x"),
    ] {
        steps.push(cmd(&["ZADD", "zs:k", score, member]));
        steps.push(cmd(&["ZSCORE", "zs:k", member]));
    }
    steps.extend([
        cmd(&["ZADD", "zs:k", "0.1", "sum"]),
        cmd(&["ZINCRBY", "zs:k", "0.2", "sum"]),
        cmd(&["ZADD", "zs:k", "INCR", "-0", "negzero"]),
        cmd(&["ZINCRBY", "zs:k", "-0", "e"]),
        cmd(&["ZRANGE", "zs:k", "0", "-1", "WITHSCORES"]),
        cmd(&["ZMSCORE", "zs:k", "a", "nope", "f"]),
        cmd(&["ZMSCORE", "zs:none", "a"]),
    ]);
    steps
}

pub fn range_forms() -> Vec<Step> {
    vec![
        cmd(&["DEL", "zr:k", "zr:lex"]),
        cmd(&[
            "ZADD", "zr:k", "1", "a", "2", "b", "2", "bb", "3", "c", "4.5", "d", "-1", "z",
        ]),
        cmd(&["ZRANGE", "zr:k", "0", "-1"]),
        cmd(&["ZRANGE", "zr:k", "1", "2", "WITHSCORES"]),
        cmd(&["ZRANGE", "zr:k", "-2", "-1", "withscores"]),
        cmd(&["ZRANGE", "zr:k", "-100", "100"]),
        cmd(&["ZRANGE", "zr:k", "3", "1"]),
        cmd(&["ZRANGE", "zr:k", "9", "10"]),
        cmd(&["ZRANGE", "zr:k", "0", "1", "REV", "WITHSCORES"]),
        cmd(&["ZREVRANGE", "zr:k", "0", "2", "WITHSCORES"]),
        cmd(&["ZRANGE", "zr:k", "2", "(4", "BYSCORE"]),
        cmd(&["ZRANGE", "zr:k", "(1", "+inf", "BYSCORE", "WITHSCORES"]),
        cmd(&[
            "ZRANGE", "zr:k", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "3",
        ]),
        cmd(&[
            "ZRANGE", "zr:k", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "-1",
        ]),
        cmd(&[
            "ZRANGE", "zr:k", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2",
        ]),
        cmd(&[
            "ZRANGE", "zr:k", "-inf", "+inf", "BYSCORE", "LIMIT", "9", "2",
        ]),
        cmd(&[
            "ZRANGE", "zr:k", "-inf", "+inf", "BYSCORE", "LIMIT", "2", "0",
        ]),
        cmd(&["ZRANGE", "zr:k", "0", "-1", "LIMIT", "0", "-1"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "-inf", "+inf"]),
        cmd(&[
            "ZRANGEBYSCORE",
            "zr:k",
            "(2",
            "4.5",
            "WITHSCORES",
            "LIMIT",
            "0",
            "2",
        ]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "2", "2"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "(2", "2"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "3", "1"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "(", " 2"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "1e400", "+inf"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "0x1", "3\0junk"]),
        cmd(&["ZREVRANGEBYSCORE", "zr:k", "+inf", "(2", "WITHSCORES"]),
        cmd(&["ZREVRANGEBYSCORE", "zr:k", "3", "1", "LIMIT", "1", "1"]),
        cmd(&["ZCOUNT", "zr:k", "(1", "3"]),
        cmd(&["ZCOUNT", "zr:k", "-inf", "+inf"]),
        cmd(&["ZCOUNT", "zr:none", "-inf", "+inf"]),
        // Errors.
        cmd(&["ZRANGEBYSCORE", "zr:k", "x", "1"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "(nan", "1"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "1", "1 "]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "((1", "2"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "-inf", "+inf", "REV"]),
        cmd(&["ZRANGEBYSCORE", "zr:k", "-inf", "+inf", "LIMIT", "1"]),
        cmd(&["ZRANGE", "zr:k", "0", "1", "LIMIT", "x", "1", "FOO"]),
        cmd(&["ZRANGE", "zr:k", "0", "1", "FOO", "LIMIT", "x", "1"]),
        cmd(&["ZRANGE", "zr:k", "0", "-1", "LIMIT", "0", "1"]),
        cmd(&["ZRANGE", "zr:k", "a", "1"]),
        cmd(&["ZRANGE", "zr:k", "0", "1", "BYSCORE", "BYLEX"]),
        cmd(&["ZRANGE", "zr:k", "0", "1", "REV", "REV"]),
        cmd(&["ZREVRANGE", "zr:k", "0", "1", "REV"]),
        cmd(&["ZCOUNT", "zr:k", "a", "1"]),
        cmd(&["ZRANGE", "zr:k", "0"]),
        cmd(&["ZRANGE", "zr:none", "0", "-1", "WITHSCORES"]),
        cmd(&["ZRANGE", "zr:none", "x", "-1"]),
        // By member, over members of one score.
        cmd(&[
            "ZADD", "zr:lex", "0", "a", "0", "b", "0", "ba", "0", "c", "0", "d",
        ]),
        cmd(&["ZRANGE", "zr:lex", "[b", "(d", "BYLEX"]),
        cmd(&[
            "ZRANGE", "zr:lex", "+", "-", "BYLEX", "REV", "LIMIT", "1", "2",
        ]),
        cmd(&["ZRANGE", "zr:lex", "-", "+", "BYLEX", "WITHSCORES"]),
        cmd(&["ZRANGEBYLEX", "zr:lex", "-", "[ba"]),
        cmd(&["ZRANGEBYLEX", "zr:lex", "(a", "+", "LIMIT", "0", "2"]),
        cmd(&["ZREVRANGEBYLEX", "zr:lex", "[c", "(a"]),
        cmd(&["ZRANGEBYLEX", "zr:lex", "b", "+"]),
        cmd(&["ZRANGEBYLEX", "zr:lex", "-", "+x"]),
        cmd(&["ZRANGEBYLEX", "zr:lex", "+", "-"]),
        cmd(&["ZLEXCOUNT", "zr:lex", "[b", "+"]),
        cmd(&["ZLEXCOUNT", "zr:lex", "[b", "x"]),
        // Mixed scores: the small encoding's walk.
        cmd(&["ZRANGEBYLEX", "zr:k", "-", "[c"]),
        cmd(&["ZRANGEBYLEX", "zr:k", "[b", "+"]),
    ]
}

pub fn removals_and_pops() -> Vec<Step> {
    vec![
        cmd(&["DEL", "zp:k"]),
        cmd(&[
            "ZADD", "zp:k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f",
        ]),
        cmd(&["ZREM", "zp:k", "a", "nope", "a"]),
        cmd(&["ZREM", "zp:k", "nope"]),
        cmd(&["ZREM", "zp:none", "a"]),
        cmd(&["ZREM", "zp:k"]),
        cmd(&["ZRANK", "zp:k", "c"]),
        cmd(&["ZREVRANK", "zp:k", "c"]),
        cmd(&["ZRANK", "zp:k", "nope"]),
        cmd(&["ZRANK", "zp:none", "c"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:k", "(5", "+inf"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:k", "10", "20"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:k", "x", "1"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:none", "x", "1"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:none", "1", "2"]),
        cmd(&["ZREMRANGEBYRANK", "zp:k", "-1", "-1"]),
        cmd(&["ZREMRANGEBYRANK", "zp:k", "5", "9"]),
        cmd(&["ZREMRANGEBYRANK", "zp:k", "x", "1"]),
        cmd(&["ZRANGE", "zp:k", "0", "-1", "WITHSCORES"]),
        cmd(&["ZPOPMIN", "zp:k"]),
        cmd(&["ZPOPMAX", "zp:k", "1"]),
        cmd(&["ZPOPMIN", "zp:k", "0"]),
        cmd(&["ZPOPMIN", "zp:k", "-1"]),
        cmd(&["ZPOPMIN", "zp:k", "x"]),
        cmd(&["ZPOPMIN", "zp:k", "1", "2"]),
        cmd(&["ZPOPMAX", "zp:k", "10"]),
        cmd(&["EXISTS", "zp:k"]),
        cmd(&["ZPOPMIN", "zp:k"]),
        cmd(&["ZPOPMIN", "zp:k", "3"]),
        cmd(&["ZCARD", "zp:k"]),
        // The last member's removal deletes the key, whichever command takes it.
        cmd(&["ZADD", "zp:k", "1", "a", "2", "b"]),
        cmd(&["ZREM", "zp:k", "a", "b", "c"]),
        cmd(&["EXISTS", "zp:k"]),
        cmd(&["ZADD", "zp:k", "1", "a"]),
        cmd(&["ZREMRANGEBYSCORE", "zp:k", "-inf", "+inf"]),
        cmd(&["EXISTS", "zp:k"]),
        cmd(&["ZADD", "zp:k", "1", "a", "0", "0", "0", "1"]),
        cmd(&["ZREMRANGEBYLEX", "zp:k", "[0", "[1"]),
        cmd(&["ZREMRANGEBYLEX", "zp:k", "-", "+"]),
        cmd(&["EXISTS", "zp:k"]),
    ]
}

pub fn wrong_types() -> Vec<Step> {
    let mut steps = vec![
        cmd(&["DEL", "zw:s", "zw:z"]),
        cmd(&["SET", "zw:s", "v"]),
        cmd(&["ZADD", "zw:z", "1", "a"]),
    ];
    for request in [
        &["ZADD", "zw:s", "1", "a"][..],
        &["ZADD", "zw:s", "XX", "1", "a"],
        &["ZINCRBY", "zw:s", "1", "a"],
        &["ZREM", "zw:s", "a"],
        &["ZSCORE", "zw:s", "a"],
        &["ZMSCORE", "zw:s", "a"],
        &["ZCARD", "zw:s"],
        &["ZCOUNT", "zw:s", "0", "1"],
        &["ZRANK", "zw:s", "a"],
        &["ZRANGE", "zw:s", "0", "-1"],
        &["ZRANGEBYSCORE", "zw:s", "0", "1"],
        &["ZREMRANGEBYSCORE", "zw:s", "0", "1"],
        &["ZPOPMIN", "zw:s"],
        &["ZPOPMAX", "zw:s", "0"],
        // The argument errors come first.
        &["ZADD", "zw:s", "x", "a"],
        &["ZRANGEBYSCORE", "zw:s", "x", "1"],
        &["ZPOPMIN", "zw:s", "x"],
        // And the other way round.
        &["GET", "zw:z"],
        &["SET", "zw:z", "v", "GET"],
    ] {
        steps.push(cmd(request));
    }
    steps.extend([
        cmd(&["GET", "zw:s"]),
        cmd(&["SET", "zw:z", "overwritten"]),
        cmd(&["GET", "zw:z"]),
        cmd(&["ZADD", "zw:z", "1", "a"]),
        cmd(&["DEL", "zw:z"]),
        cmd(&["ZADD", "zw:z", "1", "a"]),
    ]);
    steps
}

pub fn zsets_in_transactions() -> Vec<Step> {
    vec![
        cmd(&["DEL", "zt:k", "zt:s"]),
        cmd(&["MULTI"]),
        cmd(&["ZADD", "zt:k", "1", "a", "2", "b"]),
        cmd(&["ZINCRBY", "zt:k", "5", "a"]),
        cmd(&["ZADD", "zt:k", "x", "c"]),
        cmd(&["ZRANGE", "zt:k", "0", "-1", "WITHSCORES"]),
        cmd(&["ZPOPMIN", "zt:k", "1"]),
        cmd(&["ZSCORE", "zt:k", "a"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["ZADD", "zt:k", "1"]),
        cmd(&["EXEC"]),
        // Another connection's ZADD breaks a WATCH; one that changes nothing does not.
        cmd(&["WATCH", "zt:k"]),
        cmd(&["ZADD", "zt:k", "6", "a"]).on(1),
        cmd(&["ZREM", "zt:k", "nope"]).on(1),
        cmd(&["ZSCORE", "zt:k", "a"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["ZADD", "zt:k", "100", "a"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "zt:k"]),
        cmd(&["ZADD", "zt:k", "7", "a"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["ZADD", "zt:k", "100", "a"]),
        cmd(&["EXEC"]),
        cmd(&["ZSCORE", "zt:k", "a"]),
        cmd(&["WATCH", "zt:k"]),
        cmd(&["ZINCRBY", "zt:k", "1", "b"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "zt:k"]),
        cmd(&["ZPOPMAX", "zt:k", "0"]).on(1),
        cmd(&["ZREMRANGEBYSCORE", "zt:k", "1000", "2000"]).on(1),
        cmd(&["ZADD", "zt:k", "XX", "1", "nope"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "zt:s"]),
        cmd(&["ZADD", "zt:s", "1", "m"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "zt:s"]),
        cmd(&["ZPOPMIN", "zt:s"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // A script's ZADD breaks one too.
        cmd(&["WATCH", "zt:k"]),
        cmd(&[
            "EVAL",
            "return redis.call('zadd', KEYS[1], 9, 'a')",
            "1",
            "zt:k",
        ])
        .on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
    ]
}

pub fn zsets_in_scripts() -> Vec<Step> {
    let eval = |body: &str| cmd(&["EVAL", body, "1", "zl:k"]);
    vec![
        cmd(&["DEL", "zl:k"]),
        eval("return redis.call('zadd', KEYS[1], 1.5, 'a', '2', 'b', 'inf', 'c')"),
        eval("return redis.call('zscore', KEYS[1], 'a')"),
        eval("return type(redis.call('zscore', KEYS[1], 'a'))"),
        eval("return redis.call('zscore', KEYS[1], 'c')"),
        eval("return redis.call('zscore', KEYS[1], 'nope')"),
        eval("return redis.call('zrank', KEYS[1], 'nope')"),
        eval("return redis.call('zrange', KEYS[1], 0, -1, 'withscores')"),
        eval("return redis.call('zrangebyscore', KEYS[1], '(1.5', '+inf', 'WITHSCORES')"),
        eval("return redis.call('zadd', KEYS[1], 'incr', 0.1, 'a')"),
        eval("return redis.call('zincrby', KEYS[1], 1/3, 'b')"),
        eval("return redis.call('zpopmin', KEYS[1], 1)"),
        eval("return redis.call('zpopmax', KEYS[1])"),
        eval("return redis.pcall('zadd', KEYS[1], 'nan', 'x')"),
        eval("return redis.pcall('zadd', KEYS[1], 'xx', 'nx', 1, 'x')"),
        eval("return redis.pcall('zrangebyscore', KEYS[1], 'x', 1)"),
        eval("return redis.call('zadd', KEYS[1], 'x', 'x')"),
        eval("return redis.call('zcard', KEYS[1])"),
        cmd(&["ZRANGE", "zl:k", "0", "-1", "WITHSCORES"]),
    ]
}

/// Past 128 members, or with a member over 64 bytes, Redis switches a sorted set from a
/// listpack to a skiplist; the replies must not notice.
pub fn big_sets() -> Vec<Step> {
    let pairs: Vec<String> = (0..200)
        .flat_map(|i| [format!("{}", i % 7), format!("m{i:03}")])
        .collect();
    let mut zadd = vec!["ZADD", "zb:k"];
    zadd.extend(pairs.iter().map(String::as_str));
    let long = "x".repeat(100);
    let mut steps = vec![
        cmd(&["DEL", "zb:k", "zb:long"]),
        cmd(&zadd).named("ZADD zb:k (200 members, scores 0 to 6)".to_string()),
        cmd(&["ZCARD", "zb:k"]),
        cmd(&["ZRANGE", "zb:k", "0", "4", "WITHSCORES"]),
        cmd(&["ZRANGE", "zb:k", "-3", "-1", "REV"]),
        cmd(&["ZRANGE", "zb:k", "100", "104", "WITHSCORES"]),
        cmd(&[
            "ZRANGE",
            "zb:k",
            "(2",
            "3",
            "BYSCORE",
            "LIMIT",
            "5",
            "4",
            "WITHSCORES",
        ]),
        cmd(&[
            "ZRANGE", "zb:k", "6", "-inf", "BYSCORE", "REV", "LIMIT", "27", "3",
        ]),
        cmd(&["ZCOUNT", "zb:k", "(1", "4"]),
        cmd(&["ZRANK", "zb:k", "m150"]),
        cmd(&["ZREVRANK", "zb:k", "m150"]),
        cmd(&["ZADD", "zb:k", "XX", "CH", "2.5", "m150", "9", "m151"]),
        cmd(&["ZRANK", "zb:k", "m150"]),
        cmd(&["ZREMRANGEBYRANK", "zb:k", "10", "19"]),
        cmd(&["ZREMRANGEBYSCORE", "zb:k", "(5", "6"]),
        cmd(&["ZPOPMAX", "zb:k", "3"]),
        cmd(&["ZPOPMIN", "zb:k"]),
        cmd(&["ZCARD", "zb:k"]),
        cmd(&["ZADD", "zb:long", "1", &long, "2", "b"]),
        cmd(&["ZRANGE", "zb:long", "0", "-1", "WITHSCORES"]),
        cmd(&["ZSCORE", "zb:long", &long]),
        cmd(&["ZRANK", "zb:long", "b"]),
    ];
    // Members of one score walked by lex, in both encodings.
    let mut lex = vec!["ZADD", "zb:lex"];
    let names: Vec<String> = (0..150).map(|i| format!("w{i:03}")).collect();
    for name in &names {
        lex.extend(["0", name.as_str()]);
    }
    steps.extend([
        cmd(&["DEL", "zb:lex"]),
        cmd(&lex).named("ZADD zb:lex (150 members, score 0)".to_string()),
        cmd(&["ZRANGEBYLEX", "zb:lex", "[w100", "(w105"]),
        cmd(&["ZREVRANGEBYLEX", "zb:lex", "+", "[w140", "LIMIT", "2", "3"]),
        cmd(&["ZLEXCOUNT", "zb:lex", "(w010", "[w020"]),
        cmd(&["ZREMRANGEBYLEX", "zb:lex", "-", "(w140"]),
        cmd(&["ZRANGE", "zb:lex", "0", "-1"]),
    ]);
    steps
}

/// A counting semaphore of 2 as libraries build one: by hand (the Redis in Action shape:
/// drop the expired, join, check the rank, leave if too late) and by redis-semaphore's
/// script. Timestamps are fixed numbers; what matters is their order.
pub fn semaphore() -> Vec<Step> {
    let acquire = |id: &str, now: &str| {
        cmd(&[
            "EVAL",
            SEMAPHORE_ACQUIRE,
            "1",
            "zsem:lua",
            "2",
            id,
            "10000",
            now,
        ])
        .named(format!(
            "EVAL semaphore-acquire zsem:lua 2 {id} 10000 {now}"
        ))
    };
    vec![
        cmd(&["DEL", "zsem:k", "zsem:lua"]),
        cmd(&["ZREMRANGEBYSCORE", "zsem:k", "-inf", "1700000000000"]),
        cmd(&["ZADD", "zsem:k", "1700000010000", "one"]),
        cmd(&["ZRANK", "zsem:k", "one"]),
        cmd(&["ZADD", "zsem:k", "1700000010001", "two"]),
        cmd(&["ZRANK", "zsem:k", "two"]),
        cmd(&["ZADD", "zsem:k", "1700000010002", "three"]),
        cmd(&["ZRANK", "zsem:k", "three"]),
        cmd(&["ZREM", "zsem:k", "three"]),
        // Later, "one" has timed out: dropped, and "three" gets in.
        cmd(&["ZREMRANGEBYSCORE", "zsem:k", "-inf", "1700000010000"]),
        cmd(&["ZADD", "zsem:k", "1700000020000", "three"]),
        cmd(&["ZRANK", "zsem:k", "three"]),
        cmd(&["ZRANGE", "zsem:k", "0", "-1", "WITHSCORES"]),
        // A holder refreshes its score; a release.
        cmd(&["ZADD", "zsem:k", "XX", "CH", "1700000030000", "two"]),
        cmd(&["ZREM", "zsem:k", "two"]),
        cmd(&["ZCARD", "zsem:k"]),
        // redis-semaphore's acquire script.
        acquire("a", "1700000000000"),
        acquire("b", "1700000000001"),
        acquire("c", "1700000000002"),
        cmd(&["ZRANGE", "zsem:lua", "0", "-1", "WITHSCORES"]),
        acquire("c", "1700000010001"),
        cmd(&["ZRANGE", "zsem:lua", "0", "-1", "WITHSCORES"]),
        cmd(&["PTTL", "zsem:lua"]).within(super::case::PTTL_SLACK_MS),
    ]
}
