//! SET with every option, GET, DEL, EXISTS.

use super::case::{Step, cmd, pttl, ttl};

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

pub fn counters() -> Vec<Step> {
    vec![
        cmd(&["DEL", "c:n", "c:s", "c:big"]),
        cmd(&["INCR", "c:n"]),
        cmd(&["INCRBY", "c:n", "41"]),
        cmd(&["DECR", "c:n"]),
        cmd(&["DECRBY", "c:n", "-10"]),
        cmd(&["GET", "c:n"]),
        cmd(&["INCRBY", "c:n", "x"]),
        cmd(&["INCRBY", "c:n", "1.5"]),
        cmd(&["INCRBY", "c:n", "+1"]),
        cmd(&["DECRBY", "c:n", "-9223372036854775808"]),
        cmd(&["SET", "c:s", "abc"]),
        cmd(&["INCR", "c:s"]),
        cmd(&["SET", "c:s", " 1"]),
        cmd(&["INCR", "c:s"]),
        cmd(&["SET", "c:s", "007"]),
        cmd(&["INCR", "c:s"]),
        cmd(&["SET", "c:big", "9223372036854775807"]),
        cmd(&["INCR", "c:big"]),
        cmd(&["DECRBY", "c:big", "9223372036854775807"]),
        cmd(&["DECRBY", "c:big", "9223372036854775807"]),
        cmd(&["DECR", "c:big"]),
        cmd(&["INCR"]),
        cmd(&["INCR", "c:n", "c:n"]),
        // The deadline stays through a counter's change (a fencing counter with a lease).
        cmd(&["SET", "c:n", "5", "PX", "60000"]),
        cmd(&["INCR", "c:n"]),
        pttl("c:n"),
    ]
}

pub fn get_variants() -> Vec<Step> {
    vec![
        cmd(&["DEL", "gv:k", "gv:missing"]),
        cmd(&["GETDEL", "gv:k"]),
        cmd(&["SET", "gv:k", "v"]),
        cmd(&["GETDEL", "gv:k"]),
        cmd(&["EXISTS", "gv:k"]),
        cmd(&["GETSET", "gv:k", "a"]),
        cmd(&["SET", "gv:k", "b", "PX", "60000"]),
        cmd(&["GETSET", "gv:k", "c"]),
        cmd(&["PTTL", "gv:k"]),
        cmd(&["GETEX", "gv:k"]),
        cmd(&["GETEX", "gv:k", "PX", "60000"]),
        pttl("gv:k"),
        cmd(&["GETEX", "gv:k", "EX", "100"]),
        ttl("gv:k"),
        cmd(&["GETEX", "gv:k", "PERSIST"]),
        cmd(&["PTTL", "gv:k"]),
        cmd(&["GETEX", "gv:k", "PERSIST", "EX", "10"]),
        cmd(&["GETEX", "gv:k", "EX", "10", "PERSIST"]),
        cmd(&["GETEX", "gv:k", "EX", "10", "PX", "10"]),
        cmd(&["GETEX", "gv:k", "EX"]),
        cmd(&["GETEX", "gv:k", "EX", "0"]),
        cmd(&["GETEX", "gv:k", "EX", "x"]),
        cmd(&["GETEX", "gv:k", "NX"]),
        cmd(&["GETEX", "gv:missing", "PX", "100"]),
        cmd(&["GETEX", "gv:k", "PXAT", "1"]),
        cmd(&["EXISTS", "gv:k"]),
    ]
}

pub fn set_shorthands() -> Vec<Step> {
    vec![
        cmd(&["DEL", "sh:k", "sh:e"]),
        cmd(&["SETNX", "sh:k", "1"]),
        cmd(&["SETNX", "sh:k", "2"]),
        cmd(&["GET", "sh:k"]),
        cmd(&["SETEX", "sh:e", "100", "v"]),
        ttl("sh:e"),
        cmd(&["PSETEX", "sh:e", "100000", "w"]),
        pttl("sh:e"),
        cmd(&["GET", "sh:e"]),
        cmd(&["SETEX", "sh:e", "0", "v"]),
        cmd(&["SETEX", "sh:e", "-5", "v"]),
        cmd(&["PSETEX", "sh:e", "x", "v"]),
        cmd(&["SETEX", "sh:e", "100"]),
        cmd(&["SETNX", "sh:k"]),
    ]
}

pub fn multi_key_strings() -> Vec<Step> {
    vec![
        cmd(&["DEL", "mk:a", "mk:b", "mk:c", "mk:h"]),
        cmd(&["MSET", "mk:a", "1", "mk:b", "2"]),
        cmd(&["MGET", "mk:a", "mk:b", "mk:c"]),
        cmd(&["MSET", "mk:a", "1", "mk:b"]),
        cmd(&["MSETNX", "mk:c", "3", "mk:a", "9"]),
        cmd(&["MGET", "mk:a", "mk:c"]),
        cmd(&["MSETNX", "mk:c", "3", "mk:d", "4"]),
        cmd(&["MGET", "mk:c", "mk:d"]),
        cmd(&["DEL", "mk:d"]),
        cmd(&["APPEND", "mk:a", "23"]),
        cmd(&["APPEND", "mk:new", "x"]),
        cmd(&["GET", "mk:a"]),
        cmd(&["STRLEN", "mk:a"]),
        cmd(&["STRLEN", "mk:none"]),
        cmd(&["DEL", "mk:new"]),
    ]
}
