//! Hashes: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HEXISTS, HLEN, HSTRLEN, HINCRBY,
//! HINCRBYFLOAT, HKEYS, HVALS, HGETALL, their errors, WRONGTYPE both ways, and hashes in
//! transactions, under WATCH and in scripts. Hashes whose order is read stay small (at most
//! 128 fields of at most 64 bytes), so the real server keeps them in a listpack, in insertion
//! order, as the simulator does always. Each case deletes its keys first, so that both passes
//! start from the same state.

use super::case::{Step, cmd};

pub fn hash_set_and_get() -> Vec<Step> {
    vec![
        cmd(&["DEL", "h:k", "h:empty"]),
        cmd(&["HSET", "h:k", "f1", "v1"]),
        cmd(&["HSET", "h:k", "f2", "v2", "f3", "v3"]),
        cmd(&["HSET", "h:k", "f1", "again", "f4", "v4"]),
        cmd(&["HSET", "h:k", "f2", "v2"]),
        cmd(&["HGET", "h:k", "f1"]),
        cmd(&["HGET", "h:k", "nosuch"]),
        cmd(&["HGET", "h:missing", "f1"]),
        cmd(&["HMGET", "h:k", "f1", "nosuch", "f3", "f1"]),
        cmd(&["HMGET", "h:missing", "a", "b"]),
        cmd(&["HGETALL", "h:k"]),
        cmd(&["HKEYS", "h:k"]),
        cmd(&["HVALS", "h:k"]),
        cmd(&["HGETALL", "h:missing"]),
        cmd(&["HKEYS", "h:missing"]),
        cmd(&["HVALS", "h:missing"]),
        cmd(&["HLEN", "h:k"]),
        cmd(&["HLEN", "h:missing"]),
        cmd(&["HEXISTS", "h:k", "f2"]),
        cmd(&["HEXISTS", "h:k", "nosuch"]),
        cmd(&["HEXISTS", "h:missing", "f2"]),
        cmd(&["HSTRLEN", "h:k", "f1"]),
        cmd(&["HSTRLEN", "h:k", "nosuch"]),
        cmd(&["HSTRLEN", "h:missing", "f1"]),
        // Empty and binary fields and values; integers as a listpack stores them.
        cmd(&["HSET", "h:empty", "", ""]),
        cmd(&["HSET", "h:empty", "a\0b\r\n", "\u{7f}\0"]),
        cmd(&["HSET", "h:empty", "n", "12", "m", "-7", "z", "012"]),
        cmd(&["HGETALL", "h:empty"]),
        cmd(&["HSTRLEN", "h:empty", "n"]),
        cmd(&["hmset", "h:empty", "x", "1", "y", "2"]),
        cmd(&["HMSET", "h:empty", "x", "3"]),
        cmd(&["HGETALL", "h:empty"]),
        cmd(&["hGeT", "h:empty", "x"]),
    ]
}

pub fn hash_delete_and_setnx() -> Vec<Step> {
    vec![
        cmd(&["DEL", "h:d"]),
        cmd(&["HSETNX", "h:d", "a", "1"]),
        cmd(&["HSETNX", "h:d", "a", "2"]),
        cmd(&["HGET", "h:d", "a"]),
        cmd(&["HSET", "h:d", "b", "2", "c", "3"]),
        cmd(&["HDEL", "h:d", "nosuch"]),
        cmd(&["HDEL", "h:d", "b", "b", "nosuch"]),
        cmd(&["HGETALL", "h:d"]),
        // A deleted field set again goes last.
        cmd(&["HSET", "h:d", "b", "again"]),
        cmd(&["HKEYS", "h:d"]),
        cmd(&["HDEL", "h:missing", "a"]),
        // The last field takes the key with it.
        cmd(&["HDEL", "h:d", "a", "b", "c", "d"]),
        cmd(&["EXISTS", "h:d"]),
        cmd(&["HLEN", "h:d"]),
        cmd(&["HGETALL", "h:d"]),
    ]
}

pub fn hash_incrby() -> Vec<Step> {
    vec![
        cmd(&["DEL", "h:i"]),
        cmd(&["HINCRBY", "h:i", "n", "5"]),
        cmd(&["HINCRBY", "h:i", "n", "-7"]),
        cmd(&["HINCRBY", "h:i", "n", "0"]),
        cmd(&["HGET", "h:i", "n"]),
        cmd(&["HINCRBY", "h:i", "n", "x"]),
        cmd(&["HINCRBY", "h:i", "n", "1.5"]),
        cmd(&["HINCRBY", "h:i", "n", "+1"]),
        cmd(&["HINCRBY", "h:i", "n", "9223372036854775808"]),
        cmd(&["HINCRBY", "h:missing", "n", "x"]),
        cmd(&["EXISTS", "h:missing"]),
        cmd(&[
            "HSET",
            "h:i",
            "s",
            "abc",
            "sp",
            " 1",
            "z",
            "01",
            "big",
            "9223372036854775807",
        ]),
        cmd(&["HINCRBY", "h:i", "s", "1"]),
        cmd(&["HINCRBY", "h:i", "sp", "1"]),
        cmd(&["HINCRBY", "h:i", "z", "1"]),
        cmd(&["HINCRBY", "h:i", "big", "1"]),
        cmd(&["HINCRBY", "h:i", "big", "-1"]),
        cmd(&["HSET", "h:i", "small", "-9223372036854775808"]),
        cmd(&["HINCRBY", "h:i", "small", "-1"]),
        cmd(&["HINCRBY", "h:i", "small", "9223372036854775807"]),
        cmd(&["HGETALL", "h:i"]),
    ]
}

pub fn hash_arity_and_wrong_type() -> Vec<Step> {
    vec![
        cmd(&["DEL", "h:str", "h:h"]),
        cmd(&["HSET", "h:h", "f", "v"]),
        cmd(&["SET", "h:str", "v"]),
        // A hash command on a string.
        cmd(&["HSET", "h:str", "f", "v"]),
        cmd(&["HSETNX", "h:str", "f", "v"]),
        cmd(&["HMSET", "h:str", "f", "v"]),
        cmd(&["HGET", "h:str", "f"]),
        cmd(&["HMGET", "h:str", "f"]),
        cmd(&["HDEL", "h:str", "f"]),
        cmd(&["HEXISTS", "h:str", "f"]),
        cmd(&["HLEN", "h:str"]),
        cmd(&["HSTRLEN", "h:str", "f"]),
        cmd(&["HINCRBY", "h:str", "f", "1"]),
        cmd(&["HINCRBY", "h:str", "f", "x"]),
        cmd(&["HKEYS", "h:str"]),
        cmd(&["HVALS", "h:str"]),
        cmd(&["HGETALL", "h:str"]),
        cmd(&["GET", "h:str"]),
        // A string command on a hash.
        cmd(&["GET", "h:h"]),
        cmd(&["SET", "h:h", "v", "GET"]),
        cmd(&["HGET", "h:h", "f"]),
        // Arity, the pairs of HSET / HMSET checked before the type.
        cmd(&["HSET", "h:h"]),
        cmd(&["HSET", "h:h", "f"]),
        cmd(&["HSET", "h:h", "f", "v", "g"]),
        cmd(&["HSET", "h:str", "f", "v", "g"]),
        cmd(&["HMSET", "h:h", "f", "v", "g"]),
        cmd(&["HSETNX", "h:h", "f"]),
        cmd(&["HSETNX", "h:h", "f", "v", "x"]),
        cmd(&["HGET", "h:h"]),
        cmd(&["HGET", "h:h", "f", "g"]),
        cmd(&["HMGET", "h:h"]),
        cmd(&["HDEL", "h:h"]),
        cmd(&["HEXISTS", "h:h"]),
        cmd(&["HLEN"]),
        cmd(&["HLEN", "h:h", "x"]),
        cmd(&["HSTRLEN", "h:h"]),
        cmd(&["HINCRBY", "h:h", "f"]),
        cmd(&["HKEYS", "h:h", "x"]),
        cmd(&["HVALS"]),
        cmd(&["HGETALL", "h:h", "x"]),
        cmd(&["HGETALL", "h:h"]),
    ]
}

pub fn hashes_in_transactions_and_scripts() -> Vec<Step> {
    vec![
        cmd(&["DEL", "h:t", "h:w", "h:s"]),
        cmd(&["MULTI"]),
        cmd(&["HSET", "h:t", "a", "1", "b", "2"]),
        cmd(&["HINCRBY", "h:t", "a", "10"]),
        cmd(&["HINCRBY", "h:t", "b", "x"]),
        cmd(&["HGET", "h:t", "a"]),
        cmd(&["GET", "h:t"]),
        cmd(&["HDEL", "h:t", "b"]),
        cmd(&["HGETALL", "h:t"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["HSET", "h:t", "odd"]),
        cmd(&["EXEC"]),
        // A field without its value passes the table's arity: queued, refused at EXEC.
        cmd(&["MULTI"]),
        cmd(&["HSET", "h:t", "a", "1", "b"]),
        cmd(&["HMSET", "h:t", "a", "1", "b"]),
        cmd(&["HSET", "h:t", "c", "3"]),
        cmd(&["EXEC"]),
        // HSET from another connection breaks a WATCH; a no-op HSETNX or HDEL does not.
        cmd(&["HSET", "h:w", "f", "1"]),
        cmd(&["WATCH", "h:w"]),
        cmd(&["HSETNX", "h:w", "f", "2"]).on(1),
        cmd(&["HDEL", "h:w", "nosuch"]).on(1),
        cmd(&["HGET", "h:w", "f"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["HGET", "h:w", "f"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "h:w"]),
        cmd(&["HSET", "h:w", "f", "1"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["HGET", "h:w", "f"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "h:w"]),
        cmd(&["HINCRBY", "h:w", "f", "1"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "h:w"]),
        cmd(&["HDEL", "h:w", "f"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "h:w"]),
        cmd(&["HSETNX", "h:w", "g", "1"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // From a script: a reentrant lock's hold count, as Redisson keeps one.
        cmd(&[
            "EVAL",
            "redis.call('hset', KEYS[1], 'owner', ARGV[1], 'n', 0) \
             redis.call('hincrby', KEYS[1], 'n', 2) \
             return redis.call('hgetall', KEYS[1])",
            "1",
            "h:s",
            "me",
        ]),
        cmd(&[
            "EVAL",
            "return {redis.call('hget', KEYS[1], 'owner'), redis.call('hget', KEYS[1], 'x'), \
             redis.call('hlen', KEYS[1]), redis.call('hexists', KEYS[1], 'n'), \
             redis.call('hkeys', KEYS[1]), redis.call('hmget', KEYS[1], 'n', 'x', 'owner')}",
            "1",
            "h:s",
        ]),
        cmd(&[
            "EVAL",
            "return redis.call('hdel', KEYS[1], 'owner', 'n')",
            "1",
            "h:s",
        ]),
        cmd(&["EXISTS", "h:s"]),
        cmd(&[
            "EVAL",
            "return redis.pcall('hset', KEYS[1], 'f')",
            "1",
            "h:s",
        ]),
        // A field without its value passes the script's arity check, then HSET refuses it.
        cmd(&[
            "EVAL",
            "return redis.pcall('hset', KEYS[1], 'f', 'v', 'g')",
            "1",
            "h:s",
        ]),
        cmd(&[
            "EVAL",
            "return redis.call('hmset', KEYS[1], 'f', 'v', 'g')",
            "1",
            "h:s",
        ]),
        cmd(&[
            "EVAL",
            "return redis.pcall('hincrby', KEYS[1], 'f', 'x')",
            "1",
            "h:s",
        ]),
        cmd(&["SET", "h:s", "string"]),
        cmd(&[
            "EVAL",
            "return redis.pcall('hget', KEYS[1], 'f')",
            "1",
            "h:s",
        ]),
        cmd(&["EVAL", "return redis.call('hgetall', KEYS[1])", "1", "h:s"]),
    ]
}

/// HINCRBYFLOAT's long doubles: read as `strtold` reads them (hex, infinities, the range's
/// ends), added and printed with `%.17Lf` as the real server does on x86-64.
pub fn hash_incrbyfloat() -> Vec<Step> {
    let mut steps = vec![cmd(&["DEL", "h:f", "h:fs", "h:fbig"])];
    for (n, incr) in [
        "0.1",
        "0.2",
        "-0.3",
        "10.5",
        "-5e-18",
        "1e20",
        "0.000000000000000005",
        "0.000000000000000015",
        "3.14159265358979323846264338327950288",
        "18446744073709551615",
        "18446744073709551617",
        "0X1.8P1",
        "-0x.8",
        "0x1p-16445",
        "-0.0",
        "+.5e1",
        "5.",
        "00.100",
        "5e-4951",
        "1e-4950",
        "1e5000",
        "1e-5000",
        "inf",
        "-Infinity",
        "nan",
        " 1",
        "1 ",
        "1e",
        "0x",
        "",
        "1,5",
    ]
    .into_iter()
    .enumerate()
    {
        let field = format!("f{}", n % 6);
        steps.push(cmd(&["HINCRBYFLOAT", "h:f", &field, incr]));
    }
    steps.extend([
        cmd(&["HGETALL", "h:f"]),
        cmd(&[
            "HSET",
            "h:fs",
            "s",
            "abc",
            "i",
            "inf",
            "n",
            "10",
            "big",
            "1.18e4932",
        ]),
        cmd(&["HINCRBYFLOAT", "h:fs", "s", "1"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "i", "1"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "n", "1.5"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "big", "1e4932"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "big", "-1e4932"]),
        cmd(&["HINCRBYFLOAT", "h:fbig", "x", "1e4932"]),
        cmd(&["HINCRBYFLOAT", "h:fs"]),
        cmd(&["SET", "h:fs", "v"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "f", "1"]),
        cmd(&["HINCRBYFLOAT", "h:fs", "f", "x"]),
        cmd(&[
            "EVAL",
            "return redis.call('hincrbyfloat', KEYS[1], 'f', '0.1')",
            "1",
            "h:fbig",
        ]),
    ]);
    steps
}
