//! ZooKeeper recipes.

pub mod lock;
pub mod rwlock;
