//! locksim: deterministic simulation of distributed coordination recipes.

pub mod check;
pub mod history;
pub mod zk;
