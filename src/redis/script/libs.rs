//! Redis's own Lua libraries, `cjson`, `struct`, `cmsgpack` and `bit`: the C sources of Redis
//! 7.0.15 (with the fixes Redis made to them later), compiled by `build.rs` from
//! `vendor/redis-lua-libs` against the Lua 5.1 mlua builds, so that their results and error
//! messages are Redis's byte for byte. `vendor/redis-lua-libs/README.md` lists every change.
//!
//! Their buffers come from the Lua state's allocator, so they count against the script's
//! memory limit: an encoding, a packing or a decoding that would go past it fails with Lua's
//! own memory error, like any other allocation of the script (a real Redis has no limit, and
//! would allocate, or abort on a failed `malloc`). A buffer that an error leaves behind belongs
//! to its library (a `cjson` configuration, `cmsgpack.pack`): the next call frees it, or the
//! collector, so failing scripts cannot pile up memory as Redis's copies would. Their depth limits are Redis's: `cjson`
//! nests 1000 levels by default (`cjson.encode_max_depth`, `cjson.decode_max_depth`) and at
//! most as deep as the Lua stack lets a C function go; `cmsgpack` packs 16 levels (deeper
//! tables become nil) and unpacks as deep as the Lua stack lets it. Their C loops do not count
//! against the instruction limit: what one call does is bounded by the memory limit (the
//! slowest, `cmsgpack.pack` of a table holding itself a hundred times, takes seconds to reach
//! 64 MiB).
//!
//! Determinism: `cjson.encode` and `cmsgpack.pack` walk tables with `lua_next`, whose order
//! depends only on the keys and the table's history for strings and numbers (Lua 5.1 hashes
//! them without a seed), as in Redis; tables, functions and other objects used as keys are
//! placed by address, so `cmsgpack.pack` of such a table can differ between processes (`cjson`
//! refuses those keys).

use std::ffi::c_int;

use mlua::ffi::{lua_CFunction, lua_State};
use mlua::{Lua, Table};

unsafe extern "C-unwind" {
    fn luaopen_cjson(state: *mut lua_State) -> c_int;
    fn luaopen_struct(state: *mut lua_State) -> c_int;
    fn luaopen_cmsgpack(state: *mut lua_State) -> c_int;
    fn luaopen_bit(state: *mut lua_State) -> c_int;
}

/// The four libraries under their global names, opened in `lua` as Redis's `luaLoadLibraries`
/// opens them (in this order). Each also registers itself in the state's own globals, which
/// the sandbox then replaces: scripts reach them only through the sandbox's read-only views.
pub(super) fn open(lua: &Lua) -> mlua::Result<Vec<(&'static str, Table)>> {
    let openers: [(&'static str, lua_CFunction); 4] = [
        ("cjson", luaopen_cjson),
        ("struct", luaopen_struct),
        ("cmsgpack", luaopen_cmsgpack),
        ("bit", luaopen_bit),
    ];
    openers
        .into_iter()
        .map(|(name, opener)| {
            // SAFETY: each opener is a lua_CFunction of the vendored sources, compiled against
            // this Lua's headers; it takes no argument it relies on and returns its table.
            let opener = unsafe { lua.create_c_function(opener)? };
            Ok((name, opener.call::<Table>(name)?))
        })
        .collect()
}
