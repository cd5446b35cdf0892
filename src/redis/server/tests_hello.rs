//! HELLO through the server: bytes as redis-server 7.0.15 sends them (the conformance suite
//! compares the rest).

use super::{Config, Server};
use crate::redis::clock::Now;
use crate::redis::conn::Conn;
use crate::redis::resp::Protocol;
use crate::redis::role::Role;

const NOW: Now = Now {
    wall_ms: 1_700_000_000_000,
    mono_ms: 0,
};

fn hello_map(kind: &str, proto: u8, id: u64, role: &str) -> Vec<u8> {
    format!(
        "{kind}\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n\
         $5\r\nproto\r\n:{proto}\r\n$2\r\nid\r\n:{id}\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n\
         $4\r\nrole\r\n${}\r\n{role}\r\n$7\r\nmodules\r\n*0\r\n",
        role.len()
    )
    .into_bytes()
}

fn send(server: &mut Server, conn: &mut Conn, input: &str) -> Vec<u8> {
    server.handle_input(conn, input.as_bytes(), NOW).bytes
}

#[test]
fn hello_switches_the_protocol_and_answers_in_the_new_one() {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    assert_eq!(
        send(&mut server, &mut conn, "HELLO\r\n"),
        hello_map("*14", 2, 2, "master")
    );
    assert_eq!(conn.protocol(), Protocol::Resp2);
    assert_eq!(send(&mut server, &mut conn, "GET k\r\n"), b"$-1\r\n");
    assert_eq!(
        send(&mut server, &mut conn, "HELLO 3\r\n"),
        hello_map("%7", 3, 2, "master")
    );
    assert_eq!(conn.protocol(), Protocol::Resp3);
    assert_eq!(
        send(
            &mut server,
            &mut conn,
            "GET k\r\nCLIENT GETNAME\r\nCOMMAND DOCS x\r\n"
        ),
        b"_\r\n_\r\n%0\r\n"
    );
    assert_eq!(
        send(&mut server, &mut conn, "HELLO\r\n"),
        hello_map("%7", 3, 2, "master")
    );
    assert_eq!(
        send(&mut server, &mut conn, "HELLO 2\r\n"),
        hello_map("*14", 2, 2, "master")
    );
    // Another connection still speaks RESP2.
    let mut other = server.connect();
    assert_eq!(send(&mut server, &mut other, "GET k\r\n"), b"$-1\r\n");
}

#[test]
fn a_replica_says_so() {
    let mut server = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut conn = server.connect();
    assert_eq!(
        send(&mut server, &mut conn, "HELLO 3\r\n"),
        hello_map("%7", 3, 2, "replica")
    );
}

#[test]
fn errors_leave_the_protocol_and_options_act_in_order() {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    for (request, reply) in [
        ("HELLO 4", "-NOPROTO unsupported protocol version"),
        ("HELLO 1", "-NOPROTO unsupported protocol version"),
        (
            "HELLO 3.0",
            "-ERR Protocol version is not an integer or out of range",
        ),
        (
            "HELLO AUTH default x",
            "-ERR Protocol version is not an integer or out of range",
        ),
        ("HELLO 3 AUTH", "-ERR Syntax error in HELLO option 'AUTH'"),
        (
            "HELLO 3 AUTH default",
            "-ERR Syntax error in HELLO option 'AUTH'",
        ),
        (
            "HELLO 3 SETNAME",
            "-ERR Syntax error in HELLO option 'SETNAME'",
        ),
        (
            "HELLO 3 AUTH DEFAULT x",
            "-WRONGPASS invalid username-password pair or user is disabled.",
        ),
        (
            "HELLO 3 SETNAME \"a b\"",
            "-ERR Client names cannot contain spaces, newlines or special characters.",
        ),
        // The name is set before the unknown option is met.
        (
            "HELLO 3 SETNAME early FOO",
            "-ERR Syntax error in HELLO option 'FOO'",
        ),
        ("CLIENT GETNAME", "$5\r\nearly"),
    ] {
        let got = send(&mut server, &mut conn, &format!("{request}\r\n"));
        assert_eq!(
            String::from_utf8_lossy(&got),
            format!("{reply}\r\n"),
            "{request}"
        );
        assert_eq!(conn.protocol(), Protocol::Resp2, "{request}");
    }
    let ok = send(
        &mut server,
        &mut conn,
        "HELLO 3 AUTH default anything SETNAME a SETNAME b\r\nCLIENT GETNAME\r\n",
    );
    assert_eq!(
        ok,
        [hello_map("%7", 3, 2, "master"), b"$1\r\nb\r\n".to_vec()].concat()
    );
}
