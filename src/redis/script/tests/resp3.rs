//! `redis.setresp` and the RESP3 conversions: every `Frame` kind as `redis.call` hands it to a
//! script in RESP2 and in RESP3, and every table form a script returns as the `Frame` Redis
//! 7.0.15 sends, written in both protocols (the wire bytes were recorded from redis-server
//! 7.0.15 where its commands give the same value).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::fake::FakeRedis;
use super::{nesting, run, sha};
use crate::redis::resp::{self, Frame, Protocol};
use crate::redis::script::convert::{error_text, g17, reply_text, to_integer};
use crate::redis::script::{CommandSpec, ScriptHost, Scripts};

/// A host that answers every command with one reply, and notes the protocol each was run for.
struct Replying {
    reply: Frame,
    protos: Vec<Protocol>,
}

impl Replying {
    fn new(reply: Frame) -> Replying {
        Replying {
            reply,
            protos: Vec::new(),
        }
    }
}

impl ScriptHost for Replying {
    fn command(&self, _: &[Vec<u8>]) -> Option<CommandSpec> {
        Some(CommandSpec {
            arity: -1,
            noscript: false,
            write: false,
        })
    }

    fn call(&mut self, _: &[Vec<u8>], proto: Protocol) -> Frame {
        self.protos.push(proto);
        self.reply.clone()
    }
}

/// `EVAL body 0` against `host`.
fn eval(scripts: &mut Scripts, host: &mut dyn ScriptHost, body: &str) -> Frame {
    scripts.eval(host, &[body.as_bytes().to_vec(), b"0".to_vec()])
}

/// `frame` as a connection speaking `proto` receives it.
fn encoded(frame: &Frame, proto: Protocol) -> Vec<u8> {
    let mut out = Vec::new();
    resp::encode(frame, proto, &mut out);
    out
}

fn bulk(text: &str) -> Frame {
    Frame::Bulk(text.as_bytes().to_vec())
}

/// A Lua value written out with its tables' keys sorted: `show(v)` in the scripts below.
const SHOW: &str = r#"
local function show(v)
    if type(v) == 'table' then
        local keys = {}
        for k in pairs(v) do keys[#keys + 1] = k end
        table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
        local parts = {}
        for _, k in ipairs(keys) do parts[#parts + 1] = show(k) .. '=' .. show(v[k]) end
        return '{' .. table.concat(parts, ',') .. '}'
    end
    if type(v) == 'string' then return string.format('%q', v) end
    return tostring(v)
end
"#;

/// What a script sees of `reply` after `redis.setresp(resp)`: `show` of `redis.pcall`'s value.
fn seen(reply: &Frame, resp: u8) -> String {
    let mut scripts = Scripts::new();
    let mut host = Replying::new(reply.clone());
    let body = format!("{SHOW} redis.setresp({resp}) return show(redis.pcall('x'))");
    match eval(&mut scripts, &mut host, &body) {
        Frame::Bulk(text) => String::from_utf8(text).expect("shown as text"),
        other => panic!("{reply:?}: {other:?}"),
    }
}

/// Every `Frame` kind as `script_lua.c`'s `redisProtocolToLuaType*` hand it over: in RESP2 the
/// RESP2 client's form, in RESP3 the RESP3 tables.
#[test]
fn every_frame_kind_reaches_lua_as_redis_converts_it() {
    let verbatim = Frame::Verbatim {
        format: *b"txt",
        text: b"hi".to_vec(),
    };
    for (reply, resp2, resp3) in [
        (Frame::Integer(-7), "-7", "-7"),
        (bulk("a\0b"), r#""a\000b""#, r#""a\000b""#),
        (Frame::Null, "false", "nil"),
        (Frame::NullArray, "false", "nil"),
        (
            Frame::Simple(b"OK".to_vec()),
            r#"{"ok"="OK"}"#,
            r#"{"ok"="OK"}"#,
        ),
        (
            Frame::Error(b"ERR x".to_vec()),
            r#"{"err"="ERR x","ignore_error_stats_update"=true}"#,
            r#"{"err"="ERR x","ignore_error_stats_update"=true}"#,
        ),
        (
            Frame::Array(vec![Frame::Integer(1), Frame::Null, bulk("c")]),
            r#"{1=1,2=false,3="c"}"#,
            r#"{1=1,3="c"}"#,
        ),
        (Frame::Array(Vec::new()), "{}", "{}"),
        (
            Frame::Map(vec![
                (bulk("a"), Frame::Integer(1)),
                (bulk("b"), Frame::Double(b"1.5".to_vec())),
                (bulk("c"), Frame::Null),
            ]),
            r#"{1="a",2=1,3="b",4="1.5",5="c",6=false}"#,
            r#"{"map"={"a"=1,"b"={"double"=1.5}}}"#,
        ),
        (Frame::Map(Vec::new()), "{}", r#"{"map"={}}"#),
        (
            Frame::Set(vec![bulk("x"), Frame::Integer(2)]),
            r#"{1="x",2=2}"#,
            r#"{"set"={2=true,"x"=true}}"#,
        ),
        (
            Frame::Push(vec![bulk("message"), Frame::Boolean(true)]),
            r#"{1="message",2=1}"#,
            r#"{1="message",2=true}"#,
        ),
        (
            Frame::Double(b"1.5".to_vec()),
            r#""1.5""#,
            r#"{"double"=1.5}"#,
        ),
        (
            Frame::Double(b"-inf".to_vec()),
            r#""-inf""#,
            r#"{"double"=-inf}"#,
        ),
        (
            Frame::Double(b"1e+20".to_vec()),
            r#""1e+20""#,
            r#"{"double"=1e+20}"#,
        ),
        (Frame::Boolean(true), "1", "true"),
        (Frame::Boolean(false), "0", "false"),
        (
            Frame::BigNumber(b"12345678901234567890".to_vec()),
            r#""12345678901234567890""#,
            r#"{"big_number"="12345678901234567890"}"#,
        ),
        (
            verbatim,
            r#""hi""#,
            r#"{"verbatim_string"={"format"="txt","string"="hi"}}"#,
        ),
        (
            Frame::Array(vec![Frame::Map(vec![(bulk("k"), Frame::Boolean(false))])]),
            r#"{1={1="k",2=0}}"#,
            r#"{1={"map"={"k"=false}}}"#,
        ),
    ] {
        assert_eq!(seen(&reply, 2), resp2, "RESP2: {reply:?}");
        assert_eq!(seen(&reply, 3), resp3, "RESP3: {reply:?}");
    }
}

/// A double's text is read as the reply parser's `strtod` reads it: NaN stays NaN.
#[test]
fn a_double_that_is_not_a_number_stays_one() {
    let mut scripts = Scripts::new();
    let mut host = Replying::new(Frame::Double(b"nan".to_vec()));
    let body = "redis.setresp(3) local d = redis.call('x').double return d ~= d";
    assert_eq!(eval(&mut scripts, &mut host, body), Frame::Boolean(true));
}

/// A script that returns what `redis.call` gave it in RESP3 returns the same RESP3 value (a
/// NaN double aside: Lua prints it as `-nan` or `nan` by its sign), and in RESP2 the RESP2 form.
#[test]
fn replies_come_back_whole_through_a_resp3_script() {
    let verbatim = Frame::Verbatim {
        format: *b"mkd",
        text: b"# x".to_vec(),
    };
    let nested = Frame::Array(vec![
        Frame::Map(vec![(bulk("k"), Frame::Set(vec![bulk("m")]))]),
        Frame::Double(b"inf".to_vec()),
        Frame::Boolean(true),
    ]);
    for reply in [
        Frame::Map(vec![(bulk("a"), Frame::Integer(1))]),
        Frame::Set(vec![bulk("x")]),
        Frame::Double(b"0.10000000000000001".to_vec()),
        Frame::Double(b"-inf".to_vec()),
        Frame::Boolean(false),
        Frame::BigNumber(b"-12345678901234567890".to_vec()),
        verbatim,
        Frame::Null,
        nested,
    ] {
        let mut scripts = Scripts::new();
        let mut host = Replying::new(reply.clone());
        let resp3 = eval(
            &mut scripts,
            &mut host,
            "redis.setresp(3) return redis.call('x')",
        );
        assert_eq!(resp3, reply);
        let resp2 = eval(&mut scripts, &mut host, "return redis.call('x')");
        assert_eq!(
            encoded(&resp2, Protocol::Resp3),
            encoded(&reply.clone().into_resp2(), Protocol::Resp3),
            "{reply:?}"
        );
    }
}

/// The host runs each command for the protocol the script chose when it called it, and every
/// script starts in RESP2 (`scriptPrepareForRun`), whatever the previous one chose or however
/// it ended.
#[test]
fn commands_run_in_the_scripts_protocol_and_each_script_starts_in_resp2() {
    let mut scripts = Scripts::new();
    let mut host = Replying::new(Frame::Null);
    let body = "redis.call('x') redis.setresp(3) redis.call('x') redis.setresp(2) redis.call('x') \
                redis.setresp(3) redis.pcall('x') return 1";
    assert_eq!(eval(&mut scripts, &mut host, body), Frame::Integer(1));
    use Protocol::{Resp2, Resp3};
    assert_eq!(host.protos, [Resp2, Resp3, Resp2, Resp3]);
    let missing = "return type(redis.call('x'))";
    assert_eq!(eval(&mut scripts, &mut host, missing), bulk("boolean"));
    let failing = "redis.setresp(3) error('stop')";
    assert!(matches!(
        eval(&mut scripts, &mut host, failing),
        Frame::Error(_)
    ));
    assert_eq!(eval(&mut scripts, &mut host, missing), bulk("boolean"));
    assert_eq!(host.protos.last(), Some(&Resp2));
}

/// `luaSetResp`'s argument checks, as redis-server 7.0.15 answers them.
#[test]
fn setresp_takes_2_or_3_as_lua_tonumber_reads_them() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for (body, reply) in [
        ("return redis.setresp(3)", Frame::Null),
        ("return redis.setresp(2)", Frame::Null),
        ("return redis.setresp(3.9)", Frame::Null),
        ("return redis.setresp('3')", Frame::Null),
        ("redis.setresp('3') return true", Frame::Boolean(true)),
        ("redis.setresp(2.5) return true", Frame::Integer(1)),
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            reply,
            "{body}"
        );
    }
    for (body, text) in [
        ("return redis.setresp(1)", "RESP version must be 2 or 3."),
        ("return redis.setresp(4)", "RESP version must be 2 or 3."),
        ("return redis.setresp({})", "RESP version must be 2 or 3."),
        (
            "return redis.setresp(2, 3)",
            "redis.setresp() requires one argument.",
        ),
        (
            "return redis.setresp()",
            "redis.setresp() requires one argument.",
        ),
    ] {
        let expected = format!("ERR {text} script: {}, on @user_script:1.", sha(body));
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            Frame::Error(expected.into_bytes()),
            "{body}"
        );
    }
}

/// A script's table forms as redis-server 7.0.15 sent them to a RESP2 and to a RESP3 caller:
/// maps in `next` order, formats padded and cut to three bytes, big numbers rid of CR/LF,
/// booleans by the script's own protocol.
#[test]
fn table_forms_are_sent_as_redis_sends_them_in_both_protocols() {
    for (body, resp2, resp3) in [
        (
            "return {map={a=1, b='x', c={1,2}}}",
            &b"*6\r\n$1\r\na\r\n:1\r\n$1\r\nc\r\n*2\r\n:1\r\n:2\r\n$1\r\nb\r\n$1\r\nx\r\n"[..],
            &b"%3\r\n$1\r\na\r\n:1\r\n$1\r\nc\r\n*2\r\n:1\r\n:2\r\n$1\r\nb\r\n$1\r\nx\r\n"[..],
        ),
        (
            "return {set={a=true, b=false, c=1}}",
            b"*3\r\n$1\r\na\r\n$1\r\nc\r\n$1\r\nb\r\n",
            b"~3\r\n$1\r\na\r\n$1\r\nc\r\n$1\r\nb\r\n",
        ),
        ("return {map={}}", b"*0\r\n", b"%0\r\n"),
        (
            "return {map={[1]=2, [true]=false}}",
            b"*4\r\n:1\r\n:2\r\n:1\r\n$-1\r\n",
            b"%2\r\n:1\r\n:2\r\n:1\r\n_\r\n",
        ),
        (
            "redis.setresp(3) return {map={x=true, y=false}}",
            b"*4\r\n$1\r\ny\r\n:0\r\n$1\r\nx\r\n:1\r\n",
            b"%2\r\n$1\r\ny\r\n#f\r\n$1\r\nx\r\n#t\r\n",
        ),
        ("return {double=1.5}", b"$3\r\n1.5\r\n", b",1.5\r\n"),
        ("return {double=0/0}", b"$4\r\n-nan\r\n", b",-nan\r\n"),
        ("return {double=-1/0}", b"$4\r\n-inf\r\n", b",-inf\r\n"),
        (
            "return {double=0.1}",
            b"$19\r\n0.10000000000000001\r\n",
            b",0.10000000000000001\r\n",
        ),
        (
            "return {big_number='12\\r\\n3'}",
            b"$5\r\n12  3\r\n",
            b"(12  3\r\n",
        ),
        (
            "return {verbatim_string={format='txt', string='hi'}}",
            b"$2\r\nhi\r\n",
            b"=6\r\ntxt:hi\r\n",
        ),
        (
            "return {verbatim_string={format='a', string='hi'}}",
            b"$2\r\nhi\r\n",
            b"=6\r\na  :hi\r\n",
        ),
        (
            "return {verbatim_string={format='abcdef', string='hi'}}",
            b"$2\r\nhi\r\n",
            b"=6\r\nabc:hi\r\n",
        ),
        (
            "return {verbatim_string={format='', string='hi'}}",
            b"$2\r\nhi\r\n",
            b"=6\r\n   :hi\r\n",
        ),
        (
            "return {verbatim_string={format='txt'}}",
            b"*0\r\n",
            b"*0\r\n",
        ),
        ("redis.setresp(3) return true", b":1\r\n", b"#t\r\n"),
        ("redis.setresp(3) return false", b":0\r\n", b"#f\r\n"),
        ("return true", b":1\r\n", b":1\r\n"),
        ("return false", b"$-1\r\n", b"_\r\n"),
        (
            "redis.setresp(3) redis.setresp(2) return false",
            b"$-1\r\n",
            b"_\r\n",
        ),
        ("return nil", b"$-1\r\n", b"_\r\n"),
        (
            "return {1, {map={a=1}}, {set={b=true}}}",
            b"*3\r\n:1\r\n*2\r\n$1\r\na\r\n:1\r\n*1\r\n$1\r\nb\r\n",
            b"*3\r\n:1\r\n%1\r\n$1\r\na\r\n:1\r\n~1\r\n$1\r\nb\r\n",
        ),
        (
            "redis.setresp(3) return {false, {set={[false]=true}}}",
            b"*2\r\n:0\r\n*1\r\n:0\r\n",
            b"*2\r\n#f\r\n~1\r\n#f\r\n",
        ),
    ] {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        let reply = run(&mut scripts, &mut host, body, &[], &[]);
        assert_eq!(
            encoded(&reply, Protocol::Resp2).escape_ascii().to_string(),
            resp2.escape_ascii().to_string(),
            "RESP2: {body}"
        );
        assert_eq!(
            encoded(&reply, Protocol::Resp3).escape_ascii().to_string(),
            resp3.escape_ascii().to_string(),
            "RESP3: {body}"
        );
    }
}

/// A map's or set's entries, a verbatim string's and a big number's bytes count against the
/// reply's bounds (issue 23) like an array's items and a bulk string's bytes.
#[test]
fn the_new_forms_are_bounded_like_arrays_and_strings() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    for body in [
        "local t = {} local m = {map = t} for i = 1, 10 do t[i] = m end return m",
        "local t = {} local s = {set = t} for i = 1, 10 do t[{s, s}] = true end return s",
        "local s = string.rep('x', 1048576) local v = {verbatim_string = {format = 'txt', \
         string = s}} local t = {} for i = 1, 300 do t[i] = v end return t",
        "local s = string.rep('x', 1048576) local t = {} for i = 1, 300 do t[i] = \
         {big_number = s} end return t",
        "local s = string.rep('x', 1048576) local t = {} for i = 1, 300 do t[i] = s end \
         return {map = t}",
    ] {
        let expected = format!(
            "ERR Error running script {}: its reply exceeds the simulation's limit of 1000000 \
             values or 256 MiB (a real Redis sets none)",
            sha(body)
        );
        assert_eq!(
            run(&mut scripts, &mut host, body, &[], &[]),
            Frame::Error(expected.into_bytes()),
            "{body}"
        );
    }
}

/// Nested maps and sets stop where redis-server 7.0.15 ran out of Lua stack, as a RESP3 caller
/// received them.
#[test]
fn nested_maps_and_sets_stop_at_redis_depths_in_resp3() {
    let limit = b"-ERR reached lua stack limit\r\n".as_slice();
    for (body, prefix, depth, after) in [
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.map = {a = n} cur = n end return t",
            b"%1\r\n$1\r\na\r\n".as_slice(),
            2664,
            [b"%1\r\n", limit, limit].concat(),
        ),
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.map = {} cur.map[n] = 1 cur = n end return t",
            b"%1\r\n",
            1999,
            [limit, limit, b":1\r\n"].concat(),
        ),
        (
            "local t = {} local cur = t for i=1,3000 do local n = {} cur.set = {} cur.set[n] = true cur = n end return t",
            b"~1\r\n",
            2665,
            limit.to_vec(),
        ),
    ] {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        let reply = encoded(
            &run(&mut scripts, &mut host, body, &[], &[]),
            Protocol::Resp3,
        );
        let (count, rest) = nesting(&reply, prefix);
        assert_eq!(count, depth, "{body}");
        assert!(rest.starts_with(&after), "{body}: {}", rest.escape_ascii());
    }
}

/// Any RESP3 leaf a command may reply with (finite doubles: a NaN is not equal to itself).
fn leaf() -> impl Strategy<Value = Frame> {
    let text = || prop::collection::vec(any::<u8>(), 0..8);
    prop_oneof![
        any::<i64>().prop_map(Frame::Integer),
        text().prop_map(Frame::Bulk),
        text().prop_map(Frame::Simple),
        text().prop_map(Frame::Error),
        Just(Frame::Null),
        Just(Frame::NullArray),
        any::<f64>()
            .prop_filter("a number", |x| !x.is_nan())
            .prop_map(|x| Frame::Double(g17(x).into_bytes())),
        any::<bool>().prop_map(Frame::Boolean),
        "-?[0-9]{1,30}".prop_map(|digits| Frame::BigNumber(digits.into_bytes())),
        ("[a-z]{3}", text()).prop_map(|(format, text)| Frame::Verbatim {
            format: format.as_bytes().try_into().expect("three letters"),
            text,
        }),
    ]
}

/// Nested RESP3 replies; maps and sets of at most one entry, whose order Lua keeps.
fn nested() -> impl Strategy<Value = Frame> {
    leaf().prop_recursive(4, 40, 6, |inner| {
        let key = prop::collection::vec(any::<u8>(), 0..8).prop_map(Frame::Bulk);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Frame::Array),
            prop::collection::vec(inner.clone(), 0..6).prop_map(Frame::Push),
            prop::option::of((key.clone(), inner))
                .prop_map(|pair| Frame::Map(pair.into_iter().collect())),
            prop::option::of(key).prop_map(|member| Frame::Set(member.into_iter().collect())),
        ]
    })
}

/// A RESP3 reply after `redis.setresp(3)` and back: integers through a double, nulls as nil
/// (an array ends at its first), statuses and errors as Redis writes them, a push as an array.
fn through_resp3_lua(frame: &Frame) -> Frame {
    let items = |items: &[Frame]| {
        items
            .iter()
            .take_while(|item| !matches!(item, Frame::Null | Frame::NullArray))
            .map(through_resp3_lua)
            .collect()
    };
    match frame {
        Frame::Integer(n) => Frame::Integer(to_integer(*n as f64)),
        Frame::Null | Frame::NullArray => Frame::Null,
        Frame::Simple(text) => Frame::Simple(reply_text(text)),
        Frame::Error(text) => {
            Frame::Error(reply_text(&error_text(&[b"-".as_slice(), text].concat())))
        }
        Frame::Array(list) | Frame::Push(list) => Frame::Array(items(list)),
        Frame::Map(pairs) => Frame::Map(
            pairs
                .iter()
                .filter(|(_, value)| !matches!(value, Frame::Null | Frame::NullArray))
                .map(|(key, value)| (through_resp3_lua(key), through_resp3_lua(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn resp3_replies_come_back_from_lua_as_redis_converts_them() {
    let config = Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&nested(), |reply| {
        let mut scripts = Scripts::new();
        let mut host = Replying::new(reply.clone());
        let body = "redis.setresp(3) return redis.pcall('x')";
        prop_assert_eq!(
            eval(&mut scripts, &mut host, body),
            through_resp3_lua(&reply)
        );
        Ok(())
    });
    result.unwrap();
}
