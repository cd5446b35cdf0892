//! What is propagated (each sequence as redis-server 7.0.15 wrote it to its AOF for the same
//! commands, with its own clock in the deadlines), replication, snapshots, the scripting
//! seam, roles and connection ends.

use super::test_support::*;
use super::{Close, Config, Entry, Server, transaction};
use crate::redis::clock::ExpiryClock;
use crate::redis::command::{self, Lookup};
use crate::redis::resp::Args;
use crate::redis::resp::Frame;
use crate::redis::role::Role;
use crate::redis::value::Value;

fn deadline(ms: i64) -> Vec<u8> {
    (WALL0 + ms).to_string().into_bytes()
}

fn wrapped(ops: &[&[&[u8]]]) -> Vec<Args> {
    transaction(ops.iter().map(|op| args(op)).collect())
}

#[test]
fn writes_propagate_as_redis_writes_them() {
    let mut c = Client::master();
    let cases: Vec<(&[&[u8]], Vec<Args>)> = vec![
        (
            &[b"SET", b"a", b"1", b"PX", b"100000"],
            vec![args(&[b"SET", b"a", b"1", b"PXAT", &deadline(100_000)])],
        ),
        (
            &[b"SET", b"b", b"1", b"EX", b"100", b"GET"],
            vec![args(&[b"SET", b"b", b"1", b"PXAT", &deadline(100_000)])],
        ),
        (
            &[b"SET", b"c", b"1", b"GET"],
            vec![args(&[b"SET", b"c", b"1"])],
        ),
        (
            &[b"SET", b"c", b"2", b"get", b"KEEPTTL", b"Get"],
            vec![args(&[b"SET", b"c", b"2", b"KEEPTTL"])],
        ),
        (&[b"set", b"c", b"3", b"nx"], vec![]),
        (
            &[b"set", b"l", b"1", b"nx"],
            vec![args(&[b"set", b"l", b"1", b"nx"])],
        ),
        (&[b"SET", b"n", b"1", b"XX", b"PX", b"100000"], vec![]),
        (
            &[b"SET", b"l", b"2", b"XX", b"PX", b"100000"],
            vec![args(&[b"SET", b"l", b"2", b"PXAT", &deadline(100_000)])],
        ),
        (
            &[b"SET", b"z", b"1", b"EXAT", b"99999999999"],
            vec![args(&[b"SET", b"z", b"1", b"PXAT", b"99999999999000"])],
        ),
        (
            &[b"SET", b"x", b"1", b"PXAT", b"99999999999999", b"GET"],
            vec![args(&[b"SET", b"x", b"1", b"PXAT", b"99999999999999"])],
        ),
        (
            &[b"EXPIRE", b"a", b"200", b"GT"],
            vec![args(&[b"PEXPIREAT", b"a", &deadline(200_000), b"GT"])],
        ),
        (&[b"expire", b"a", b"100", b"GT"], vec![]),
        (&[b"PEXPIRE", b"c", b"-5"], vec![args(&[b"DEL", b"c"])]),
        (&[b"EXPIREAT", b"a", b"1"], vec![args(&[b"DEL", b"a"])]),
        (
            &[b"EXPIREAT", b"b", b"99999999999"],
            vec![args(&[b"PEXPIREAT", b"b", b"99999999999000"])],
        ),
        (
            &[b"pexpireat", b"b", b"99999999999999"],
            vec![args(&[b"pexpireat", b"b", b"99999999999999"])],
        ),
        (&[b"DEL", b"zz"], vec![]),
        (&[b"DEL", b"b", b"zz"], vec![args(&[b"DEL", b"b", b"zz"])]),
        (&[b"GET", b"x"], vec![]),
        (&[b"PING"], vec![]),
    ];
    for (request, expected) in cases {
        assert_eq!(
            c.propagated(at(0), request),
            expected,
            "{}",
            text(&request.concat())
        );
    }
}

#[test]
fn keys_found_expired_go_first_and_several_commands_go_as_a_transaction() {
    let mut c = Client::master();
    for key in [&b"e"[..], b"f", b"i", b"j", b"k", b"l", b"m"] {
        c.run(at(0), &[b"SET", key, b"1", b"PX", b"50"]);
    }
    let later = at(51);
    let cases: Vec<(&[&[u8]], Vec<Args>)> = vec![
        (
            &[b"SET", b"e", b"2"],
            wrapped(&[&[b"DEL", b"e"], &[b"SET", b"e", b"2"]]),
        ),
        (&[b"DEL", b"f", b"zz"], vec![args(&[b"DEL", b"f"])]),
        (
            &[b"SET", b"i", b"2", b"GET"],
            wrapped(&[&[b"DEL", b"i"], &[b"SET", b"i", b"2"]]),
        ),
        (&[b"EXPIRE", b"j", b"100"], vec![args(&[b"DEL", b"j"])]),
        (&[b"PEXPIRE", b"k", b"-1"], vec![args(&[b"DEL", b"k"])]),
        (
            &[b"SET", b"l", b"1", b"NX"],
            wrapped(&[&[b"DEL", b"l"], &[b"SET", b"l", b"1", b"NX"]]),
        ),
        (&[b"SET", b"m", b"1", b"XX"], vec![args(&[b"DEL", b"m"])]),
    ];
    for (request, expected) in cases {
        assert_eq!(
            c.propagated(later, request),
            expected,
            "{}",
            text(&request.concat())
        );
    }
    assert_eq!(
        wrapped(&[&[b"DEL", b"e"], &[b"SET", b"e", b"2"]]),
        vec![
            args(&[b"MULTI"]),
            args(&[b"DEL", b"e"]),
            args(&[b"SET", b"e", b"2"]),
            args(&[b"EXEC"])
        ]
    );
}

#[test]
fn a_replica_fed_the_masters_stream_holds_the_same_keys() {
    let mut m = Client::master();
    let mut replica = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut link = replica.connect();
    let script: &[(u64, &[&[u8]])] = &[
        (0, &[b"SET", b"a", b"1", b"PX", b"100"]),
        (0, &[b"SET", b"b", b"1"]),
        (0, &[b"SET", b"c", b"1", b"EX", b"60"]),
        (10, &[b"PEXPIRE", b"b", b"500", b"NX"]),
        (10, &[b"SET", b"b", b"2", b"KEEPTTL", b"GET"]),
        (200, &[b"SET", b"a", b"2", b"NX"]),
        (200, &[b"DEL", b"c"]),
        (300, &[b"SET", b"d", b"1", b"PXAT", b"1"]),
    ];
    for (ms, request) in script {
        for op in c_propagated(&mut m, *ms, request) {
            replica.replicate(&mut link, &op, at(*ms));
        }
    }
    // The master never read d, so it never deleted it: the replica holds it too, past its
    // deadline, and reads it as missing.
    assert_eq!(replica.dump(at(300)), m.server.dump(at(300)));
    assert_eq!(
        m.server
            .dump(at(300))
            .iter()
            .map(|e| e.key.as_slice())
            .collect::<Vec<_>>(),
        vec![&b"a"[..], b"b", b"d"]
    );
    let mut client = replica.connect();
    let get_d = replica.handle(&mut client, &args(&[b"GET", b"d"]), at(300));
    assert_eq!(get_d.reply, Some(Frame::Null));
}

fn c_propagated(c: &mut Client, ms: u64, request: &[&[u8]]) -> Vec<Args> {
    c.propagated(at(ms), request)
}

#[test]
fn replication_applies_a_transaction_at_exec_and_drops_an_unfinished_one() {
    let mut replica = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut link = replica.connect();
    for op in wrapped(&[&[b"SET", b"a", b"1"], &[b"SET", b"b", b"1"]]) {
        assert!(replica.dump(at(0)).is_empty());
        replica.replicate(&mut link, &op, at(0));
    }
    assert_eq!(replica.dump(at(0)).len(), 2);
    replica.replicate(&mut link, &args(&[b"MULTI"]), at(0));
    replica.replicate(&mut link, &args(&[b"DEL", b"a"]), at(0));
    // The link breaks before EXEC: a new link starts clean.
    let mut link = replica.connect();
    replica.replicate(&mut link, &args(&[b"EXEC"]), at(0));
    assert_eq!(replica.dump(at(0)).len(), 2);
    // What a master would never send is ignored: unknown commands, wrong arities.
    for junk in [
        &[&b"NOPE"[..]][..],
        &[b"SET", b"x"],
        &[],
        &[b"PING"],
        &[b"SELECT", b"0"],
    ] {
        replica.replicate(&mut link, &args(junk), at(0));
    }
    assert_eq!(replica.dump(at(0)).len(), 2);
}

#[test]
fn a_replica_refuses_client_writes() {
    let mut r = Client::new(Role::Replica, ExpiryClock::Wall);
    let readonly = b"-READONLY You can't write against a read only replica.\r\n";
    for write in [
        &[&b"SET"[..], b"k", b"v"][..],
        &[b"DEL", b"k"],
        &[b"EXPIRE", b"k", b"1"],
        &[b"PEXPIRE", b"k", b"1"],
        &[b"EXPIREAT", b"k", b"1"],
        &[b"PEXPIREAT", b"k", b"1"],
    ] {
        assert_eq!(r.run(at(0), write), readonly, "{}", text(write[0]));
    }
    // Checked after the arity, as processCommand does (verified on a real replica).
    assert_eq!(
        r.run(at(0), &[b"set"]),
        b"-ERR wrong number of arguments for 'set' command\r\n"
    );
    assert_eq!(r.run(at(0), &[b"GET", b"k"]), b"$-1\r\n");
}

#[test]
fn snapshots_keep_unix_deadlines_and_a_restarted_master_drops_past_ones() {
    for clock in [ExpiryClock::Wall, ExpiryClock::Monotonic] {
        let mut c = Client::new(Role::Master, clock);
        c.run(at(0), &[b"SET", b"a", b"1", b"PX", b"100"]);
        c.run(at(0), &[b"SET", b"b", b"2", b"PX", b"200"]);
        c.run(at(0), &[b"SET", b"c", b"3"]);
        let snapshot = c.server.dump(at(50));
        assert_eq!(
            snapshot,
            vec![
                Entry {
                    db: 0,
                    key: b"a".to_vec(),
                    value: Value::String(b"1".to_vec()),
                    expires_at_ms: Some(WALL0 + 100)
                },
                Entry {
                    db: 0,
                    key: b"b".to_vec(),
                    value: Value::String(b"2".to_vec()),
                    expires_at_ms: Some(WALL0 + 200)
                },
                Entry {
                    db: 0,
                    key: b"c".to_vec(),
                    value: Value::String(b"3".to_vec()),
                    expires_at_ms: None
                },
            ]
        );
        // Restarted 150 ms later (its monotonic clock started again from 0).
        let mut restarted = Server::new(Config {
            expiry_clock: clock,
            ..Config::default()
        });
        let now = crate::redis::clock::Now {
            wall_ms: WALL0 + 150,
            mono_ms: 0,
        };
        restarted.load(snapshot.clone(), now);
        let keys: Vec<Vec<u8>> = restarted.dump(now).into_iter().map(|e| e.key).collect();
        assert_eq!(keys, vec![b"b".to_vec(), b"c".to_vec()]);
        let mut conn = restarted.connect();
        assert_eq!(
            restarted.handle_input(&mut conn, b"PTTL b\r\n", now).bytes,
            b":50\r\n"
        );
        // A replica keeps even the past ones, waiting for its master's DEL.
        let mut replica = Server::new(Config {
            role: Role::Replica,
            expiry_clock: clock,
            ..Config::default()
        });
        replica.load(snapshot, now);
        assert_eq!(replica.dump(now).len(), 3);
    }
    // Loading replaces what was there; the deadline is strictly compared.
    let mut s = Server::new(Config::default());
    let mut conn = s.connect();
    s.handle_input(&mut conn, b"SET old v\r\n", at(0));
    let due_now = Entry {
        db: 0,
        key: b"n".to_vec(),
        value: Value::String(b"v".to_vec()),
        expires_at_ms: Some(WALL0),
    };
    s.load(vec![due_now], at(0));
    assert_eq!(s.dump(at(0)).len(), 1);
    assert_eq!(s.dump(at(0))[0].key, b"n");
}

fn spec(list: &[&[u8]]) -> &'static command::CommandSpec {
    match command::lookup(&args(list)) {
        Lookup::Found(spec) => spec,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_scripting_seam_runs_commands_at_a_frozen_time_and_collects_their_effects() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"lock", b"me", b"PX", b"100"]);
    c.run(at(0), &[b"SET", b"gone", b"x", b"PX", b"10"]);
    // A compare-and-extend script started at 100 ms: the lock is still there (now is not
    // past its deadline), the other key is found expired.
    let now = at(100);
    let mut ops = Vec::new();
    let get = [&b"GET"[..], b"lock"];
    assert_eq!(
        c.server.call(spec(&get), &args(&get), now, &mut ops),
        Frame::Bulk(b"me".to_vec())
    );
    let extend = [&b"PEXPIRE"[..], b"lock", b"1000"];
    assert_eq!(
        c.server.call(spec(&extend), &args(&extend), now, &mut ops),
        Frame::Integer(1)
    );
    let other = [&b"EXISTS"[..], b"gone"];
    assert_eq!(
        c.server.call(spec(&other), &args(&other), now, &mut ops),
        Frame::Integer(0)
    );
    assert_eq!(
        transaction(ops),
        wrapped(&[
            &[b"PEXPIREAT", b"lock", &deadline(1_100)],
            &[b"DEL", b"gone"]
        ])
    );
    // The table tells a script what it may not call, and what writes.
    assert!(spec(&[b"QUIT"]).flags.contains(command::Flags::NOSCRIPT));
    assert!(spec(&extend).flags.contains(command::Flags::WRITE));
    assert!(!spec(&extend).arity_ok(2));
    // Scripts run as a client of their own: a name set there is not the caller's.
    let setname = [&b"CLIENT"[..], b"SETNAME", b"lua"];
    c.server
        .call(spec(&setname), &args(&setname), now, &mut Vec::new());
    assert_eq!(c.conn.name(), None);
    let getname = [&b"CLIENT"[..], b"GETNAME"];
    assert_eq!(
        c.server
            .call(spec(&getname), &args(&getname), now, &mut Vec::new()),
        Frame::Bulk(b"lua".to_vec())
    );
}

#[test]
fn connection_ends() {
    let mut c = Client::master();
    let quit = c.outcome(at(0), &[b"QUIT"]);
    assert_eq!(quit.reply, Some(Frame::Simple(b"OK".to_vec())));
    assert_eq!(quit.close, Some(Close::AfterReply));
    for http in [&b"POST"[..], b"post", b"Host:", b"host:\0x"] {
        let outcome = c.outcome(at(0), &[http, b"/"]);
        assert_eq!(
            (outcome.reply, outcome.close),
            (None, Some(Close::Now)),
            "{}",
            text(http)
        );
    }
    let empty = c.outcome(at(0), &[]);
    assert_eq!((empty.reply, empty.close), (None, None));
    assert_eq!(
        c.run(at(0), &[b"HOST"]),
        b"-ERR unknown command 'HOST', with args beginning with: \r\n"
    );
}
