//! The sandbox's own Lua chunks (the runner, the reply walker), parsed once per thread:
//! every server's state, and every restart's, loads the same text, and parsing it was most
//! of what a new state cost. Only these chunks are ever loaded as bytecode; a script never
//! is (load.rs).

use std::cell::RefCell;
use std::collections::BTreeMap;

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua};

thread_local! {
    /// The bytecode of each chunk by its name, with its debug information kept so that
    /// messages and tracebacks read as from the text.
    static COMPILED: RefCell<BTreeMap<&'static str, Vec<u8>>> = const { RefCell::new(BTreeMap::new()) };
}

/// The function `source` compiles to under the chunk name `name`.
pub(super) fn own_chunk(
    lua: &Lua,
    name: &'static str,
    source: &'static str,
) -> mlua::Result<Function> {
    let cached = COMPILED.with(|compiled| compiled.borrow().get(name).cloned());
    if let Some(bytecode) = cached {
        return lua
            .load(bytecode)
            .set_name(name)
            .set_mode(ChunkMode::Binary)
            .into_function();
    }
    let function = lua.load(source).set_name(name).into_function()?;
    let bytecode = function.dump(false);
    COMPILED.with(|compiled| compiled.borrow_mut().insert(name, bytecode));
    Ok(function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_loaded_again_is_the_same_function_with_the_same_debug_names() {
        let source = "local x = ...\nreturn function() error('boom') end, x";
        for _ in 0..2 {
            let lua = Lua::new();
            let (thrower, x): (Function, i64) = own_chunk(&lua, "=chunks-test", source)
                .unwrap()
                .call(7)
                .unwrap();
            assert_eq!(x, 7);
            let message = thrower.call::<()>(()).unwrap_err().to_string();
            assert!(message.contains("chunks-test:2: boom"), "{message}");
        }
    }
}
