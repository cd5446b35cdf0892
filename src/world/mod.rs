//! The world of one run: builds the turmoil simulation from a scenario's hosts, drives it
//! through the fault plan, and judges the history. It drives server families and client
//! programs through their traits and never names one.

mod driver;
mod prepared;
pub mod run;

pub use prepared::Prepared;
pub use run::{RunError, RunReport, RunSpec, run};
