//! The lock scripts the cases run: the recipes' compare-and-delete and compare-and-extend,
//! and redis-py's `Lock` scripts verbatim (redis/lock.py at redis-py commit
//! 3d540ed54a63e59ad59781b964d3e930bf19d04f), whitespace included, since a script's SHA1 is
//! what EVALSHA finds it by.

/// The recipes' own scripts, so that what the cases check is what the locks send: deletes
/// the key, or sets a new deadline, only if it holds the caller's token.
pub use locksim::recipes::redis::lock::{
    EXTEND_SCRIPT as COMPARE_AND_EXTEND, RELEASE_SCRIPT as COMPARE_AND_DELETE,
};

/// redis-py's `LUA_RELEASE_SCRIPT`: KEYS[1] lock name, ARGV[1] token; 1 if released, else 0.
pub const LUA_RELEASE_SCRIPT: &str = "
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('del', KEYS[1])
        return 1
    ";

/// redis-py's `LUA_EXTEND_SCRIPT`: KEYS[1] lock name, ARGV[1] token, ARGV[2] ms, ARGV[3] "0"
/// to add them to the remaining time or "1" to replace it; 1 if extended, else 0.
pub const LUA_EXTEND_SCRIPT: &str = "
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

/// redis-py's `LUA_REACQUIRE_SCRIPT`: KEYS[1] lock name, ARGV[1] token, ARGV[2] ms; 1 if the
/// deadline was reset, else 0.
pub const LUA_REACQUIRE_SCRIPT: &str = "
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('pexpire', KEYS[1], ARGV[2])
        return 1
    ";

#[test]
fn redis_py_scripts_are_verbatim() {
    // SHA1s of the texts in redis/lock.py, computed from the file itself.
    for (script, sha) in [
        (
            LUA_RELEASE_SCRIPT,
            "c3f8721cbb97f72bc19e972846bd7aaf91901658",
        ),
        (
            LUA_EXTEND_SCRIPT,
            "a4e8783852e6b949f9ef3a97212805108459a890",
        ),
        (
            LUA_REACQUIRE_SCRIPT,
            "1cac51482acf5858da00f6d685d68f886cd6b6b2",
        ),
    ] {
        assert_eq!(sha1_smol::Sha1::from(script).digest().to_string(), sha);
    }
}
