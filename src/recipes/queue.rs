//! The queue a workload drives: what a distributed queue of any kind implements to have
//! items offered and taken under the queue workload.

use super::RecipeError;

/// An item a consumer took: what was offered, and where the queue kept it (for the
/// history; a queue of nodes names the node).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Taken {
    /// What its producer offered.
    pub item: String,
    /// Where the queue kept it (a ZooKeeper queue's node name), if it says.
    pub node: Option<String>,
}

impl Taken {
    /// The item `item`, taken from nowhere in particular.
    pub fn new(item: impl Into<String>) -> Taken {
        Taken {
            item: item.into(),
            node: None,
        }
    }

    /// The same item, kept at `node` in the queue.
    pub fn at(self, node: impl Into<String>) -> Taken {
        Taken {
            node: Some(node.into()),
            ..self
        }
    }
}

/// A distributed queue bound to one session, as the queue workload drives it: producers
/// `p1..pP` offer their own distinct items (`p1-0`, `p1-1`, ...) one after another, and
/// consumers `c1..cC` take until, between them, they took every item. Judged by `queue`
/// (no item lost or taken twice, each producer's order kept), `herd` and `liveness`.
///
/// After an error the workload asks again for the same operation (the same item, for an
/// offer): on this object, or, when the error
/// [`needs_new_session`](RecipeError::needs_new_session), on a new one from the scenario's
/// `connect`. An operation whose outcome was unknown (a lost reply) must be settled by the
/// recipe on that retry: an item offered twice or taken but not returned is what `queue`
/// finds. State the retry needs across sessions lives where `connect` can hand it on.
///
/// ```
/// use locksim::{Queue, RecipeError, Taken};
/// use std::collections::VecDeque;
///
/// /// A queue in one client's memory: no other client ever sees its items.
/// struct Local(VecDeque<String>);
///
/// impl Queue for Local {
///     async fn offer(&mut self, item: &str) -> Result<(), RecipeError> {
///         self.0.push_back(item.to_string());
///         Ok(())
///     }
///     async fn take(&mut self) -> Result<Taken, RecipeError> {
///         match self.0.pop_front() {
///             Some(item) => Ok(Taken::new(item)),
///             None => Err(RecipeError::Unexpected("empty".into())),
///         }
///     }
/// }
/// ```
#[allow(async_fn_in_trait)]
pub trait Queue {
    /// Puts `item` in the queue, and returns once it is there.
    async fn offer(&mut self, item: &str) -> Result<(), RecipeError>;
    /// Takes the item at the head of the queue, waiting while it is empty.
    async fn take(&mut self) -> Result<Taken, RecipeError>;
    /// Ends the session. By default it drops the queue and its connections.
    async fn close(self)
    where
        Self: Sized,
    {
    }
}
