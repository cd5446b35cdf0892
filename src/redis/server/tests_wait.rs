//! WAIT: the replication offset, a replica's acknowledgements and the blocked client they
//! answer, its timeout, and the forms that answer at once.

use super::test_support::*;
use super::{Config, Server};
use crate::redis::role::Role;

#[test]
fn wait_blocks_until_the_replica_acknowledges_the_connection_s_last_write() {
    let mut c = Client::master();
    c.server.replica_acked(Some(0));
    // Nothing written yet: the replica has everything this connection wrote.
    assert_eq!(c.run(at(0), &[b"WAIT", b"1", b"0"]), b":1\r\n");
    c.run(at(0), &[b"SET", b"k", b"v"]);
    assert_eq!(c.server.repl_offset(), 1);
    assert!(c.outcome(at(0), &[b"WAIT", b"1", b"0"]).reply.is_none());
    assert!(c.server.is_blocked(c.conn.id()));
    c.server.replica_acked(Some(1));
    let answers = c.server.take_deliveries();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].bytes, b":1\r\n");
    assert!(answers[0].unblocks);
    assert!(!c.server.is_blocked(c.conn.id()));
}

#[test]
fn wait_times_out_with_the_count_so_far_and_answers_at_once_in_multi() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"k", b"v"]);
    assert!(c.outcome(at(0), &[b"WAIT", b"1", b"100"]).reply.is_none());
    c.server.expire_blocked(at(100));
    assert!(
        c.server.take_deliveries().is_empty(),
        "not before its deadline"
    );
    c.server.expire_blocked(at(101));
    assert_eq!(c.server.take_deliveries()[0].bytes, b":0\r\n");
    c.run(at(200), &[b"MULTI"]);
    c.run(at(200), &[b"WAIT", b"1", b"0"]);
    assert_eq!(c.run(at(200), &[b"EXEC"]), b"*1\r\n:0\r\n");
    assert_eq!(c.run(at(200), &[b"WAIT", b"0", b"0"]), b":0\r\n");
}

#[test]
fn wait_refuses_bad_arguments_and_replicas() {
    let mut c = Client::master();
    for (cmd, reply) in [
        (
            &[&b"WAIT"[..], b"x", b"0"][..],
            &b"-ERR value is not an integer or out of range\r\n"[..],
        ),
        (
            &[b"WAIT", b"0", b"x"],
            b"-ERR timeout is not an integer or out of range\r\n",
        ),
        (&[b"WAIT", b"0", b"-1"], b"-ERR timeout is negative\r\n"),
        (
            &[b"WAIT", b"0"],
            b"-ERR wrong number of arguments for 'wait' command\r\n",
        ),
    ] {
        assert_eq!(c.run(at(0), cmd), reply, "{cmd:?}");
    }
    let mut replica = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut conn = replica.connect();
    let reply = replica.handle(&mut conn, &args(&[b"WAIT", b"0", b"0"]), at(0));
    let text = text(&bytes(
        &reply.reply.unwrap_or(crate::redis::resp::Frame::Null),
    ));
    assert!(
        text.starts_with("-ERR WAIT cannot be used with replica instances."),
        "{text}"
    );
}
