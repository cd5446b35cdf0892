/* lua_memory.h - the Lua state's memory for Redis's Lua libraries.
 *
 * Not from Redis: written for locksim (MIT licence, like the rest of locksim). strbuf (cjson)
 * and cmsgpack take their buffers from the Lua state's own allocator through these, so the
 * buffers count against the state's memory limit, and a refused allocation raises Lua's own
 * memory error ("not enough memory", LUA_ERRMEM) instead of aborting the process or writing
 * through a NULL pointer. See README.md. */

#ifndef LUA_MEMORY_H
#define LUA_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

/* Resizes a block as Lua's allocator does: ptr NULL (and osize 0) allocates, nsize 0 frees,
 * osize is the block's current size. NULL when the allocator refuses; the block is then
 * untouched. */
static inline void *lua_memory_realloc(lua_State *L, void *ptr, size_t osize, size_t nsize)
{
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);

    return alloc(ud, ptr, osize, nsize);
}

/* Raises Lua's memory error, as when Lua itself fails to allocate. Lua's API has no call for
 * that, so this asks Lua for a block larger than any allocator grants (more than half the
 * address space): Lua then raises LUA_ERRMEM itself. Does not return. */
static inline void lua_memory_error(lua_State *L)
{
    lua_newuserdata(L, SIZE_MAX / 2 + 1);
    luaL_error(L, "not enough memory");
}

#endif
