//! SET with every option, GET, DEL, EXISTS.

use crate::case::{Step, cmd, pttl, ttl};

pub fn set_and_get() -> Vec<Step> {
    vec![
        cmd(&["SET", "s:k", "v"]),
        cmd(&["GET", "s:k"]),
        cmd(&["GET", "s:missing"]),
        cmd(&["set", "s:k", "v2"]),
        cmd(&["gEt", "s:k"]),
        cmd(&["SET", "s:empty", ""]),
        cmd(&["GET", "s:empty"]),
        cmd(&["SET", "s:bin", "a\0b\r\nc\u{7f}"]),
        cmd(&["GET", "s:bin"]),
        cmd(&["SET", "", "the empty key"]),
        cmd(&["GET", ""]),
        cmd(&["SET", "s:k"]),
        cmd(&["SET"]),
        cmd(&["GET"]),
        cmd(&["GET", "s:k", "s:k"]),
        cmd(&["SET", "s:k", "v", "FOO"]),
        cmd(&["SET", "s:k", "v", "EX"]),
        cmd(&["SET", "s:k", "v", "NX\0"]),
        cmd(&["GET", "s:k"]),
    ]
}

pub fn set_nx_xx() -> Vec<Step> {
    vec![
        cmd(&["SET", "nx:k", "first", "NX"]),
        cmd(&["SET", "nx:k", "second", "NX"]),
        cmd(&["GET", "nx:k"]),
        cmd(&["SET", "nx:k", "third", "XX"]),
        cmd(&["GET", "nx:k"]),
        cmd(&["SET", "nx:missing", "v", "XX"]),
        cmd(&["EXISTS", "nx:missing"]),
        cmd(&["SET", "nx:k", "v", "nx", "xx"]),
        cmd(&["SET", "nx:k", "v", "XX", "NX"]),
        cmd(&["SET", "nx:k", "v", "NX", "NX"]),
        cmd(&["SET", "nx:k", "v", "xX", "Xx"]),
        cmd(&["GET", "nx:k"]),
        // NX with an expiry, the lock acquisition.
        cmd(&["SET", "nx:lock", "me", "NX", "PX", "30000"]),
        cmd(&["SET", "nx:lock", "you", "NX", "PX", "30000"]),
        cmd(&["GET", "nx:lock"]),
        pttl("nx:lock"),
    ]
}

pub fn set_get_option() -> Vec<Step> {
    vec![
        cmd(&["SET", "sg:k", "v1", "GET"]),
        cmd(&["SET", "sg:k", "v2", "GET"]),
        cmd(&["SET", "sg:k", "v3", "NX", "GET"]),
        cmd(&["GET", "sg:k"]),
        cmd(&["SET", "sg:k", "v4", "XX", "GET"]),
        cmd(&["SET", "sg:missing", "v", "XX", "GET"]),
        cmd(&["SET", "sg:missing", "v", "NX", "GET"]),
        cmd(&["SET", "sg:k", "v5", "GET", "GET", "PX", "20000"]),
        pttl("sg:k"),
        cmd(&["SET", "sg:k", "v6", "GET", "KEEPTTL"]),
        pttl("sg:k"),
        cmd(&["GET", "sg:k"]),
    ]
}

pub fn set_expiry_options() -> Vec<Step> {
    vec![
        cmd(&["SET", "se:k", "v", "EX", "100"]),
        ttl("se:k"),
        pttl("se:k"),
        cmd(&["SET", "se:k", "v", "PX", "50000"]),
        pttl("se:k"),
        cmd(&["SET", "se:k", "v", "EXAT", "{s+200}"]),
        ttl("se:k"),
        cmd(&["SET", "se:k", "v", "PXAT", "{ms+70000}"]),
        pttl("se:k"),
        cmd(&["SET", "se:k", "v2", "KEEPTTL"]),
        pttl("se:k"),
        cmd(&["GET", "se:k"]),
        // Without KEEPTTL a SET clears the deadline.
        cmd(&["SET", "se:k", "v3"]),
        ttl("se:k"),
        cmd(&["SET", "se:k", "v", "ex", "10", "ex", "20"]),
        ttl("se:k"),
        cmd(&["SET", "se:k", "v", "px", "10000", "PX", "5000", "NX"]),
        pttl("se:k"),
        cmd(&["SET", "se:k", "v", "KEEPTTL", "KEEPTTL"]),
        ttl("se:k"),
        // Two kinds of expiry, or an expiry with KEEPTTL.
        cmd(&["SET", "se:k", "v", "EX", "10", "PX", "100"]),
        cmd(&["SET", "se:k", "v", "PXAT", "{ms+1000}", "EXAT", "{s+10}"]),
        cmd(&["SET", "se:k", "v", "EX", "10", "KEEPTTL"]),
        cmd(&["SET", "se:k", "v", "KEEPTTL", "PX", "10"]),
        cmd(&["SET", "se:k", "v", "PX"]),
        cmd(&["SET", "se:k", "v", "PX", "10", "EX"]),
        ttl("se:k"),
        // A deadline already past: the key is there no more.
        cmd(&["SET", "se:past", "v", "PXAT", "{ms-1000}"]),
        cmd(&["GET", "se:past"]),
        cmd(&["SET", "se:past", "v", "EXAT", "1"]),
        cmd(&["EXISTS", "se:past"]),
        cmd(&["SET", "se:past", "v", "EXAT", "1", "GET"]),
    ]
}

pub fn set_bad_expire_times() -> Vec<Step> {
    let mut steps = Vec::new();
    for unit in ["EX", "PX", "EXAT", "PXAT"] {
        for time in [
            "0",
            "-1",
            "abc",
            "1.5",
            " 1",
            "01",
            "",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "9223372036854775",
            "9223372036854776",
        ] {
            steps.push(cmd(&["SET", "sb:k", "v", unit, time]));
        }
    }
    steps.push(cmd(&["EXISTS", "sb:k"]));
    steps.push(cmd(&["SET", "sb:k", "v", "PX", "9223372036854775000"]));
    steps.push(cmd(&["SET", "sb:k", "v", "NX", "EX", "0"]));
    steps.push(cmd(&["SET", "sb:k", "v", "FOO", "EX", "0"]));
    steps
}

pub fn del_and_exists() -> Vec<Step> {
    vec![
        cmd(&["SET", "de:a", "1"]),
        cmd(&["SET", "de:b", "2"]),
        cmd(&["EXISTS", "de:a"]),
        cmd(&["EXISTS", "de:a", "de:b", "de:c", "de:a"]),
        cmd(&["DEL", "de:a", "de:c"]),
        cmd(&["DEL", "de:a"]),
        cmd(&["DEL", "de:b", "de:b"]),
        cmd(&["EXISTS", "de:a", "de:b"]),
        cmd(&["DEL"]),
        cmd(&["EXISTS"]),
    ]
}
