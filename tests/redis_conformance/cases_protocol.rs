//! Requests as bytes: inline commands, pipelines, empty requests, and the protocol errors
//! that end a connection (each case's other connections go on).

use super::case::{Step, closed, cmd, raw};

pub fn inline_requests() -> Vec<Step> {
    vec![
        raw(b"PING\r\n", 1),
        raw(b"ping\n", 1),
        raw(b"SET in:k \"a b\\r\\n\\x41\"\r\nGET in:k\r\n", 2),
        raw(b"ECHO 'single quoted'  \t ECHO\r\n", 1),
        raw(b"ECHO \"\\\"escaped\\\" \\\\ \\t\"\r\n", 1),
        raw(b"   \r\n\r\nPING\r\n", 1),
        raw(b"GET in:k extra args here\r\n", 1),
        raw(b"ECHO \"\"\r\n", 1),
        raw(b"ECHO a\"b\"\r\n", 1),
    ]
}

pub fn pipelines() -> Vec<Step> {
    let mut many = Vec::new();
    for i in 0..300 {
        many.extend(format!("SET pl:{i} {i}\r\nGET pl:{i}\r\n").into_bytes());
    }
    vec![
        raw(
            b"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\nPING\r\n",
            3,
        ),
        raw(&many, 600),
        raw(b"*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", 1),
        // A request arriving in pieces.
        raw(b"*2\r\n$4\r\nEC", 0),
        raw(b"HO\r\n$2\r", 0),
        raw(b"\nhi\r\n", 1),
        cmd(&["EXISTS", "pl:0", "pl:299"]),
        // A value over many 16 KiB reads, both ways.
        cmd(&["SET", "pl:big", &"0123456789".repeat(10_000)]),
        cmd(&["GET", "pl:big"]),
    ]
}

pub fn protocol_errors() -> Vec<Step> {
    let cases: [&[u8]; 8] = [
        b"*abc\r\n",
        b"*1\r\nx\r\n",
        b"*1\r\n$abc\r\n",
        b"*1\r\n$-1\r\n",
        b"*2\r\n$3\r\nGET\r\n:1\r\n",
        b"ECHO \"unbalanced\r\n",
        b"ECHO \"closed\"x\r\n",
        b"*3000000000\r\n",
    ];
    let mut steps = Vec::new();
    for (i, bytes) in cases.into_iter().enumerate() {
        steps.push(raw(bytes, 1).on(i + 1));
        steps.push(closed().on(i + 1));
    }
    // Redis's limits, met after several 16 KiB reads.
    let digits = "1".repeat(70_000);
    let too_long: [Vec<u8>; 4] = [
        vec![b'a'; 70_000],
        format!("*{digits}").into_bytes(),
        format!("*1\r\n${digits}").into_bytes(),
        b"*1\r\n$536870913\r\n".to_vec(),
    ];
    for (i, bytes) in too_long.iter().enumerate() {
        steps.push(raw(bytes, 1).on(i + 10));
        steps.push(closed().on(i + 10));
    }
    steps.push(raw(b"PING\r\n*x\r\nPING\r\n", 2).on(20));
    steps.push(closed().on(20));
    // Redis's guard against cross-protocol scripting: no reply at all.
    steps.push(raw(b"POST / HTTP/1.1\r\n", 0).on(21));
    steps.push(closed().on(21));
    steps.push(raw(b"PING\r\nHost: example.com\r\nPING\r\n", 0).on(22));
    steps.push(closed().on(22));
    steps.push(raw(b"*1\r\n$4\r\nPOST\r\n", 0).on(23));
    steps.push(closed().on(23));
    steps.push(cmd(&["PING"]));
    steps
}

/// Requests far larger than a read: one DEL of 300,000 keys, a count past 1024 * 1024 (Redis
/// 7.0's limit is INT_MAX), an argument declared long arriving in pieces.
pub fn big_requests() -> Vec<Step> {
    let mut del = b"*300001\r\n$3\r\nDEL\r\n".to_vec();
    del.extend(b"$1\r\nk\r\n".repeat(300_000));
    let mut many = b"*1100000\r\n$6\r\nEXISTS\r\n".to_vec();
    many.extend(b"$1\r\nk\r\n".repeat(1_099_999));
    vec![
        cmd(&["SET", "k", "v"]),
        raw(&del, 1),
        cmd(&["SET", "k", "v"]),
        raw(&many, 1),
        raw(b"*2\r\n$4\r\nECHO\r\n$100000\r\n", 0),
        raw(&[b'x'; 60_000], 0),
        raw(&[vec![b'y'; 40_000], b"\r\n".to_vec()].concat(), 1),
    ]
}
