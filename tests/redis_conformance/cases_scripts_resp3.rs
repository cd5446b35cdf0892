//! Scripts and RESP3: `redis.setresp` and its errors, the table forms a script returns (`map`,
//! `set`, `double`, `big_number`, `verbatim_string`, booleans), and what `redis.call` and
//! `redis.pcall` hand a script that chose RESP3. Each case runs for a RESP2 and for a RESP3
//! caller: the script's protocol, not the caller's, decides what the script sees.

use super::case::{Step, cmd};

/// `EVAL body 0`.
fn eval(body: &str) -> Step {
    cmd(&["EVAL", body, "0"])
}

pub fn setresp_arguments() -> Vec<Step> {
    [
        "return redis.setresp(3)",
        "return redis.setresp(2)",
        "return redis.setresp(3.9)",
        "return redis.setresp('3')",
        "return redis.setresp('2.5')",
        "return redis.setresp(1)",
        "return redis.setresp(-3)",
        "return redis.setresp(0/0)",
        "return redis.setresp('x')",
        "return redis.setresp({})",
        "return redis.setresp(nil)",
        "return redis.setresp()",
        "return redis.setresp(2, 3)",
        "return {pcall(redis.setresp, 5)}",
        "return {pcall(redis.setresp)}",
        "redis.setresp('3') return true",
        "redis.setresp(3.9) return false",
        "redis.setresp(3) redis.setresp(2) return false",
        "redis.setresp(3) pcall(redis.setresp, 4) return false",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn returned_table_forms() -> Vec<Step> {
    [
        "return true",
        "return false",
        "redis.setresp(3) return true",
        "redis.setresp(3) return false",
        "redis.setresp(3) return nil",
        "redis.setresp(3) return {true, false, 1}",
        "return {map = {a = 1, b = 'x', c = {1, 2}}}",
        "return {map = {}}",
        "return {map = {[1] = 2, [true] = false, [2.5] = 'f'}}",
        "redis.setresp(3) return {map = {x = true, y = false}}",
        "return {map = {k = {map = {inner = {set = {m = true}}}}}}",
        "return {map = {k = {double = 2.5}, n = {big_number = '99'}}}",
        "local t = {} for i = 1, 20 do t['key' .. i] = i end return {map = t}",
        "return {map = 'not a table'}",
        "return {set = {a = true, b = false, c = 1}}",
        "return {set = {}}",
        "return {set = {[1] = true, [false] = true}}",
        "local t = {} for i = 1, 20 do t['member' .. i] = true end return {set = t}",
        "return {double = 1.5}",
        "return {double = 3}",
        "return {double = 0.1}",
        "return {double = -0.0}",
        "return {double = 1e300}",
        "return {double = 1/0}",
        "return {double = -1/0}",
        "return {double = 0/0}",
        "return {double = '1.5'}",
        "return {big_number = '12345678901234567890'}",
        "return {big_number = '1\\r\\n2'}",
        "return {big_number = ''}",
        "return {big_number = 5}",
        "return {verbatim_string = {format = 'txt', string = 'hi'}}",
        "return {verbatim_string = {format = 'mkd', string = '# t\\r\\n'}}",
        "return {verbatim_string = {format = 'a', string = 'hi'}}",
        "return {verbatim_string = {format = 'abcdef', string = ''}}",
        "return {verbatim_string = {format = 'a\\0b', string = 'x'}}",
        "return {verbatim_string = {format = 'txt'}}",
        "return {verbatim_string = {string = 'no format'}}",
        "return {verbatim_string = 'flat'}",
        "return {1, {map = {a = 1}}, {set = {b = true}}, {double = 2}, {big_number = '7'}}",
        "return {err = 'E wins', map = {a = 1}}",
        "return {ok = 'status wins', double = 1}",
        "return {double = 1, big_number = '2', map = {}}",
        "return {big_number = '2', verbatim_string = {format = 'txt', string = 's'}}",
        "return {map = {a = 1}, set = {b = true}}",
        "return {map = {a = 1}, 1, 2}",
    ]
    .into_iter()
    .map(eval)
    .collect()
}

pub fn resp3_calls() -> Vec<Step> {
    let mut steps = vec![cmd(&["DEL", "r3:k", "r3:gone"]), cmd(&["SET", "r3:k", "v"])];
    steps.extend(
        [
            "redis.setresp(3) return redis.call('ping')",
            "redis.setresp(3) return redis.call('ping', 'hi')",
            "redis.setresp(3) return redis.call('get', 'r3:k')",
            "redis.setresp(3) return redis.call('get', 'r3:gone')",
            "redis.setresp(3) return type(redis.call('get', 'r3:gone'))",
            "return type(redis.call('get', 'r3:gone'))",
            "redis.setresp(3) return redis.call('get', 'r3:gone') == nil",
            "redis.setresp(3) return {redis.call('get', 'r3:gone'), 1}",
            "redis.setresp(3) return {1, redis.call('get', 'r3:gone'), 3}",
            "redis.setresp(3) return redis.call('set', 'r3:k', 'v')",
            "redis.setresp(3) return redis.call('set', 'r3:k', 'v')['ok']",
            "redis.setresp(3) return redis.call('set', 'r3:k', 'w', 'GET')",
            "redis.setresp(3) return redis.call('set', 'r3:k', 'v', 'NX')",
            "redis.setresp(3) return type(redis.call('set', 'r3:k', 'v', 'NX'))",
            "redis.setresp(3) return redis.call('set', 'r3:gone', 'v', 'XX', 'GET')",
            "redis.setresp(3) return redis.call('exists', 'r3:k', 'r3:gone')",
            "redis.setresp(3) return redis.call('ttl', 'r3:gone')",
            "redis.setresp(3) return redis.call('echo', 'e')",
            "redis.setresp(3) return redis.call('del', 'r3:gone')",
            "redis.setresp(3) local v = redis.call('info', 'server') \
             return {type(v), v.verbatim_string.format, string.sub(v.verbatim_string.string, 1, 8)}",
            "local v = redis.call('info', 'server') return {type(v), string.sub(v, 1, 8)}",
            "redis.setresp(3) return redis.call('info', 'nosuchsection')",
            "return redis.call('info', 'nosuchsection')",
            "redis.setresp(3) return redis.call('command', 'docs', 'nosuch')",
            "return redis.call('command', 'docs', 'nosuch')",
            "redis.setresp(3) return type(redis.call('command', 'docs', 'nosuch').map)",
            "redis.setresp(3) return redis.call('command', 'count') > 0",
            "redis.setresp(3) local a = redis.call('get', 'r3:gone') redis.setresp(2) \
             local b = redis.call('get', 'r3:gone') return {type(a), type(b)}",
            // The next script starts in RESP2 again.
            "redis.setresp(3) return 1",
            "return type(redis.call('get', 'r3:gone'))",
            "redis.setresp(3) error('after setresp')",
            "return type(redis.call('get', 'r3:gone'))",
        ]
        .into_iter()
        .map(eval),
    );
    steps.push(cmd(&["DEL", "r3:k"]));
    steps
}

pub fn resp3_errors() -> Vec<Step> {
    [
        "redis.setresp(3) return redis.pcall('nosuchcmd')",
        "redis.setresp(3) return redis.pcall('get')",
        "redis.setresp(3) return redis.pcall('set', 'r3e:k', 'v', 'EX', 'x')",
        "redis.setresp(3) return redis.pcall('set', 'r3e:k', 'v', 'FOO')",
        "redis.setresp(3) return redis.pcall('client', 'id')",
        "redis.setresp(3) return redis.pcall()",
        "redis.setresp(3) return redis.pcall({})",
        "redis.setresp(3) local e = redis.pcall('get') return {type(e), e.err}",
        "redis.setresp(3) return {redis.pcall('get'), redis.pcall('ping')}",
        "redis.setresp(3) return redis.call('nosuchcmd')",
        "redis.setresp(3) return redis.call('set', 'r3e:k', 'v', 'EX', 'x')",
        "redis.setresp(3) return {pcall(redis.call, 'set', 'r3e:k', 'v', 'EX', 'x')}",
        "redis.setresp(3) return redis.error_reply('MY custom')",
        "redis.setresp(3) return redis.status_reply('FINE')",
        "redis.setresp(3) return {err = 'x'}",
    ]
    .into_iter()
    .map(eval)
    .collect()
}
