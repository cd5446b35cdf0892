//! EVAL, EVALSHA and SCRIPT: arguments, the Lua <-> RESP conversions both ways, errors from
//! compiling, running and calling commands, and the script cache.

use super::case::{Step, cmd, evalsha};

/// `EVAL body 0`.
fn eval(body: &str) -> Step {
    cmd(&["EVAL", body, "0"])
}

pub fn eval_arguments() -> Vec<Step> {
    let echo = "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}";
    vec![
        cmd(&["EVAL", echo, "2", "k1", "k2", "a1", "a2"]),
        cmd(&["EVAL", echo, "0", "a1"]),
        cmd(&["EVAL", echo, "1", "k1"]),
        cmd(&["eval", echo, "0"]),
        cmd(&["EVAL", "return 1"]),
        cmd(&["EVAL"]),
        cmd(&["EVAL", "return 1", "2", "k1"]),
        cmd(&["EVAL", "return 1", "-1"]),
        cmd(&["EVAL", "return 1", "x"]),
        cmd(&["EVAL", "return 1", "1.0", "k"]),
        cmd(&["EVAL", "return 1", "01", "k"]),
        cmd(&["EVAL", "return #ARGV[1]", "0", "a\0b"]),
        cmd(&["EVAL", "", "0"]),
        cmd(&["EVALSHA"]),
        cmd(&["EVALSHA", "abc"]),
    ]
}

pub fn lua_to_resp() -> Vec<Step> {
    [
        "return 1",
        "return -7",
        "return 3.99",
        "return -3.99",
        "return 0.5",
        "return 1e20",
        "return -1e20",
        "return 2^53 + 1",
        "return 0/0",
        "return 1/0",
        "return 'text'",
        "return ''",
        "return 'a\\0b\\r\\n'",
        "return nil",
        "return",
        "return false",
        "return true",
        "return {}",
        "return {1, 'two', 3.7, true, false}",
        "return {1, {2, {3, {'deep'}}}, {}}",
        "return {1, nil, 3}",
        "return {nil, 2}",
        "return {1, 2, x = 'ignored'}",
        "return {ok = 'fine'}",
        "return {ok = 'a\\r\\nb'}",
        "return {err = 'My error'}",
        "return {err = 'ERR plain'}",
        "return {err = ''}",
        "return {err = 'x\\ny'}",
        "return {err = 'x', ok = 'y'}",
        "return {ok = 5}",
        "return {err = 5}",
        "return {ok = 'inner', 1, 2}",
        "return {1, {ok = 'nested status'}, {err = 'nested error'}}",
        "return redis.status_reply('STATUS')",
        "return redis.error_reply('MYCODE custom')",
        "return redis.error_reply('no code')",
        "return redis.error_reply('-LEADING dash')",
        "return function() end",
        "return 1, 2",
        "return {1.5, 2.5, -0.5}",
        "return tostring(12.5)",
        "return tonumber('0x10')",
        "return {double = 3.5}",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn resp_to_lua() -> Vec<Step> {
    let mut steps = vec![cmd(&["SET", "rl:k", "v"])];
    steps.extend(
        [
            "return redis.call('get', 'rl:k')",
            "return type(redis.call('get', 'rl:k'))",
            "return redis.call('get', 'rl:missing')",
            "return type(redis.call('get', 'rl:missing'))",
            "return tostring(redis.call('get', 'rl:missing'))",
            "return redis.call('set', 'rl:k', 'v')",
            "return type(redis.call('set', 'rl:k', 'v'))",
            "return redis.call('set', 'rl:k', 'v')['ok']",
            "return redis.call('exists', 'rl:k', 'rl:k')",
            "return type(redis.call('exists', 'rl:k'))",
            "return redis.call('exists', 'rl:k') + 0.5",
            "return redis.call('ttl', 'rl:k')",
            "return redis.call('ping')",
            "return redis.call('ping')['ok']",
            "return redis.call('echo', 'hi')",
            "return redis.call('set', 'rl:k', 'v', 'NX')",
            "return type(redis.call('set', 'rl:k', 'v', 'NX'))",
            "return redis.call('set', 'rl:k', 'w', 'GET')",
            "return redis.call('SeT', 'rl:k', 'v')",
            // Numbers passed to commands go as %.17g text.
            "redis.call('set', 'rl:n', 1.5) return redis.call('get', 'rl:n')",
            "redis.call('set', 'rl:n', 0.1) return redis.call('get', 'rl:n')",
            "redis.call('set', 'rl:n', 1e20) return redis.call('get', 'rl:n')",
            "redis.call('set', 'rl:n', -0.0) return redis.call('get', 'rl:n')",
            "redis.call('set', 'rl:n', 42) return redis.call('get', 'rl:n')",
            "redis.call('set', 'rl:n', 2^53) return redis.call('get', 'rl:n')",
            "return redis.call('pexpire', 'rl:k', 1000.5)",
            "return redis.call('pexpire', 'rl:k', 100000 + 0)",
            "return redis.call('del', 'rl:n', 'rl:missing')",
        ]
        .into_iter()
        .map(eval),
    );
    steps
}

pub fn redis_pcall() -> Vec<Step> {
    [
        "return redis.pcall('get', 'rp:k')",
        "return redis.pcall('nosuchcommand', 'x')",
        "return redis.pcall('get')",
        "local r = redis.pcall('get') return r['err']",
        "local r = redis.pcall('nosuchcommand') return type(r)",
        "return redis.pcall('set', 'rp:k', 'v', 'EX', '0')",
        "return redis.pcall('set', 'rp:k', 'v', 'BAD')",
        "return {redis.pcall('expire', 'rp:k', 'x')}",
        "return redis.pcall('expire', 'rp:k', '10', 'NX', 'XX')",
        "return redis.pcall('eval', 'return 1', '0')",
        "return redis.pcall('quit')",
        "return redis.pcall('client', 'id')",
        "return redis.pcall('CLIENT', 'GETNAME')",
        "return redis.pcall('client', 'nosuch')",
        "return redis.pcall('client', 'setname')",
        "return redis.pcall('client')",
        "return redis.acl_check_cmd('client', 'id')",
        "return redis.acl_check_cmd('client', 'nosuch')",
        "return redis.acl_check_cmd('get', 'k')",
        "return redis.pcall()",
        "return redis.pcall({})",
        "return redis.pcall('get', {})",
        "return redis.pcall('get', nil)",
        "local ok, e = pcall(redis.call, 'nosuchcommand') return {tostring(ok), type(e), e['err']}",
        "local ok, e = pcall(error, 'raised') return {tostring(ok), e}",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn script_errors() -> Vec<Step> {
    [
        // Compiling.
        "return +",
        "if then",
        "return 'unfinished",
        "x = ",
        // Running.
        "error('boom')",
        "error('boom', 0)",
        "error({err = 'MYERR table error'})",
        "error({err = 'no code here'})",
        // Not `error({ok = 'x'})`, a table without `err`: it crashes redis-server 7.0.15.
        "error(42)",
        "error()",
        "return nil + 1",
        "return undefined_global",
        "undefined_function()",
        "local t = nil return t.x",
        "return #5",
        "x = 5",
        "redis = nil",
        "string.rep = nil",
        "return loadstring('return 1')()",
        "return print",
        "return os",
        "return getfenv",
        "return require",
        "return redis.call('nosuchcommand', 'x')",
        "return redis.call('get')",
        "return redis.call('get', 'a', 'b')",
        "return redis.call('set', 'se:k')",
        "return redis.call('eval', 'return 1', '0')",
        "return redis.call('evalsha', 'x', '0')",
        "return redis.call('script', 'flush')",
        "return redis.call('quit')",
        "return redis.call('client', 'setname', 'x')",
        "return redis.call()",
        "return redis.call(1)",
        "return redis.call('get', {})",
        "return redis.call('set', 'se:k', 'v', 'EX', 'abc')",
        "return redis.call('set', 'se:k', 'v', 'FOO')",
        "return redis.call('expire', 'se:k', '1', 'GT', 'LT')",
        "return redis.call('client', 'nosuch')",
        "redis.call('set', 'se:partial', 'written') error('after a write')",
        "return redis.call('get', 'se:partial')",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn script_helpers() -> Vec<Step> {
    [
        "return redis.sha1hex('')",
        "return redis.sha1hex('return 1')",
        "return redis.sha1hex()",
        "return redis.REDIS_VERSION",
        "return redis.REDIS_VERSION_NUM",
        "return redis.status_reply()",
        "return redis.error_reply()",
        "return redis.log(redis.LOG_WARNING, 'from a conformance test')",
        "return redis.setresp(2)",
        "return redis.setresp(4)",
        "return type(redis.replicate_commands())",
        "return redis.set_repl(redis.REPL_ALL)",
        "return {math.random(100), math.random(100), math.random()}",
        "return string.format('%5.2f|%d|%s', 3.14159, 42, 'x')",
        "return table.concat({'a', 'b', 'c'}, ',')",
        "return {string.byte('A'), string.char(72, 105), string.upper('x')}",
        "return math.floor(-3.5)",
        "return tostring(nil) .. tostring(true)",
        "return select('#', 1, nil, 3)",
        "return coroutine.wrap(function() coroutine.yield(7) end)()",
        "return {pcall(function() error({err = 'E x'}) end)}",
        "return type(_G)",
        "return KEYS == nil",
        "return unpack({1, 2, 3})",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

/// `#!lua` first lines (Redis 7.0): flags, and what is refused.
pub fn shebangs() -> Vec<Step> {
    [
        "#!lua\nreturn 1",
        "#!lua flags=no-writes\nreturn redis.call('get', 'sh:k')",
        "#!lua flags=no-writes\nreturn redis.call('set', 'sh:k', 'v')",
        "#!lua flags=no-writes\nreturn redis.pcall('del', 'sh:k')",
        "#!lua flags=allow-oom,no-cluster\nreturn 2",
        "#!lua flags=\nreturn 3",
        "#!lua name=x\nreturn 1",
        "#!lua flags=bogus\nreturn 1",
        "#!python\nreturn 1",
        "#!lua",
        "#!lua\nreturn +",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn script_cache() -> Vec<Step> {
    let body = "return 'cached ' .. ARGV[1]";
    let sha = sha1_smol::Sha1::from(body).digest().to_string();
    let other = "return 'never loaded'";
    let other_sha = sha1_smol::Sha1::from(other).digest().to_string();
    vec![
        cmd(&["SCRIPT", "FLUSH"]),
        evalsha(body, &["0", "x"]),
        cmd(&["SCRIPT", "LOAD", body]),
        evalsha(body, &["0", "x"]),
        cmd(&["EVALSHA", &sha.to_uppercase(), "0", "upper"]),
        cmd(&[
            "SCRIPT",
            "EXISTS",
            &sha,
            &other_sha,
            &sha.to_uppercase(),
            "nonsense",
        ]),
        cmd(&["SCRIPT", "EXISTS"]),
        cmd(&["SCRIPT", "LOAD", "return +"]),
        cmd(&["SCRIPT", "LOAD"]),
        cmd(&["SCRIPT", "LOAD", "a", "b"]),
        // EVAL caches what it runs.
        cmd(&["EVAL", other, "0"]),
        cmd(&["SCRIPT", "EXISTS", &other_sha]),
        cmd(&["SCRIPT", "FLUSH", "ASYNC"]),
        cmd(&["SCRIPT", "EXISTS", &sha, &other_sha]),
        evalsha(body, &["0", "x"]),
        cmd(&["EVALSHA", &sha[..39], "0"]),
        cmd(&["EVALSHA", &format!("{sha}0"), "0"]),
        cmd(&["EVALSHA", &sha, "2", "k"]),
        cmd(&["SCRIPT", "LOAD", body]),
        cmd(&["SCRIPT", "FLUSH", "SYNC"]),
        cmd(&["SCRIPT", "FLUSH", "BAD"]),
        cmd(&["SCRIPT", "FLUSH", "SYNC", "ASYNC"]),
        cmd(&["SCRIPT", "EXISTS", &sha]),
        cmd(&["SCRIPT", "NOSUCH"]),
        cmd(&["SCRIPT"]),
        cmd(&["SCRIPT", "KILL"]),
        // A script's globals do not outlive it.
        cmd(&["EVAL", "local x = 1 return x", "0"]),
        cmd(&["EVAL", "return rawget(_G, 'x')", "0"]),
    ]
}
