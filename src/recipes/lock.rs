//! The lock a workload drives: what a recipe of any kind implements to be acquired, held
//! and released under the lock workload.

use super::RecipeError;

/// What a successful acquire hands the holder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Fencing token, for recipes that have one (ZooKeeper: the lock node's czxid).
    pub token: Option<i64>,
    /// The servers that granted it, for recipes that need several (Redlock's quorum).
    pub granted_by: Vec<String>,
    /// How much longer the holder counts on it, by its own clock, for lease-based recipes.
    pub valid_ms: Option<u64>,
}

/// A lock recipe bound to one session.
#[allow(async_fn_in_trait)]
pub trait Lock {
    /// Waits until the lock is held (retrying inside as the recipe does), or fails.
    async fn acquire(&mut self) -> Result<Grant, RecipeError>;
    /// Gives the lock back.
    async fn release(&mut self) -> Result<(), RecipeError>;
    /// Extends the lock held, for recipes whose lock is a lease shorter than the work:
    /// the new grant (same token, `valid_ms` counted from now on the client's clock), or
    /// None when it was not extended (nothing held, the recipe's bound reached, no quorum,
    /// too late). The lock then stays held as long as it was. A recipe whose lock lasts as
    /// long as its session (ZooKeeper's) never needs it.
    async fn extend(&mut self) -> Option<Grant> {
        None
    }
    /// Completes once the recipe learns a lock it holds is lost (its session expired, its
    /// lease ran out on its own clock). By default never: a recipe that cannot tell keeps
    /// working as if it still held the lock, which is what the checkers then judge.
    async fn lost(&mut self) {
        std::future::pending().await
    }
    /// Ends the session (releasing whatever it still holds). By default it drops the lock
    /// and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}
