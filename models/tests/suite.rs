//! The models' tests as one binary: each file beside this one is a module of it, linked once
//! and run from one pool of test threads (`tests/suite.rs` at the workspace root says why).

mod cli;
mod explorer;
mod progress;
mod redis_lock;
mod redlock;
mod spelling;
mod symmetry;
mod trace_export;
mod zk_lock;
mod zk_lock_flavors;
