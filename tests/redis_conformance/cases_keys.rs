//! The commands on keys of any type and on the databases: TYPE, PERSIST, UNLINK, TOUCH,
//! RENAME, RENAMENX, KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL, SELECT's sixteen databases.
//! Cases that list or count keys run in a database of their own (the others share 0), and
//! list at most one key: Redis lists keys in its hash table's order.

use super::case::{Step, cmd, pttl};

pub fn type_persist_touch() -> Vec<Step> {
    vec![
        cmd(&["DEL", "ty:s", "ty:missing"]),
        cmd(&["SET", "ty:s", "v", "PX", "60000"]),
        cmd(&["TYPE", "ty:s"]),
        cmd(&["TYPE", "ty:missing"]),
        cmd(&["PERSIST", "ty:s"]),
        cmd(&["PERSIST", "ty:s"]),
        cmd(&["PERSIST", "ty:missing"]),
        cmd(&["PTTL", "ty:s"]),
        cmd(&["TOUCH", "ty:s", "ty:missing", "ty:s"]),
        cmd(&["UNLINK", "ty:s", "ty:missing"]),
        cmd(&["TYPE"]),
        cmd(&["PERSIST", "a", "b"]),
    ]
}

pub fn rename() -> Vec<Step> {
    vec![
        cmd(&["DEL", "rn:a", "rn:b", "rn:c"]),
        cmd(&["RENAME", "rn:a", "rn:b"]),
        cmd(&["SET", "rn:a", "1", "PX", "60000"]),
        cmd(&["RENAME", "rn:a", "rn:b"]),
        cmd(&["EXISTS", "rn:a"]),
        cmd(&["GET", "rn:b"]),
        pttl("rn:b"),
        cmd(&["RENAME", "rn:b", "rn:b"]),
        cmd(&["SET", "rn:c", "3"]),
        cmd(&["RENAMENX", "rn:b", "rn:c"]),
        cmd(&["RENAMENX", "rn:b", "rn:b"]),
        cmd(&["RENAMENX", "rn:c", "rn:d"]),
        cmd(&["RENAME", "rn:b", "rn:d"]),
        cmd(&["MGET", "rn:b", "rn:c", "rn:d"]),
        cmd(&["RENAMENX", "rn:missing", "rn:x"]),
        cmd(&["DEL", "rn:d"]),
    ]
}

pub fn databases() -> Vec<Step> {
    vec![
        cmd(&["SELECT", "9"]),
        cmd(&["FLUSHDB"]),
        cmd(&["DBSIZE"]),
        cmd(&["SET", "db:k", "nine"]),
        cmd(&["DBSIZE"]),
        cmd(&["KEYS", "*"]),
        cmd(&["KEYS", "db:?"]),
        cmd(&["KEYS", "db:[a-j]"]),
        cmd(&["KEYS", "nomatch*"]),
        cmd(&["SCAN", "0"]),
        cmd(&["SCAN", "0", "MATCH", "db:*", "COUNT", "100"]),
        cmd(&["SCAN", "0", "TYPE", "string"]),
        cmd(&["SCAN", "0", "TYPE", "hash"]),
        cmd(&["SCAN", "0", "COUNT", "0"]),
        cmd(&["SCAN", "0", "COUNT", "x"]),
        cmd(&["SCAN", "0", "MATCH"]),
        cmd(&["SCAN", "0", "FOO", "bar"]),
        cmd(&["SCAN", "x"]),
        cmd(&["SCAN", " 1"]),
        cmd(&["SELECT", "10"]),
        cmd(&["GET", "db:k"]),
        cmd(&["SET", "db:k", "ten"]),
        cmd(&["SELECT", "9"]),
        cmd(&["GET", "db:k"]),
        cmd(&["FLUSHDB", "SYNC"]),
        cmd(&["FLUSHDB", "bogus"]),
        cmd(&["FLUSHDB", "ASYNC", "x"]),
        cmd(&["DBSIZE"]),
        cmd(&["SELECT", "10"]),
        cmd(&["GET", "db:k"]),
        cmd(&["FLUSHDB", "async"]),
        cmd(&["SELECT", "16"]),
        cmd(&["SELECT", "0"]),
    ]
}

pub fn scripts_and_transactions_in_a_database() -> Vec<Step> {
    vec![
        cmd(&["SELECT", "11"]),
        cmd(&["FLUSHDB"]),
        cmd(&[
            "EVAL",
            "redis.call('set', KEYS[1], 'x') redis.call('select', 12) \
             redis.call('set', KEYS[1], 'y') return redis.call('incr', KEYS[2])",
            "2",
            "sd:k",
            "sd:n",
        ]),
        cmd(&["GET", "sd:k"]),
        cmd(&["GET", "sd:n"]),
        cmd(&["MULTI"]),
        cmd(&["SELECT", "12"]),
        cmd(&["GET", "sd:k"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "sd:n"]),
        cmd(&["FLUSHDB"]),
        cmd(&["SELECT", "11"]),
        cmd(&["FLUSHDB"]),
        cmd(&["SELECT", "0"]),
    ]
}
