//! Timers the simulation can see, so that a lazy host is skipped on the steps in which it
//! has nothing to do (see [`Sim::set_lazy`](crate::Sim::set_lazy)).
//!
//! A tokio timer lives in its host's runtime, where the simulation cannot read it: a host
//! skipped until its next message or wake-up would miss it. [`sleep`] and [`sleep_until`]
//! are tokio's, and also tell the host when they are due; outside a simulation they are
//! tokio's alone.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::time::{Duration, Instant};

use crate::world::World;

/// Waits until `duration` has elapsed, like [`tokio::time::sleep`], and lets a lazy host
/// sleep through the steps before it is due.
///
/// ```
/// # async fn f() {
/// turmoil::sleep(std::time::Duration::from_millis(10)).await;
/// # }
/// ```
pub fn sleep(duration: Duration) -> Sleep {
    sleep_until(Instant::now() + duration)
}

/// Waits until `deadline`, like [`tokio::time::sleep_until`], and lets a lazy host sleep
/// through the steps before it is due.
pub fn sleep_until(deadline: Instant) -> Sleep {
    let due = World::try_current_mut(|world| {
        let host = world.current?;
        let at = world.current_host().timer.sim_elapsed() + deadline.duration_since(Instant::now());
        world.current_host_mut().deadlines.add(at);
        Some((host, at))
    })
    .flatten();
    Sleep {
        inner: Box::pin(tokio::time::sleep_until(deadline)),
        due,
    }
}

/// The future of [`sleep`] and [`sleep_until`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    inner: Pin<Box<tokio::time::Sleep>>,
    /// The host it was made on, and when it is due in simulated time, while it counts.
    due: Option<(IpAddr, Duration)>,
}

impl Sleep {
    fn forget(&mut self) {
        if let Some((host, at)) = self.due.take() {
            World::try_current_mut(|world| {
                if let Some(host) = world.hosts.get_mut(&host) {
                    host.deadlines.remove(at);
                }
            });
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let done = self.inner.as_mut().poll(cx);
        if done.is_ready() {
            self.forget();
        }
        done
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.forget();
    }
}

/// The deadlines of one host's pending [`Sleep`]s, in simulated time since the start.
#[derive(Default)]
pub(crate) struct Deadlines(BTreeMap<Duration, u32>);

impl Deadlines {
    fn add(&mut self, at: Duration) {
        *self.0.entry(at).or_default() += 1;
    }

    /// One sleep due at `at` no longer counts; it may have been let go of already
    /// ([`Deadlines::passed`]).
    fn remove(&mut self, at: Duration) {
        if let Some(count) = self.0.get_mut(&at) {
            *count -= 1;
            if *count == 0 {
                self.0.remove(&at);
            }
        }
    }

    /// The earliest deadline still to come.
    pub(crate) fn next(&self) -> Option<Duration> {
        self.0.keys().next().copied()
    }

    /// Lets go of the deadlines up to `now`: their timers have fired, and whatever they
    /// woke the host's wake flag tells.
    pub(crate) fn passed(&mut self, now: Duration) {
        while let Some(entry) = self.0.first_entry() {
            if *entry.key() > now {
                break;
            }
            entry.remove();
        }
    }

    /// A restart drops every task of the host, and with them its sleeps.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}
