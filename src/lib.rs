//! locksim: deterministic simulation of distributed coordination recipes.

pub mod bench;
pub mod check;
pub mod cli;
pub mod explore;
pub mod history;
pub mod params;
pub mod recipes;
pub mod redis;
pub mod scenario;
pub mod serve;
pub mod sim;
pub mod store;
pub mod timeline;
pub mod trace;
pub mod workload;
pub mod world;
pub mod zk;
