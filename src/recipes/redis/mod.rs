//! The Redis locks: the single-instance lock and Redlock over N independent masters, one
//! recipe (a single node is Redlock with one vote). The decisions are pure (`decide`); the
//! driver does the I/O.

pub mod decide;
pub mod lock;
