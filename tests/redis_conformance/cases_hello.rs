//! HELLO: its forms, its errors, and what a connection speaks after it. Each pass starts
//! in its own protocol (see `case`), so the same steps check both starting points.

use super::case::{Step, cmd};

/// A HELLO compared but for its client id.
fn hello(args: &[&str]) -> Step {
    let mut all = vec!["HELLO"];
    all.extend_from_slice(args);
    cmd(&all).hello_id()
}

pub fn hello_forms() -> Vec<Step> {
    vec![
        hello(&[]),
        cmd(&["GET", "hello:missing"]),
        hello(&["3"]),
        cmd(&["GET", "hello:missing"]),
        cmd(&["SET", "hello:k", "v", "NX"]),
        cmd(&["SET", "hello:k", "v", "NX"]),
        cmd(&["SET", "hello:k", "w", "NX", "GET"]),
        cmd(&["CLIENT", "GETNAME"]),
        cmd(&["TTL", "hello:k"]),
        cmd(&["EVAL", "return false", "0"]),
        cmd(&["EVAL", "return {1, false, 'x', {}}", "0"]),
        cmd(&["EVAL", "return redis.call('get', 'hello:missing')", "0"]),
        cmd(&["COMMAND", "DOCS", "nosuch"]),
        hello(&[]),
        hello(&["2"]),
        cmd(&["GET", "hello:missing"]),
        hello(&["3", "SETNAME", "named"]),
        cmd(&["CLIENT", "GETNAME"]),
        hello(&[
            "2",
            "AUTH",
            "default",
            "any-password",
            "SETNAME",
            "a",
            "SETNAME",
            "b",
        ]),
        cmd(&["CLIENT", "GETNAME"]),
        hello(&["3", "setname", "", "auth", "default", "x"]),
        cmd(&["CLIENT", "GETNAME"]),
        // Another connection keeps its own protocol.
        cmd(&["GET", "hello:missing"]).on(1),
        cmd(&["DEL", "hello:k"]),
    ]
}

pub fn hello_errors() -> Vec<Step> {
    vec![
        hello(&["4"]),
        hello(&["1"]),
        hello(&["-1"]),
        hello(&["3.0"]),
        hello(&["03"]),
        hello(&["x"]),
        hello(&["99999999999999999999"]),
        hello(&["AUTH", "default", "x"]),
        hello(&["3", "AUTH"]),
        hello(&["3", "AUTH", "default"]),
        hello(&["3", "SETNAME"]),
        hello(&["3", "FOO"]),
        hello(&["3", "FO\0O"]),
        hello(&["3", "x\r\ny"]),
        hello(&["3", "AUTH", "nosuch", "x"]),
        hello(&["3", "AUTH", "DEFAULT", "x"]),
        hello(&["3", "SETNAME", "has space"]),
        // Still in the pass's protocol: no failed HELLO switched it.
        cmd(&["GET", "hello:missing"]),
        // Options act in order: the name is set before the bad option is met.
        hello(&["3", "SETNAME", "early", "FOO"]),
        cmd(&["CLIENT", "GETNAME"]),
        hello(&["2", "SETNAME", "late", "AUTH", "nosuch", "x"]),
        cmd(&["CLIENT", "GETNAME"]),
        hello(&["3", "SETNAME", "bad name", "AUTH", "nosuch", "x"]),
        cmd(&["GET", "hello:missing"]),
        // Not from a script.
        cmd(&["EVAL", "return redis.pcall('hello', '3')", "0"]),
    ]
}

/// What redis-py 8 and node-redis send right after HELLO: Redis 7.0 knows neither, and the
/// clients carry on past the error.
pub fn client_handshake() -> Vec<Step> {
    vec![
        cmd(&["CLIENT", "SETINFO", "LIB-NAME", "redis-py"]),
        cmd(&["CLIENT", "SETINFO", "LIB-VER", "8.1.0"]),
        cmd(&[
            "CLIENT",
            "MAINT_NOTIFICATIONS",
            "on",
            "moving-endpoint-type",
            "internal-ip",
        ]),
        cmd(&["PING"]),
        cmd(&["HELLO", "3", "SETNAME", "x"]).hello_id().on(1),
        cmd(&["HELLO"]).hello_id().on(1),
    ]
}
