//! Expiry with explicit clock readings: the strict deadline, TTL rounding, both expiry
//! clocks under wall jumps, replicas, and the active cycle.

use super::test_support::*;
use crate::redis::clock::{ExpiryClock, Now};
use crate::redis::role::Role;

const DEL_K: &[&[u8]] = &[b"DEL", b"k"];

fn del(key: &[u8]) -> Vec<Vec<u8>> {
    args(&[b"DEL", key])
}

#[test]
fn expired_only_once_now_passes_the_deadline() {
    let mut c = Client::master();
    c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"100"]);
    assert_eq!(c.run(at(100), &[b"GET", b"k"]), b"$1\r\nv\r\n");
    assert_eq!(c.run(at(100), &[b"PTTL", b"k"]), b":0\r\n");
    assert_eq!(c.run(at(40), &[b"PTTL", b"k"]), b":60\r\n");
    let found_expired = c.outcome(at(101), &[b"GET", b"k"]);
    assert_eq!(
        found_expired.reply.map(|f| bytes(&f)),
        Some(b"$-1\r\n".to_vec())
    );
    assert_eq!(found_expired.propagate, vec![args(DEL_K)]);
    // Gone for good: nothing more to propagate.
    assert!(c.propagated(at(0), &[b"GET", b"k"]).is_empty());
}

#[test]
fn ttl_rounds_to_the_nearest_second() {
    let mut c = Client::master();
    for (px, ttl) in [
        (&b"1499"[..], &b":1\r\n"[..]),
        (b"1500", b":2\r\n"),
        (b"499", b":0\r\n"),
        (b"1", b":0\r\n"),
    ] {
        c.run(at(0), &[b"SET", b"k", b"v", b"PX", px]);
        assert_eq!(c.run(at(0), &[b"TTL", b"k"]), ttl, "PX {}", text(px));
    }
}

#[test]
fn every_read_expires_on_a_master() {
    for read in [
        &[&b"GET"[..], b"k"][..],
        &[b"EXISTS", b"k"],
        &[b"TTL", b"k"],
        &[b"PTTL", b"k"],
    ] {
        let mut c = Client::master();
        c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"10"]);
        assert_eq!(
            c.propagated(at(11), read),
            vec![args(DEL_K)],
            "{}",
            text(read[0])
        );
        assert!(c.server.dump(at(11)).is_empty());
    }
}

/// Both clocks move by `mono` ms; the wall clock also jumps by `jump`.
fn jumped(mono: u64, jump: i64) -> Now {
    let now = at(mono);
    Now {
        wall_ms: now.wall_ms + jump,
        mono_ms: now.mono_ms,
    }
}

#[test]
fn wall_jump_forward_expires_early_unless_monotonic() {
    let mut wall = Client::new(Role::Master, ExpiryClock::Wall);
    let mut mono = Client::new(Role::Master, ExpiryClock::Monotonic);
    for c in [&mut wall, &mut mono] {
        assert_eq!(
            c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"10000"]),
            b"+OK\r\n"
        );
    }
    // One real millisecond later, the wall clock jumps a minute ahead.
    let now = jumped(1, 60_000);
    assert_eq!(wall.run(now, &[b"GET", b"k"]), b"$-1\r\n");
    assert_eq!(mono.run(now, &[b"GET", b"k"]), b"$1\r\nv\r\n");
    assert_eq!(mono.run(now, &[b"PTTL", b"k"]), b":9999\r\n");
    assert_eq!(
        mono.run(jumped(10_000, 60_000), &[b"GET", b"k"]),
        b"$1\r\nv\r\n"
    );
    assert_eq!(
        mono.run(jumped(10_001, 60_000), &[b"GET", b"k"]),
        b"$-1\r\n"
    );
}

#[test]
fn wall_jump_backward_expires_late_unless_monotonic() {
    let mut wall = Client::new(Role::Master, ExpiryClock::Wall);
    let mut mono = Client::new(Role::Master, ExpiryClock::Monotonic);
    for c in [&mut wall, &mut mono] {
        c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"1000"]);
    }
    // Five seconds later, the wall clock has been set back a minute.
    let now = jumped(5_000, -60_000);
    assert_eq!(wall.run(now, &[b"GET", b"k"]), b"$1\r\nv\r\n");
    assert_eq!(wall.run(now, &[b"PTTL", b"k"]), b":56000\r\n");
    assert_eq!(mono.run(now, &[b"GET", b"k"]), b"$-1\r\n");
}

#[test]
fn monotonic_converts_absolute_times_on_arrival_and_propagates_wall_times() {
    let mut c = Client::new(Role::Master, ExpiryClock::Monotonic);
    let deadline = (WALL0 + 500).to_string();
    let set = c.propagated(at(0), &[b"SET", b"k", b"v", b"PXAT", deadline.as_bytes()]);
    assert_eq!(
        set,
        vec![args(&[b"SET", b"k", b"v", b"PXAT", deadline.as_bytes()])]
    );
    // Reported in wall time, held on the monotonic clock: a jump changes neither.
    let now = jumped(100, 3_600_000);
    assert_eq!(c.run(now, &[b"PTTL", b"k"]), b":400\r\n");
    assert_eq!(c.server.dump(at(100))[0].expires_at_ms, Some(WALL0 + 500));
    let expire = c.propagated(now, &[b"PEXPIRE", b"k", b"1000"]);
    let when = (WALL0 + 3_600_000 + 100 + 1000).to_string();
    assert_eq!(expire, vec![args(&[b"PEXPIREAT", b"k", when.as_bytes()])]);
    assert_eq!(c.run(at(1_100), &[b"PTTL", b"k"]), b":0\r\n");
    assert_eq!(c.run(at(1_101), &[b"GET", b"k"]), b"$-1\r\n");
}

#[test]
fn expire_conditions_compare_wall_deadlines_on_either_clock() {
    for clock in [ExpiryClock::Wall, ExpiryClock::Monotonic] {
        let mut c = Client::new(Role::Master, clock);
        c.run(at(0), &[b"SET", b"k", b"v", b"PX", b"5000"]);
        assert_eq!(c.run(at(0), &[b"PEXPIRE", b"k", b"4000", b"GT"]), b":0\r\n");
        assert_eq!(c.run(at(0), &[b"PEXPIRE", b"k", b"6000", b"GT"]), b":1\r\n");
        assert_eq!(c.run(at(0), &[b"PEXPIRE", b"k", b"7000", b"LT"]), b":0\r\n");
        assert_eq!(c.run(at(0), &[b"PTTL", b"k"]), b":6000\r\n");
    }
}

#[test]
fn a_replica_reports_expired_keys_missing_but_keeps_them_for_the_masters_del() {
    let mut r = Client::new(Role::Replica, ExpiryClock::Wall);
    let mut link = r.server.connect();
    let deadline = (WALL0 + 100).to_string();
    replicate(
        &mut r.server,
        &mut link,
        at(0),
        &[b"SET", b"k", b"v", b"PXAT", deadline.as_bytes()],
    );
    assert_eq!(r.run(at(100), &[b"GET", b"k"]), b"$1\r\nv\r\n");
    for read in [
        &[&b"GET"[..], b"k"][..],
        &[b"EXISTS", b"k"],
        &[b"TTL", b"k"],
        &[b"PTTL", b"k"],
    ] {
        let outcome = r.outcome(at(101), read);
        assert!(outcome.propagate.is_empty());
        let expected: &[u8] = match read[0] {
            b"GET" => b"$-1\r\n",
            b"EXISTS" => b":0\r\n",
            _ => b":-2\r\n",
        };
        assert_eq!(outcome.reply.map(|f| bytes(&f)), Some(expected.to_vec()));
    }
    assert!(r.server.active_expire(at(10_000)).is_empty());
    assert_eq!(r.server.dump(at(10_000)).len(), 1);
    replicate(&mut r.server, &mut link, at(10_000), DEL_K);
    assert!(r.server.dump(at(10_000)).is_empty());
}

#[test]
fn applying_the_masters_stream_never_expires() {
    let mut r = Client::new(Role::Replica, ExpiryClock::Wall);
    let mut link = r.server.connect();
    replicate(&mut r.server, &mut link, at(0), &[b"SET", b"k", b"v"]);
    // A deadline already past by the replica's clock: kept, not deleted.
    replicate(&mut r.server, &mut link, at(0), &[b"PEXPIREAT", b"k", b"1"]);
    assert_eq!(r.server.dump(at(0))[0].expires_at_ms, Some(1));
    assert_eq!(r.run(at(0), &[b"GET", b"k"]), b"$-1\r\n");
    // The master still saw the key: XX applies.
    replicate(
        &mut r.server,
        &mut link,
        at(0),
        &[b"SET", b"k", b"w", b"XX", b"KEEPTTL"],
    );
    let entry = &r.server.dump(at(0))[0];
    assert_eq!(
        (entry.value.as_string(), entry.expires_at_ms),
        (Some(&b"w"[..]), Some(1))
    );
}

#[test]
fn promotion_starts_expiring() {
    let mut r = Client::new(Role::Replica, ExpiryClock::Wall);
    let mut link = r.server.connect();
    replicate(
        &mut r.server,
        &mut link,
        at(0),
        &[b"SET", b"k", b"v", b"PXAT", b"1"],
    );
    r.server.set_role(Role::Master);
    assert_eq!(r.server.role(), Role::Master);
    assert_eq!(r.propagated(at(0), &[b"GET", b"k"]), vec![args(DEL_K)]);
}

fn keyed(n: usize) -> Vec<u8> {
    format!("k{n:03}").into_bytes()
}

#[test]
fn active_cycle_samples_on_while_a_tenth_has_expired() {
    let mut c = Client::master();
    for n in 0..30 {
        c.run(at(0), &[b"SET", &keyed(n), b"v", b"PX", b"100"]);
    }
    for n in 30..35 {
        c.run(at(0), &[b"SET", &keyed(n), b"v"]);
    }
    // Nothing due: one sample (k000..k019) and done.
    assert!(c.server.active_expire(at(100)).is_empty());
    // All due: samples go on from k020, wrap, and stop once a sample finds nothing.
    let dels = c.server.active_expire(at(101));
    let order = (20..30).chain(0..20);
    assert_eq!(dels, order.map(|n| del(&keyed(n))).collect::<Vec<_>>());
    assert_eq!(c.server.dump(at(101)).len(), 5);
}

#[test]
fn active_cycle_stops_at_a_fresh_sample_and_walks_on_next_time() {
    let mut c = Client::master();
    for n in 0..100 {
        let px: &[u8] = if n == 50 { b"10" } else { b"100000" };
        c.run(at(0), &[b"SET", &keyed(n), b"v", b"PX", px]);
    }
    // 20 keys a sample, from where the last one ended: k050 is in the third.
    assert!(c.server.active_expire(at(11)).is_empty());
    assert!(c.server.active_expire(at(11)).is_empty());
    assert_eq!(c.server.active_expire(at(11)), vec![del(b"k050")]);
    assert_eq!(c.server.dump(at(11)).len(), 99);
}
