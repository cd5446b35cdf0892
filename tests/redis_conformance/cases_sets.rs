//! Sets: SADD, SREM, SISMEMBER, SMISMEMBER, SCARD, SMEMBERS, their errors, WRONGTYPE both
//! ways, and sets in transactions, under WATCH and in scripts. A set of integers (an intset)
//! comes back sorted by value from both servers; any other set comes back from the real one
//! in its hash table's order, so those SMEMBERS are compared as multisets (`unordered`).
//! Each case deletes its keys first, so that both passes start from the same state.

use super::case::{Step, cmd};

pub fn set_add_and_members() -> Vec<Step> {
    vec![
        cmd(&["DEL", "st:k", "st:n"]),
        cmd(&["SADD", "st:k", "a"]),
        cmd(&["SADD", "st:k", "b", "c", "a", "b"]),
        cmd(&["SADD", "st:k", "a"]),
        cmd(&["SMEMBERS", "st:k"]).unordered(),
        cmd(&["SCARD", "st:k"]),
        cmd(&["SISMEMBER", "st:k", "b"]),
        cmd(&["SISMEMBER", "st:k", "z"]),
        cmd(&["SISMEMBER", "st:missing", "b"]),
        cmd(&["SMISMEMBER", "st:k", "a", "z", "c", "a"]),
        cmd(&["SMISMEMBER", "st:missing", "a", "b"]),
        cmd(&["SMEMBERS", "st:missing"]),
        cmd(&["SCARD", "st:missing"]),
        // Integers, sorted by value as an intset holds them.
        cmd(&["SADD", "st:n", "10", "-3", "2", "0", "-9223372036854775808"]),
        cmd(&["SMEMBERS", "st:n"]),
        cmd(&["SADD", "st:n", "7"]),
        cmd(&["SMEMBERS", "st:n"]),
        // A member that is no integer turns it into a hash table.
        cmd(&["SADD", "st:n", "07", "x"]),
        cmd(&["SMEMBERS", "st:n"]).unordered(),
        cmd(&["SISMEMBER", "st:n", "7"]),
        cmd(&["SISMEMBER", "st:n", "07"]),
        cmd(&["SADD", "st:k", "", "a\0b\r\n"]),
        cmd(&["SISMEMBER", "st:k", ""]),
        cmd(&["SISMEMBER", "st:k", "a\0b\r\n"]),
        cmd(&["SISMEMBER", "st:k", "a"]),
        cmd(&["SCARD", "st:k"]),
        cmd(&["sAdD", "st:k", "one"]),
        cmd(&["SMEMBERS", "st:k"]).unordered(),
    ]
}

pub fn set_remove() -> Vec<Step> {
    vec![
        cmd(&["DEL", "st:r"]),
        cmd(&["SADD", "st:r", "1", "2", "3", "4"]),
        cmd(&["SREM", "st:r", "9"]),
        cmd(&["SREM", "st:r", "2", "2", "9"]),
        cmd(&["SMEMBERS", "st:r"]),
        cmd(&["SREM", "st:missing", "1"]),
        // The last member takes the key with it.
        cmd(&["SREM", "st:r", "1", "3", "4", "5"]),
        cmd(&["EXISTS", "st:r"]),
        cmd(&["SCARD", "st:r"]),
        cmd(&["SMEMBERS", "st:r"]),
    ]
}

pub fn set_arity_and_wrong_type() -> Vec<Step> {
    vec![
        cmd(&["DEL", "st:str", "st:s"]),
        cmd(&["SADD", "st:s", "m"]),
        cmd(&["SET", "st:str", "v"]),
        // A set command on a string.
        cmd(&["SADD", "st:str", "m"]),
        cmd(&["SREM", "st:str", "m"]),
        cmd(&["SISMEMBER", "st:str", "m"]),
        cmd(&["SMISMEMBER", "st:str", "m"]),
        cmd(&["SCARD", "st:str"]),
        cmd(&["SMEMBERS", "st:str"]),
        cmd(&["GET", "st:str"]),
        // A string command, and a hash command, on a set; a set command on a hash.
        cmd(&["GET", "st:s"]),
        cmd(&["HGET", "st:s", "m"]),
        cmd(&["HSET", "st:s", "f", "v"]),
        cmd(&["DEL", "st:h"]),
        cmd(&["HSET", "st:h", "f", "v"]),
        cmd(&["SADD", "st:h", "m"]),
        cmd(&["SMEMBERS", "st:h"]),
        cmd(&["SMEMBERS", "st:s"]),
        // Arity.
        cmd(&["SADD", "st:s"]),
        cmd(&["SADD"]),
        cmd(&["SREM", "st:s"]),
        cmd(&["SISMEMBER", "st:s"]),
        cmd(&["SISMEMBER", "st:s", "m", "n"]),
        cmd(&["SMISMEMBER", "st:s"]),
        cmd(&["SCARD"]),
        cmd(&["SCARD", "st:s", "x"]),
        cmd(&["SMEMBERS", "st:s", "x"]),
    ]
}

pub fn sets_in_transactions_and_scripts() -> Vec<Step> {
    vec![
        cmd(&["DEL", "st:t", "st:w", "st:sc", "st:new"]),
        cmd(&["MULTI"]),
        cmd(&["SADD", "st:t", "3", "1", "2"]),
        cmd(&["SREM", "st:t", "2"]),
        cmd(&["SISMEMBER", "st:t", "1"]),
        cmd(&["GET", "st:t"]),
        cmd(&["SMEMBERS", "st:t"]),
        cmd(&["SCARD", "st:t"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["SADD", "st:t"]),
        cmd(&["EXEC"]),
        // SADD from another connection breaks a WATCH; adding a member already there or
        // removing a missing one does not.
        cmd(&["SADD", "st:w", "a"]),
        cmd(&["WATCH", "st:w"]),
        cmd(&["SADD", "st:w", "a"]).on(1),
        cmd(&["SREM", "st:w", "nosuch"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["SCARD", "st:w"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "st:w"]),
        cmd(&["SADD", "st:w", "b"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["SCARD", "st:w"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "st:w"]),
        cmd(&["SREM", "st:w", "a"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // A watched key that does not exist yet, created by SADD.
        cmd(&["WATCH", "st:new"]),
        cmd(&["SADD", "st:new", "x"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // From a script: a semaphore's holders.
        cmd(&[
            "EVAL",
            "redis.call('sadd', KEYS[1], ARGV[1], ARGV[2]) \
             return {redis.call('scard', KEYS[1]), redis.call('sismember', KEYS[1], ARGV[1]), \
             redis.call('smembers', KEYS[1]), redis.call('smismember', KEYS[1], ARGV[2], 'z')}",
            "1",
            "st:sc",
            "20",
            "10",
        ]),
        cmd(&[
            "EVAL",
            "return redis.call('srem', KEYS[1], '10', '20')",
            "1",
            "st:sc",
        ]),
        cmd(&["EXISTS", "st:sc"]),
        cmd(&["EVAL", "return redis.pcall('sadd', KEYS[1])", "1", "st:sc"]),
        cmd(&["SET", "st:sc", "string"]),
        cmd(&[
            "EVAL",
            "return redis.pcall('sadd', KEYS[1], 'm')",
            "1",
            "st:sc",
        ]),
        cmd(&[
            "EVAL",
            "return redis.call('smembers', KEYS[1])",
            "1",
            "st:sc",
        ]),
    ]
}
