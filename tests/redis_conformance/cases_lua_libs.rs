//! Redis's Lua libraries, `cjson`, `cmsgpack`, `struct` and `bit`: round trips, number
//! formatting, escaping, sparse arrays, errors and their texts, nesting limits, the settings
//! that last between scripts (each case puts back what it changes), and the libraries being
//! read-only. Left out: what the simulation refuses on purpose (values past its Lua memory
//! limit) and encoding the library tables themselves (see `vendor/redis-lua-libs/README.md`).

use super::case::{Step, cmd};

/// `EVAL body 0` for each body.
fn evals(bodies: &[&str]) -> Vec<Step> {
    bodies
        .iter()
        .map(|body| cmd(&["EVAL", body, "0"]))
        .collect()
}

pub fn cjson_encode() -> Vec<Step> {
    evals(&[
        "return cjson.encode({1, 'two', 3})",
        "return cjson.encode({a = 1})",
        "return cjson.encode({a = {b = {c = 'd'}}})",
        "return cjson.encode({1.5, -0.0, 1e300, 3.14159265358979, 0.1, 1/3, 2^53, 2^63, -2^31})",
        "return cjson.encode({1e-7, 123456789012345678, -1.5e-300, 100, 0})",
        "return cjson.encode(1/0)",
        "return cjson.encode(-1/0)",
        "return cjson.encode(0/0)",
        "return cjson.encode('a/b\"c\\\\d\\n\\r\\t\\b\\f\\0\\1\\31\\127\\128\\255')",
        "return cjson.encode('caf\\195\\169 \\226\\130\\172')",
        "return cjson.encode({[1] = 1, [3] = 3})",
        "return cjson.encode({[1] = 1, [11] = 3})",
        "return cjson.encode({[1] = 1, [20] = 3})",
        "return cjson.encode({[1] = 'a', [2] = 'b', x = 'c'})",
        "return cjson.encode({[1.5] = 1})",
        "return cjson.encode({[-1] = 1})",
        "return cjson.encode({})",
        "return cjson.encode(nil)",
        "return cjson.encode(cjson.null)",
        "return cjson.encode({cjson.null, 1})",
        "return cjson.encode(true)",
        "return cjson.encode({false})",
        "return cjson.encode(function() end)",
        "return cjson.encode({[true] = 1})",
        "return cjson.encode({f = tostring})",
        "return cjson.encode(coroutine.create(function() end))",
        "return cjson.encode()",
        "return cjson.encode(1, 2)",
        "local t = {} t[1] = t return cjson.encode(t)",
        "local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)",
        "local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return cjson.encode(t)",
        "return cjson.encode(KEYS)",
        "return cjson.encode(redis.call('PING'))",
        "return {pcall(cjson.encode, function() end)}",
        "return #cjson.encode(string.rep('x', 100000))",
    ])
}

pub fn cjson_decode() -> Vec<Step> {
    evals(&[
        "return cjson.decode('[1,2,3]')",
        "return cjson.decode('[1, 2.5, -3e2, 1e400, -0]')",
        "return cjson.decode('{\"a\":[1,2,{\"b\":\"c\"}]}').a[3].b",
        "return tostring(cjson.decode('[null]')[1] == cjson.null)",
        "return type(cjson.decode('{\"a\":null}').a)",
        "return cjson.decode('\"\\\\u00e9\\\\ud83d\\\\ude00 \\\\/ \\\\\\\\ \\\\\"\"')",
        "return cjson.decode('\"tab\\\\there\"')",
        "return {cjson.decode('true'), cjson.decode('false')}",
        "return cjson.decode('  \\n [ 1 ] \\t')",
        "return cjson.decode('')",
        "return cjson.decode('[1,2')",
        "return cjson.decode('{\"a\" 1}')",
        "return cjson.decode('{\"a\":1,}')",
        "return cjson.decode('{1:2}')",
        "return cjson.decode('[1] x')",
        "return cjson.decode('\"\\\\ud83d\"')",
        "return cjson.decode('\"\\\\x\"')",
        "return cjson.decode('\"abc')",
        "return cjson.decode('nul')",
        "return cjson.decode('0x10')",
        "return cjson.decode('-Infinity')",
        "return tostring(cjson.decode('NaN'))",
        "return cjson.decode('01')",
        "return cjson.decode('+1')",
        "return cjson.decode('\\0\\0')",
        "return cjson.decode('[1]\\0junk')",
        "return #cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000))",
        "return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
        "return cjson.decode(123)",
        "return cjson.decode({})",
        "return cjson.decode()",
        "return {pcall(cjson.decode, '{')}",
        "local v = cjson.decode(cjson.encode({a = {1, 2}, b = 'x'})) return {v.a[2], v.b}",
    ])
}

pub fn cjson_settings() -> Vec<Step> {
    evals(&[
        "return {cjson.encode_max_depth(), cjson.decode_max_depth(), \
         cjson.encode_number_precision(), cjson.encode_keep_buffer(), \
         cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers()}",
        "return {cjson.encode_sparse_array()}",
        // A setting lasts into the next script, as all scripts share one Lua state.
        "return cjson.encode_number_precision(5)",
        "return cjson.encode(3.14159265)",
        "return cjson.encode_number_precision(14)",
        "return cjson.encode(3.14159265)",
        "return cjson.encode_keep_buffer(false)",
        "return cjson.encode({1, 2, 'x'})",
        "return cjson.encode(function() end)",
        "return cjson.decode('[\"kept\"]')",
        "return cjson.encode_keep_buffer(true)",
        "cjson.encode_invalid_numbers('null') \
         local r = cjson.encode({1/0, 0/0}) cjson.encode_invalid_numbers(false) return r",
        "cjson.encode_invalid_numbers(true) \
         local r = cjson.encode({1/0, -1/0, 0/0}) cjson.encode_invalid_numbers(false) return r",
        "cjson.decode_invalid_numbers(false) \
         local ok, e = pcall(cjson.decode, '0x10') cjson.decode_invalid_numbers(true) return e",
        "cjson.encode_sparse_array(true, 3, 2) local r = cjson.encode({[1] = 1, [10] = 2}) \
         cjson.encode_sparse_array(false, 2, 10) return r",
        "cjson.encode_max_depth(2) local ok, e = pcall(cjson.encode, {{{1}}}) \
         cjson.encode_max_depth(1000) return e",
        "cjson.decode_max_depth(100000) \
         local ok, e = pcall(cjson.decode, string.rep('[', 9000) .. string.rep(']', 9000)) \
         cjson.decode_max_depth(1000) return e",
        "cjson.decode_max_depth(100000) \
         local ok, e = pcall(cjson.decode, string.rep('{\"a\":', 5000) .. '1' .. string.rep('}', 5000)) \
         cjson.decode_max_depth(1000) return e",
        "cjson.encode_max_depth(100000) \
         local t = {} local c = t for i = 1, 20000 do c[1] = {} c = c[1] end \
         local ok, e = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return e",
        "return cjson.encode_max_depth('x')",
        "return cjson.encode_max_depth(1, 2)",
        "return cjson.encode_max_depth(0)",
        "return cjson.encode_number_precision(15)",
        "return cjson.encode_keep_buffer('maybe')",
        "return cjson.encode_invalid_numbers('sometimes')",
        "local c = cjson.new() c.encode_number_precision(3) \
         return {c.encode(3.14159), cjson.encode(3.14159), type(c.new)}",
        "return {cjson._NAME, cjson._VERSION}",
    ])
}

pub fn cmsgpack_round_trips() -> Vec<Step> {
    evals(&[
        "return cmsgpack.pack({1, 2, 3})",
        "return cmsgpack.pack({a = 1, b = {'x', 'y'}})",
        "return cmsgpack.pack(1.5, 0.1, -1, -33, 127, 128, 2^16, 2^32, 2^40, -2^40, 2^63, 'str', nil)",
        "return cmsgpack.pack(string.rep('s', 31), string.rep('m', 32), string.rep('l', 256), \
         string.rep('h', 65536)):len()",
        "local t = {} for i = 1, 20 do t[i] = i end return cmsgpack.pack(t, {[1] = 1, [3] = 3})",
        "local t = {} for i = 1, 70000 do t[i] = 0 end return #cmsgpack.pack(t)",
        "return {cmsgpack.unpack(cmsgpack.pack({1, {2, {3, {4}}}, 'x'}))}",
        "return cmsgpack.unpack(cmsgpack.pack({1, {2, {3}}, 'x'}))[2][2][1]",
        "local v = cmsgpack.unpack(cmsgpack.pack({a = {b = 'c'}})) return v.a.b",
        "return {cmsgpack.unpack(cmsgpack.pack(1, 'two', 3.5, -4))}",
        "local t = {} t[1] = t return #cmsgpack.pack(t)",
        "local t = {} t.self = t return cmsgpack.pack(t)",
        "return cmsgpack.pack({function() end, 1})",
        "return cmsgpack.pack()",
        "return cmsgpack.unpack('')",
        "return cmsgpack.unpack('\\217')",
        "return cmsgpack.unpack('\\193')",
        "return cmsgpack.unpack('\\221\\255\\255\\255\\255')",
        "return cmsgpack.unpack('\\196\\1x')",
        "return cmsgpack.unpack({})",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 10)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), -1)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3))}",
        "local t = {} for i = 1, 4000 do t[i] = 1 end return #cmsgpack.pack(unpack(t))",
        "local t = {} for i = 1, 4001 do t[i] = 1 end return cmsgpack.pack(unpack(t))",
        "return #cmsgpack.unpack(string.rep('\\145', 10000) .. '\\1')",
        "return select('#', cmsgpack.unpack(string.rep('\\1', 10000)))",
        "return {pcall(cmsgpack.unpack, '\\217')}",
        "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}",
        "return type(cmsgpack_safe)",
    ])
}

pub fn struct_formats() -> Vec<Step> {
    evals(&[
        "return struct.pack('>i4<h', -2, 3)",
        "return struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4, 5)",
        "return struct.pack('>I3', 65536 + 2)",
        "return struct.pack('!4 b i4', 1, 2)",
        "return struct.pack('>d<f', 1.5, -2.25)",
        "return struct.pack('xc3s', 'abc', 'zero')",
        "return struct.pack('c0', 'whole')",
        "return {struct.unpack('>i4', struct.pack('>i4', -123456))}",
        "return {struct.unpack('<I2>I2', 'abab')}",
        "return {struct.unpack('bc0', struct.pack('b', 3) .. 'abc')}",
        "return {struct.unpack('s', 'hello\\0world')}",
        "return {struct.unpack('>I2', 'xyzw', 3)}",
        "return {struct.unpack('>d', struct.pack('>d', 0.1))}",
        "return struct.size('i4hd')",
        "return struct.size('!8bd')",
        "return struct.size('c2147483647c2147483647')",
        "return struct.size('s')",
        "return struct.size('c0')",
        "return struct.pack('i33', 1)",
        "return struct.pack('i99999999999999', 1)",
        "return struct.pack('!3i', 1)",
        "return struct.pack('z', 1)",
        "return struct.pack('c5', 'ab')",
        "return struct.pack('i', 'x')",
        "return struct.unpack('i4', 'ab')",
        "return struct.unpack('c0', 'abc')",
        "return struct.unpack('s', 'hello')",
        "return struct.unpack('>I2', 'xy', 0)",
        "return struct.unpack('>I2', 'xy', 5)",
        "return struct.unpack('b', '')",
        "return {pcall(struct.pack, 'i33', 1)}",
    ])
}

pub fn bit_operations() -> Vec<Step> {
    evals(&[
        "return {bit.band(-1, 0xff), bit.bor(1, 2, 4), bit.bxor(-1, 1), bit.bnot(0), \
         bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), \
         bit.ror(0x12345678, 8), bit.bswap(0x12345678), bit.tobit(2^32 + 5)}",
        "return {bit.band(-5, -3), bit.bor(-8, 3), bit.bxor(-1, -1), bit.bnot(-1), \
         bit.lshift(-1, 4), bit.rshift(-16, 2), bit.arshift(-16, 2), bit.tobit(-1), \
         bit.tobit(2^31), bit.tobit(-2^31 - 1)}",
        "return {bit.lshift(1, 32), bit.lshift(1, 33), bit.rshift(256, -1), bit.band(1.7, 3)}",
        "return {bit.band(), bit.bor(5)}",
        "return {bit.tohex(-1), bit.tohex(255, 2), bit.tohex(255, -4), bit.tohex(0x12345678, 20), \
         bit.tohex(1, 0), bit.tohex(-255), bit.tohex(0xabcdef, -8)}",
        "return bit.tohex(1, -2147483648)",
        "return bit.tohex(-2147483648, -2147483648)",
        "return bit.tohex(1, 2^31)",
        "return bit.band('12', '10')",
        "return bit.band('x')",
        "return bit.band(1, {})",
        "return bit.tohex()",
        "return {pcall(bit.band, {})}",
    ])
}

pub fn libraries_are_read_only() -> Vec<Step> {
    evals(&[
        "cjson.encode = nil",
        "cjson.foo = 1",
        "bit.band = nil",
        "cmsgpack.pack = 1",
        "struct.x = 1",
        "cjson = nil",
        "bit = {}",
        "rawset(cjson, 'encode', nil)",
        "setmetatable(struct, {})",
        "return {pcall(function() cmsgpack.unpack = print end)}",
        "local ok, e = pcall(function() cjson.null = 1 end) return e",
        "return {type(cjson), type(cmsgpack), type(struct), type(bit), tostring(getmetatable(bit))}",
        "return {rawget(cjson, 'null') == cjson.null and 'null' or 'other', type(rawget(bit, 'band'))}",
        "local r = {} for k in pairs(cjson) do r[#r + 1] = k end table.sort(r) return r",
        "local r = {} for k in pairs(cmsgpack) do r[#r + 1] = k end table.sort(r) return r",
        "local r = {} for k in pairs(struct) do r[#r + 1] = k end table.sort(r) return r",
        "local r = {} for k in pairs(bit) do r[#r + 1] = k end table.sort(r) return r",
        "return cjson.encode({1}) .. bit.tohex(255, 2) .. #cmsgpack.pack(1) .. struct.size('b')",
    ])
}
