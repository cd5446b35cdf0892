//! Timers on the clock of the code's own host. Client code sleeps, times out and measures
//! elapsed time through a `Timer`, so a simulated node's drift and pauses change what it
//! measures, as they would for a real process; the same code on a real socket uses tokio's
//! clock.

use crate::sim::clock::Clock;
use crate::sim::node::Node;
use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;
use tokio::time::Instant;

/// The clock a piece of client code sleeps and measures by: its simulated node's, or
/// tokio's on a real socket.
#[derive(Clone)]
pub enum Timer {
    /// tokio's clock (real time, or tokio's paused clock in tests), counted from `origin`.
    Tokio {
        /// The instant its readings count from (reading 0).
        origin: Instant,
    },
    /// A simulated node's monotonic clock: it drifts as the node's does, never jumps.
    Node(Rc<RefCell<Clock>>),
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timer::Tokio { .. } => f.write_str("Timer::Tokio"),
            Timer::Node(clock) => write!(f, "Timer::Node({:?})", clock.borrow()),
        }
    }
}

impl Timer {
    /// tokio's clock, from now.
    pub fn tokio() -> Timer {
        Timer::Tokio {
            origin: Instant::now(),
        }
    }

    /// The monotonic clock of `clock`'s node.
    pub fn node(clock: Rc<RefCell<Clock>>) -> Timer {
        Timer::Node(clock)
    }

    /// Milliseconds on this clock (from an origin of its own: only differences mean
    /// anything).
    pub fn now_ms(&self) -> u64 {
        match self {
            Timer::Tokio { origin } => origin.elapsed().as_millis() as u64,
            Timer::Node(clock) => clock.borrow().mono_ms(Node::true_ms()),
        }
    }

    /// Completes once this clock reads `deadline_ms` or later. It always waits at least
    /// once, as tokio's sleep does. A node's drift changing meanwhile takes effect at the
    /// next wake-up: it sleeps again if the clock has not got there yet.
    pub async fn sleep_until(&self, deadline_ms: u64) {
        match self {
            Timer::Tokio { origin } => {
                tokio::time::sleep_until(*origin + Duration::from_millis(deadline_ms)).await
            }
            Timer::Node(clock) => self.node_sleep(clock, self.now_ms(), deadline_ms).await,
        }
    }

    /// Completes after `ms` on this clock.
    pub async fn sleep(&self, ms: u64) {
        let now_ms = self.now_ms();
        match self {
            Timer::Tokio { .. } => self.sleep_until(now_ms.saturating_add(ms)).await,
            Timer::Node(clock) => {
                self.node_sleep(clock, now_ms, now_ms.saturating_add(ms))
                    .await
            }
        }
    }

    /// A node's `sleep_until(deadline_ms)`, given its clock's reading now: the clock is read
    /// once per wake-up, not again for what the caller has just read.
    async fn node_sleep(&self, clock: &RefCell<Clock>, mut now_ms: u64, deadline_ms: u64) {
        loop {
            let left = deadline_ms.saturating_sub(now_ms);
            let true_ms = clock.borrow().true_ms_for(left);
            // turmoil's sleep tells the simulation when this host next has work, so a lazy
            // step can skip it until then (`Hosts::lazy_clients`).
            turmoil::sleep(Duration::from_millis(true_ms)).await;
            now_ms = self.now_ms();
            if now_ms >= deadline_ms {
                return;
            }
        }
    }

    /// `work`'s output, or None if `ms` pass on this clock first.
    pub async fn timeout<F: Future>(&self, ms: u64, work: F) -> Option<F::Output> {
        tokio::select! {
            biased;
            out = work => Some(out),
            () = self.sleep(ms) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` inside a turmoil simulation (so `Node::true_ms` is the simulated time) and
    /// returns the true time at which it finished.
    fn true_ms_after(f: impl AsyncFnOnce() + 'static) -> u64 {
        let mut sim = turmoil::Builder::new()
            .tick_duration(Duration::from_millis(1))
            .build();
        let done = Rc::new(RefCell::new(0));
        let at = done.clone();
        sim.client("c1", async move {
            f().await;
            *at.borrow_mut() = Node::true_ms();
            Ok(())
        });
        sim.run().unwrap();
        *done.borrow()
    }

    #[test]
    fn a_node_timer_sleeps_by_its_own_drifting_clock() {
        let fast = Rc::new(RefCell::new(Clock::default()));
        fast.borrow_mut().set_drift(0, 250_000);
        let timer = Timer::node(fast);
        assert_eq!(true_ms_after(async move || timer.sleep(100).await), 80);
        let slow = Rc::new(RefCell::new(Clock::default()));
        slow.borrow_mut().set_drift(0, -500_000);
        let timer = Timer::node(slow);
        assert_eq!(true_ms_after(async move || timer.sleep(100).await), 200);
    }

    #[test]
    fn a_wall_clock_jump_does_not_move_a_node_timer() {
        let clock = Rc::new(RefCell::new(Clock::default()));
        let timer = Timer::node(clock.clone());
        let jumped = true_ms_after(async move || {
            let started = timer.now_ms();
            clock.borrow_mut().jump(-60_000);
            timer.sleep(50).await;
            assert_eq!(timer.now_ms() - started, 50);
        });
        assert_eq!(jumped, 50);
    }

    #[test]
    fn a_timeout_gives_up_by_the_node_clock() {
        let fast = Rc::new(RefCell::new(Clock::default()));
        fast.borrow_mut().set_drift(0, 100_000);
        let timer = Timer::node(fast);
        let gave_up = true_ms_after(async move || {
            let never = std::future::pending::<()>();
            assert_eq!(timer.timeout(110, never).await, None);
        });
        assert_eq!(gave_up, 100);
    }
}
