//! Locks as clients take them: SET NX PX, then the recipes' compare-and-delete and
//! compare-and-extend, and redis-py's `Lock` the way redis-py sends it (EVALSHA first, SCRIPT
//! LOAD on NOSCRIPT), on live and on expired locks.

use super::case::{Step, cmd, evalsha, pttl, sleep};
use super::lock_scripts::{
    COMPARE_AND_DELETE, COMPARE_AND_EXTEND, LUA_EXTEND_SCRIPT, LUA_REACQUIRE_SCRIPT,
    LUA_RELEASE_SCRIPT,
};

/// redis-py's scripts by name, so that the transcript says which one ran.
const REDIS_PY: [(&str, &str); 3] = [
    ("LUA_RELEASE_SCRIPT", LUA_RELEASE_SCRIPT),
    ("LUA_EXTEND_SCRIPT", LUA_EXTEND_SCRIPT),
    ("LUA_REACQUIRE_SCRIPT", LUA_REACQUIRE_SCRIPT),
];

/// redis-py's script `name` by EVALSHA, with numkeys, keys and args.
fn run_py(name: &str, rest: &[&str]) -> Step {
    let (_, body) = REDIS_PY
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a redis-py script");
    evalsha(body, rest).named(format!("EVALSHA sha1({name}) {}", rest.join(" ")))
}

/// SCRIPT LOAD of each redis-py script, as `register_script` does on NOSCRIPT.
fn load_py() -> Vec<Step> {
    REDIS_PY
        .iter()
        .map(|(name, body)| cmd(&["SCRIPT", "LOAD", body]).named(format!("SCRIPT LOAD {name}")))
        .collect()
}

pub fn recipe_scripts() -> Vec<Step> {
    let del = |key, token| cmd(&["EVAL", COMPARE_AND_DELETE, "1", key, token]);
    let extend = |key, token, ms| cmd(&["EVAL", COMPARE_AND_EXTEND, "1", key, token, ms]);
    vec![
        cmd(&["SET", "lk:a", "mine", "NX", "PX", "10000"]),
        del("lk:a", "theirs"),
        extend("lk:a", "theirs", "20000"),
        pttl("lk:a"),
        extend("lk:a", "mine", "20000"),
        pttl("lk:a"),
        extend("lk:a", "mine", "abc"),
        extend("lk:a", "mine", "-5"),
        cmd(&["GET", "lk:a"]),
        cmd(&["SET", "lk:a", "mine", "NX", "PX", "10000"]),
        del("lk:a", "mine"),
        cmd(&["GET", "lk:a"]),
        del("lk:a", "mine"),
        extend("lk:a", "mine", "1000"),
        del("lk:missing", ""),
        cmd(&["EVAL", COMPARE_AND_DELETE, "0"]),
    ]
}

pub fn redis_py_lock() -> Vec<Step> {
    let key = "lk:py";
    let release = |token| run_py("LUA_RELEASE_SCRIPT", &["1", key, token]);
    let extend = |token, ms, replace| run_py("LUA_EXTEND_SCRIPT", &["1", key, token, ms, replace]);
    let reacquire = |token, ms| run_py("LUA_REACQUIRE_SCRIPT", &["1", key, token, ms]);
    let mut steps = vec![cmd(&["SCRIPT", "FLUSH"]), release("tok")];
    steps.extend(load_py());
    steps.extend([
        // acquire(): SET NX PX with the token.
        cmd(&["SET", key, "tok", "NX", "PX", "10000"]),
        cmd(&["SET", key, "other", "NX", "PX", "10000"]),
        release("other"),
        extend("other", "5000", "0"),
        reacquire("other", "5000"),
        pttl(key),
        // extend(5, replace_ttl=False), then extend(5, replace_ttl=True).
        extend("tok", "5000", "0"),
        pttl(key),
        extend("tok", "5000", "1"),
        pttl(key),
        extend("tok", "2.5", "1"),
        extend("tok", "abc", "0"),
        reacquire("tok", "30000"),
        pttl(key),
        release("tok"),
        cmd(&["GET", key]),
        release("tok"),
        extend("tok", "5000", "0"),
        reacquire("tok", "5000"),
        // A lock without a deadline cannot be extended, only reacquired.
        cmd(&["SET", key, "tok"]),
        extend("tok", "5000", "0"),
        cmd(&["PTTL", key]),
        reacquire("tok", "8000"),
        pttl(key),
        release("tok"),
    ]);
    steps
}

/// A lock whose deadline passed while its holder slept: every script of the old holder
/// fails, and someone else takes the lock.
pub fn expired_lock() -> Vec<Step> {
    let key = "lk:exp";
    let mut steps = load_py();
    steps.extend([
        cmd(&["SET", key, "old", "NX", "PX", "100"]),
        sleep(250),
        run_py("LUA_EXTEND_SCRIPT", &["1", key, "old", "5000", "0"]),
        run_py("LUA_REACQUIRE_SCRIPT", &["1", key, "old", "5000"]),
        cmd(&["EVAL", COMPARE_AND_EXTEND, "1", key, "old", "5000"]),
        cmd(&["SET", key, "new", "NX", "PX", "10000"]),
        run_py("LUA_RELEASE_SCRIPT", &["1", key, "old"]),
        cmd(&["EVAL", COMPARE_AND_DELETE, "1", key, "old"]),
        cmd(&["GET", key]),
        run_py("LUA_RELEASE_SCRIPT", &["1", key, "new"]),
    ]);
    steps
}

/// Within a script time stands still: a deadline that passes while it runs is not seen
/// passing until the script is over.
pub fn time_frozen_in_a_script() -> Vec<Step> {
    let body = "redis.call('set', KEYS[1], 'v', 'PX', 5) \
                local t = 0 for i = 1, 5000000 do t = t + i end \
                return {redis.call('get', KEYS[1]), redis.call('exists', KEYS[1])}";
    vec![
        cmd(&["EVAL", body, "1", "lk:frozen"]),
        cmd(&["GET", "lk:frozen"]),
    ]
}
