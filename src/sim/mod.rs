//! The world: seed streams, clocks, pause gates, faults, and the driver loop.

pub mod clock;
pub mod fault;
pub mod node;
pub mod pause;
pub mod run;
pub mod seed;
pub mod swarm;
mod world;
