//! Client tests on tokio's paused clock: against a scripted server on an in-memory duplex
//! (`fake`), and end to end against H2's server core (`core_server`).

mod core_server;
mod end_to_end;
mod fake;
mod requests;
mod session;
