//! The instruction limit: a count hook every thousand instructions, so that a runaway script
//! ends in an error instead of hanging the simulation (Redis would keep running it and answer
//! BUSY to everyone else meanwhile).
//!
//! Once past the limit, every instruction fails, in every coroutine that runs, so no `pcall`
//! can keep the script going. Lua runs error handlers with hooks off, so the `xpcall` wrapper
//! does not call a script's handler for an error past the limit (see `catch`).

use mlua::debug::Debug;
use mlua::{HookTriggers, Lua, VmState};

use super::raise::Raised;

/// Instructions between two looks at the budget.
const INTERVAL: u32 = 1000;

/// The instruction budget of the running script, kept in the Lua state's app data.
struct Budget {
    limit: u64,
    used: u64,
    exceeded: bool,
    /// Off while the sandbox's own Lua code converts a reply (Redis does that in C).
    counting: bool,
}

/// Gives `lua` an instruction limit.
pub(super) fn install(lua: &Lua, limit: u64) {
    lua.set_app_data(Budget {
        limit,
        used: 0,
        exceeded: false,
        counting: true,
    });
}

/// A full budget for the next script.
pub(super) fn renew(lua: &Lua) -> mlua::Result<()> {
    if let Some(mut budget) = lua.app_data_mut::<Budget>() {
        budget.used = 0;
        budget.exceeded = false;
        budget.counting = true;
    }
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(INTERVAL),
        count_instructions,
    )
}

/// Stops or resumes counting.
pub(super) fn count(lua: &Lua, counting: bool) {
    if let Some(mut budget) = lua.app_data_mut::<Budget>() {
        budget.counting = counting;
    }
}

/// Whether the running script went past the limit.
pub(super) fn exceeded(lua: &Lua) -> bool {
    lua.app_data_ref::<Budget>()
        .is_some_and(|budget| budget.exceeded)
}

/// The limit, for the error reply.
pub(super) fn limit(lua: &Lua) -> u64 {
    lua.app_data_ref::<Budget>()
        .map_or(0, |budget| budget.limit)
}

fn count_instructions(lua: &Lua, _: &Debug) -> mlua::Result<VmState> {
    let exceeded = lua.app_data_mut::<Budget>().is_some_and(|mut budget| {
        if budget.counting {
            budget.used += u64::from(INTERVAL);
            budget.exceeded |= budget.used > budget.limit;
        }
        budget.exceeded
    });
    if !exceeded {
        return Ok(VmState::Continue);
    }
    // Hooks are per coroutine: this one now fails at every instruction; others at their next
    // look at the budget.
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(1),
        count_instructions,
    )?;
    Err(mlua::Error::external(Raised::Budget))
}
