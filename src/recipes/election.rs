//! The election a workload drives: what a leader election of any kind implements to run
//! for leader, lead, and step down under the election workload.

use super::{Grant, RecipeError};

/// A leader election bound to one session, as the election workload drives it: run for
/// leader, do the leader's guarded work (read the store, work, write with the grant's
/// token), step down, and run again, `terms` times. Judged by `leader` (one leader at a
/// time, one elected within a bound after the heal), `resource`, `herd` (what the recipe
/// reports with `recipes::zk::kit::Report`) and `liveness`.
///
/// After an error the workload runs again: on this object, or, when the error
/// [`needs_new_session`](RecipeError::needs_new_session), on a new one from the scenario's
/// `connect`.
///
/// ```
/// use locksim::{Election, Grant, RecipeError};
///
/// /// Leads whenever asked: two candidates lead at once, which `leader` finds.
/// struct Always;
///
/// impl Election for Always {
///     async fn lead(&mut self) -> Result<Grant, RecipeError> {
///         Ok(Grant::default())
///     }
///     async fn resign(&mut self) -> Result<(), RecipeError> {
///         Ok(())
///     }
/// }
/// ```
#[allow(async_fn_in_trait)]
pub trait Election {
    /// Runs for leader and waits until this candidate leads (retrying inside as the recipe
    /// does), or fails. The grant's token, if any, fences the leader's writes.
    async fn lead(&mut self) -> Result<Grant, RecipeError>;
    /// Steps down, so that the next candidate may lead.
    async fn resign(&mut self) -> Result<(), RecipeError>;
    /// Completes once the recipe learns the leadership it holds is lost (its session
    /// expired). By default never: a leader that cannot tell keeps acting as leader, which
    /// is what the checkers then judge.
    async fn leadership_lost(&mut self) {
        std::future::pending().await
    }
    /// Ends the session (stepping down if still leading). By default it drops the candidate
    /// and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}
