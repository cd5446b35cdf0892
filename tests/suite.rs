//! locksim's tests of its public surface, as one binary: each file beside this one is a
//! module of it. cargo runs test binaries one after another and links each on its own; one
//! binary is linked once, and its tests share one pool of threads, so a long test runs beside
//! the others instead of holding up the rest of the suite. Run a part of it by its module:
//! `cargo test --profile suite --test suite client_matrix::`.

mod catalogue;
mod cli;
mod client_matrix;
mod deploy;
mod determinism;
mod experiment;
mod fuzz;
mod html;
mod layout;
mod mutants;
mod own_steps;
mod redis_adversarial;
mod redis_conformance;
mod redis_serve;
mod scenarios;
#[path = "common/server_process.rs"]
mod server_process;
mod traces;
mod zk_conformance;
mod zk_serve;
