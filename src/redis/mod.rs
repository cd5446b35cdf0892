//! Simulated Redis: RESP2 codec, sans-IO server core with Lua scripting, async client, and
//! the glue that serves the core inside the simulation and on a real socket.

pub mod client;
pub mod num;
pub mod resp;

/// Redis's port, where the simulated servers listen.
pub const PORT: u16 = 6379;
