//! The ZooKeeper lock recipe and its flawed variants.

pub mod decide;
