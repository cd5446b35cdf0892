//! The simulation's own bounds (instructions, memory, reply size) and Redis's nesting limit.

use super::fake::FakeRedis;
use super::{nesting, run, wire};
use crate::redis::resp::Frame;
use crate::redis::script::{MEMORY_LIMIT, Scripts};

/// What a script stopped by the instruction limit gets.
fn budget_error(body: &str, limit: u64) -> Frame {
    Frame::Error(
        format!(
            "ERR Error running script {}: it ran past the simulation's limit of {limit} Lua \
             instructions (a real Redis would keep running it, answering BUSY to other clients)",
            super::sha(body)
        )
        .into_bytes(),
    )
}

#[test]
fn runaway_scripts_stop_at_the_instruction_limit_whatever_catches_errors() {
    const LIMIT: u64 = 200_000;
    for body in [
        "while true do end",
        "local function f() return f() end return f()",
        "while true do pcall(function() while true do end end) end",
        "local ok = pcall(function() while true do end end) return ok",
        "while true do pcall(pcall, pcall, function() while true do end end) end",
        "while true do xpcall(function() while true do end end, function(e) return e end) end",
        "local co = coroutine.wrap(function() while true do end end) co()",
        "while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
        "local co = coroutine.create(function() while true do pcall(function() while true do end end) end end) \
         while true do coroutine.resume(co) end",
        "local t = {} for i = 1, 100 do t[i] = i end \
         while true do table.sort(t, function(a, b) while true do end end) end",
        "while true do pcall(string.gsub, 'aaa', 'a', function() while true do end end) end",
        "xpcall(function() while true do end end, function() while true do end end)",
    ] {
        let mut scripts = Scripts::with_instruction_limit(LIMIT);
        let mut host = FakeRedis::default();
        let reply = run(&mut scripts, &mut host, body, &[], &[]);
        assert_eq!(reply, budget_error(body, LIMIT), "{body}");
        // The next script gets the whole budget again.
        let next = "local n = 0 for i = 1, 50000 do n = n + 1 end return n";
        assert_eq!(
            run(&mut scripts, &mut host, next, &[], &[]),
            Frame::Integer(50_000)
        );
    }
}

#[test]
fn a_script_within_the_limit_runs_to_the_end() {
    let mut scripts = Scripts::with_instruction_limit(1_000_000);
    let mut host = FakeRedis::default();
    let body = "local n = 0 for i = 1, 100000 do n = n + i end return n";
    assert_eq!(
        run(&mut scripts, &mut host, body, &[], &[]),
        Frame::Integer(5_000_050_000)
    );
}

#[test]
fn memory_is_bounded_and_the_state_survives() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let memory_error = |body: &str| {
        Frame::Error(
            format!(
                "ERR Error running script {}: it ran past the simulation's Lua memory limit of {} \
                 MiB (a real Redis sets none)",
                super::sha(body),
                MEMORY_LIMIT >> 20
            )
            .into_bytes(),
        )
    };
    for body in [
        "return string.rep('x', 128 * 1024 * 1024)",
        "local t = {} for i = 1, 1e8 do t[i] = i end",
        "local s = 'x' while true do s = s .. s end",
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            memory_error(body),
            "{body}"
        );
        assert_eq!(
            run(
                &mut scripts,
                &mut host,
                "return #string.rep('y', 1000)",
                &[],
                &[]
            ),
            Frame::Integer(1000)
        );
    }
    // Caught, an allocation failure is Lua's usual message.
    let caught = "local ok, e = pcall(string.rep, 'x', 1e9) return e";
    assert_eq!(
        run(&mut scripts, &mut host, caught, &[], &[]),
        Frame::Bulk(b"not enough memory".to_vec())
    );
}

#[test]
fn a_stopped_collector_is_restarted_as_redis_does() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    assert_eq!(
        run(&mut scripts, &mut host, "collectgarbage('stop')", &[], &[]),
        Frame::Null
    );
    // 400 runs each leaving about half a MiB of garbage: far past the memory limit were it
    // kept, while the first 50 (before Redis's periodic collection step) fit.
    let body = "return #string.rep(ARGV[1], 102400)";
    for i in 0..400 {
        let arg = format!("{i:03}");
        let reply = run(&mut scripts, &mut host, body, &[], &[&arg]);
        assert_eq!(reply, Frame::Integer(3 * 102_400), "run {i}");
    }
}

#[test]
fn a_reply_that_would_never_end_is_refused() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let body = "local t = {} for i = 1, 10 do t[i] = t end return t";
    let expected = format!(
        "ERR Error running script {}: its reply exceeds the simulation's limit of 1000000 values \
         or 256 MiB (a real Redis sets none)",
        super::sha(body)
    );
    assert_eq!(
        run(&mut scripts, &mut host, body, &[], &[]),
        Frame::Error(expected.into_bytes())
    );
}

/// The depths redis-server 7.0.15 reached before "reached lua stack limit" (its replies are too
/// long to pin byte for byte).
#[test]
fn nesting_stops_where_redis_runs_out_of_lua_stack() {
    let limit = b"-ERR reached lua stack limit\r\n".as_slice();
    for (body, prefix, depth, after) in [
        (
            "local t = 1 for i=1,10000 do t = {t} end return t",
            b"*1\r\n".as_slice(),
            7995,
            limit.to_vec(),
        ),
        (
            "local t = {} t[1] = t return t",
            b"*1\r\n",
            7995,
            limit.to_vec(),
        ),
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.map = {a = n} cur = n end return t",
            b"*2\r\n$1\r\na\r\n",
            2664,
            [b"*2\r\n", limit, limit].concat(),
        ),
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.map = {} cur.map[n] = 1 cur = n end return t",
            b"*2\r\n",
            1999,
            [limit, limit].concat(),
        ),
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.set = {} cur.set[n] = true cur = n end return t",
            b"*1\r\n",
            2665,
            limit.to_vec(),
        ),
    ] {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        let reply = wire(&run(&mut scripts, &mut host, body, &[], &[]));
        let (count, rest) = nesting(&reply, prefix);
        assert_eq!(count, depth, "{body}");
        assert!(rest.starts_with(&after), "{body}: {}", rest.escape_ascii());
    }
}

/// A command's reply counts against the script's memory like any value it makes: one that
/// does not fit in what is left fails on memory, caught or not, and one that fits is whole.
#[test]
fn a_reply_counts_against_the_memory_limit() {
    let mut scripts = Scripts::new().with_memory_limit(1 << 20);
    let mut host = FakeRedis::default();
    let set = "return redis.call('set', KEYS[1], ARGV[1])";
    for (key, bytes) in [("big", 2 << 20), ("small", 100 << 10)] {
        let value = "x".repeat(bytes);
        assert_eq!(
            run(&mut scripts, &mut host, set, &[key], &[&value]),
            Frame::Simple(b"OK".to_vec())
        );
    }
    // The values' strings are garbage now; collected, they leave the next run no headroom.
    let collect = "collectgarbage('collect') return 1";
    assert_eq!(
        run(&mut scripts, &mut host, collect, &[], &[]),
        Frame::Integer(1)
    );
    let length = "return #redis.call('get', KEYS[1])";
    let memory_error = Frame::Error(
        format!(
            "ERR not enough memory script: {}, on @user_script:1.",
            super::sha(length)
        )
        .into_bytes(),
    );
    assert_eq!(
        run(&mut scripts, &mut host, length, &["big"], &[]),
        memory_error
    );
    let caught =
        "local ok, e = pcall(redis.call, 'get', KEYS[1]) return {tostring(ok), tostring(e)}";
    assert_eq!(
        run(&mut scripts, &mut host, caught, &["big"], &[]),
        Frame::Array(vec![
            Frame::Bulk(b"false".to_vec()),
            Frame::Bulk(b"not enough memory".to_vec())
        ])
    );
    assert_eq!(
        run(&mut scripts, &mut host, length, &["small"], &[]),
        Frame::Integer(100 << 10)
    );
}
