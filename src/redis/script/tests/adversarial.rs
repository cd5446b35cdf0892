//! Scripts that would end the process (unbounded `unpack`, deep pattern recursion, replies and
//! writes larger than memory) or starve the next script (garbage, a full script cache): each
//! gets an error reply, and an ordinary compare-and-delete still runs afterwards.

use super::fake::FakeRedis;
use super::{run, sha};
use crate::redis::resp::Frame;
use crate::redis::script::guards::{PATTERN_DEPTH_LIMIT, pattern_depth};
use crate::redis::script::{CACHE_LIMIT, Scripts};

const COMPARE_AND_DELETE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// The lock script deletes a lock it holds: the state took no harm.
fn assert_healthy(scripts: &mut Scripts, host: &mut FakeRedis) {
    let set = "return redis.call('SET', KEYS[1], ARGV[1])";
    assert_eq!(
        run(scripts, host, set, &["lock"], &["me"]),
        Frame::Simple(b"OK".to_vec())
    );
    assert_eq!(
        run(scripts, host, COMPARE_AND_DELETE, &["lock"], &["me"]),
        Frame::Integer(1)
    );
}

fn script_error(body: &str, text: &str) -> Frame {
    Frame::Error(
        format!(
            "ERR user_script:1: {text} script: {}, on @user_script:1.",
            sha(body)
        )
        .into_bytes(),
    )
}

#[test]
fn unpack_refuses_ranges_past_the_stack_as_redis_s_patched_lua_does() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for body in [
        "return unpack({}, -2147483648, 2147483647)",
        "return unpack({}, 0, 2147483647)",
        "return unpack({}, -2147483648, -1)",
        "return unpack({}, 1, 1e8)",
        "return unpack({}, 1, 8000)",
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            script_error(body, "too many results to unpack"),
            "{body}"
        );
        assert_healthy(&mut scripts, &mut host);
    }
    let fine = "return {select('#', unpack({}, 1, 7000)), unpack({1, 2, 3}, 2)}";
    assert_eq!(
        run(&mut scripts, &mut host, fine, &[], &[]),
        Frame::Array(vec![
            Frame::Integer(7000),
            Frame::Integer(2),
            Frame::Integer(3)
        ])
    );
    let bad = "return unpack({}, 1, 'x')";
    assert_eq!(
        run(&mut scripts, &mut host, bad, &[], &[]),
        script_error(
            bad,
            "bad argument #3 to 'unpack' (number expected, got string)"
        )
    );
}

#[test]
fn a_pattern_that_could_overflow_the_stack_is_refused_by_every_matching_function() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let complex = "pattern too complex (the simulation refuses a pattern of more than 200 \
                   quantifiers and captures, which could overflow the stack; Redis 7.0 sets no \
                   bound)";
    for body in [
        "return string.find(string.rep('a', 2e6), string.rep('a?', 1e6) .. 'b')",
        "return ('aaa'):find(string.rep('a*', 201))",
        "return string.match('aaa', string.rep('a-', 1e5))",
        "return string.gmatch('aaa', string.rep('a+', 1e5))()",
        "return string.gfind('aaa', string.rep('a+', 1e5))()",
        "return string.gsub('aaa', string.rep('[a]?', 1e5), '')",
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            script_error(body, complex),
            "{body}"
        );
        assert_healthy(&mut scripts, &mut host);
    }
    // At the limit, a plain find, and escaped or bracketed specials all still work.
    for (body, reply) in [
        ("return ('aaa'):find(string.rep('a?', 200))", 1),
        (
            "return string.find(string.rep('-', 500), string.rep('-', 300), 1, true)",
            1,
        ),
        (
            "return string.find('x' .. string.rep('-', 300), string.rep('%-', 300))",
            2,
        ),
        (
            "return #string.gsub(string.rep('ab', 200), string.rep('[ab]', 300), '')",
            100,
        ),
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            Frame::Integer(reply),
            "{body}"
        );
    }
}

#[test]
fn pattern_depth_counts_quantifiers_and_captures_only() {
    for (pattern, depth) in [
        ("abc", 0),
        ("a?b*c+d-", 4),
        ("(a)(b)", 4),
        ("%-%*%?", 0),
        ("%a+%d*", 2),
        ("[%-*?]+", 1),
        ("[]?]", 0),
        ("[^]-]-", 1),
        ("%bxy?", 0),
        ("%f[%w]*", 0),
        ("[abc", 0),
    ] {
        assert_eq!(pattern_depth(pattern.as_bytes()), depth, "{pattern}");
    }
    assert!(pattern_depth("a?".repeat(PATTERN_DEPTH_LIMIT + 1).as_bytes()) > PATTERN_DEPTH_LIMIT);
}

#[test]
fn replies_and_writes_larger_than_memory_are_refused() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let reply =
        "local s = string.rep('x', 2e7) local t = {} for i = 1, 1e5 do t[i] = s end return t";
    assert_eq!(
        run(&mut scripts, &mut host, reply, &[], &[]),
        Frame::Error(
            format!(
                "ERR Error running script {}: its reply exceeds the simulation's limit of \
                 1000000 values or 256 MiB (a real Redis sets none)",
                sha(reply)
            )
            .into_bytes()
        )
    );
    assert_healthy(&mut scripts, &mut host);
    let writes =
        "local s = string.rep('x', 2e7) for i = 1, 200 do redis.call('SET', 'k' .. i, s) end";
    assert_eq!(
        run(&mut scripts, &mut host, writes, &[], &[]),
        Frame::Error(
            format!(
                "ERR the script's write commands exceed the simulation's limit of 256 MiB of \
                 arguments in one script (a real Redis sets none) script: {}, on \
                 @user_script:1.",
                sha(writes)
            )
            .into_bytes()
        )
    );
    assert_healthy(&mut scripts, &mut host);
    let args = "local s = string.rep('x', 2e7) local t = {} for i = 1, 7000 do t[i] = s end \
                return redis.pcall('DEL', unpack(t))";
    assert_eq!(
        run(&mut scripts, &mut host, args, &[], &[]),
        Frame::Error(
            b"ERR the command's arguments exceed the simulation's limit of 256 MiB for a \
              command called from a script (a real Redis sets none)"
                .to_vec()
        )
    );
    assert_healthy(&mut scripts, &mut host);
}

#[test]
fn garbage_left_by_one_script_does_not_count_against_the_next() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    // Each leaves about 40 MiB of garbage behind, with the collector stopped.
    let litter =
        "collectgarbage('stop') local t = {} for i = 1, 40 do t[i] = string.rep(ARGV[1], 1e6) end";
    for i in 0..20 {
        let arg = format!("{}", i % 10);
        assert_eq!(
            run(&mut scripts, &mut host, litter, &[], &[&arg]),
            Frame::Null
        );
        assert_healthy(&mut scripts, &mut host);
    }
}

#[test]
fn a_full_script_cache_evicts_the_least_recently_used_and_keeps_serving() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    assert_healthy(&mut scripts, &mut host);
    // Scripts of about 200 KiB each: several times the cache's limit in all.
    let count = 3 * CACHE_LIMIT / (200 << 10);
    let filler = "local t = {".to_owned() + &"1,".repeat(20_000) + "}";
    let mut first = None;
    for i in 0..count {
        let body = format!("{filler} return {i}");
        let loaded = scripts.script(&[b"LOAD".to_vec(), body.clone().into_bytes()]);
        assert!(matches!(loaded, Frame::Bulk(_)), "{loaded:?}");
        first.get_or_insert(sha(&body));
        // The lock script, used all along, stays cached.
        let evalsha = scripts.evalsha(
            &mut host,
            &[
                sha(COMPARE_AND_DELETE).into_bytes(),
                b"1".to_vec(),
                b"lock".to_vec(),
                b"me".to_vec(),
            ],
        );
        assert_eq!(evalsha, Frame::Integer(0), "after {i} loads");
    }
    let exists = scripts.script(&[b"EXISTS".to_vec(), first.unwrap().into_bytes()]);
    assert_eq!(exists, Frame::Array(vec![Frame::Integer(0)]));
    assert_healthy(&mut scripts, &mut host);
    assert_eq!(
        scripts.script(&[b"FLUSH".to_vec()]),
        Frame::Simple(b"OK".to_vec())
    );
    assert_healthy(&mut scripts, &mut host);
}
