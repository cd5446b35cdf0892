//! What one run leaves for the next (nothing but the keyspace and `math.random`), what the
//! globals hold, and that the same runs give the same replies.

use super::fake::FakeRedis;
use super::run;
use crate::redis::resp::Frame;
use crate::redis::script::Scripts;

fn texts(items: &[&str]) -> Frame {
    Frame::Array(
        items
            .iter()
            .map(|item| Frame::Bulk(item.as_bytes().to_vec()))
            .collect(),
    )
}

/// redis-server 7.0.15 lists these 35 globals, with their types.
#[test]
fn the_globals_are_redis_s() {
    let redis = [
        "ARGV:table",
        "KEYS:table",
        "_G:table",
        "_VERSION:string",
        "__redis__err__handler:function",
        "assert:function",
        "bit:table",
        "cjson:table",
        "cmsgpack:table",
        "collectgarbage:function",
        "coroutine:table",
        "error:function",
        "gcinfo:function",
        "getmetatable:function",
        "ipairs:function",
        "load:function",
        "loadstring:function",
        "math:table",
        "next:function",
        "pairs:function",
        "pcall:function",
        "rawequal:function",
        "rawget:function",
        "rawset:function",
        "redis:table",
        "select:function",
        "setmetatable:function",
        "string:table",
        "struct:table",
        "table:table",
        "tonumber:function",
        "tostring:function",
        "type:function",
        "unpack:function",
        "xpcall:function",
    ];
    let body = "local t = {} for k, v in pairs(_G) do t[#t+1] = k .. ':' .. type(v) end \
                table.sort(t) return t";
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    assert_eq!(run(&mut scripts, &mut host, body, &[], &[]), texts(&redis));
}

/// Redis refuses `table.insert(string, x)` (read-only table); here it lands in the run's own
/// view of `string`, which the next run does not see.
#[test]
fn what_a_script_does_to_the_libraries_stays_in_its_run() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for body in [
        "table.insert(string, 'junk') table.insert(redis, 'junk') table.insert(_G, 'junk') \
         return {string[1], redis[1], _G[1]}",
        "local t = getmetatable(_G) pcall(table.insert, t, 'junk') return 1",
        "local ok = pcall(function() collectgarbage('collect') end) return 1",
    ] {
        run(&mut scripts, &mut host, body, &[], &[]);
    }
    let after = "return {tostring(rawget(string, 1)), tostring(rawget(redis, 1)), \
                 tostring(rawget(_G, 1)), tostring(string[1]), tostring(redis[1]), \
                 tostring(getmetatable(_G)[1]), ('x'):rep(2), type(redis.call)}";
    assert_eq!(
        run(&mut scripts, &mut host, after, &[], &[]),
        texts(&["nil", "nil", "nil", "nil", "nil", "nil", "xx", "function"])
    );
}

/// A chunk a script loads reads that run's `KEYS` and `ARGV`.
#[test]
fn loaded_chunks_see_their_own_run_s_globals() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let body = "return loadstring('return KEYS[1] .. ARGV[1]')()";
    assert_eq!(
        run(&mut scripts, &mut host, body, &["k1"], &["a1"]),
        Frame::Bulk(b"k1a1".to_vec())
    );
    assert_eq!(
        run(&mut scripts, &mut host, body, &["k2"], &["a2"]),
        Frame::Bulk(b"k2a2".to_vec())
    );
}

/// Two servers given the same scripts in the same order answer the same, `math.random`,
/// `pairs` over string keys and the collector's accounting included.
#[test]
fn the_same_runs_give_the_same_replies() {
    let bodies = [
        "return {math.random(1000000), math.random(), math.random(-5, 5)}",
        "local t = {} for i = 1, 50 do t['k' .. i] = i end local o = {} \
         for k in pairs(t) do o[#o+1] = k end return o",
        "local t = {} for i = 1, 1000 do t[i] = {i} end return collectgarbage('count') * 1024",
        "return redis.sha1hex(tostring(math.random()))",
        "math.randomseed(7) return math.random(100)",
        "return math.random(100)",
    ];
    let replies = || {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        bodies
            .iter()
            .map(|body| run(&mut scripts, &mut host, body, &[], &[]))
            .collect::<Vec<_>>()
    };
    assert_eq!(replies(), replies());
}

/// A restarted server (a new `Scripts`) has an empty cache and a fresh `math.random`.
#[test]
fn a_restart_forgets_the_scripts() {
    let body = "return math.random(1000)";
    let sha = super::sha(body);
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    assert_eq!(
        run(&mut scripts, &mut host, body, &[], &[]),
        Frame::Integer(397)
    );
    let evalsha = [sha.into_bytes(), b"0".to_vec()];
    assert_eq!(scripts.evalsha(&mut host, &evalsha), Frame::Integer(841));
    let mut restarted = Scripts::new();
    assert_eq!(
        restarted.evalsha(&mut host, &evalsha),
        Frame::Error(b"NOSCRIPT No matching script. Please use EVAL.".to_vec())
    );
    assert_eq!(
        run(&mut restarted, &mut host, body, &[], &[]),
        Frame::Integer(397)
    );
}

/// Runs leave nothing behind: at a few KiB kept per run, these would reach the memory limit.
#[test]
fn twenty_thousand_runs_leave_no_memory_behind() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let body = "local t = {} t[1] = t return pcall(function() return getmetatable('') end)";
    for _ in 0..20_000 {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            Frame::Integer(1)
        );
    }
}

/// Each cached script stays runnable, however many there are.
#[test]
fn ten_thousand_scripts_stay_cached() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for i in 0..10_000 {
        let body = format!("return {i}");
        assert_eq!(
            run(&mut scripts, &mut host, &body, &[], &[]),
            Frame::Integer(i)
        );
    }
    let first = [super::sha("return 0").into_bytes(), b"0".to_vec()];
    assert_eq!(scripts.evalsha(&mut host, &first), Frame::Integer(0));
}
