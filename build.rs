//! Compiles Redis's Lua libraries (`cjson`, `cmsgpack`, `struct`, `bit`, from
//! `vendor/redis-lua-libs`, see its README) against the Lua 5.1 that mlua builds: mlua-sys
//! (`links = "lua"`) hands its headers' directory to this script as `DEP_LUA_INCLUDE`.

fn main() {
    const DIR: &str = "vendor/redis-lua-libs";
    const SOURCES: [&str; 6] = [
        "lua_cjson.c",
        "strbuf.c",
        "fpconv.c",
        "lua_cmsgpack.c",
        "lua_struct.c",
        "lua_bit.c",
    ];
    let include = std::env::var("DEP_LUA_INCLUDE")
        .expect("mlua-sys, built with its vendored Lua, names its headers' directory");
    let mut build = cc::Build::new();
    build
        .include(&include)
        .include(DIR)
        // Redis's deps/Makefile builds its Lua and these libraries with these flags.
        .define("LUA_ANSI", None)
        .define("ENABLE_CJSON_GLOBAL", None)
        .opt_level(2)
        .warnings(false);
    for source in SOURCES {
        build.file(format!("{DIR}/{source}"));
    }
    build.compile("redis_lua_libs");
    println!("cargo:rerun-if-changed={DIR}");
}
