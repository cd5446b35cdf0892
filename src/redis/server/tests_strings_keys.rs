//! The string and key commands' propagation, the databases' streams and snapshots, and
//! WATCH across them: what the replies alone (pinned by the conformance suite) do not show.

use super::test_support::*;
use super::{Config, Server, rewrite};
use crate::redis::resp::Args;
use crate::redis::role::Role;

fn ops(list: &[&[&[u8]]]) -> Vec<Args> {
    list.iter().map(|a| args(a)).collect()
}

#[test]
fn rewritten_commands_propagate_as_redis_does() {
    let mut c = Client::master();
    let pxat = (WALL0 + 10_000).to_string();
    c.run(at(0), &[b"SET", b"k", b"v"]);
    assert_eq!(
        c.propagated(at(0), &[b"GETEX", b"k", b"PX", b"10000"]),
        ops(&[&[b"PEXPIREAT", b"k", pxat.as_bytes()]])
    );
    assert_eq!(
        c.propagated(at(0), &[b"GETEX", b"k", b"PERSIST"]),
        ops(&[&[b"PERSIST", b"k"]])
    );
    // No deadline to drop: nothing changes, nothing goes out.
    assert!(
        c.propagated(at(0), &[b"GETEX", b"k", b"PERSIST"])
            .is_empty()
    );
    assert_eq!(
        c.propagated(at(0), &[b"GETEX", b"k", b"PXAT", b"1"]),
        ops(&[&[b"DEL", b"k"]])
    );
    assert_eq!(
        c.propagated(at(0), &[b"GETSET", b"k", b"w"]),
        ops(&[&[b"SET", b"k", b"w"]])
    );
    assert_eq!(
        c.propagated(at(0), &[b"GETDEL", b"k"]),
        ops(&[&[b"DEL", b"k"]])
    );
    assert!(c.propagated(at(0), &[b"GETDEL", b"k"]).is_empty());
    assert_eq!(
        c.propagated(at(0), &[b"SETEX", b"k", b"10", b"v"]),
        ops(&[&[b"SET", b"k", b"v", b"PXAT", pxat.as_bytes()]])
    );
    assert_eq!(
        c.propagated(at(0), &[b"SETNX", b"n", b"v"]),
        ops(&[&[b"SETNX", b"n", b"v"]])
    );
    assert!(c.propagated(at(0), &[b"SETNX", b"n", b"v"]).is_empty());
    assert_eq!(
        c.propagated(at(0), &[b"INCRBY", b"c", b"5"]),
        ops(&[&[b"INCRBY", b"c", b"5"]])
    );
    // FLUSHDB goes out even when there was nothing to delete.
    assert_eq!(c.propagated(at(0), &[b"FLUSHDB"]), ops(&[&[b"FLUSHDB"]]));
    assert_eq!(c.propagated(at(0), &[b"FLUSHDB"]), ops(&[&[b"FLUSHDB"]]));
}

#[test]
fn a_write_in_another_database_goes_out_after_a_select_and_a_replica_follows() {
    let mut c = Client::master();
    c.run(at(0), &[b"SELECT", b"3"]);
    // A read changes nothing, so no SELECT goes out for it.
    assert!(c.propagated(at(0), &[b"GET", b"k"]).is_empty());
    assert_eq!(
        c.propagated(at(0), &[b"SET", b"k", b"three"]),
        ops(&[&[b"SELECT", b"3"], &[b"SET", b"k", b"three"]])
    );
    assert_eq!(
        c.propagated(at(0), &[b"SET", b"k", b"again"]),
        ops(&[&[b"SET", b"k", b"again"]])
    );
    let mut other = c.server.connect();
    let back = c
        .server
        .handle(&mut other, &args(&[b"SET", b"k", b"zero"]), at(0));
    assert_eq!(
        back.propagate,
        ops(&[&[b"SELECT", b"0"], &[b"SET", b"k", b"zero"]])
    );
    let mut replica = Server::new(Config {
        role: Role::Replica,
        ..Config::default()
    });
    let mut link = replica.connect();
    for op in ops(&[
        &[b"SELECT", b"3"],
        &[b"SET", b"k", b"again"],
        &[b"SELECT", b"0"],
        &[b"SET", b"k", b"zero"],
    ]) {
        replica.replicate(&mut link, &op, at(0));
    }
    assert_eq!(c.server.dump(at(0)), replica.dump(at(0)));
    let dbs: Vec<usize> = replica.dump(at(0)).iter().map(|e| e.db).collect();
    assert_eq!(dbs, [0, 3]);
}

#[test]
fn flushall_empties_every_database_and_the_expiry_cycle_selects_its_database() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"a", b"1"]);
    c.run(at(0), &[b"SELECT", b"5"]);
    c.run(at(0), &[b"SET", b"b", b"1", b"PX", b"10"]);
    c.run(at(0), &[b"SELECT", b"0"]);
    // The stream is back in database 0.
    c.run(at(0), &[b"SET", b"a", b"2"]);
    assert_eq!(
        c.server.active_expire(at(100)),
        ops(&[&[b"SELECT", b"5"], &[b"DEL", b"b"]])
    );
    c.run(at(100), &[b"SELECT", b"5"]);
    c.run(at(100), &[b"SET", b"b", b"2"]);
    assert_eq!(c.server.dump(at(100)).len(), 2);
    assert_eq!(c.run(at(100), &[b"FLUSHALL"]), b"+OK\r\n");
    assert!(c.server.dump(at(100)).is_empty());
}

#[test]
fn watch_is_per_database_and_rename_touches_both_keys() {
    let mut c = Client::master();
    let mut writer = c.server.connect();
    c.run(at(0), &[b"SET", b"src", b"v"]);
    c.run(at(0), &[b"WATCH", b"dst"]);
    // The same name in another database is another key.
    let mut write = |c: &mut Client, list: &[&[u8]]| {
        c.server.handle(&mut writer, &args(list), at(0));
    };
    write(&mut c, &[b"SELECT", b"1"]);
    write(&mut c, &[b"SET", b"dst", b"elsewhere"]);
    c.run(at(0), &[b"MULTI"]);
    c.run(at(0), &[b"GET", b"dst"]);
    assert_eq!(c.run(at(0), &[b"EXEC"]), b"*1\r\n$-1\r\n");
    c.run(at(0), &[b"WATCH", b"dst"]);
    write(&mut c, &[b"SELECT", b"0"]);
    write(&mut c, &[b"RENAME", b"src", b"dst"]);
    c.run(at(0), &[b"MULTI"]);
    c.run(at(0), &[b"GET", b"dst"]);
    assert_eq!(c.run(at(0), &[b"EXEC"]), b"*-1\r\n");
}

#[test]
fn wrong_types_are_refused_both_ways() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"s", b"v"]);
    let mut list = crate::redis::value::List::default();
    list.push_back(b"x".to_vec());
    c.server
        .db_mut(0)
        .insert(b"l", crate::redis::value::Value::List(list), false);
    let wrong = b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    for cmd in [
        &[&b"GET"[..], b"l"][..],
        &[b"INCR", b"l"],
        &[b"APPEND", b"l", b"x"],
        &[b"GETDEL", b"l"],
        &[b"SET", b"l", b"v", b"GET"],
    ] {
        assert_eq!(c.run(at(0), cmd), wrong, "{cmd:?}");
    }
    assert_eq!(c.run(at(0), &[b"TYPE", b"l"]), b"+list\r\n");
    assert_eq!(
        c.run(at(0), &[b"MGET", b"s", b"l"]),
        b"*2\r\n$1\r\nv\r\n$-1\r\n"
    );
    // SET without GET replaces a value of any type.
    assert_eq!(c.run(at(0), &[b"SET", b"l", b"now a string"]), b"+OK\r\n");
    assert_eq!(c.run(at(0), &[b"TYPE", b"l"]), b"+string\r\n");
}

#[test]
fn an_aof_rewrite_rebuilds_every_type_and_database() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"s", b"v", b"PX", b"5000"]);
    let mut list = crate::redis::value::List::default();
    list.push_back(b"a".to_vec());
    list.push_back(b"b".to_vec());
    c.server
        .db_mut(2)
        .insert(b"l", crate::redis::value::Value::List(list), false);
    let dump = c.server.dump(at(0));
    let deadline = (WALL0 + 5000).to_string();
    assert_eq!(
        rewrite(&dump),
        ops(&[
            &[b"SET", b"s", b"v", b"PXAT", deadline.as_bytes()],
            &[b"SELECT", b"2"],
            &[b"RPUSH", b"l", b"a", b"b"],
            &[b"SELECT", b"0"],
        ])
    );
}

#[test]
fn scan_walks_every_key_once_in_batches() {
    let mut c = Client::master();
    for i in 0..25 {
        let key = format!("k{i}");
        c.run(at(0), &[b"SET", key.as_bytes(), b"v"]);
    }
    let mut cursor = b"0".to_vec();
    let mut seen = Vec::new();
    let mut calls = 0;
    loop {
        let outcome = c.outcome(at(0), &[b"SCAN", &cursor, b"COUNT", b"7"]);
        let Some(crate::redis::resp::Frame::Array(parts)) = outcome.reply else {
            panic!("not an array");
        };
        let [
            crate::redis::resp::Frame::Bulk(next),
            crate::redis::resp::Frame::Array(keys),
        ] = parts.as_slice()
        else {
            panic!("{parts:?}");
        };
        assert!(keys.len() <= 7);
        for key in keys {
            if let crate::redis::resp::Frame::Bulk(k) = key {
                seen.push(k.clone());
            }
        }
        calls += 1;
        cursor = next.clone();
        if cursor == b"0" {
            break;
        }
    }
    assert_eq!(calls, 4);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 25);
}
