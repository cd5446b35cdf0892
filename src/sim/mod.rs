//! Node primitives, the floor every host's software stands on: clocks, the pause gate, the
//! node handle with its recorder, seed streams, the values of a scenario's own parameters,
//! and faults as data (with their vocabulary and their generator).

pub mod clock;
pub mod fault;
pub(crate) mod gene;
pub mod node;
pub mod param;
pub(crate) mod pause;
pub(crate) mod roles;
pub(crate) mod seed;
pub mod software;
pub mod swarm;
#[cfg(test)]
pub(crate) mod test_world;
pub mod timer;
pub mod vocab;
