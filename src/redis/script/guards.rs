//! Guards in front of the Lua 5.1 library functions a short script could end the process with.
//!
//! - `unpack({}, -2147483648, 2147483647)`: `luaB_unpack` counts the range in `int`, which
//!   overflows, and pushes values until the process faults. Redis patched its copy of
//!   `lbaselib.c` to refuse the range; the guard refuses it the same way, with Lua's own message
//!   ("too many results to unpack").
//! - `string.find('a', ('a?'):rep(1e6))`: Lua 5.1's `match` recurses once per quantifier and
//!   capture of the pattern, without bound, until the thread's stack overflows and the process
//!   aborts (so does Redis 7.0's). Lua 5.2 bounds that depth at 200 (`MAXCCALLS`, "pattern too
//!   complex"); the guard refuses, before matching, a pattern that could recurse deeper than
//!   that. Refusing on the pattern's text, not while matching, is stricter than Lua 5.2, which
//!   fails only when a match actually gets that deep; but it needs no change to Lua's C, and
//!   no real pattern has 200 quantifiers.
//!
//! Each guard is a C function that checks its arguments and then runs the library's own
//! function in the same call frame, so everything else (argument errors naming the function,
//! the caller's position in messages, results) is exactly Lua's.

use std::ffi::{CStr, c_int};
use std::sync::OnceLock;

use mlua::ffi::{self, lua_CFunction, lua_State};
use mlua::{Function, Lua, Table};

/// The most quantifiers and captures a pattern may have: Lua 5.2's `MAXCCALLS`, the depth at
/// which its matcher stops with "pattern too complex".
pub(super) const PATTERN_DEPTH_LIMIT: usize = 200;

/// `LUAI_MAXCSTACK`: no Lua 5.1 function can return this many results.
const MAX_RESULTS: i64 = 8000;

/// The library's own C functions behind the guards; the same in every Lua state of the process.
struct Natives {
    unpack: lua_CFunction,
    find: lua_CFunction,
    match_: lua_CFunction,
    gmatch: lua_CFunction,
    gsub: lua_CFunction,
}

static NATIVES: OnceLock<Natives> = OnceLock::new();

/// Puts the guards in place of `unpack` (in `base`, the globals scripts get) and of the pattern
/// functions (in the `string` table itself, which method calls on strings reach).
pub(super) fn install(lua: &Lua, base_unpack: &Function, string: &Table) -> mlua::Result<Function> {
    if NATIVES.get().is_none() {
        let native = |function: &Function| -> mlua::Result<lua_CFunction> {
            let mut found = None;
            // SAFETY: the closure only reads the function exec_raw pushed as its one argument.
            unsafe {
                lua.exec_raw::<()>(function, |state| {
                    found = ffi::lua_tocfunction(state, -1);
                })?;
            }
            found.ok_or_else(|| mlua::Error::runtime("a Lua library function is not a C function"))
        };
        let natives = Natives {
            unpack: native(base_unpack)?,
            find: native(&string.raw_get("find")?)?,
            match_: native(&string.raw_get("match")?)?,
            gmatch: native(&string.raw_get("gmatch")?)?,
            gsub: native(&string.raw_get("gsub")?)?,
        };
        let _ = NATIVES.set(natives);
    }
    // SAFETY: each guard reads its arguments with Lua's own checks, then calls Lua's function.
    unsafe {
        string.raw_set("find", lua.create_c_function(find)?)?;
        string.raw_set("match", lua.create_c_function(match_)?)?;
        string.raw_set("gmatch", lua.create_c_function(gmatch)?)?;
        // In Lua 5.1 (LUA_COMPAT_GFIND), `gfind` is `gmatch` under its old name.
        string.raw_set("gfind", lua.create_c_function(gmatch)?)?;
        string.raw_set("gsub", lua.create_c_function(gsub)?)?;
        lua.create_c_function(unpack)
    }
}

fn natives() -> &'static Natives {
    NATIVES
        .get()
        .expect("guards are installed before any script runs")
}

/// Raises a Lua error with the caller's position, as the library function would.
///
/// # Safety
/// `state` is the running function's; this does not return (Lua unwinds to the protected call).
unsafe fn error(state: *mut lua_State, message: &CStr) -> c_int {
    // SAFETY: the format is "%s" with one C string argument.
    unsafe { ffi::luaL_error(state, c"%s".as_ptr(), message.as_ptr()) }
}

unsafe extern "C-unwind" fn unpack(state: *mut lua_State) -> c_int {
    // SAFETY: the reads are luaB_unpack's own (luaL_optint, luaL_opt(luaL_checkint, luaL_getn)),
    // in its order, so a bad argument fails with its message.
    unsafe {
        if ffi::lua_type(state, 1) == ffi::LUA_TTABLE {
            let first = ffi::luaL_optinteger(state, 2, 1) as c_int;
            let last = if ffi::lua_type(state, 3) <= ffi::LUA_TNIL {
                ffi::lua_objlen(state, 1) as c_int
            } else {
                ffi::luaL_checkinteger(state, 3) as c_int
            };
            if i64::from(last) - i64::from(first) + 1 >= MAX_RESULTS {
                return error(state, c"too many results to unpack");
            }
        }
        (natives().unpack)(state)
    }
}

unsafe extern "C-unwind" fn find(state: *mut lua_State) -> c_int {
    // SAFETY: see `checked`; a plain find (a true fourth argument) matches no pattern.
    unsafe {
        if ffi::lua_toboolean(state, 4) != 0 {
            return (natives().find)(state);
        }
        checked(state, natives().find)
    }
}

unsafe extern "C-unwind" fn match_(state: *mut lua_State) -> c_int {
    // SAFETY: see `checked`.
    unsafe { checked(state, natives().match_) }
}

unsafe extern "C-unwind" fn gmatch(state: *mut lua_State) -> c_int {
    // SAFETY: see `checked`; the iterator gmatch returns matches only this pattern.
    unsafe { checked(state, natives().gmatch) }
}

unsafe extern "C-unwind" fn gsub(state: *mut lua_State) -> c_int {
    // SAFETY: see `checked`.
    unsafe { checked(state, natives().gsub) }
}

/// Runs `native` unless its pattern (argument 2) could recurse past [`PATTERN_DEPTH_LIMIT`].
/// A number argument (which Lua turns into a short pattern) and a wrong type are left to
/// `native`.
///
/// # Safety
/// `state` is the running guard's.
unsafe fn checked(state: *mut lua_State, native: lua_CFunction) -> c_int {
    // SAFETY: a string argument's bytes stay valid while it is on the stack.
    unsafe {
        if ffi::lua_type(state, 2) == ffi::LUA_TSTRING {
            let mut len = 0;
            let text = ffi::lua_tolstring(state, 2, &mut len);
            let pattern = std::slice::from_raw_parts(text.cast::<u8>(), len);
            if pattern_depth(pattern) > PATTERN_DEPTH_LIMIT {
                return error(
                    state,
                    c"pattern too complex (the simulation refuses a pattern of more than 200 \
                      quantifiers and captures, which could overflow the stack; Redis 7.0 \
                      sets no bound)",
                );
            }
        }
        native(state)
    }
}

/// An upper bound on how deep Lua 5.1's `match` recurses for `pattern`: each nested call moves
/// past one capture parenthesis or one quantifier (`?`, `*`, `+`, `-` after a single-character
/// class), so it is at most their number. Classes are skipped as `classEnd` skips them.
pub(super) fn pattern_depth(pattern: &[u8]) -> usize {
    let mut depth = 0;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'(' | b')' => {
                depth += 1;
                i += 1;
                continue;
            }
            // `%bxy`: a balanced match, no quantifier.
            b'%' if pattern.get(i + 1) == Some(&b'b') => {
                i += 4;
                continue;
            }
            // `%f[set]`: a frontier, no quantifier.
            b'%' if pattern.get(i + 1) == Some(&b'f') => {
                i = set_end(pattern, i + 2);
                continue;
            }
            b'%' => i += 2,
            b'[' => i = set_end(pattern, i),
            _ => i += 1,
        }
        if matches!(pattern.get(i), Some(b'?' | b'*' | b'+' | b'-')) {
            depth += 1;
            i += 1;
        }
    }
    depth
}

/// Where a set that starts at `start` (its `[`) ends, as `classEnd` finds it: the first
/// character after `[` or `[^` belongs to the set even if it is `]`.
fn set_end(pattern: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    if pattern.get(i) == Some(&b'^') {
        i += 1;
    }
    loop {
        let Some(&c) = pattern.get(i) else {
            return pattern.len();
        };
        i += if c == b'%' { 2 } else { 1 };
        if pattern.get(i) == Some(&b']') {
            return i + 1;
        }
    }
}
