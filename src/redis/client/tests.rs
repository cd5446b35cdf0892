//! Client tests without a network, on tokio's paused clock: the client against a scripted
//! server (`fake`) on an in-memory duplex.

mod call;
mod commands;
mod fake;
