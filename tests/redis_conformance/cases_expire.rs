//! EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX / XX / GT / LT, TTL and PTTL, and expiry seen
//! after a real wait.

use super::case::{Step, cmd, pttl, sleep, ttl};

pub fn expire_family() -> Vec<Step> {
    vec![
        cmd(&["SET", "ex:k", "v"]),
        ttl("ex:k"),
        pttl("ex:k"),
        cmd(&["EXPIRE", "ex:k", "100"]),
        ttl("ex:k"),
        pttl("ex:k"),
        cmd(&["PEXPIRE", "ex:k", "50000"]),
        pttl("ex:k"),
        cmd(&["EXPIREAT", "ex:k", "{s+300}"]),
        ttl("ex:k"),
        cmd(&["PEXPIREAT", "ex:k", "{ms+40000}"]),
        pttl("ex:k"),
        cmd(&["pexpire", "ex:k", "1500"]),
        ttl("ex:k"),
        cmd(&["PEXPIRE", "ex:k", "2499"]),
        ttl("ex:k"),
        cmd(&["GET", "ex:k"]),
        // A missing key.
        cmd(&["EXPIRE", "ex:missing", "10"]),
        cmd(&["PEXPIRE", "ex:missing", "10"]),
        cmd(&["EXPIREAT", "ex:missing", "{s+10}"]),
        cmd(&["PEXPIREAT", "ex:missing", "{ms+10}"]),
        cmd(&["TTL", "ex:missing"]),
        cmd(&["PTTL", "ex:missing"]),
        // Arity.
        cmd(&["EXPIRE", "ex:k"]),
        cmd(&["PEXPIREAT"]),
        cmd(&["TTL"]),
        cmd(&["PTTL", "ex:k", "ex:k"]),
    ]
}

pub fn expire_conditions() -> Vec<Step> {
    vec![
        cmd(&["SET", "ec:k", "v"]),
        cmd(&["EXPIRE", "ec:k", "100", "XX"]),
        cmd(&["EXPIRE", "ec:k", "100", "GT"]),
        cmd(&["EXPIRE", "ec:k", "100", "LT"]),
        ttl("ec:k"),
        cmd(&["SET", "ec:k", "v"]),
        cmd(&["EXPIRE", "ec:k", "100", "NX"]),
        cmd(&["EXPIRE", "ec:k", "200", "NX"]),
        ttl("ec:k"),
        cmd(&["EXPIRE", "ec:k", "200", "XX"]),
        ttl("ec:k"),
        cmd(&["EXPIRE", "ec:k", "100", "GT"]),
        cmd(&["EXPIRE", "ec:k", "300", "gt"]),
        ttl("ec:k"),
        cmd(&["PEXPIRE", "ec:k", "400000", "LT"]),
        cmd(&["PEXPIRE", "ec:k", "100000", "lt"]),
        pttl("ec:k"),
        cmd(&["PEXPIREAT", "ec:k", "{ms+200000}", "XX", "GT"]),
        ttl("ec:k"),
        cmd(&["EXPIREAT", "ec:k", "{s+100}", "LT", "XX"]),
        ttl("ec:k"),
        cmd(&["EXPIRE", "ec:k", "100", "XX", "XX", "LT", "LT"]),
        cmd(&["EXPIRE", "ec:missing", "100", "XX"]),
        cmd(&["EXPIRE", "ec:missing", "100", "NX"]),
        // Options that exclude each other, and unknown ones.
        cmd(&["EXPIRE", "ec:k", "100", "NX", "XX"]),
        cmd(&["EXPIRE", "ec:k", "100", "NX", "GT"]),
        cmd(&["EXPIRE", "ec:k", "100", "LT", "NX"]),
        cmd(&["EXPIRE", "ec:k", "100", "GT", "LT"]),
        cmd(&["PEXPIRE", "ec:k", "100", "FOO"]),
        cmd(&["PEXPIRE", "ec:k", "100", "XX", "foo bar"]),
        cmd(&["PEXPIRE", "ec:k", "100", "a\r\nb"]),
        cmd(&["EXPIREAT", "ec:k", "abc", "FOO"]),
        cmd(&["EXPIRE", "ec:missing", "100", "GT", "LT"]),
        ttl("ec:k"),
    ]
}

pub fn expire_bad_times() -> Vec<Step> {
    let mut steps = vec![cmd(&["SET", "eb:k", "v"])];
    for command in ["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"] {
        for time in [
            "abc",
            "1.5",
            "",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775",
            "9223372036854776",
            "-9223372036854776",
        ] {
            steps.push(cmd(&[command, "eb:k", time]));
            steps.push(cmd(&["EXISTS", "eb:k"]));
            steps.push(cmd(&["SET", "eb:k", "v"]));
        }
    }
    steps.push(cmd(&["EXPIRE", "eb:missing", "abc"]));
    steps.push(cmd(&["EXPIRE", "eb:missing", "9223372036854775807"]));
    steps
}

pub fn expire_in_the_past_deletes() -> Vec<Step> {
    let mut steps = Vec::new();
    for (command, time) in [
        ("EXPIRE", "0"),
        ("EXPIRE", "-1"),
        ("PEXPIRE", "0"),
        ("PEXPIRE", "-100"),
        ("EXPIREAT", "1"),
        ("PEXPIREAT", "{ms-1}"),
        ("EXPIREAT", "{s-1}"),
    ] {
        steps.push(cmd(&["SET", "ep:k", "v"]));
        steps.push(cmd(&[command, "ep:k", time]));
        steps.push(cmd(&["EXISTS", "ep:k"]));
        steps.push(cmd(&["TTL", "ep:k"]));
    }
    steps.push(cmd(&["SET", "ep:k", "v", "EX", "100"]));
    steps.push(cmd(&["EXPIRE", "ep:k", "-1", "GT"]));
    steps.push(cmd(&["EXPIRE", "ep:k", "-1", "LT"]));
    steps.push(cmd(&["GET", "ep:k"]));
    steps
}

/// Deadlines passing in real time: reads see the key gone, writes with NX / XX see it
/// missing, DEL counts it 0.
pub fn expiry_after_a_wait() -> Vec<Step> {
    vec![
        cmd(&["SET", "ew:px", "v", "PX", "100"]),
        cmd(&["SET", "ew:pexpire", "v"]),
        cmd(&["PEXPIRE", "ew:pexpire", "100"]),
        cmd(&["SET", "ew:nx", "old", "PX", "100"]),
        cmd(&["SET", "ew:xx", "old", "PX", "100"]),
        cmd(&["SET", "ew:del", "v", "PX", "100"]),
        cmd(&["SET", "ew:get", "old", "PX", "100"]),
        cmd(&["SET", "ew:long", "v", "PX", "10000"]),
        cmd(&["GET", "ew:px"]),
        cmd(&["SET", "ew:nx", "new", "NX"]),
        cmd(&["SET", "ew:xx", "new", "XX", "PX", "100"]),
        sleep(250),
        cmd(&["GET", "ew:px"]),
        cmd(&["PTTL", "ew:px"]),
        cmd(&["TTL", "ew:pexpire"]),
        cmd(&["EXISTS", "ew:pexpire", "ew:px", "ew:long"]),
        cmd(&["SET", "ew:nx", "new", "NX"]),
        cmd(&["GET", "ew:nx"]),
        cmd(&["SET", "ew:xx", "new", "XX"]),
        cmd(&["GET", "ew:xx"]),
        cmd(&["DEL", "ew:del", "ew:long"]),
        cmd(&["SET", "ew:get", "new", "GET"]),
        cmd(&["PEXPIRE", "ew:px", "1000"]),
        cmd(&["EXPIRE", "ew:pexpire", "10", "NX"]),
    ]
}
