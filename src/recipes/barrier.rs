//! The barriers a workload drives: what a barrier and a double barrier of any kind
//! implement to be entered (and left) round by round under the barrier workload.

use super::RecipeError;

/// A barrier bound to one session, as the barrier workload drives it: each round every
/// client arrives after a random delay and `enter` returns once the round's barrier lifts,
/// when all `clients` arrived; then it works. Judged by `barrier` (no client passes before
/// every client arrived) and `liveness`. No `herd`: a barrier wakes everyone at once by
/// design.
///
/// After an error the workload records the attempt failed and enters the same round again:
/// on this object, or, when the error
/// [`needs_new_session`](RecipeError::needs_new_session), on a new one from the scenario's
/// `connect`.
///
/// ```
/// use locksim::{Barrier, RecipeError};
///
/// /// Lets everyone through at once: `barrier` finds a client that passed alone.
/// struct Open;
///
/// impl Barrier for Open {
///     async fn enter(&mut self, _round: u32) -> Result<(), RecipeError> {
///         Ok(())
///     }
/// }
/// ```
#[allow(async_fn_in_trait)]
pub trait Barrier {
    /// Arrives at round `round`'s barrier and returns once it may pass.
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError>;
    /// Ends the session. By default it drops the barrier and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}

/// A double barrier bound to one session, as the barrier workload drives it: each round
/// every client enters (returning once all `clients` entered), works, and leaves (returning
/// once all left). Judged by `barrier` (no client passes `enter` before every client
/// entered, nor `leave` before every client began leaving) and `liveness`. Errors as for
/// [`Barrier`].
#[allow(async_fn_in_trait)]
pub trait DoubleBarrier {
    /// Enters round `round`'s barrier and returns once every client has entered.
    async fn enter(&mut self, round: u32) -> Result<(), RecipeError>;
    /// Leaves round `round`'s barrier and returns once every client is leaving.
    async fn leave(&mut self, round: u32) -> Result<(), RecipeError>;
    /// Ends the session. By default it drops the barrier and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}
