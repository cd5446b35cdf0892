//! MULTI / EXEC / DISCARD / WATCH / UNWATCH, each reply as redis-server 7.0.15 gives it for
//! the same requests (see also tests/redis_conformance/cases_multi.rs).

use super::test_support::*;
use super::{Config, Server};
use crate::redis::clock::ExpiryClock;
use crate::redis::conn::Conn;
use crate::redis::role::Role;
use crate::redis::watched::Watched;

/// `list`'s reply bytes on another connection `conn` of the same server.
fn on(c: &mut Client, conn: &mut Conn, now: crate::redis::clock::Now, list: &[&[u8]]) -> String {
    let reply = c.server.handle(conn, &args(list), now).reply;
    text(&reply.as_ref().map(bytes).unwrap_or_default())
}

fn run(c: &mut Client, list: &[&[u8]]) -> String {
    text(&c.run(at(0), list))
}

#[test]
fn commands_are_queued_and_exec_answers_each_runtime_errors_included() {
    let mut c = Client::master();
    assert_eq!(run(&mut c, &[b"MULTI"]), "+OK\r\n");
    assert_eq!(run(&mut c, &[b"SET", b"a", b"1"]), "+QUEUED\r\n");
    assert_eq!(run(&mut c, &[b"GET", b"a"]), "+QUEUED\r\n");
    assert_eq!(
        run(&mut c, &[b"SET", b"b", b"1", b"EX", b"x"]),
        "+QUEUED\r\n"
    );
    assert_eq!(run(&mut c, &[b"PING"]), "+QUEUED\r\n");
    // Nothing ran yet.
    assert_eq!(
        on(&mut c, &mut Conn::new(9), at(0), &[b"GET", b"a"]),
        "$-1\r\n"
    );
    assert_eq!(
        run(&mut c, &[b"EXEC"]),
        "*4\r\n+OK\r\n$1\r\n1\r\n-ERR value is not an integer or out of range\r\n+PONG\r\n"
    );
    // Out of the transaction: no rollback, and commands run at once again.
    assert_eq!(run(&mut c, &[b"GET", b"a"]), "$1\r\n1\r\n");
    assert_eq!(run(&mut c, &[b"MULTI"]), "+OK\r\n");
    assert_eq!(run(&mut c, &[b"EXEC"]), "*0\r\n");
}

#[test]
fn exec_propagates_the_effects_once_wrapped_when_several() {
    let mut c = Client::master();
    c.run(at(0), &[b"MULTI"]);
    c.run(at(0), &[b"SET", b"a", b"1"]);
    c.run(at(0), &[b"GET", b"a"]);
    assert_eq!(
        c.propagated(at(0), &[b"EXEC"]),
        [args(&[b"SET", b"a", b"1"])]
    );
    c.run(at(0), &[b"MULTI"]);
    c.run(at(0), &[b"DEL", b"a"]);
    c.run(at(0), &[b"DEL", b"nothing"]);
    c.run(at(0), &[b"SET", b"b", b"2"]);
    assert_eq!(
        c.propagated(at(0), &[b"EXEC"]),
        [
            args(&[b"MULTI"]),
            args(&[b"DEL", b"a"]),
            args(&[b"SET", b"b", b"2"]),
            args(&[b"EXEC"]),
        ]
    );
}

#[test]
fn a_command_refused_while_queuing_dooms_the_transaction() {
    for refused in [
        &[&b"nosuch"[..], b"x"][..],
        &[b"SET", b"k"],
        &[b"CLIENT", b"nosuch"],
    ] {
        let mut c = Client::master();
        run(&mut c, &[b"MULTI"]);
        run(&mut c, &[b"SET", b"k", b"v"]);
        assert!(run(&mut c, refused).starts_with("-ERR "), "{refused:?}");
        assert_eq!(run(&mut c, &[b"SET", b"j", b"v"]), "+QUEUED\r\n");
        assert_eq!(
            run(&mut c, &[b"EXEC"]),
            "-EXECABORT Transaction discarded because of previous errors.\r\n"
        );
        assert_eq!(run(&mut c, &[b"GET", b"k"]), "$-1\r\n", "nothing ran");
        assert_eq!(run(&mut c, &[b"EXEC"]), "-ERR EXEC without MULTI\r\n");
    }
}

#[test]
fn misuse_is_answered_without_dooming_the_transaction() {
    let mut c = Client::master();
    assert_eq!(run(&mut c, &[b"EXEC"]), "-ERR EXEC without MULTI\r\n");
    assert_eq!(run(&mut c, &[b"DISCARD"]), "-ERR DISCARD without MULTI\r\n");
    run(&mut c, &[b"MULTI"]);
    assert_eq!(
        run(&mut c, &[b"MULTI"]),
        "-ERR MULTI calls can not be nested\r\n"
    );
    assert_eq!(
        run(&mut c, &[b"WATCH", b"k"]),
        "-ERR WATCH inside MULTI is not allowed\r\n"
    );
    assert_eq!(run(&mut c, &[b"UNWATCH"]), "+QUEUED\r\n");
    assert_eq!(run(&mut c, &[b"EXEC"]), "*1\r\n+OK\r\n");
}

#[test]
fn exec_with_arguments_aborts_inside_a_transaction_and_outside() {
    let abort = "-EXECABORT Transaction discarded because of: \
                 wrong number of arguments for 'exec' command\r\n";
    let mut c = Client::master();
    assert_eq!(run(&mut c, &[b"EXEC", b"x"]), abort);
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"v"]);
    assert_eq!(run(&mut c, &[b"EXEC", b"x"]), abort);
    assert_eq!(run(&mut c, &[b"DISCARD"]), "-ERR DISCARD without MULTI\r\n");
    assert_eq!(run(&mut c, &[b"GET", b"k"]), "$-1\r\n");
    // MULTI's own arity error dooms the transaction it is in.
    run(&mut c, &[b"MULTI"]);
    assert!(run(&mut c, &[b"MULTI", b"x"]).starts_with("-ERR wrong number"));
    assert!(run(&mut c, &[b"EXEC"]).starts_with("-EXECABORT"));
}

#[test]
fn discard_drops_the_queue_and_the_watches() {
    let mut c = Client::master();
    let mut other = c.server.connect();
    run(&mut c, &[b"WATCH", b"k"]);
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"mine"]);
    assert_eq!(run(&mut c, &[b"DISCARD"]), "+OK\r\n");
    assert_eq!(run(&mut c, &[b"GET", b"k"]), "$-1\r\n");
    on(&mut c, &mut other, at(0), &[b"SET", b"k", b"theirs"]);
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"GET", b"k"]);
    assert_eq!(run(&mut c, &[b"EXEC"]), "*1\r\n$6\r\ntheirs\r\n");
}

#[test]
fn another_connections_write_to_a_watched_key_aborts_exec() {
    let mut c = Client::master();
    let mut other = c.server.connect();
    run(&mut c, &[b"SET", b"k", b"1"]);
    assert_eq!(run(&mut c, &[b"WATCH", b"k", b"j"]), "+OK\r\n");
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"2"]);
    // A read, and a write of another key, change nothing.
    on(&mut c, &mut other, at(0), &[b"GET", b"k"]);
    on(&mut c, &mut other, at(0), &[b"SET", b"x", b"1"]);
    on(&mut c, &mut other, at(0), &[b"DEL", b"missing", b"x"]);
    on(&mut c, &mut other, at(0), &[b"SET", b"j", b"1"]);
    let exec = c.outcome(at(0), &[b"EXEC"]);
    assert_eq!(exec.reply.as_ref().map(bytes), Some(b"*-1\r\n".to_vec()));
    assert!(exec.propagate.is_empty());
    assert_eq!(run(&mut c, &[b"GET", b"k"]), "$1\r\n1\r\n");
    // EXEC forgot the watches: the next transaction runs.
    on(&mut c, &mut other, at(0), &[b"SET", b"j", b"2"]);
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"3"]);
    assert_eq!(run(&mut c, &[b"EXEC"]), "*1\r\n+OK\r\n");
}

#[test]
fn any_change_aborts_a_delete_a_ttl_or_the_watchers_own_write_but_unwatch_forgets() {
    let changes: [&[&[u8]]; 4] = [
        &[b"DEL", b"k"],
        &[b"PEXPIRE", b"k", b"5000"],
        &[b"SET", b"k", b"1"],
        &[
            b"EVAL",
            b"return redis.call('set', KEYS[1], 'x')",
            b"1",
            b"k",
        ],
    ];
    for change in changes {
        let mut c = Client::master();
        run(&mut c, &[b"SET", b"k", b"1"]);
        run(&mut c, &[b"WATCH", b"k"]);
        run(&mut c, change);
        run(&mut c, &[b"MULTI"]);
        assert_eq!(run(&mut c, &[b"EXEC"]), "*-1\r\n", "{change:?}");
    }
    let mut c = Client::master();
    run(&mut c, &[b"WATCH", b"k"]);
    run(&mut c, &[b"SET", b"k", b"1"]);
    assert_eq!(run(&mut c, &[b"UNWATCH"]), "+OK\r\n");
    run(&mut c, &[b"MULTI"]);
    assert_eq!(run(&mut c, &[b"EXEC"]), "*0\r\n");
}

#[test]
fn a_watched_key_that_expires_before_exec_aborts_it_read_or_not() {
    for read in [false, true] {
        let mut c = Client::master();
        let mut other = c.server.connect();
        c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"100"]);
        c.run(at(0), &[b"WATCH", b"k"]);
        c.run(at(0), &[b"MULTI"]);
        if read {
            // Deleting it on access is a change too.
            on(&mut c, &mut other, at(200), &[b"GET", b"k"]);
        }
        assert_eq!(text(&c.run(at(200), &[b"EXEC"])), "*-1\r\n", "read: {read}");
    }
    // Deleted by the active expiry.
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"100"]);
    c.run(at(0), &[b"WATCH", b"k"]);
    assert_eq!(c.server.active_expire(at(200)).len(), 1);
    c.run(at(200), &[b"MULTI"]);
    assert_eq!(text(&c.run(at(200), &[b"EXEC"])), "*-1\r\n");
}

#[test]
fn a_key_already_expired_when_watched_does_not_abort_when_it_goes() {
    let mut c = Client::master();
    let mut other = c.server.connect();
    c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"100"]);
    c.run(at(200), &[b"WATCH", b"k"]);
    on(&mut c, &mut other, at(300), &[b"GET", b"k"]);
    c.run(at(300), &[b"MULTI"]);
    assert_eq!(text(&c.run(at(300), &[b"EXEC"])), "*0\r\n");
    // Once deleted, the watch is on a missing key: writing it is a change.
    c.run(at(300), &[b"SET", b"k", b"v", b"PX", b"100"]);
    c.run(at(400), &[b"WATCH", b"k"]);
    on(&mut c, &mut other, at(400), &[b"GET", b"k"]);
    on(&mut c, &mut other, at(400), &[b"SET", b"k", b"new"]);
    c.run(at(400), &[b"MULTI"]);
    assert_eq!(text(&c.run(at(400), &[b"EXEC"])), "*-1\r\n");
}

#[test]
fn a_flush_aborts_the_watchers_of_keys_it_deleted_only() {
    let mut c = Client::master();
    let mut other = c.server.connect();
    run(&mut c, &[b"SET", b"k", b"v"]);
    run(&mut c, &[b"WATCH", b"k"]);
    on(&mut c, &mut other, at(0), &[b"WATCH", b"missing"]);
    // A full resync (and FLUSHDB) empties the keyspace.
    c.server.load(Vec::new(), at(0));
    run(&mut c, &[b"MULTI"]);
    assert_eq!(run(&mut c, &[b"EXEC"]), "*-1\r\n");
    on(&mut c, &mut other, at(0), &[b"MULTI"]);
    assert_eq!(on(&mut c, &mut other, at(0), &[b"EXEC"]), "*0\r\n");
}

#[test]
fn scripts_run_inside_exec_and_their_effects_join_the_transaction() {
    let mut c = Client::master();
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"1"]);
    let script: &[&[u8]] = &[
        b"EVAL",
        b"redis.call('set', KEYS[1], 'x') return redis.call('get', KEYS[1])",
        b"1",
        b"j",
    ];
    assert_eq!(run(&mut c, script), "+QUEUED\r\n");
    let exec = c.outcome(at(0), &[b"EXEC"]);
    assert_eq!(
        exec.reply.as_ref().map(bytes),
        Some(b"*2\r\n+OK\r\n$1\r\nx\r\n".to_vec())
    );
    assert_eq!(
        exec.propagate,
        [
            args(&[b"MULTI"]),
            args(&[b"SET", b"k", b"1"]),
            args(&[b"set", b"j", b"x"]),
            args(&[b"EXEC"]),
        ]
    );
}

#[test]
fn on_a_replica_a_queued_write_is_refused_and_dooms_the_transaction() {
    let mut c = Client::new(Role::Replica, ExpiryClock::Wall);
    run(&mut c, &[b"MULTI"]);
    assert_eq!(run(&mut c, &[b"GET", b"k"]), "+QUEUED\r\n");
    assert_eq!(
        run(&mut c, &[b"SET", b"k", b"v"]),
        "-READONLY You can't write against a read only replica.\r\n"
    );
    assert!(
        run(&mut c, &[b"EXEC"]).starts_with("-EXECABORT Transaction discarded because of previous")
    );
    // Demoted after queuing: EXEC itself is refused as a write.
    let mut c = Client::master();
    run(&mut c, &[b"MULTI"]);
    run(&mut c, &[b"SET", b"k", b"v"]);
    c.server.set_role(Role::Replica);
    assert_eq!(
        run(&mut c, &[b"EXEC"]),
        "-EXECABORT Transaction discarded because of: \
         READONLY You can't write against a read only replica.\r\n"
    );
}

#[test]
fn a_pipelined_transaction_is_answered_in_one_read_and_a_gone_connection_forgets() {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    let out = server.handle_input(
        &mut conn,
        b"WATCH k\r\nMULTI\r\nSET k 1\r\nGET k\r\nEXEC\r\nWATCH k j\r\n",
        at(0),
    );
    assert_eq!(
        text(&out.bytes),
        "+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n$1\r\n1\r\n+OK\r\n"
    );
    assert_eq!(out.propagate, [args(&[b"SET", b"k", b"1"])]);
    assert_ne!(server.dbs[0].watched(), &Watched::default());
    server.disconnect(&mut conn);
    assert_eq!(server.dbs[0].watched(), &Watched::default());
}
