//! Blocking pops across connections through `handle_input`, as a driver calls it; the
//! bytes checked against redis-server 7.0.15.

use super::test_support::{args, at};
use super::{Config, Server};
use crate::redis::clients::Delivery;
use crate::redis::conn::Conn;

fn send(server: &mut Server, conn: &mut Conn, input: &[u8]) -> Vec<u8> {
    server.handle_input(conn, input, at(0)).bytes
}

fn answer(client: &Conn, bytes: &[u8]) -> Delivery {
    Delivery {
        client: client.id(),
        bytes: bytes.to_vec(),
        unblocks: true,
    }
}

#[test]
fn a_pop_on_a_list_is_served_at_once_and_propagated_as_the_pop_it_did() {
    let mut s = Server::new(Config::default());
    let mut c = s.connect();
    send(&mut s, &mut c, b"RPUSH q a b\r\n");
    let out = s.handle_input(&mut c, b"BLPOP none q 0\r\nBRPOP q 0\r\n", at(0));
    assert_eq!(
        out.bytes,
        b"*2\r\n$1\r\nq\r\n$1\r\na\r\n*2\r\n$1\r\nq\r\n$1\r\nb\r\n"
    );
    assert_eq!(
        out.propagate,
        vec![args(&[b"LPOP", b"q"]), args(&[b"RPOP", b"q"])]
    );
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"SET s v\r\nBLPOP none s 0\r\nBLPOP q -1\r\nBLPOP q x\r\n"
        ),
        &b"+OK\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n\
           -ERR timeout is negative\r\n-ERR timeout is not a float or out of range\r\n"[..]
    );
    // Inside MULTI nothing blocks.
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"MULTI\r\nBLPOP q 0\r\nBLMOVE q d LEFT LEFT 0\r\nEXEC\r\n"
        ),
        b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n*-1\r\n$-1\r\n"
    );
    assert!(s.take_deliveries().is_empty());
}

#[test]
fn a_push_serves_the_blocked_in_the_order_they_blocked_and_then_their_next_requests() {
    let mut s = Server::new(Config::default());
    let (mut first, mut second, mut pusher) = (s.connect(), s.connect(), s.connect());
    assert!(send(&mut s, &mut first, b"BLPOP q 0\r\nPING\r\n").is_empty());
    assert!(send(&mut s, &mut second, b"BLMOVE q d RIGHT LEFT 0\r\n").is_empty());
    assert!(s.is_blocked(first.id()) && s.is_blocked(second.id()));
    // More requests from a blocked client wait.
    assert!(send(&mut s, &mut first, b"PING\r\n").is_empty());
    let out = s.handle_input(&mut pusher, b"RPUSH q a b c\r\n", at(0));
    assert_eq!(out.bytes, b":3\r\n");
    assert_eq!(
        out.propagate,
        vec![
            args(&[b"RPUSH", b"q", b"a", b"b", b"c"]),
            args(&[b"LPOP", b"q"]),
            args(&[b"LMOVE", b"q", b"d", b"RIGHT", b"LEFT"]),
        ]
    );
    assert_eq!(
        s.take_deliveries(),
        vec![
            answer(&first, b"*2\r\n$1\r\nq\r\n$1\r\na\r\n"),
            answer(&second, b"$1\r\nc\r\n"),
        ]
    );
    assert_eq!(send(&mut s, &mut first, b""), b"+PONG\r\n+PONG\r\n");
    assert_eq!(
        send(&mut s, &mut pusher, b"LRANGE q 0 -1\r\nLRANGE d 0 -1\r\n"),
        b"*1\r\n$1\r\nb\r\n*1\r\n$1\r\nc\r\n"
    );
}

#[test]
fn timeouts_answer_null_after_their_deadline_and_a_client_that_leaves_is_forgotten() {
    let mut s = Server::new(Config::default());
    let (mut a, mut b, mut gone, mut pusher) = (s.connect(), s.connect(), s.connect(), s.connect());
    send(&mut s, &mut a, b"BLPOP q 0.1\r\n");
    send(&mut s, &mut b, b"BLMOVE q d LEFT LEFT 0.2\r\n");
    send(&mut s, &mut gone, b"BLPOP q 0\r\n");
    assert_eq!(s.next_block_deadline(), Some(at(100).wall_ms));
    s.expire_blocked(at(100));
    assert!(s.take_deliveries().is_empty(), "due only once past");
    s.expire_blocked(at(101));
    assert_eq!(s.take_deliveries(), vec![answer(&a, b"*-1\r\n")]);
    s.expire_blocked(at(201));
    assert_eq!(s.take_deliveries(), vec![answer(&b, b"*-1\r\n")]);
    s.disconnect(&mut gone);
    assert_eq!(s.next_block_deadline(), None);
    send(&mut s, &mut pusher, b"RPUSH q x\r\n");
    assert!(s.take_deliveries().is_empty());
    assert_eq!(send(&mut s, &mut pusher, b"LLEN q\r\n"), b":1\r\n");
}
