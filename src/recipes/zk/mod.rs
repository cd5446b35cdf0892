//! ZooKeeper recipes.

pub mod lock;
