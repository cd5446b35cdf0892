//! The ZooKeeper lock recipe and its flawed variants.

pub mod decide;

/// Which lock the clients run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipes-doc lock with GUID names and predecessor watches.
    Recipe,
    /// Waiters watch the directory's children: every change wakes every waiter.
    Herd,
    /// One fixed ephemeral node; losers watch it and race to recreate it.
    Simple,
    /// After ConnectionLoss on create, creates again without looking for its node.
    NoGuid,
}
