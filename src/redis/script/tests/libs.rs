//! Redis's `cjson`, `cmsgpack`, `struct` and `bit`: replies recorded from redis-server 7.0.15
//! (Debian 7.0.15-1~deb12u10), and the bounds the simulation keeps around them: memory (their
//! buffers count against the script's limit and never outlive a failed script), depth and the
//! thread's stack.

use super::fake::FakeRedis;
use super::{run, sha, wire};
use crate::redis::resp::Frame;
use crate::redis::script::{MEMORY_LIMIT, Scripts};

/// Each script, run alone, and the reply redis-server 7.0.15 sent (RESP2).
const PINNED: &[(&str, &[u8])] = &[
    (
        "return cjson.encode({1, 'two', true, {a = 'x/y'}})",
        b"$27\r\n[1,\"two\",true,{\"a\":\"x\\/y\"}]\r\n",
    ),
    (
        "return cjson.encode({1.5, 0.1, 1/3, 2^53, -2^31, 1e300})",
        b"$64\r\n[1.5,0.1,0.33333333333333,9.007199254741e+15,-2147483648,1e+300]\r\n",
    ),
    (
        "return cjson.encode('q\"b\\\\s\\n\\t\\1\\127')",
        b"$25\r\n\"q\\\"b\\\\s\\n\\t\\u0001\\u007f\"\r\n",
    ),
    (
        "return cjson.encode({[1] = 1, [20] = 3})",
        b"-ERR user_script:1: Cannot serialise table: excessively sparse array script: f9b469f6f5a2ae2369422192bb4f35af055b49d1, on @user_script:1.\r\n",
    ),
    (
        "return cjson.encode(function() end)",
        b"-ERR user_script:1: Cannot serialise function: type not supported script: c6600573aa08cdf0af5da6e0ef682db69a3acc00, on @user_script:1.\r\n",
    ),
    (
        "local t = {} t[1] = t return cjson.encode(t)",
        b"-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: 576653f0096d47f87063058b9abe9085cdcd4f41, on @user_script:1.\r\n",
    ),
    (
        "local v = cjson.decode('{\"a\":[1,2.5,null,true],\"b\":\"\\\\u00e9\"}') return {v.a[1], v.a[2], tostring(v.a[3] == cjson.null), tostring(v.a[4]), v.b}",
        b"*5\r\n:1\r\n:2\r\n$4\r\ntrue\r\n$4\r\ntrue\r\n$2\r\n\xc3\xa9\r\n",
    ),
    (
        "return cjson.decode('[1,2')",
        b"-ERR user_script:1: Expected comma or array end but found T_END at character 5 script: c107001b5ba2ff860ee2557f64da37c4767ef4bd, on @user_script:1.\r\n",
    ),
    (
        "return cjson.decode('{\"a\":1,}')",
        b"-ERR user_script:1: Expected object key string but found T_OBJ_END at character 8 script: 7e3659dd873275ff5047e436b0cc31cc91d160e4, on @user_script:1.\r\n",
    ),
    (
        "return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
        b"-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: 16688796523d8f6cf1ef0ab4577ccee2204836fc, on @user_script:1.\r\n",
    ),
    (
        "return cmsgpack.pack({1, 2, {a = 1}}, 'str', -1, 1.5)",
        b"$17\r\n\x93\x01\x02\x81\xa1a\x01\xa3str\xff\xca?\xc0\x00\x00\r\n",
    ),
    (
        "return {cmsgpack.unpack(cmsgpack.pack({1, {2, {3}}}, 'x', 2^40))}",
        b"*3\r\n*2\r\n:1\r\n*2\r\n:2\r\n*1\r\n:3\r\n$1\r\nx\r\n:1099511627776\r\n",
    ),
    (
        "return cmsgpack.unpack('\\217')",
        b"-ERR user_script:1: Missing bytes in input. script: 124b3274c7f37c58588f90a8c3c3427ad124e0b3, on @user_script:1.\r\n",
    ),
    (
        "local t = {} t[1] = t return #cmsgpack.pack(t)",
        b":17\r\n",
    ),
    (
        "return {struct.pack('>i4<h', -2, 3), struct.size('i4hd'), struct.unpack('>i4', struct.pack('>i4', -123456))}",
        b"*4\r\n$6\r\n\xff\xff\xff\xfe\x03\x00\r\n:14\r\n:-123456\r\n:5\r\n",
    ),
    (
        "return struct.pack('i33', 1)",
        b"-ERR user_script:1: integral size 33 is larger than limit of 32 script: 0a76c071d82805e752befa6958961c98c39f358f, on @user_script:1.\r\n",
    ),
    (
        "return {struct.unpack('bc0', struct.pack('b', 3) .. 'abc')}",
        b"*2\r\n$3\r\nabc\r\n:5\r\n",
    ),
    (
        "return {bit.band(-1, 0xff), bit.bor(1, 2, 4), bit.bxor(-1, 1), bit.bnot(0), bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.tobit(2^32 + 5)}",
        b"*9\r\n:255\r\n:7\r\n:-2\r\n:-1\r\n:-2147483648\r\n:15\r\n:-16\r\n:878082066\r\n:5\r\n",
    ),
    (
        "return {bit.tohex(-1), bit.tohex(255, 2), bit.tohex(255, -4), bit.tohex(1, -2147483648)}",
        b"*4\r\n$8\r\nffffffff\r\n$2\r\nff\r\n$4\r\n00FF\r\n$8\r\n00000001\r\n",
    ),
    (
        "cjson.encode = nil",
        b"-ERR user_script:1: Attempt to modify a readonly table script: ca8772b89bfaafed79b4e978e804ff876bb3abc5, on @user_script:1.\r\n",
    ),
    (
        "bit.newfield = 1",
        b"-ERR user_script:1: Attempt to modify a readonly table script: aebeb8b2af26a1eb3987ea334f5269e82b2632c8, on @user_script:1.\r\n",
    ),
    (
        "return {pcall(cjson.decode, '{')}",
        b"*2\r\n$-1\r\n$57\r\nExpected object key string but found T_END at character 2\r\n",
    ),
];

#[test]
fn the_libraries_answer_as_redis_does() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let mut failures = Vec::new();
    for (body, expected) in PINNED {
        let reply = wire(&run(&mut scripts, &mut host, body, &[], &[]));
        if reply != *expected {
            failures.push(format!(
                "{body}\n   expected {}\n   got      {}",
                expected.escape_ascii(),
                reply.escape_ascii()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reply of a script that went past the memory limit.
fn memory_error(body: &str) -> Frame {
    Frame::Error(
        format!(
            "ERR Error running script {}: it ran past the simulation's Lua memory limit of {} \
             MiB (a real Redis sets none)",
            sha(body),
            MEMORY_LIMIT >> 20
        )
        .into_bytes(),
    )
}

/// Encodings and packings larger than the memory limit (Redis would allocate gigabytes) fail
/// with the limit's error, or with Lua's "not enough memory" under `pcall`; and the libraries
/// keep working afterwards.
#[test]
fn outputs_past_the_memory_limit_fail_cleanly() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let big_table = "local s = string.rep('x', 1e6) local t = {} for i = 1, 1e5 do t[i] = s end ";
    for body in [
        format!("{big_table} return #cjson.encode(t)"),
        format!("cjson.encode_keep_buffer(false) {big_table} return #cjson.encode(t)"),
        format!("{big_table} return #cmsgpack.pack(t)"),
        format!("{big_table} return #cmsgpack.pack(unpack(t, 1, 3000))"),
        "local t = {} for i = 1, 100 do t[i] = t end return #cmsgpack.pack(t)".to_owned(),
        "return #cjson.encode(string.rep('\\0', 2e7))".to_owned(),
        "return #cjson.decode('\"' .. string.rep('a', 3e7) .. '\"')".to_owned(),
        "local s = string.rep('x', 1e6) local t = {} for i = 1, 1000 do t[i] = s end \
         return #struct.pack(string.rep('c0', 1000), unpack(t))"
            .to_owned(),
    ] {
        assert_eq!(
            run(&mut scripts, &mut host, &body, &[], &[]),
            memory_error(&body),
            "{body}"
        );
        let after = "return {cjson.encode({1, 'a'}), #cmsgpack.pack({1, 2}), \
                     cjson.encode_keep_buffer(true)}";
        assert_eq!(
            run(&mut scripts, &mut host, after, &[], &[]),
            Frame::Array(vec![
                Frame::Bulk(b"[1,\"a\"]".to_vec()),
                Frame::Integer(3),
                Frame::Integer(1),
            ]),
            "after {body}"
        );
    }
    let caught =
        format!("{big_table} local ok, e = pcall(cjson.encode, t) return {{tostring(ok), e}}");
    assert_eq!(
        run(&mut scripts, &mut host, &caught, &[], &[]),
        Frame::Array(vec![
            Frame::Bulk(b"false".to_vec()),
            Frame::Bulk(b"not enough memory".to_vec()),
        ])
    );
}

/// A script that runs out of memory half-way through a decoding or a packing leaves no buffer
/// behind: once the next decoding and packing have run (which free the buffer a failure left)
/// and the garbage is collected, the state is back to its size, where Redis's copies would
/// have leaked a buffer with each failure.
#[test]
fn buffers_of_failed_scripts_are_not_leaked() {
    // Five different strings of 10 MB: the decoder's 50 MB buffer fits, the strings do not.
    let items: Vec<String> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|letter| format!("\"{}\"", letter.repeat(10_000_000)))
        .collect();
    let json = format!("[{}]", items.join(","));
    let decode = "return #cjson.decode(ARGV[1])";
    // 60 different strings of 1 MB: packed, and then copied into a Lua string, they do not fit.
    let pack = "local t = {} for i = 1, 60 do t[i] = string.rep(string.char(64 + i), 1e6) end \
                return #cmsgpack.pack(t)";
    let settle = "collectgarbage() return #cjson.decode('[]') + #cmsgpack.pack(1)";
    for (body, arg) in [(decode, json.as_str()), (pack, "")] {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        run(&mut scripts, &mut host, settle, &[], &[]);
        let size = scripts.sandbox.used_memory();
        for round in 0..8 {
            assert_eq!(
                run(&mut scripts, &mut host, body, &[], &[arg]),
                memory_error(body),
                "round {round}"
            );
            run(&mut scripts, &mut host, settle, &[], &[]);
            let held = scripts.sandbox.used_memory();
            assert!(
                held < size + (1 << 20),
                "{body}: round {round}: the state holds {held} bytes, {size} at first"
            );
        }
    }
}

/// Nesting as deep as the Lua stack allows (the depth limits raised by the script) fails with
/// Redis's own errors, and the C recursion it takes fits in a thread of 1 MiB of stack, half
/// what tokio's and the test harness's threads have.
#[test]
fn the_deepest_nesting_fits_in_a_small_stack() {
    let cases: [(&str, &str); 5] = [
        (
            "cjson.decode_max_depth(100000) \
             return #cjson.decode(string.rep('[', 9000) .. string.rep(']', 9000))",
            "Found too many nested data structures (7999) at character 7999",
        ),
        (
            "cjson.decode_max_depth(100000) \
             return #cjson.decode(string.rep('{\"a\":', 5000) .. '1' .. string.rep('}', 5000))",
            "Found too many nested data structures (4000) at character 19996",
        ),
        (
            "cjson.encode_max_depth(100000) \
             local t = {} local c = t for i = 1, 20000 do c[1] = {} c = c[1] end \
             return #cjson.encode(t)",
            "Cannot serialise, excessive nesting (7998)",
        ),
        (
            "return #cmsgpack.unpack(string.rep('\\145', 10000) .. '\\1')",
            "stack overflow (in function mp_decode_to_lua_array)",
        ),
        (
            "return #cmsgpack.unpack(string.rep('\\129\\1', 10000) .. '\\1')",
            "stack overflow (too many return values at once; use unpack_one or unpack_limit \
             instead.)",
        ),
    ];
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            for (body, text) in cases {
                let mut scripts = Scripts::new();
                let mut host = FakeRedis::default();
                let expected = format!(
                    "ERR user_script:1: {text} script: {}, on @user_script:1.",
                    sha(body)
                );
                assert_eq!(
                    run(&mut scripts, &mut host, body, &[], &[]),
                    Frame::Error(expected.into_bytes()),
                    "{body}"
                );
            }
        })
        .expect("a thread")
        .join()
        .expect("no stack overflow");
}

/// A library's settings (`cjson.encode_max_depth(…)`) last until `SCRIPT FLUSH`, as in Redis,
/// whose scripts share one Lua state.
#[test]
fn cjson_settings_last_until_script_flush() {
    let mut scripts = Scripts::new();
    let mut host = FakeRedis::default();
    let encode = "return cjson.encode(3.14159265)";
    let precision = "return cjson.encode_number_precision(4)";
    assert_eq!(
        run(&mut scripts, &mut host, precision, &[], &[]),
        Frame::Integer(4)
    );
    assert_eq!(
        run(&mut scripts, &mut host, encode, &[], &[]),
        Frame::Bulk(b"3.142".to_vec())
    );
    assert_eq!(
        scripts.script(&[b"FLUSH".to_vec()]),
        Frame::Simple(b"OK".to_vec())
    );
    assert_eq!(
        run(&mut scripts, &mut host, encode, &[], &[]),
        Frame::Bulk(b"3.14159265".to_vec())
    );
}
