//! Transactions: MULTI / EXEC / DISCARD, the errors that doom a transaction and those that
//! do not, WATCH broken by another connection's write or by an expiry, scripts queued.

use super::case::{Step, closed, cmd, raw, sleep};

const GET_AND_SET: &str = "redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])";

pub fn queued_and_executed() -> Vec<Step> {
    vec![
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:a", "1"]),
        cmd(&["GET", "tx:a"]),
        cmd(&["SET", "tx:b", "1", "EX", "soon"]),
        cmd(&["SET", "tx:b", "2", "NX", "XX"]),
        cmd(&["PING"]),
        cmd(&["ECHO", "hi"]),
        cmd(&["DEL", "tx:a", "tx:none"]),
        cmd(&["EXISTS", "tx:a"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "tx:a"]),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["multi"]),
        cmd(&["set", "tx:c", "v"]),
        cmd(&["discard"]),
        cmd(&["GET", "tx:c"]),
        // A client's pipeline, as redis-rs and redis-py send one.
        raw(
            b"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$4\r\ntx:p\r\n$1\r\n1\r\n\
              *2\r\n$3\r\nGET\r\n$4\r\ntx:p\r\n*1\r\n$4\r\nEXEC\r\n",
            4,
        ),
        raw(
            b"MULTI\r\nSET tx:q 1 PX 100000\r\nPTTL tx:none\r\nEXEC\r\n",
            4,
        ),
    ]
}

pub fn errors_in_and_out_of_transactions() -> Vec<Step> {
    vec![
        cmd(&["EXEC"]),
        cmd(&["DISCARD"]),
        cmd(&["EXEC", "x"]),
        cmd(&["MULTI", "x"]),
        cmd(&["UNWATCH", "x"]),
        cmd(&["WATCH"]),
        cmd(&["UNWATCH"]),
        // Misuse inside a transaction is answered and harms nothing.
        cmd(&["MULTI"]),
        cmd(&["MULTI"]),
        cmd(&["WATCH", "tx:e"]),
        cmd(&["SET", "tx:e", "1"]),
        cmd(&["UNWATCH"]),
        cmd(&["EXEC"]),
        // A refusal while queuing dooms it: unknown command, arity, unknown subcommand.
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:e", "2"]),
        cmd(&["NOSUCH", "a", "b"]),
        cmd(&["SET", "tx:e", "3"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "tx:e"]),
        cmd(&["MULTI"]),
        cmd(&["GET"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["CLIENT", "nosuch"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["MULTI", "x"]),
        cmd(&["EXEC"]),
        // EXEC with arguments discards the transaction.
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:e", "4"]),
        cmd(&["EXEC", "now"]),
        cmd(&["DISCARD"]),
        cmd(&["GET", "tx:e"]),
        // QUIT is not queued.
        cmd(&["MULTI"]).on(1),
        cmd(&["SET", "tx:e", "5"]).on(1),
        cmd(&["QUIT"]).on(1),
        closed().on(1),
        cmd(&["GET", "tx:e"]),
    ]
}

pub fn watch_and_other_connections() -> Vec<Step> {
    vec![
        cmd(&["SET", "tx:w", "1"]),
        cmd(&["WATCH", "tx:w", "tx:w2"]),
        cmd(&["GET", "tx:w"]).on(1),
        cmd(&["SET", "tx:other", "1"]).on(1),
        cmd(&["DEL", "tx:w2"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:w", "2"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "tx:w"]),
        // Another connection writes a watched key between WATCH and EXEC.
        cmd(&["WATCH", "tx:w"]),
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:w", "theirs"]).on(1),
        cmd(&["SET", "tx:w", "mine"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "tx:w"]),
        // A missing key created, a key deleted, a TTL set, the watcher's own write.
        cmd(&["WATCH", "tx:new"]),
        cmd(&["SET", "tx:new", "1"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "tx:w"]),
        cmd(&["DEL", "tx:w"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["SET", "tx:w", "1"]),
        cmd(&["WATCH", "tx:w"]),
        cmd(&["PEXPIRE", "tx:w", "100000"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "tx:w"]),
        cmd(&["SET", "tx:w", "2"]),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // UNWATCH and DISCARD forget the watches.
        cmd(&["WATCH", "tx:w"]),
        cmd(&["UNWATCH"]),
        cmd(&["SET", "tx:w", "3"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["GET", "tx:w"]),
        cmd(&["EXEC"]),
        cmd(&["WATCH", "tx:w"]),
        cmd(&["MULTI"]),
        cmd(&["DISCARD"]),
        cmd(&["SET", "tx:w", "4"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["GET", "tx:w"]),
        cmd(&["EXEC"]),
        // A doomed connection's WATCH answers OK; EXEC still fails once.
        cmd(&["WATCH", "tx:w"]),
        cmd(&["SET", "tx:w", "5"]).on(1),
        cmd(&["WATCH", "tx:w3"]),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
        // A script's write breaks a watch too.
        cmd(&["WATCH", "tx:w"]),
        cmd(&["EVAL", GET_AND_SET, "1", "tx:w", "s"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["EXEC"]),
    ]
}

pub fn watch_and_expiry() -> Vec<Step> {
    vec![
        // Expires between WATCH and EXEC, read by nobody.
        cmd(&["SET", "tx:x", "v", "PX", "100"]),
        cmd(&["WATCH", "tx:x"]),
        sleep(250),
        cmd(&["MULTI"]),
        cmd(&["GET", "tx:x"]),
        cmd(&["EXEC"]),
        // Already expired when watched: its deletion is no change.
        cmd(&["SET", "tx:y", "v", "PX", "50"]),
        sleep(150),
        cmd(&["WATCH", "tx:y"]),
        cmd(&["GET", "tx:y"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["GET", "tx:y"]),
        cmd(&["EXEC"]),
        // A TTL far enough away does not abort.
        cmd(&["SET", "tx:z", "v", "PX", "100000"]),
        cmd(&["WATCH", "tx:z"]),
        cmd(&["MULTI"]),
        cmd(&["GET", "tx:z"]),
        cmd(&["EXEC"]),
    ]
}

pub fn scripts_in_transactions() -> Vec<Step> {
    vec![
        cmd(&["MULTI"]),
        cmd(&["SET", "tx:s", "1"]),
        cmd(&["EVAL", GET_AND_SET, "1", "tx:s", "2"]),
        cmd(&["EVAL", "return redis.call('nosuch')", "0"]),
        cmd(&["EVALSHA", "0000000000000000000000000000000000000000", "0"]),
        cmd(&["SCRIPT", "LOAD", "return 'loaded'"]),
        cmd(&["EVAL", "return {1, 'two', false}", "0"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "tx:s"]),
        cmd(&["MULTI"]),
        cmd(&["EVAL", "return 1"]),
        cmd(&["EXEC"]),
        // A script cannot run a transaction.
        cmd(&["EVAL", "return redis.pcall('multi')", "0"]),
        cmd(&["EVAL", "return redis.pcall('exec')", "0"]),
        cmd(&["EVAL", "return redis.pcall('watch', 'k')", "0"]),
    ]
}
