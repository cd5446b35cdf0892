//! No input makes scripting panic, and replies survive the trip through Lua as Redis's rules say.
//! Seeded runners, so every run sees the same cases; PROPTEST_CASES overrides the count.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::fake::FakeRedis;
use crate::redis::resp::{Frame, Protocol};
use crate::redis::script::convert::{error_text, reply_text, to_integer};
use crate::redis::script::{CommandSpec, ScriptHost, Scripts};

fn runner(default_cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default_cases);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

const TOKENS: &[&str] = &[
    "return",
    "local",
    "x",
    "t",
    "=",
    "==",
    "~=",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ".",
    "..",
    "...",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "#",
    "<",
    "not",
    "and",
    "or",
    "nil",
    "true",
    "false",
    "0",
    "1",
    "1.5",
    "-1",
    "1e308",
    "0/0",
    "'a'",
    "'\\0'",
    "'\\r\\n'",
    "function",
    "end",
    "if",
    "then",
    "else",
    "while",
    "do",
    "for",
    "in",
    "repeat",
    "until",
    "break",
    "redis.call",
    "redis.pcall",
    "redis.error_reply",
    "redis.status_reply",
    "redis.sha1hex",
    "redis.log",
    "redis.setresp",
    "redis.set_repl",
    "redis.acl_check_cmd",
    "'get'",
    "'set'",
    "'del'",
    "'incr'",
    "'pexpire'",
    "'pttl'",
    "'multi'",
    "KEYS[1]",
    "ARGV[1]",
    "KEYS",
    "ARGV",
    "_G",
    "pairs",
    "next",
    "ipairs",
    "error",
    "pcall",
    "xpcall",
    "tostring",
    "tonumber",
    "select",
    "unpack",
    "type",
    "rawget",
    "rawset",
    "setmetatable",
    "getmetatable",
    "string.rep",
    "string.format",
    "string.gsub",
    "table.insert",
    "table.sort",
    "table.concat",
    "math.random",
    "math.randomseed",
    "coroutine.create",
    "coroutine.resume",
    "coroutine.wrap",
    "coroutine.yield",
    "loadstring",
    "load",
    "collectgarbage",
    "__redis__err__handler",
    "{err='x'}",
    "{ok='y'}",
    "{double=1}",
    "{map={}}",
    "{set={}}",
    "{big_number='1'}",
    "#!lua",
    "\n",
    "--",
    "[[",
    "]]",
];

/// Script bodies: arbitrary bytes, or Lua-ish token soup that often parses.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..120),
        prop::collection::vec(prop::sample::select(TOKENS), 0..40)
            .prop_map(|tokens| tokens.join(" ").into_bytes()),
    ]
}

const WORDS: &[&str] = &["0", "1", "2", "-1", "k", "5000", "load", "exists", "flush"];

fn arg() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(|word| word.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..12),
    ]
}

#[test]
fn no_body_or_argument_makes_scripting_panic() {
    let strategy = (
        body(),
        prop::collection::vec(arg(), 0..5),
        prop::collection::vec(arg(), 0..4),
    );
    let result = runner(300).run(&strategy, |(body, eval_args, script_args)| {
        let mut scripts = Scripts::with_instruction_limit(100_000);
        let mut host = FakeRedis::default();
        let mut args = vec![body.clone()];
        args.extend(eval_args.iter().cloned());
        scripts.eval(&mut host, &args);
        scripts.eval(&mut host, &args);
        let mut by_sha = vec![super::super::sha1_hex(&body).into_bytes()];
        by_sha.extend(eval_args);
        scripts.evalsha(&mut host, &by_sha);
        scripts.script(&script_args);
        scripts.script(&[b"LOAD".to_vec(), body]);
        Ok(())
    });
    result.unwrap();
}

/// A host that answers every command with one reply.
struct Answer(Frame);

impl ScriptHost for Answer {
    fn command(&self, _: &[Vec<u8>]) -> Option<CommandSpec> {
        Some(CommandSpec {
            arity: -1,
            noscript: false,
            write: false,
        })
    }

    fn call(&mut self, _: &[Vec<u8>], _: Protocol) -> Frame {
        self.0.clone()
    }
}

fn frame() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(Frame::Integer),
        (-100i64..100).prop_map(Frame::Integer),
        prop::collection::vec(any::<u8>(), 0..10).prop_map(Frame::Bulk),
        prop::collection::vec(any::<u8>(), 0..10).prop_map(Frame::Simple),
        prop::collection::vec(any::<u8>(), 0..10).prop_map(Frame::Error),
        Just(Frame::Null),
        Just(Frame::NullArray),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop::collection::vec(inner, 0..6).prop_map(Frame::Array)
    })
}

/// A reply as a script hands it back after `redis.pcall`: integers through a double, nulls as
/// false then null, statuses and errors cut at NUL and rid of CR/LF, errors given a code.
fn through_lua(frame: &Frame) -> Frame {
    match frame {
        Frame::Integer(n) => Frame::Integer(to_integer(*n as f64)),
        Frame::Bulk(bytes) => Frame::Bulk(bytes.clone()),
        Frame::Null | Frame::NullArray => Frame::Null,
        Frame::Simple(text) => Frame::Simple(reply_text(text)),
        Frame::Error(text) => {
            Frame::Error(reply_text(&error_text(&[b"-".as_slice(), text].concat())))
        }
        Frame::Array(items) => Frame::Array(items.iter().map(through_lua).collect()),
        resp3 => through_lua(&resp3.clone().into_resp2()),
    }
}

#[test]
fn replies_come_back_from_lua_as_redis_converts_them() {
    let result = runner(500).run(&frame(), |reply| {
        let mut scripts = Scripts::new();
        let mut host = Answer(reply.clone());
        let args = [b"return redis.pcall('x')".to_vec(), b"0".to_vec()];
        prop_assert_eq!(scripts.eval(&mut host, &args), through_lua(&reply));
        Ok(())
    });
    result.unwrap();
}
