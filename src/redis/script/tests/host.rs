//! The seam: what reaches the host, and the host's frozen clock as scripts see it.

use super::fake::FakeRedis;
use super::run;
use crate::redis::resp::Frame;
use crate::redis::script::Scripts;

fn args(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|item| item.as_bytes().to_vec()).collect()
}

/// redis-py's extend and release on a frozen clock: exact TTL arithmetic, and a lock that
/// expired (now > expiry) between two scripts is gone for the second.
#[test]
fn scripts_see_the_host_s_clock() {
    let extend = "
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        local expiration = redis.call('pttl', KEYS[1])
        if not expiration then
            expiration = 0
        end
        if expiration < 0 then
            return 0
        end

        local newttl = ARGV[2]
        if ARGV[3] == \"0\" then
            newttl = ARGV[2] + expiration
        end
        redis.call('pexpire', KEYS[1], newttl)
        return 1
    ";
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    host.now = 1_000;
    host.dispatch(&args(&["SET", "lock", "tok", "PX", "10000"]));
    host.now += 4_000;
    let reply = run(
        &mut scripts,
        &mut host,
        extend,
        &["lock"],
        &["tok", "5000", "0"],
    );
    assert_eq!(reply, Frame::Integer(1));
    assert_eq!(
        host.dispatch(&args(&["PTTL", "lock"])),
        Frame::Integer(11_000)
    );
    // The script handed PEXPIRE the sum as Lua computed it, formatted "%.17g".
    assert_eq!(
        host.calls.last(),
        Some(&args(&["pexpire", "lock", "11000"]))
    );
    host.now += 11_000;
    let pttl = "return redis.call('pttl', KEYS[1])";
    assert_eq!(
        run(&mut scripts, &mut host, pttl, &["lock"], &[]),
        Frame::Integer(0)
    );
    host.now += 1;
    assert_eq!(
        run(&mut scripts, &mut host, pttl, &["lock"], &[]),
        Frame::Integer(-2)
    );
}

/// A command refused by the script checks never reaches the host.
#[test]
fn refused_commands_never_reach_the_host() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for body in [
        "return redis.pcall('nosuch')",
        "return redis.pcall('get')",
        "return redis.pcall('multi')",
        "return redis.pcall('get', {})",
        "return redis.pcall()",
        "return redis.acl_check_cmd('get', 'k')",
    ] {
        run(&mut scripts, &mut host, body, &[], &[]);
    }
    let read_only = "#!lua flags=no-writes\nreturn redis.pcall('set', 'k', 'v')";
    run(&mut scripts, &mut host, read_only, &[], &[]);
    assert_eq!(host.calls, Vec::<Vec<Vec<u8>>>::new());
    let allowed = "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1], 1.5)";
    run(&mut scripts, &mut host, allowed, &["k"], &[]);
    assert!(host.calls.is_empty(), "arity is checked first");
    run(
        &mut scripts,
        &mut host,
        "return redis.call('echo', 0.1)",
        &[],
        &[],
    );
    assert_eq!(host.calls, vec![args(&["echo", "0.10000000000000001"])]);
}
