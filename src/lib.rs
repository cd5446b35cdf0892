//! locksim: deterministic simulation of distributed coordination recipes.

pub mod check;
pub mod history;
pub mod params;
pub mod recipes;
pub mod sim;
pub mod store;
pub mod workload;
pub mod zk;
