//! Command sequences and the replies redis-server 7.0.15 (Debian 7.0.15-1~deb12u10) sent for
//! them, byte for byte; each sequence started on an empty server with an empty script cache
//! (those testing `math.random` on a freshly started one). Recorded by running every sequence
//! against the real server; the lock scripts are the clients' own, copied verbatim.

use super::Step;

/// The lock scripts of the recipes, redis-py (`Lock`), redsync, node-redlock and Redisson (`RedissonLock`).
pub(super) const CLIENTS: &[&[Step]] = &[
    &[
        (&[b"SET", b"lock", b"tok"], b"+OK\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return 0 end", b"1", b"lock", b"tok"], b":1\r\n"),
        (&[b"GET", b"lock"], b"$-1\r\n"),
        (&[b"SET", b"lock", b"other"], b"+OK\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return 0 end", b"1", b"lock", b"tok"], b":0\r\n"),
        (&[b"GET", b"lock"], b"$5\r\nother\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return 0 end", b"1", b"gone", b"tok"], b":0\r\n"),
    ],
    &[
        (&[b"SET", b"lock", b"tok", b"PX", b"1000"], b"+OK\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end", b"1", b"lock", b"tok", b"5000"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 4000 and t <= 5000", b"1", b"lock"], b":1\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end", b"1", b"lock", b"other", b"5000"], b":0\r\n"),
        (&[b"EVAL", b"if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end", b"1", b"gone", b"tok", b"5000"], b":0\r\n"),
    ],
    &[
        (&[b"SET", b"lock", b"tok"], b"+OK\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('del', KEYS[1])\n        return 1\n    ", b"1", b"lock", b"tok"], b":1\r\n"),
        (&[b"EXISTS", b"lock"], b":0\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('del', KEYS[1])\n        return 1\n    ", b"1", b"lock", b"tok"], b":0\r\n"),
        (&[b"SET", b"lock", b"x"], b"+OK\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('del', KEYS[1])\n        return 1\n    ", b"1", b"lock", b"tok"], b":0\r\n"),
        (&[b"GET", b"lock"], b"$1\r\nx\r\n"),
    ],
    &[
        (&[b"SET", b"lock", b"tok", b"PX", b"10000"], b"+OK\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ", b"1", b"lock", b"tok", b"5000", b"0"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 14000 and t <= 15000", b"1", b"lock"], b":1\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ", b"1", b"lock", b"tok", b"5000", b"1"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 4000 and t <= 5000", b"1", b"lock"], b":1\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ", b"1", b"lock", b"other", b"5000", b"0"], b":0\r\n"),
        (&[b"SET", b"forever", b"tok"], b"+OK\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ", b"1", b"forever", b"tok", b"5000", b"0"], b":0\r\n"),
        (&[b"PTTL", b"forever"], b":-1\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ", b"1", b"gone", b"tok", b"5000", b"0"], b":0\r\n"),
    ],
    &[
        (&[b"SET", b"lock", b"tok", b"PX", b"100"], b"+OK\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('pexpire', KEYS[1], ARGV[2])\n        return 1\n    ", b"1", b"lock", b"tok", b"10000"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 9000 and t <= 10000", b"1", b"lock"], b":1\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('pexpire', KEYS[1], ARGV[2])\n        return 1\n    ", b"1", b"lock", b"other", b"10000"], b":0\r\n"),
        (&[b"EVAL", b"\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n        end\n        redis.call('pexpire', KEYS[1], ARGV[2])\n        return 1\n    ", b"1", b"gone", b"tok", b"10000"], b":0\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"EVAL", b"\n\tlocal val = redis.call(\"GET\", KEYS[1])\n\tif val == ARGV[1] then\n\t\treturn redis.call(\"DEL\", KEYS[1])\n\telseif val == false then\n\t\treturn -1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"k", b"v"], b":1\r\n"),
        (&[b"EVAL", b"\n\tlocal val = redis.call(\"GET\", KEYS[1])\n\tif val == ARGV[1] then\n\t\treturn redis.call(\"DEL\", KEYS[1])\n\telseif val == false then\n\t\treturn -1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"k", b"v"], b":-1\r\n"),
        (&[b"SET", b"k", b"w"], b"+OK\r\n"),
        (&[b"EVAL", b"\n\tlocal val = redis.call(\"GET\", KEYS[1])\n\tif val == ARGV[1] then\n\t\treturn redis.call(\"DEL\", KEYS[1])\n\telseif val == false then\n\t\treturn -1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"k", b"v"], b":0\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"1000"], b"+OK\r\n"),
        (&[b"EVAL", b"\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n\telse\n\t\treturn 0\n\tend\n", b"1", b"k", b"v", b"8000"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 7000 and t <= 8000", b"1", b"k"], b":1\r\n"),
        (&[b"EVAL", b"\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n\telse\n\t\treturn 0\n\tend\n", b"1", b"k", b"x", b"8000"], b":0\r\n"),
        (&[b"EVAL", b"\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n\t\treturn 1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"n", b"v", b"8000"], b":1\r\n"),
        (&[b"GET", b"n"], b"$1\r\nv\r\n"),
        (&[b"EVAL", b"\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n\t\treturn 1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"n", b"v", b"9000"], b":1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 8000 and t <= 9000", b"1", b"n"], b":1\r\n"),
        (&[b"EVAL", b"\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n\t\treturn 1\n\telse\n\t\treturn 0\n\tend\n", b"1", b"n", b"x", b"9000"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"\n  -- Return 0 if an entry already exists.\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"exists\", key) == 1 then\n      return 0\n    end\n  end\n\n  -- Create an entry for each provided key.\n  for i, key in ipairs(KEYS) do\n    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n  end\n\n  -- Return the number of entries added.\n  return #KEYS\n", b"2", b"a", b"b", b"v", b"10000"], b":2\r\n"),
        (&[b"EVAL", b"\n  -- Return 0 if an entry already exists.\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"exists\", key) == 1 then\n      return 0\n    end\n  end\n\n  -- Create an entry for each provided key.\n  for i, key in ipairs(KEYS) do\n    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n  end\n\n  -- Return the number of entries added.\n  return #KEYS\n", b"2", b"a", b"b", b"w", b"10000"], b":0\r\n"),
        (&[b"GET", b"b"], b"$1\r\nv\r\n"),
        (&[b"EVAL", b"\n  -- Return 0 if an entry exists with a *different* lock value.\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"get\", key) ~= ARGV[1] then\n      return 0\n    end\n  end\n\n  -- Update the entry for each provided key.\n  for i, key in ipairs(KEYS) do\n    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n  end\n\n  -- Return the number of entries updated.\n  return #KEYS\n", b"2", b"a", b"b", b"v", b"20000"], b":2\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 19000 and t <= 20000", b"1", b"b"], b":1\r\n"),
        (&[b"EVAL", b"\n  -- Return 0 if an entry exists with a *different* lock value.\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"get\", key) ~= ARGV[1] then\n      return 0\n    end\n  end\n\n  -- Update the entry for each provided key.\n  for i, key in ipairs(KEYS) do\n    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n  end\n\n  -- Return the number of entries updated.\n  return #KEYS\n", b"2", b"a", b"b", b"w", b"20000"], b":0\r\n"),
        (&[b"EVAL", b"\n  local count = 0\n  for i, key in ipairs(KEYS) do\n    -- Only remove entries for *this* lock value.\n    if redis.call(\"get\", key) == ARGV[1] then\n      redis.pcall(\"del\", key)\n      count = count + 1\n    end\n  end\n\n  -- Return the number of entries removed.\n  return count\n", b"2", b"a", b"b", b"w"], b":0\r\n"),
        (&[b"EVAL", b"\n  local count = 0\n  for i, key in ipairs(KEYS) do\n    -- Only remove entries for *this* lock value.\n    if redis.call(\"get\", key) == ARGV[1] then\n      redis.pcall(\"del\", key)\n      count = count + 1\n    end\n  end\n\n  -- Return the number of entries removed.\n  return count\n", b"2", b"a", b"b", b"v"], b":2\r\n"),
        (&[b"EVAL", b"\n  local count = 0\n  for i, key in ipairs(KEYS) do\n    -- Only remove entries for *this* lock value.\n    if redis.call(\"get\", key) == ARGV[1] then\n      redis.pcall(\"del\", key)\n      count = count + 1\n    end\n  end\n\n  -- Return the number of entries removed.\n  return count\n", b"2", b"a", b"b", b"v"], b":0\r\n"),
        (&[b"EXISTS", b"a", b"b"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);", b"1", b"lock", b"30000", b"uuid:1"], b"$-1\r\n"),
        (&[b"EVAL", b"if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);", b"1", b"lock", b"30000", b"uuid:1"], b"$-1\r\n"),
        (&[b"EVAL", b"local t = redis.call('pttl', KEYS[1]) return t > 29000 and t <= 30000", b"1", b"lock"], b":1\r\n"),
        (&[b"EVAL", b"local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; ", b"3", b"lock", b"chan", b"latch:a", b"0", b"30000", b"uuid:1", b"publish", b"13000"], b":0\r\n"),
        (&[b"GET", b"latch:a"], b"$1\r\n0\r\n"),
        (&[b"EVAL", b"local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; ", b"3", b"lock", b"chan", b"latch:b", b"0", b"30000", b"uuid:1", b"publish", b"13000"], b":1\r\n"),
        (&[b"EXISTS", b"lock"], b":0\r\n"),
        (&[b"GET", b"latch:b"], b"$1\r\n1\r\n"),
        (&[b"EVAL", b"local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; ", b"3", b"lock", b"chan", b"latch:b", b"0", b"30000", b"uuid:1", b"publish", b"13000"], b":1\r\n"),
        (&[b"EVAL", b"local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; ", b"3", b"lock", b"chan", b"latch:c", b"0", b"30000", b"uuid:1", b"publish", b"13000"], b"$-1\r\n"),
        (&[b"HSET", b"held", b"uuid:1", b"1"], b":1\r\n"),
        (&[b"EVAL", b"if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);", b"1", b"held", b"30000", b"uuid:2"], b":-1\r\n"),
    ],
];

/// Lua → RESP and RESP → Lua, every rule, and numbers passed to `redis.call`.
pub(super) const CONVERSIONS: &[&[Step]] = &[
    &[
        (&[b"EVAL", b"return 0/0", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1/0", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return -1/0", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1e19", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return -1e19", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 2^63", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 9007199254740993", b"0"], b":9007199254740992\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 3.99", b"0"], b":3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return -3.99", b"0"], b":-3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1e300", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return -0.0", b"0"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {1.9, -1.9}", b"0"], b"*2\r\n:1\r\n:-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 10 / 3", b"0"], b":3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return '3.7'", b"0"], b"$3\r\n3.7\r\n"),
    ],
    &[
        (&[b"EVAL", b"return ''", b"0"], b"$0\r\n\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 'a\\0b'", b"0"], b"$3\r\na\0b\r\n"),
    ],
    &[
        (&[b"EVAL", b"return true", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return false", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return nil", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return function() end", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return coroutine.create(function() end)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1, 2", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {1,2,{3,{4}},'x'}", b"0"], b"*4\r\n:1\r\n:2\r\n*2\r\n:3\r\n*1\r\n:4\r\n$1\r\nx\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {1,nil,3}", b"0"], b"*1\r\n:1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {a=1}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {true,false,nil}", b"0"], b"*2\r\n:1\r\n$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {false, 1}", b"0"], b"*2\r\n$-1\r\n:1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {[1]='a', [3]='c'}", b"0"], b"*1\r\n$1\r\na\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {n=1, 'x'}", b"0"], b"*1\r\n$1\r\nx\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {double=3.5}", b"0"], b"$3\r\n3.5\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {double=0.1}", b"0"], b"$19\r\n0.10000000000000001\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {double=1/0}", b"0"], b"$3\r\ninf\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {double=-1/0}", b"0"], b"$4\r\n-inf\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {double='1'}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {big_number='123\\r\\n4'}", b"0"], b"$6\r\n123  4\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {verbatim_string={format='txt',string='hi'}}", b"0"], b"$2\r\nhi\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {verbatim_string={string='hi'}}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {map={a=1}}", b"0"], b"*2\r\n$1\r\na\r\n:1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {map={}}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {set={a=true}}", b"0"], b"*1\r\n$1\r\na\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err='x',ok='y'}", b"0"], b"-x\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {ok='y', 1, 2}", b"0"], b"+y\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err='a\\r\\nb'}", b"0"], b"-a  b\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {ok='a\\r\\nb'}", b"0"], b"+a  b\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err='a\\0b'}", b"0"], b"-a\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {ok='a\\0b'}", b"0"], b"+a\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err={}}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err=''}", b"0"], b"-\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err='-X boom'}", b"0"], b"--X boom\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {err='ERR'}", b"0"], b"-ERR\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {ok=5}", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {ok=''}", b"0"], b"+\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {1, {err='inner'}, {ok='fine'}}", b"0"], b"*3\r\n:1\r\n-inner\r\n+fine\r\n"),
    ],
    &[
        (&[b"EVAL", b"return setmetatable({}, {__index={err='E'}})", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return setmetatable({}, {__index=function() return 'x' end})", b"0"], b"*0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('ping')", b"0"], b"+PONG\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('PING', 'hi')", b"0"], b"$2\r\nhi\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('echo', '')", b"0"], b"$0\r\n\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.call('ping') return {type(r), r.ok}", b"0"], b"*2\r\n$5\r\ntable\r\n$4\r\nPONG\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.call('get', 'nope') return {type(r), tostring(r)}", b"0"], b"*2\r\n$7\r\nboolean\r\n$5\r\nfalse\r\n"),
    ],
    &[
        (&[b"EVAL", b"local n = redis.call('incr', 'n') return {type(n), n + 0.5, tostring(n)}", b"0"], b"*3\r\n$6\r\nnumber\r\n:1\r\n$1\r\n1\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 'v') return {type(redis.call('get', 'k')), redis.call('get', 'k')}", b"0"], b"*2\r\n$6\r\nstring\r\n$1\r\nv\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 'v') local r = redis.call('exists', 'k', 'k', 'nope') return r", b"0"], b":2\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 'v') local r = redis.call('type', 'k') return {r}", b"0"], b"*1\r\n+string\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 'v') local r = redis.call('pexpire', 'k', 0) return {r, redis.call('exists', 'k')}", b"0"], b"*2\r\n:1\r\n:0\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 'v') return redis.call('set', 'k', 'w', 'NX')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('set', 'k', 'v', 'XX')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(redis.call('set', 'k', 'v', 'XX'))", b"0"], b"$5\r\nfalse\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1.5) return redis.call('get', 'k')", b"0"], b"$3\r\n1.5\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 0.1) return redis.call('get', 'k')", b"0"], b"$19\r\n0.10000000000000001\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1e20) return redis.call('get', 'k')", b"0"], b"$5\r\n1e+20\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1e16) return redis.call('get', 'k')", b"0"], b"$17\r\n10000000000000000\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1e17) return redis.call('get', 'k')", b"0"], b"$5\r\n1e+17\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', -0.0) return redis.call('get', 'k')", b"0"], b"$2\r\n-0\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 0/0) return redis.call('get', 'k')", b"0"], b"$4\r\n-nan\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1/0) return redis.call('get', 'k')", b"0"], b"$3\r\ninf\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', -1/0) return redis.call('get', 'k')", b"0"], b"$4\r\n-inf\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 123456789012) return redis.call('get', 'k')", b"0"], b"$12\r\n123456789012\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 1e-5) return redis.call('get', 'k')", b"0"], b"$22\r\n1.0000000000000001e-05\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 0.0001) return redis.call('get', 'k')", b"0"], b"$6\r\n0.0001\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', 2^53 + 1) return redis.call('get', 'k')", b"0"], b"$16\r\n9007199254740992\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', -7) return redis.call('get', 'k')", b"0"], b"$2\r\n-7\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', '007') return redis.call('get', 'k')", b"0"], b"$3\r\n007\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call('set', 'k', ' 1 ') return redis.call('get', 'k')", b"0"], b"$3\r\n 1 \r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"EVAL", b"local r = redis.pcall('incr', 'k') return {type(r), r.err, tostring(r.ignore_error_stats_update)}", b"0"], b"*3\r\n$5\r\ntable\r\n$43\r\nERR value is not an integer or out of range\r\n$4\r\ntrue\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"EVAL", b"local r = redis.pcall('hset', 'k', 'a', 'b') return r", b"0"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    ],
    &[
        (&[b"HSET", b"h", b"f", b"v"], b":1\r\n"),
        (&[b"EVAL", b"return redis.call('get', 'h')", b"0"], b"-WRONGTYPE Operation against a key holding the wrong kind of value script: 6cef24484fc62ca5d3f16a943baa822649c4eff9, on @user_script:1.\r\n"),
        (&[b"EVAL", b"return redis.pcall('get', 'h')", b"0"], b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    ],
];

/// Errors: `redis.call` against `redis.pcall`, the checks of `luaRedisGenericCommand`, `error()`, runtime and compile errors, the helpers' complaints.
pub(super) const ERRORS: &[&[Step]] = &[
    &[
        (&[b"EVAL", b"return redis.call('nosuch')", b"0"], b"-ERR Unknown Redis command called from script script: 206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.pcall('nosuch')", b"0"], b"-ERR Unknown Redis command called from script\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('NoSuch', 'x')", b"0"], b"-ERR Unknown Redis command called from script script: e9efa0bfc7e5bceb307720c653fd4d41f9807523, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call()", b"0"], b"-ERR Please specify at least one argument for this redis lib call script: 0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.pcall()", b"0"], b"-ERR Please specify at least one argument for this redis lib call\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call({})", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers script: 80747816df1f4411f7c442b928fce6a814214839, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.pcall('get', {})", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('get', nil)", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers script: c08fc0abeafdf57380190a28c88ba671c0d91403, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('get', 'a', nil)", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers script: 5de4508bcecbf70b2191ac83eb5fb45924422668, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('get', true)", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers script: 12c6851597ea39422dc179bc582fe8ba6af32595, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('get')", b"0"], b"-ERR Wrong number of args calling Redis command from script script: f187dee77f607f7cff00bbabc9df38507582c78d, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.pcall('get')", b"0"], b"-ERR Wrong number of args calling Redis command from script\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('get', 'a', 'b')", b"0"], b"-ERR Wrong number of args calling Redis command from script script: 83fb1f3d3ef84eb4eebaa00386befdba32e9f237, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('set', 'k')", b"0"], b"-ERR Wrong number of args calling Redis command from script script: 01433d584f462b92b28fbdf2f934bdfeeb39f624, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('ping', 'a', 'b')", b"0"], b"-ERR wrong number of arguments for 'ping' command script: 54bb24c858fab5a4c01933df40cd77926cc27e78, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('multi')", b"0"], b"-ERR This Redis command is not allowed from script script: c329a1a294be6bf95b44144f7502610661ae925a, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.call('eval', 'return 1', 0)", b"0"], b"-ERR This Redis command is not allowed from script script: 310efa61ec0f2edf6c2e5b4007966dd555e75546, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.pcall('multi')", b"0"], b"-ERR This Redis command is not allowed from script\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.pcall('nosuch') local t = {} for k, v in pairs(r) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", b"0"], b"*2\r\n$48\r\nerr=ERR Unknown Redis command called from script\r\n$30\r\nignore_error_stats_update=true\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.pcall() local t = {} for k, v in pairs(r) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", b"0"], b"*1\r\n$68\r\nerr=ERR Please specify at least one argument for this redis lib call\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(redis.call, 'nosuch') return {tostring(ok), e}", b"0"], b"*2\r\n$5\r\nfalse\r\n$44\r\nERR Unknown Redis command called from script\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(redis.call) return {tostring(ok), e}", b"0"], b"*2\r\n$5\r\nfalse\r\n$64\r\nERR Please specify at least one argument for this redis lib call\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = xpcall(function() redis.call('nosuch') end, function(e) local t = {} for k, v in pairs(e) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t end) return e", b"0"], b"*2\r\n$48\r\nerr=ERR Unknown Redis command called from script\r\n$30\r\nignore_error_stats_update=true\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = xpcall(function() error('x') end, function(e) return e end) return e", b"0"], b"$16\r\nuser_script:1: x\r\n"),
    ],
    &[
        (&[b"EVAL", b"return xpcall(function() end)", b"0"], b"-ERR user_script:1: bad argument #2 to 'xpcall' (value expected) script: 293ab62f79818277321eaae9cb50c30390ccdf46, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return xpcall()", b"0"], b"-ERR user_script:1: bad argument #2 to 'xpcall' (value expected) script: 4ffa146be44b8351d7fd53b4efd48d195c6cb734, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {xpcall(function() return 1, 2 end, print)}", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: d2a27347d037a174241adf0aae21ee8dba4296ac, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(error, {err='x'}) return {tostring(ok), type(e), e}", b"0"], b"*3\r\n$5\r\nfalse\r\n$6\r\nstring\r\n$1\r\nx\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(error, {err=5}) return {tostring(ok), type(e), e}", b"0"], b"*3\r\n$5\r\nfalse\r\n$6\r\nnumber\r\n:5\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(error, {}) return {tostring(ok), type(e)}", b"0"], b"*2\r\n$5\r\nfalse\r\n$5\r\ntable\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(error, 'm') return {tostring(ok), type(e), e}", b"0"], b"*3\r\n$5\r\nfalse\r\n$6\r\nstring\r\n$1\r\nm\r\n"),
    ],
    &[
        (&[b"EVAL", b"local ok, e = pcall(error, setmetatable({}, {__index={err='E'}})) return e", b"0"], b"$1\r\nE\r\n"),
    ],
    &[
        (&[b"EVAL", b"local a, b = pcall() return {tostring(a), tostring(b), type(b)}", b"0"], b"*3\r\n$5\r\nfalse\r\n$31\r\nattempt to call a boolean value\r\n$6\r\nstring\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {pcall(1)}", b"0"], b"*2\r\n$-1\r\n$30\r\nattempt to call a number value\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {pcall(error)}", b"0"], b"*1\r\n$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {pcall(function() return 1, 2 end)}", b"0"], b"*3\r\n:1\r\n:1\r\n:2\r\n"),
    ],
    &[
        (&[b"EVAL", b"return select('#', pcall(function() return 1, nil, nil end))", b"0"], b":4\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.create(function() redis.call('nosuch') end) local ok, e = coroutine.resume(co) return {tostring(ok), type(e), e.err}", b"0"], b"*3\r\n$5\r\nfalse\r\n$5\r\ntable\r\n$44\r\nERR Unknown Redis command called from script\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.create(function() error('in co') end) return {coroutine.resume(co)}", b"0"], b"*2\r\n$-1\r\n$20\r\nuser_script:1: in co\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.wrap(function() redis.call('nosuch') end) co()", b"0"], b"-ERR Unknown Redis command called from script script: f8f5b8fd0bfe5b1c71ae45bb712ac835d7649938, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.wrap(function() error('e') end) co()", b"0"], b"-ERR user_script:1: user_script:1: e script: 76271c2c36d978a32dbabde40bc8897f63c42b07, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return coroutine.resume(1)", b"0"], b"-ERR user_script:1: bad argument #1 to 'resume' (coroutine expected) script: d6c6dcadeb0d8466682e739564974b683764488f, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('boom')", b"0"], b"-ERR boom\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('-X boom')", b"0"], b"-X boom\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('')", b"0"], b"-ERR \r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('-')", b"0"], b"-ERR \r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('MY x\\r\\n')", b"0"], b"-MY x\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('a b')", b"0"], b"-a b\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('ERR')", b"0"], b"-ERR ERR\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('-ERR')", b"0"], b"-ERR ERR\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('ERR  two')", b"0"], b"-ERR  two\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply(' lead')", b"0"], b"- lead\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply(5)", b"0"], b"-ERR wrong number or type of arguments\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply()", b"0"], b"-ERR wrong number or type of arguments\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('a', 'b')", b"0"], b"-ERR wrong number or type of arguments\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.error_reply('ERR x')", b"0"], b"-ERR x\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.error_reply('X y') local t = {} for k, v in pairs(r) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", b"0"], b"*1\r\n$7\r\nerr=X y\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.status_reply('OK')", b"0"], b"+OK\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.status_reply('')", b"0"], b"+\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.status_reply('a','b')", b"0"], b"-ERR wrong number or type of arguments\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.status_reply(5)", b"0"], b"-ERR wrong number or type of arguments\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = redis.status_reply('fine') return {type(r), r.ok}", b"0"], b"*2\r\n$5\r\ntable\r\n$4\r\nfine\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('boom')", b"0"], b"-ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('boom', 0)", b"0"], b"-ERR boom script: 90724e16396e5864c1184910ba6d7440461cee4f, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('boom', 2)", b"0"], b"-ERR boom script: 99976ca81634a6d73420dfed6a053c5428f9d5db, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error({err='X tbl'})", b"0"], b"-X tbl script: 6ad996071e16d5522f51acd74e37c52611f7c759, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error()", b"0"], b"-ERR nil script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error(5)", b"0"], b"-ERR user_script:1: 5 script: 007feaf5de074afe3398416376e34525ad911752, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error(nil)", b"0"], b"-ERR nil script: c402aa49952c86c38f35fb311d54977d08f3bf01, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error(true)", b"0"], b"-ERR true script: 4fafe2149f68a1618a3eef40aeef55f5af6951da, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error({err='Z'}, 0)", b"0"], b"-Z script: 2375edbd7f1998d7d66ba3ec0234a83c11f89a2e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error({err=5})", b"0"], b"-5 script: 58cfd935477cdbf9342fa1cc3ec8452b6a3ddc4b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error({err='e', source='s', line=7})", b"0"], b"-e script: 192a49e89096ea6b2a52941f5adda35be62043c3, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('a\\r\\nb')", b"0"], b"-ERR user_script:1: a  b script: 9651526a9f202dabbb853951a21a9aa00e6d7e2e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error({err='X \\r\\n y'})", b"0"], b"-X    y script: 72400d8b0654e7df1f1e64585f10e8b6c08a39d5, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('x' .. string.rep('y', 200), 0)", b"0"], b"-ERR xyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy script: 6c6d8c1b3bdab19eb1d055bf32d23a7a96501a68, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"error('a\\0b', 0)", b"0"], b"-ERR a script: 8488dc045078fdee261e46433cf23b054cd0c74b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local x = nil + 1", b"0"], b"-ERR user_script:1: attempt to perform arithmetic on a nil value script: cd204846b476dfdb7c087f1a1cef2df50cc9a6e7, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"\n\nlocal x = nil + 1", b"0"], b"-ERR user_script:3: attempt to perform arithmetic on a nil value script: e2d68346255c148997029726b0e1a01d7b77715d, on @user_script:3.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local function f() error('deep') end\nf()", b"0"], b"-ERR user_script:1: deep script: 5534f9391a35c19fc34744875ed4a820d7666369, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local function f()\n  local x = {} .. 'a'\nend\nf()", b"0"], b"-ERR user_script:2: attempt to concatenate a table value script: 2960bda5be3cc4233c756ac84f06cbe3a2959807, on @user_script:2.\r\n"),
    ],
    &[
        (&[b"EVAL", b"string.rep()", b"0"], b"-ERR user_script:1: bad argument #1 to 'rep' (string expected, got no value) script: 2ec92a5bc2be10279b788c84861101755037b120, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} table.sort(t, 1)", b"0"], b"-ERR user_script:1: bad argument #2 to 'sort' (function expected, got number) script: 68c6c3eb35b8058fcf12884c49582b4a5af9ce76, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {3, 1, 2} table.sort(t, function(a, b) error('cmp') end)", b"0"], b"-ERR user_script:1: cmp script: 6699edd796d4fbd5da9483b72d7afa6ff897a7c0, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"table.foreach({1}, error)", b"0"], b"-ERR 1 script: 5e33b72184b77857b3f6add47becbf1a893c9a5a, on =[C]:-1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return ('x'):bad()", b"0"], b"-ERR user_script:1: attempt to call method 'bad' (a nil value) script: 60af801ca8aafcf91936a9a510ab2ceb6df30acc, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return #nil", b"0"], b"-ERR user_script:1: attempt to get length of a nil value script: 6d6abd31d8721234b1ee1a830316ae36ef2693e2, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return nil .. 'x'", b"0"], b"-ERR user_script:1: attempt to concatenate a nil value script: c1e665fd995974aa8a06dc6f5ddbac7aa6d0c7d6, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {} < {}", b"0"], b"-ERR user_script:1: attempt to compare two table values script: fe12717409b91d7c0c64c39528a098f1c423fefe, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = setmetatable({}, {__index = function(t, k) error('idx ' .. k) end}) return t.foo", b"0"], b"-ERR user_script:1: idx foo script: 5422b5aba549de0debd0b8c313b068ce415bf5c5, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex()", b"0"], b"-ERR wrong number of arguments script: 3c7ce947ae74a835cc575b6ee87fb27503cb7ba4, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex('a', 'b')", b"0"], b"-ERR wrong number of arguments script: 168a80c1fc9ccc2a1035122eae7afa0f638ba5b5, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log()", b"0"], b"-ERR redis.log() requires two arguments or more. script: 28e28bf25123668ac541f5eec91bf7ad3d2fe0bd, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log('a', 'b')", b"0"], b"-ERR First argument must be a number (log level). script: a18a496257a6e37fb1d228e7a552fc022cf3a674, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log(9, 'x')", b"0"], b"-ERR Invalid debug level. script: 0d2bb5cc8fe34dbfa499420ecaa69dc2e6c8130e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log(-1, 'x')", b"0"], b"-ERR Invalid debug level. script: 7bcf47ce4df7fae2d604b3ca1d3ca25d0005f487, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log(redis.LOG_DEBUG)", b"0"], b"-ERR redis.log() requires two arguments or more. script: 6bf6f3d3f7f086887c12267e3c474f6111e25657, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log('3', 'x')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.setresp(4)", b"0"], b"-ERR RESP version must be 2 or 3. script: 921c0a48021d97dfd5884aeea41875972c7804d9, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.setresp()", b"0"], b"-ERR redis.setresp() requires one argument. script: 76da64e28014e7c9ad76db33c3918c53d81a3d7e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.setresp('x')", b"0"], b"-ERR RESP version must be 2 or 3. script: 832d0a243114b515e35cb3f65c28e22af06cd822, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.set_repl(8)", b"0"], b"-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: 186ef0ab02df6866cf837bcb124a0cff989e3d09, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.set_repl()", b"0"], b"-ERR redis.set_repl() requires two arguments. script: 9504533b41060c143a92eb2f8878e77d33b6dc33, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.set_repl(-1)", b"0"], b"-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: 745493868ce735be1a1f08a9d115f18086342e9b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.acl_check_cmd('nosuch')", b"0"], b"-ERR Invalid command passed to redis.acl_check_cmd() script: d2491587bab5149c93be0dce4426f7a06ba9e1a1, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.acl_check_cmd()", b"0"], b"-ERR Please specify at least one argument for this redis lib call script: 1124f33ad66e7866b4e0c1499a4c20fb5eb9c180, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.acl_check_cmd({})", b"0"], b"-ERR Lua redis lib command arguments must be strings or integers script: 8b3d233cc233d15538b743edd3bc4603509e4325, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random(0)", b"0"], b"-ERR user_script:1: bad argument #1 to 'random' (interval is empty) script: 008bcb60f86ee36d26c67b641b46674578d9cba0, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random(1,2,3)", b"0"], b"-ERR user_script:1: wrong number of arguments script: 5cd983b5db563301a1c7ab05351573640323e7a9, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.randomseed()", b"0"], b"-ERR user_script:1: bad argument #1 to 'randomseed' (number expected, got no value) script: 9eed10cf76a7a6865ba6e0fcf62b0b32831bf4da, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random('x')", b"0"], b"-ERR user_script:1: bad argument #1 to 'random' (number expected, got string) script: d36aee4c433f6d1a257f71070b6a0b37a40bbb04, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random(nil)", b"0"], b"-ERR user_script:1: bad argument #1 to 'random' (number expected, got nil) script: c3e07c2148eefa475b0006ef1a176a5e1ca7ee5c, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random(1, 0)", b"0"], b"-ERR user_script:1: bad argument #2 to 'random' (interval is empty) script: 789f0be3312ff35b394964e110c0bac82abdb887, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {pcall(math.random, 0)}", b"0"], b"*2\r\n$-1\r\n$42\r\nbad argument #1 to '?' (interval is empty)\r\n"),
    ],
    &[
        (&[b"EVAL", b"local r = math.random return r(0)", b"0"], b"-ERR user_script:1: bad argument #1 to 'r' (interval is empty) script: d649127f316047bea949051456251089ae11adbb, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.random({})", b"0"], b"-ERR user_script:1: bad argument #1 to 'random' (number expected, got table) script: 17cc90fca383d9aa11c5a1723bb718259622da14, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math:random(0)", b"0"], b"-ERR user_script:1: calling 'random' on bad self (number expected, got table) script: e32484f7d2ad0dd93be9939c2722d8eec95df59c, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.randomseed(nil)", b"0"], b"-ERR user_script:1: bad argument #1 to 'randomseed' (number expected, got nil) script: 2344d3400bc323e751b550b903d100731c9bdc5b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local function f() return f() + 1 end return f()", b"0"], b"-ERR user_script:1: stack overflow script: 6ab18391d60e7e7bcbf4a881fd9b0c865dade0c6, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x", b"0"], b"-ERR user_script:1: C stack overflow script: a7cd4296eba832f1e54ff7d0bbaaad9c64d3d19b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 'x", b"0"], b"-ERR Error compiling script (new function): user_script:1: unfinished string near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"x = ", b"0"], b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"\n\nreturn = 1", b"0"], b"-ERR Error compiling script (new function): user_script:3: unexpected symbol near '='\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1 +", b"0"], b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"for", b"0"], b"-ERR Error compiling script (new function): user_script:1: '<name>' expected near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"return \"\\q\"", b"0"], b"$1\r\nq\r\n"),
    ],
    &[
        (&[b"EVAL", b"local x = [[", b"0"], b"-ERR Error compiling script (new function): user_script:1: unfinished long string near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"--[[", b"0"], b"-ERR Error compiling script (new function): user_script:1: unfinished long comment near '<eof>'\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"EVAL", b"return redis.call('incr', 'k')", b"0"], b"-ERR value is not an integer or out of range script: 6f2b230e8168d6623331d135dfd8a3a262da17ee, on @user_script:1.\r\n"),
        (&[b"EVAL", b"return redis.pcall('incr', 'k')", b"0"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return redis.call('hset', 'k', 'a', 'b')", b"0"], b"-WRONGTYPE Operation against a key holding the wrong kind of value script: d8dc4e6bf046c0909f324304b1a61a9d6ca0195b, on @user_script:1.\r\n"),
        (&[b"EVAL", b"local ok, e = pcall(redis.call, 'incr', 'k') return {tostring(ok), e}", b"0"], b"*2\r\n$5\r\nfalse\r\n$43\r\nERR value is not an integer or out of range\r\n"),
    ],
    &[
        (&[b"EVAL", b"\x1bLuaQ\0\x01\x04\x08\x04\x08\0", b"0"], b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near 'char(27)'\r\n"),
        (&[b"EVAL", b"return '\0'", b"0"], b"$1\r\n\0\r\n"),
        (&[b"EVAL", b"error('nul\0inside')", b"0"], b"-ERR user_script:1: nul script: f5e577c0a48190546c961592dc2f2b2d79a0cac7, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return \xff", b"0"], b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '\xff'\r\n"),
        (&[b"EVAL", b"local f, e = loadstring('x = ', 'a\\0b') return e", b"0"], b"$46\r\n[string \"a\"]:1: unexpected symbol near '<eof>'\r\n"),
        (&[b"EVAL", b"local f, e = loadstring('x = \xfe') return e", b"0"], b"$46\r\n[string \"x = \xfe\"]:1: unexpected symbol near '\xfe'\r\n"),
        (&[b"EVAL", b"return loadstring('return 1', {})", b"0"], b"-ERR user_script:1: bad argument #2 to 'loadstring' (string expected, got table) script: 1a166d553d69eebc81af608d124d12681c750054, on @user_script:1.\r\n"),
        (&[b"EVAL", b"local f, e = loadstring(string.dump(function() end)) return e", b"0"], b"$53\r\n[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'\r\n"),
    ],
];

/// The sandbox: locked globals, what is loaded and what is not, `loadstring`, `math.random`, the `redis` table.
pub(super) const SANDBOX: &[&[Step]] = &[
    &[
        (&[b"EVAL", b"x = 5", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 818a330663e3c3e78469660421595218e5ab5c48, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return y", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: e278681ed961e2fb52881313e5c90fdd93749940, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local a = _G['nope'] return 1", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'nope' script: cf93e3bacee99f82b0ef2526a94f8eae4dbc41ff, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return _G.nope", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'nope' script: e05ea468a5d60e49cf9aab6a5f99119f1e4cd465, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return _G[1]", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable '1' script: 0091a13ad00ce89d838ef5c652c12912460a3d1c, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return _G[true]", b"0"], b"-ERR user_script:1: Second argument to luaProtectedTableError must be a string or number script: a5fb9501a2e4fbb131676c3a0b4e087c474f92b4, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"string.x = 1", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: c3eb0a2a15b3d4790b323c4104029c1ae425a769, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis.call = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 2786c35ed73d3860851cf52e0b5dfbbc0bdb4803, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.pi = 3", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 29d944a5e7490072c60ab9cdf9bf7c8d2c97058c, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"table.insert = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 5930172eaf13a2d39bccc689d15bde0632333dab, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"coroutine.create = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: ba9186a50bd031d765793962e5da2675987637e7, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"rawset(_G, 'x', 1)", b"0"], b"-ERR Attempt to modify a readonly table script: e2c706419da183d6229a1230c3be09cc32cdeee0, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"rawset(string, 'x', 1)", b"0"], b"-ERR Attempt to modify a readonly table script: 520efe0be9eced50ab34c0e956295bc924abd703, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"setmetatable(_G, nil)", b"0"], b"-ERR Attempt to modify a readonly table script: 22fdd3b51da2d4bc6703d71d651cd782d8e5a35f, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"setmetatable(string, {})", b"0"], b"-ERR Attempt to modify a readonly table script: f77b14463e19b108fd21de6f1ba202c4266299ca, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"setmetatable(_G)", b"0"], b"-ERR user_script:1: bad argument #2 to 'setmetatable' (nil or table expected) script: 13c18ae0136949568d5ac42f341341d722c29001, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"KEYS = {}", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 6f9c2135c385ef4406555ad3ccccb97d6af382cb, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"redis = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: f3fd7dd12033660a6251e9580faba253187a8a12, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"_G.x = 1", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: e5cf4a26667af1721988fe8c9829d5cd2e26c62e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"_G._G = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 51b4958c168d3475f833ff2746685615f181934d, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"getmetatable(_G).__index = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 1ec4f48ee3d02bfee5da8ba9aeab8a503d3032f1, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"getmetatable('').__index = nil", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: d73a1dfb50411851ebe32e3e075eb37e35009eff, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} setmetatable(t, {}) rawset(t, 'a', 1) return t.a", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = setmetatable({}, {__metatable = 'no'}) return getmetatable(t)", b"0"], b"$2\r\nno\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = setmetatable({}, {__metatable = 'no'}) setmetatable(t, {})", b"0"], b"-ERR user_script:1: cannot change a protected metatable script: 9c614e342433fe650954178b013ebf8d67400ebb, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawget(_G, 'nope')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawget(_G, 'redis') ~= nil", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawget(string, 'rep') ~= nil", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawget(nil, 'x')", b"0"], b"-ERR user_script:1: bad argument #1 to 'rawget' (table expected, got nil) script: bcc84757e798116de65f89b1f9d07ddc8e0e0160, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawget({})", b"0"], b"-ERR user_script:1: bad argument #2 to 'rawget' (value expected) script: 158371e2706c5bc7b931bb809705f12ad3c1591b, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawset({}, nil, 1)", b"0"], b"-ERR table index is nil script: 5896009464192fbab25680c7f3a63b35ca0d9242, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawset({}, 0/0, 1)", b"0"], b"-ERR table index is NaN script: d9b70d715d8762a13ec7b724f3cb6224edc36419, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return rawequal(_G, _G._G)", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getmetatable(''))", b"0"], b"$5\r\ntable\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getmetatable(_G))", b"0"], b"$5\r\ntable\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable('').__index == string", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable('').__index.rep('a', 3)", b"0"], b"$3\r\naaa\r\n"),
    ],
    &[
        (&[b"EVAL", b"return ('x'):rep(2)", b"0"], b"$2\r\nxx\r\n"),
    ],
    &[
        (&[b"EVAL", b"return (5):rep(2)", b"0"], b"-ERR user_script:1: attempt to index a number value script: e25cb72dc4e528ab64987287087be2202d94fd92, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable(string)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getmetatable(redis))", b"0"], b"$3\r\nnil\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable(_G).__metatable", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getmetatable(_G).__index)", b"0"], b"$8\r\nfunction\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getmetatable(_G).__newindex)", b"0"], b"$3\r\nnil\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable()", b"0"], b"-ERR user_script:1: bad argument #1 to 'getmetatable' (value expected) script: 079907dcac7a4f1ecf68e10e298d3983826b55b6, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return getmetatable(getmetatable(_G))", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(getmetatable(_G)) do t[#t+1] = k end table.sort(t) return t", b"0"], b"*1\r\n$7\r\n__index\r\n"),
    ],
    &[
        (&[b"EVAL", b"return next(string) ~= nil", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return next({}, 'nope')", b"0"], b"-ERR invalid key to 'next' script: 7c77ebe81e74a9d2ae88efb8ced4600660166343, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return next()", b"0"], b"-ERR user_script:1: bad argument #1 to 'next' (table expected, got no value) script: 7afcffdf9667aa0090537841aa54a3176adc1b3e, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return pairs()", b"0"], b"-ERR user_script:1: bad argument #1 to 'pairs' (table expected, got no value) script: e8495aaf1a4b35f64568a9b28855af63316d29d4, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return #string", b"0"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return #_G", b"0"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"local n = 0 for k in pairs(_G) do n = n + 1 end return n > 25", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(redis) do t[#t+1] = k .. ':' .. tostring(type(v) == 'function' and 'f' or v) end table.sort(t) return t", b"0"], b"*23\r\n$11\r\nLOG_DEBUG:0\r\n$12\r\nLOG_NOTICE:2\r\n$13\r\nLOG_VERBOSE:1\r\n$13\r\nLOG_WARNING:3\r\n$20\r\nREDIS_VERSION:7.0.15\r\n$24\r\nREDIS_VERSION_NUM:458767\r\n$10\r\nREPL_ALL:3\r\n$10\r\nREPL_AOF:1\r\n$11\r\nREPL_NONE:0\r\n$14\r\nREPL_REPLICA:2\r\n$12\r\nREPL_SLAVE:2\r\n$15\r\nacl_check_cmd:f\r\n$12\r\nbreakpoint:f\r\n$6\r\ncall:f\r\n$7\r\ndebug:f\r\n$13\r\nerror_reply:f\r\n$5\r\nlog:f\r\n$7\r\npcall:f\r\n$20\r\nreplicate_commands:f\r\n$10\r\nset_repl:f\r\n$9\r\nsetresp:f\r\n$9\r\nsha1hex:f\r\n$14\r\nstatus_reply:f\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(string) do t[#t+1] = k end table.sort(t) return t", b"0"], b"*15\r\n$4\r\nbyte\r\n$4\r\nchar\r\n$4\r\ndump\r\n$4\r\nfind\r\n$6\r\nformat\r\n$5\r\ngfind\r\n$6\r\ngmatch\r\n$4\r\ngsub\r\n$3\r\nlen\r\n$5\r\nlower\r\n$5\r\nmatch\r\n$3\r\nrep\r\n$7\r\nreverse\r\n$3\r\nsub\r\n$5\r\nupper\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(math) do t[#t+1] = k end table.sort(t) return t", b"0"], b"*31\r\n$3\r\nabs\r\n$4\r\nacos\r\n$4\r\nasin\r\n$4\r\natan\r\n$5\r\natan2\r\n$4\r\nceil\r\n$3\r\ncos\r\n$4\r\ncosh\r\n$3\r\ndeg\r\n$3\r\nexp\r\n$5\r\nfloor\r\n$4\r\nfmod\r\n$5\r\nfrexp\r\n$4\r\nhuge\r\n$5\r\nldexp\r\n$3\r\nlog\r\n$5\r\nlog10\r\n$3\r\nmax\r\n$3\r\nmin\r\n$3\r\nmod\r\n$4\r\nmodf\r\n$2\r\npi\r\n$3\r\npow\r\n$3\r\nrad\r\n$6\r\nrandom\r\n$10\r\nrandomseed\r\n$3\r\nsin\r\n$4\r\nsinh\r\n$4\r\nsqrt\r\n$3\r\ntan\r\n$4\r\ntanh\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(table) do t[#t+1] = k end table.sort(t) return t", b"0"], b"*9\r\n$6\r\nconcat\r\n$7\r\nforeach\r\n$8\r\nforeachi\r\n$4\r\ngetn\r\n$6\r\ninsert\r\n$4\r\nmaxn\r\n$6\r\nremove\r\n$4\r\nsetn\r\n$4\r\nsort\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = {} for k, v in pairs(coroutine) do t[#t+1] = k end table.sort(t) return t", b"0"], b"*6\r\n$6\r\ncreate\r\n$6\r\nresume\r\n$7\r\nrunning\r\n$6\r\nstatus\r\n$4\r\nwrap\r\n$5\r\nyield\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(getfenv)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'getfenv' script: d2c7282719af3bf866eec648f4592730ecb3a75f, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(setfenv)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'setfenv' script: ceaddaad3558d2f10cbb8082ea10e1b63f3ac0ea, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(os)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: 88bfcb2247db0b6fa4925f3cddc3fd0651459f99, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(io)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'io' script: 918bbded8bab006be53c3db116d9c93508fc799a, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(require)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'require' script: a10ff9bcfafac54cee41502b0e65e31ab05862c3, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(print)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: 296aa29e565df267b5e30e498f3872c9f9e8e8cc, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(dofile)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'dofile' script: f14b399205539f5db37113032a1a25c72b8c6743, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(loadfile)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'loadfile' script: dc6fbc079d0e6ef2af8c376dda4f3d362fa30d87, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(newproxy)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'newproxy' script: 2db8cbf73e97a4b7d8d1a7ce472bf57302f0f369, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(debug)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'debug' script: 21bcbd6f0f3639ee18732cb6907e65a4859b9625, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(module)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'module' script: ec1c6cc4fb3e3178e6b741a3338324a32a935d97, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(package)", b"0"], b"-ERR user_script:1: Script attempted to access nonexistent global variable 'package' script: 9d2e094dbe8b2fe1613bf6e8e2abe7b98d1569b8, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return _VERSION", b"0"], b"$7\r\nLua 5.1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return _G._G == _G", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return type(__redis__err__handler)", b"0"], b"$8\r\nfunction\r\n"),
    ],
    &[
        (&[b"EVAL", b"return __redis__err__handler('x')", b"0"], b"-ERR x\r\n"),
    ],
    &[
        (&[b"EVAL", b"local e = __redis__err__handler('x') return {e.source, e.line}", b"0"], b"*2\r\n$12\r\n@user_script\r\n:1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local e = __redis__err__handler({err='t'}) return {e.err, e.source, e.line}", b"0"], b"*3\r\n$1\r\nt\r\n$12\r\n@user_script\r\n:1\r\n"),
    ],
    &[
        (&[b"EVAL", b"KEYS[1] = 'x' return KEYS[1]", b"0"], b"$1\r\nx\r\n"),
    ],
    &[
        (&[b"EVAL", b"return #KEYS", b"0"], b":0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {#KEYS, #ARGV}", b"0"], b"*2\r\n:0\r\n:0\r\n"),
    ],
    &[
        (&[b"EVAL", b"table.insert(KEYS, 'k') return KEYS", b"0"], b"*1\r\n$1\r\nk\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f = loadstring('x = 1') f()", b"0"], b"-ERR [string \"x = 1\"]:1: Attempt to modify a readonly table script: f358a8565716d9999ad1b3d9696ab6c3c37b0a64, on x = 1:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f = loadstring('return nope') return f()", b"0"], b"-ERR [string \"return nope\"]:1: Script attempted to access nonexistent global variable 'nope' script: 4287a1cbace537edde25d75cb3d2b26d6eecf70d, on return nope:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f = loadstring('error(\"zz\")') f()", b"0"], b"-ERR [string \"error(\"zz\")\"]:1: zz script: 162cd7a4c97c03333147a8d4307e348e3ecf8acc, on error(\"zz\"):1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('x = ') return {tostring(f), e}", b"0"], b"*2\r\n$3\r\nnil\r\n$49\r\n[string \"x = \"]:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('x = ', 'nm') return {tostring(f), e}", b"0"], b"*2\r\n$3\r\nnil\r\n$47\r\n[string \"nm\"]:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('x = ', '=nm') return e", b"0"], b"$36\r\nnm:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('x = ', '@nm') return e", b"0"], b"$36\r\nnm:1: unexpected symbol near '<eof>'\r\n"),
    ],
    &[
        (&[b"EVAL", b"return loadstring('return 7')()", b"0"], b":7\r\n"),
    ],
    &[
        (&[b"EVAL", b"return loadstring('return redis.REDIS_VERSION')()", b"0"], b"$6\r\n7.0.15\r\n"),
    ],
    &[
        (&[b"EVAL", b"return loadstring(5)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return loadstring()", b"0"], b"-ERR user_script:1: bad argument #1 to 'loadstring' (string expected, got no value) script: d80723d7d8427f977d218ab648c910adce50e8a3, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return loadstring('return ...')(1, 2)", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('\\27Lua') return {tostring(f), e}", b"0"], b"*2\r\n$3\r\nnil\r\n$52\r\n[string \"\x1bLua\"]:1: unexpected symbol near 'char(27)'\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = loadstring('return') return type(f)", b"0"], b"$8\r\nfunction\r\n"),
    ],
    &[
        (&[b"EVAL", b"local parts = {'return ', '4', '2'} local i = 0 return load(function() i = i + 1 return parts[i] end)()", b"0"], b":42\r\n"),
    ],
    &[
        (&[b"EVAL", b"return load()", b"0"], b"-ERR user_script:1: bad argument #1 to 'load' (function expected, got no value) script: a6fcbea7c6189fb0ab8d5189022a9a1440eee157, on @user_script:1.\r\n"),
    ],
    &[
        (&[b"EVAL", b"return load(function() return nil end) == nil", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local f, e = load(function() return 'x = ' end, 'ld') return e", b"0"], b"$43\r\n[string \"ld\"]:1: unexpected symbol near '='\r\n"),
    ],
    &[
        (&[b"EVAL", b"return coroutine.running()", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end) return {co(1), co(5)}", b"0"], b"*2\r\n:2\r\n:10\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.create(function() return _G.nope end) return {coroutine.resume(co)}", b"0"], b"*2\r\n$-1\r\n$76\r\nuser_script:1: Script attempted to access nonexistent global variable 'nope'\r\n"),
    ],
    &[
        (&[b"EVAL", b"local co = coroutine.create(function() x = 1 end) return {coroutine.resume(co)}", b"0"], b"*2\r\n$-1\r\n$49\r\nuser_script:1: Attempt to modify a readonly table\r\n"),
    ],
    &[
        (&[b"EVAL", b"return collectgarbage('count') > 0", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return gcinfo() > 0", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return unpack({1, 2, 3})", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return select(-1, 1, 2, 3)", b"0"], b":3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tonumber('0x10')", b"0"], b":16\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tonumber('  10  ')", b"0"], b":10\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tonumber('z', 36)", b"0"], b":35\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tonumber(nil)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return string.format('%q', 'a\\nb')", b"0"], b"$6\r\n\"a\\\nb\"\r\n"),
    ],
    &[
        (&[b"EVAL", b"return string.format('%5.1f', 3.14159)", b"0"], b"$5\r\n  3.1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(2^53)", b"0"], b"$18\r\n9.007199254741e+15\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(0.1)", b"0"], b"$3\r\n0.1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(1e15)", b"0"], b"$5\r\n1e+15\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(-0.0)", b"0"], b"$2\r\n-0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.huge", b"0"], b":-9223372036854775808\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.floor(-3.5)", b"0"], b":-4\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 7 % -3", b"0"], b":-2\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.fmod(7, -3)", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {string.find('hello', 'l+')}", b"0"], b"*2\r\n:3\r\n:4\r\n"),
    ],
    &[
        (&[b"EVAL", b"return string.gsub('abc', '%w', '%0%0')", b"0"], b"$6\r\naabbcc\r\n"),
    ],
    &[
        (&[b"EVAL", b"return table.concat({1, 2, 'x'}, ',')", b"0"], b"$5\r\n1,2,x\r\n"),
    ],
    &[
        (&[b"EVAL", b"return table.getn({1, 2})", b"0"], b":2\r\n"),
    ],
    &[
        (&[b"EVAL", b"return table.maxn({1, 2, [10] = 3})", b"0"], b":10\r\n"),
    ],
    &[
        (&[b"EVAL", b"return string.gfind ~= nil", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return math.mod(7, 3)", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.REDIS_VERSION", b"0"], b"$6\r\n7.0.15\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.REDIS_VERSION_NUM", b"0"], b":458767\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", b"0"], b"*4\r\n:0\r\n:1\r\n:2\r\n:3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}", b"0"], b"*5\r\n:0\r\n:1\r\n:2\r\n:2\r\n:3\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex('')", b"0"], b"$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex('abc')", b"0"], b"$40\r\na9993e364706816aba3e25717850c26c9cd0d89d\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex(1)", b"0"], b"$40\r\n356a192b7913b04c54574d18c28d46e6395428ab\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex(1.5)", b"0"], b"$40\r\naa8f289ebe6d4db1b4a1038b8931ec8c2b5399fb\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex({})", b"0"], b"$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.sha1hex(nil)", b"0"], b"$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"),
    ],
    &[
        (&[b"EVAL", b"return #redis.sha1hex('x')", b"0"], b":40\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log(redis.LOG_WARNING, 'x')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {select('#', redis.log(3, 'x'))}", b"0"], b"*1\r\n:0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.log('1', 'x', {}, 2)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.setresp(2)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {select('#', redis.setresp(2))}", b"0"], b"*1\r\n:0\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.set_repl(redis.REPL_ALL)", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.set_repl('1')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.replicate_commands()", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.breakpoint()", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.debug('x')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.acl_check_cmd('get', 'x')", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"return redis.acl_check_cmd('GET')", b"0"], b":1\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(42) return {math.random(100), math.random(100), math.random(1, 1000000)}", b"0"], b"*3\r\n:75\r\n:35\r\n:111086\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(42) return tostring(math.random())", b"0"], b"$16\r\n0.74452500033403\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(-5) return {math.random(10), math.random(-3, 3)}", b"0"], b"*2\r\n:9\r\n:-2\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed('7') return math.random(2147483647)", b"0"], b":572184556\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(42) return math.random(3.9)", b"0"], b":3\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(42) return math.random('3')", b"0"], b":3\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(1) return math.random(-2147483647, 2147483647)", b"0"], b":-2147483648\r\n"),
    ],
    &[
        (&[b"EVAL", b"math.randomseed(3) return {math.random(1), math.random(5, 5)}", b"0"], b"*2\r\n:1\r\n:5\r\n"),
    ],
    &[
        (&[b"EVAL", b"return {math.random(1000), math.random(1000)}", b"0"], b"*2\r\n:397\r\n:841\r\n"),
        (&[b"EVAL", b"return math.random(1000)", b"0"], b":354\r\n"),
        (&[b"SCRIPT", b"FLUSH"], b"+OK\r\n"),
        (&[b"EVAL", b"return math.random(1000)", b"0"], b":447\r\n"),
    ],
    &[
        (&[b"EVAL", b"return tostring(math.random())", b"0"], b"$16\r\n0.39646477363839\r\n"),
    ],
    &[
        (&[b"EVAL", b"x = 1", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 34bce5f775de97f557a34088509c8bfe1ea17e52, on @user_script:1.\r\n"),
        (&[b"EVAL", b"return rawget(_G, 'x')", b"0"], b"$-1\r\n"),
        (&[b"EVAL", b"return rawget(string, 'x')", b"0"], b"$-1\r\n"),
    ],
    &[
        (&[b"EVAL", b"local t = getmetatable('') t.x = 1", b"0"], b"-ERR user_script:1: Attempt to modify a readonly table script: 898249ff122a56b22cf0ffe359e4e9e499fca640, on @user_script:1.\r\n"),
        (&[b"EVAL", b"return ('a'):upper()", b"0"], b"$1\r\nA\r\n"),
    ],
];

/// `numkeys`, `EVALSHA`, `SCRIPT` and the shebang line.
pub(super) const ADMIN: &[&[Step]] = &[
    &[
        (&[b"EVAL", b"return 1", b"1"], b"-ERR Number of keys can't be greater than number of args\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1", b"-1"], b"-ERR Number of keys can't be negative\r\n"),
        (&[b"EVAL", b"return 1", b"x"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b" 1"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"01"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"+0"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"-0"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"9223372036854775808"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"-9223372036854775808"], b"-ERR Number of keys can't be negative\r\n"),
        (&[b"EVAL", b"return 1", b""], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1", b"1.5"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVAL", b"return 1"], b"-ERR wrong number of arguments for 'eval' command\r\n"),
        (&[b"EVAL"], b"-ERR wrong number of arguments for 'eval' command\r\n"),
        (&[b"EVAL", b"return 'x", b"5"], b"-ERR Number of keys can't be greater than number of args\r\n"),
    ],
    &[
        (&[b"EVAL", b"return 1", b"0", b"a", b"b"], b":1\r\n"),
        (&[b"EVAL", b"return {KEYS, ARGV}", b"1", b"a", b"b"], b"*2\r\n*1\r\n$1\r\na\r\n*1\r\n$1\r\nb\r\n"),
        (&[b"EVAL", b"return {#KEYS, #ARGV}", b"1", b"a", b"b"], b"*2\r\n:1\r\n:1\r\n"),
        (&[b"EVAL", b"return {KEYS[1], KEYS[2], ARGV[1]}", b"2", b"k1", b"k2", b"a1"], b"*3\r\n$2\r\nk1\r\n$2\r\nk2\r\n$2\r\na1\r\n"),
        (&[b"EVAL", b"return ARGV", b"0", b"a\0b", b""], b"*2\r\n$3\r\na\0b\r\n$0\r\n\r\n"),
    ],
    &[
        (&[b"EVALSHA", b"abc", b"0"], b"-NOSCRIPT No matching script. Please use EVAL.\r\n"),
        (&[b"EVALSHA", b"abc", b"x"], b"-NOSCRIPT No matching script. Please use EVAL.\r\n"),
        (&[b"EVALSHA", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b"x"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EVALSHA", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b"0"], b"-NOSCRIPT No matching script. Please use EVAL.\r\n"),
        (&[b"EVALSHA", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b"1"], b"-ERR Number of keys can't be greater than number of args\r\n"),
        (&[b"EVALSHA", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"], b"-ERR wrong number of arguments for 'evalsha' command\r\n"),
        (&[b"EVALSHA"], b"-ERR wrong number of arguments for 'evalsha' command\r\n"),
    ],
    &[
        (&[b"SCRIPT", b"LOAD", b"return 1"], b"$40\r\ne0e1f9fabfc9d4800c877a703b823ac0578ff8db\r\n"),
        (&[b"SCRIPT", b"load", b"return 1"], b"$40\r\ne0e1f9fabfc9d4800c877a703b823ac0578ff8db\r\n"),
        (&[b"SCRIPT", b"EXISTS", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db", b"E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", b"nope", b""], b"*4\r\n:1\r\n:1\r\n:0\r\n:0\r\n"),
        (&[b"EVALSHA", b"E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", b"0"], b":1\r\n"),
        (&[b"EVALSHA", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db", b"0"], b":1\r\n"),
        (&[b"SCRIPT", b"flush", b"x"], b"-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n"),
        (&[b"SCRIPT", b"flush", b"sync", b"x"], b"-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n"),
        (&[b"SCRIPT", b"flush", b"ASYNC"], b"+OK\r\n"),
        (&[b"SCRIPT", b"EXISTS", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db"], b"*1\r\n:0\r\n"),
        (&[b"EVALSHA", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db", b"0"], b"-NOSCRIPT No matching script. Please use EVAL.\r\n"),
        (&[b"EVAL", b"return 1", b"0"], b":1\r\n"),
        (&[b"SCRIPT", b"EXISTS", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db"], b"*1\r\n:1\r\n"),
        (&[b"EVALSHA", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db", b"0"], b":1\r\n"),
        (&[b"SCRIPT", b"flush", b"SYNC"], b"+OK\r\n"),
        (&[b"SCRIPT", b"FLUSH"], b"+OK\r\n"),
        (&[b"SCRIPT", b"EXISTS", b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db"], b"*1\r\n:0\r\n"),
    ],
    &[
        (&[b"SCRIPT", b"LOAD", b"return 'x"], b"-ERR Error compiling script (new function): user_script:1: unfinished string near '<eof>'\r\n"),
        (&[b"SCRIPT", b"LOAD", b"#!lua"], b"-ERR Invalid script shebang\r\n"),
        (&[b"SCRIPT", b"LOAD", b"#!lua flags=no-writes\nreturn 1"], b"$40\r\n77f21361171213377cb083e2ffc2ae24ffdff8fb\r\n"),
        (&[b"EVAL", b"return 'x", b"0"], b"-ERR Error compiling script (new function): user_script:1: unfinished string near '<eof>'\r\n"),
        (&[b"SCRIPT", b"EXISTS", b"b6f6f9db6e0d3a5f3e8cc5dbe2bd8e3f1fc4d0e0"], b"*1\r\n:0\r\n"),
    ],
    &[
        (&[b"SCRIPT"], b"-ERR wrong number of arguments for 'script' command\r\n"),
        (&[b"SCRIPT", b"nope"], b"-ERR unknown subcommand 'nope'. Try SCRIPT HELP.\r\n"),
        (&[b"SCRIPT", b"nope", b"x"], b"-ERR unknown subcommand 'nope'. Try SCRIPT HELP.\r\n"),
        (&[b"SCRIPT", b"load"], b"-ERR wrong number of arguments for 'script|load' command\r\n"),
        (&[b"SCRIPT", b"load", b"a", b"b"], b"-ERR wrong number of arguments for 'script|load' command\r\n"),
        (&[b"SCRIPT", b"EXISTS"], b"-ERR wrong number of arguments for 'script|exists' command\r\n"),
        (&[b"SCRIPT", b"kill"], b"-NOTBUSY No scripts in execution right now.\r\n"),
        (&[b"SCRIPT", b"kill", b"x"], b"-ERR wrong number of arguments for 'script|kill' command\r\n"),
        (&[b"SCRIPT", b"help"], b"*17\r\n+SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+DEBUG (YES|SYNC|NO)\r\n+    Set the debug mode for subsequent scripts executed.\r\n+EXISTS <sha1> [<sha1> ...]\r\n+    Return information about the existence of the scripts in the script cache.\r\n+FLUSH [ASYNC|SYNC]\r\n+    Flush the Lua scripts cache. Very dangerous on replicas.\r\n+    When called without the optional mode argument, the behavior is determined by the\r\n+    lazyfree-lazy-user-flush configuration directive. Valid modes are:\r\n+    * ASYNC: Asynchronously flush the scripts cache.\r\n+    * SYNC: Synchronously flush the scripts cache.\r\n+KILL\r\n+    Kill the currently executing Lua script.\r\n+LOAD <script>\r\n+    Load a script into the scripts cache without executing it.\r\n+HELP\r\n+    Prints this help.\r\n"),
        (&[b"SCRIPT", b"HELP", b"x"], b"-ERR wrong number of arguments for 'script|help' command\r\n"),
        (&[b"SCRIPT", b"debug"], b"-ERR wrong number of arguments for 'script|debug' command\r\n"),
        (&[b"SCRIPT", b"debug", b"maybe"], b"-ERR Use SCRIPT DEBUG YES/SYNC/NO\r\n"),
        (&[b"SCRIPT", b"DEBUG", b"no"], b"+OK\r\n"),
        (&[b"SCRIPT", b"|load", b"x"], b"-ERR unknown subcommand '|load'. Try SCRIPT HELP.\r\n"),
        (&[b"script", b"Load", b"return 2"], b"$40\r\n7f923f79fe76194c868d7e1d0820de36700eb649\r\n"),
        (&[b"SCRIPT", b"bad\r\nname"], b"-ERR unknown subcommand 'bad  name'. Try SCRIPT HELP.\r\n"),
        (&[b"SCRIPT", b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"], b"-ERR unknown subcommand 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'. Try SCRIPT HELP.\r\n"),
    ],
    &[
        (&[b"EVAL", b"#!lua\nreturn 1", b"0"], b":1\r\n"),
        (&[b"EVAL", b"#!lua", b"0"], b"-ERR Invalid script shebang\r\n"),
        (&[b"EVAL", b"#!python\nreturn 1", b"0"], b"-ERR Unexpected engine in script shebang: #!python\r\n"),
        (&[b"EVAL", b"#! lua\nreturn 1", b"0"], b"-ERR Unexpected engine in script shebang: #!\r\n"),
        (&[b"EVAL", b"#!\nreturn 1", b"0"], b"-ERR Unexpected engine in script shebang: #!\r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes\nreturn redis.call('set','a','b')", b"0"], b"-ERR Write commands are not allowed from read-only scripts. script: 6acb400a50fe96e33eca4e0af6e9dcfb21193726, on @user_script:2.\r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes,allow-oom\nreturn redis.call('get','a')", b"0"], b"$-1\r\n"),
        (&[b"EVAL", b"#!lua flags=bogus\nreturn 1", b"0"], b"-ERR Unexpected flag in script shebang: bogus\r\n"),
        (&[b"EVAL", b"#!lua name=x\nreturn 1", b"0"], b"-ERR Unknown lua shebang option: name=x\r\n"),
        (&[b"EVAL", b"#!lua flags=\nreturn 1", b"0"], b":1\r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes,\nreturn 1", b"0"], b"-ERR Unexpected flag in script shebang: \r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes\nreturn redis.call('publish','a','b')", b"0"], b"-ERR Write commands are not allowed from read-only scripts. script: 95c0e5b3e3ddc1a03319f1ee24c5e5afa8fd10b2, on @user_script:2.\r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes\nreturn redis.pcall('set','a','b')", b"0"], b"-ERR Write commands are not allowed from read-only scripts.\r\n"),
        (&[b"EVAL", b"#!lua\nerror('x')", b"0"], b"-ERR user_script:2: x script: f0363b84b71234131413165ce8dee0dbb5f9ce96, on @user_script:2.\r\n"),
        (&[b"EVAL", b"#!lua\nreturn nope", b"0"], b"-ERR user_script:2: Script attempted to access nonexistent global variable 'nope' script: 6705b8feb8ac1a8f4f9bfd28943f9260ad957aa4, on @user_script:2.\r\n"),
        (&[b"EVAL", b"#!lua \"a b\"\nreturn 1", b"0"], b"-ERR Unknown lua shebang option: a b\r\n"),
        (&[b"EVAL", b"#!lua \"unterminated\nreturn 1", b"0"], b"-ERR Invalid engine in script shebang\r\n"),
        (&[b"EVAL", b"#!lua\r\nreturn 1", b"0"], b":1\r\n"),
        (&[b"EVAL", b"#!lua flags=allow-stale,no-cluster,allow-cross-slot-keys\nreturn redis.call('set','a','b')", b"0"], b"+OK\r\n"),
        (&[b"EVAL", b"#!lua \"a\\rb\"\nreturn 1", b"0"], b"-ERR Unknown lua shebang option: a\rb\r\n"),
        (&[b"EVAL", b"#!lua flags=no-writes flags=allow-oom\nreturn 1", b"0"], b":1\r\n"),
        (&[b"EVAL", b" #!lua\nreturn 1", b"0"], b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '#'\r\n"),
    ],
];
