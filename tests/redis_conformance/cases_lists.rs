//! Lists: pushes and pops at both ends (with counts), LLEN, LRANGE and LINDEX with indexes
//! from either end, LREM in both directions, LMOVE between lists and onto itself, and the
//! errors (wrong type, arity, bad integers, bad directions) in the order Redis checks them;
//! blocking pops served at once, timing out, woken by another connection's push in the
//! order they blocked, and not blocking inside MULTI.

use super::case::{Step, cmd, pending, raw, sleep};

pub fn push_pop_and_read() -> Vec<Step> {
    vec![
        cmd(&["DEL", "li:a", "li:s"]),
        cmd(&["LPUSH", "li:a", "1", "2", "3"]),
        cmd(&["RPUSH", "li:a", "4", "5"]),
        cmd(&["LLEN", "li:a"]),
        cmd(&["LRANGE", "li:a", "0", "-1"]),
        cmd(&["LRANGE", "li:a", "-2", "100"]),
        cmd(&["LRANGE", "li:a", "3", "1"]),
        cmd(&["LRANGE", "li:a", "x", "1"]),
        cmd(&["LRANGE", "li:none", "0", "-1"]),
        cmd(&["LINDEX", "li:a", "0"]),
        cmd(&["LINDEX", "li:a", "-1"]),
        cmd(&["LINDEX", "li:a", "5"]),
        cmd(&["LINDEX", "li:a", "x"]),
        cmd(&["LINDEX", "li:none", "x"]),
        cmd(&["LPOP", "li:a"]),
        cmd(&["RPOP", "li:a"]),
        cmd(&["LPOP", "li:a", "2"]),
        cmd(&["RPOP", "li:a", "0"]),
        cmd(&["LPOP", "li:a", "-1"]),
        cmd(&["LPOP", "li:a", "x"]),
        cmd(&["LPOP", "li:a", "1", "2"]),
        cmd(&["RPOP", "li:a", "10"]),
        cmd(&["EXISTS", "li:a"]),
        cmd(&["LPOP", "li:a"]),
        cmd(&["LPOP", "li:a", "1"]),
        cmd(&["LPOP", "li:a", "0"]),
        cmd(&["LLEN", "li:a"]),
        cmd(&["SET", "li:s", "v"]),
        cmd(&["LPUSH", "li:s", "x"]),
        cmd(&["LPOP", "li:s"]),
        cmd(&["LLEN", "li:s"]),
        cmd(&["LRANGE", "li:s", "0", "1"]),
        cmd(&["LINDEX", "li:s", "0"]),
        cmd(&["LPUSH", "li:a"]),
        cmd(&["LLEN"]),
        cmd(&["DEL", "li:s"]),
    ]
}

pub fn lrem_and_lmove() -> Vec<Step> {
    vec![
        cmd(&["DEL", "li:r", "li:d", "li:s"]),
        cmd(&["RPUSH", "li:r", "x", "a", "x", "b", "x"]),
        cmd(&["LREM", "li:r", "1", "x"]),
        cmd(&["LREM", "li:r", "-1", "x"]),
        cmd(&["LRANGE", "li:r", "0", "-1"]),
        cmd(&["LREM", "li:r", "0", "x"]),
        cmd(&["LREM", "li:r", "0", "x"]),
        cmd(&["LREM", "li:r", "x", "x"]),
        cmd(&["LREM", "li:none", "0", "x"]),
        cmd(&["LMOVE", "li:r", "li:d", "LEFT", "RIGHT"]),
        cmd(&["LMOVE", "li:r", "li:d", "right", "left"]),
        cmd(&["LMOVE", "li:r", "li:d", "LEFT", "LEFT"]),
        cmd(&["EXISTS", "li:r"]),
        cmd(&["LRANGE", "li:d", "0", "-1"]),
        cmd(&["LMOVE", "li:d", "li:d", "LEFT", "RIGHT"]),
        cmd(&["LRANGE", "li:d", "0", "-1"]),
        cmd(&["LMOVE", "li:d", "li:d", "up", "RIGHT"]),
        cmd(&["LMOVE", "li:none", "li:d", "up", "RIGHT"]),
        cmd(&["SET", "li:s", "v"]),
        cmd(&["LMOVE", "li:d", "li:s", "LEFT", "RIGHT"]),
        cmd(&["LMOVE", "li:s", "li:d", "LEFT", "RIGHT"]),
        cmd(&["LMOVE", "li:none", "li:s", "LEFT", "RIGHT"]),
        cmd(&["LRANGE", "li:d", "0", "-1"]),
        cmd(&["RPUSH", "li:one", "only"]),
        cmd(&["LMOVE", "li:one", "li:one", "LEFT", "LEFT"]),
        cmd(&["LRANGE", "li:one", "0", "-1"]),
        cmd(&["DEL", "li:d", "li:s", "li:one"]),
    ]
}

pub fn blocking_pops() -> Vec<Step> {
    vec![
        cmd(&["DEL", "bl:q", "bl:d", "bl:s"]),
        cmd(&["RPUSH", "bl:q", "a", "b"]),
        cmd(&["BLPOP", "bl:none", "bl:q", "0"]),
        cmd(&["BRPOP", "bl:q", "0"]),
        cmd(&["BLPOP", "bl:q", "0.05"]),
        cmd(&["BLMOVE", "bl:q", "bl:d", "LEFT", "RIGHT", "0.05"]),
        // Blocked until another connection pushes; the request behind it waits.
        raw(b"BLPOP bl:q 0\r\nPING\r\n", 0).on(1),
        raw(b"BLMOVE bl:q bl:d RIGHT LEFT 0\r\n", 0).on(2),
        sleep(50),
        cmd(&["RPUSH", "bl:q", "x", "y", "z"]),
        pending(2).on(1),
        pending(1).on(2),
        cmd(&["LRANGE", "bl:q", "0", "-1"]),
        cmd(&["LRANGE", "bl:d", "0", "-1"]),
        cmd(&["MULTI"]),
        cmd(&["BLPOP", "bl:none", "0"]),
        cmd(&["BLMOVE", "bl:none", "bl:d", "LEFT", "LEFT", "0"]),
        cmd(&["EXEC"]),
        cmd(&["SET", "bl:s", "v"]),
        cmd(&["BLPOP", "bl:none", "bl:s", "0"]),
        cmd(&["BLMOVE", "bl:s", "bl:d", "LEFT", "LEFT", "0"]),
        cmd(&["BLPOP", "bl:q", "-1"]),
        cmd(&["BLPOP", "bl:q", "x"]),
        cmd(&["BLPOP", "bl:q", "inf"]),
        cmd(&["BLMOVE", "bl:q", "bl:d", "up", "LEFT", "0"]),
        cmd(&["BLMOVE", "bl:q", "bl:d", "LEFT", "LEFT", "x"]),
        cmd(&["BLPOP", "bl:q"]),
        cmd(&["EVAL", "return redis.pcall('blpop', 'bl:q', 0)", "0"]),
        cmd(&["DEL", "bl:q", "bl:d", "bl:s"]),
    ]
}
