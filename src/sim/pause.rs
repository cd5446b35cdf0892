//! Stop-the-world pause of one simulated process (a GC pause, SIGSTOP). Every task of a
//! paused host stops at its next await and resumes when the gate opens: timers that fire and
//! bytes that arrive meanwhile wait, exactly as they would for a frozen process.
//! A pause can also be armed for a step of the host's program: it strikes when the program
//! reaches that step (`Node::step`), and whoever armed it learns when (`take_struck`).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// What freezes a host: shared by every task the host runs (`Node::spawn` puts each behind
/// it) and by the world, which closes it for a pause and opens it again.
#[derive(Debug, Clone, Default)]
pub struct PauseGate(Rc<RefCell<GateState>>);

#[derive(Debug, Default)]
struct GateState {
    /// The steps its program declares (`Hosts::pause_steps`): the only ones it may reach.
    declared: Rc<[String]>,
    paused: bool,
    waiting: Vec<Waker>,
    /// Pauses waiting for their step: (step, for_ms).
    armed: Vec<(String, u64)>,
    /// Armed pauses that struck and are not yet taken.
    struck: Vec<Struck>,
    /// Steps at which the host stops for whoever set them to decide what happens (a fault
    /// triggered by the step), until it is resumed.
    trips: Vec<String>,
    /// Steps it stopped at, with when, not yet taken.
    tripped: Vec<(String, u64)>,
}

/// An armed pause that struck: the host reached `step` at true time `at_ms` and froze.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Struck {
    pub(crate) step: String,
    pub(crate) at_ms: u64,
    /// How long the pause lasts from then, ms.
    pub(crate) for_ms: u64,
}

impl PauseGate {
    /// The gate of a host whose program declares `steps`.
    pub(crate) fn declaring(steps: Rc<[String]>) -> PauseGate {
        PauseGate(Rc::new(RefCell::new(GateState {
            declared: steps,
            ..GateState::default()
        })))
    }

    /// `Err` with the declared steps, comma-separated (`none`), when `step` is not one.
    pub(crate) fn declares(&self, step: &str) -> Result<(), String> {
        let state = self.0.borrow();
        match state.declared.iter().any(|s| s == step) {
            true => Ok(()),
            false if state.declared.is_empty() => Err("none".to_string()),
            false => Err(state.declared.join(", ")),
        }
    }

    /// Freezes the host: each of its tasks stops at its next await.
    pub(crate) fn pause(&self) {
        self.0.borrow_mut().paused = true;
    }

    /// Lets the host run again, waking the tasks that stopped.
    pub(crate) fn resume(&self) {
        let waiting = {
            let mut state = self.0.borrow_mut();
            state.paused = false;
            std::mem::take(&mut state.waiting)
        };
        waiting.into_iter().for_each(Waker::wake);
    }

    /// Pauses the host for `for_ms` when its program next reaches `step`.
    pub(crate) fn arm(&self, step: &str, for_ms: u64) {
        self.0.borrow_mut().armed.push((step.to_string(), for_ms));
    }

    /// Whether any armed pause has yet to strike.
    pub(crate) fn is_armed(&self) -> bool {
        !self.0.borrow().armed.is_empty()
    }

    /// Drops the armed pauses that have not struck.
    pub(crate) fn disarm(&self) {
        self.0.borrow_mut().armed.clear();
    }

    /// Makes the host stop at each of `steps` (replacing the previous set) until resumed.
    pub(crate) fn set_trips(&self, steps: Vec<String>) {
        self.0.borrow_mut().trips = steps;
    }

    /// The steps it stopped at since the last call (oldest first), with when.
    pub(crate) fn take_tripped(&self) -> Vec<(String, u64)> {
        std::mem::take(&mut self.0.borrow_mut().tripped)
    }

    /// The program reached `step` at true time `at_ms`: an armed pause for it strikes, and
    /// the host freezes at its next await; failing that, a trip set for it stops the host
    /// the same way. Returns whether either did.
    pub(crate) fn strike(&self, step: &str, at_ms: u64) -> bool {
        let mut state = self.0.borrow_mut();
        let Some(index) = state.armed.iter().position(|(s, _)| s == step) else {
            if state.trips.iter().any(|s| s == step) {
                state.paused = true;
                state.tripped.push((step.to_string(), at_ms));
                return true;
            }
            return false;
        };
        let (step, for_ms) = state.armed.remove(index);
        state.paused = true;
        state.struck.push(Struck {
            step,
            at_ms,
            for_ms,
        });
        true
    }

    /// The armed pauses that struck since the last call, for whoever must resume the host.
    pub(crate) fn take_struck(&self) -> Vec<Struck> {
        std::mem::take(&mut self.0.borrow_mut().struck)
    }

    /// Ready while the host runs; while it is paused, Pending, and `cx` is woken when it
    /// resumes: what a stream of the host's checks before it moves bytes.
    pub(crate) fn poll_open(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.0.borrow_mut();
        if state.paused {
            state.waiting.push(cx.waker().clone());
            return Poll::Pending;
        }
        Poll::Ready(())
    }

    /// Wraps a task of this host so that it makes no progress while the host is paused.
    pub(crate) fn gate<F: Future>(&self, inner: F) -> Gated<F> {
        Gated {
            gate: self.clone(),
            inner: Box::pin(inner),
        }
    }
}

/// A task of a host behind its gate (`PauseGate::gate`).
pub(crate) struct Gated<F> {
    gate: PauseGate,
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for Gated<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        std::task::ready!(self.gate.poll_open(cx));
        self.inner.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn paused_task_stops_at_its_next_await_and_resumes() {
        let gate = PauseGate::default();
        let steps = Rc::new(Cell::new(0));
        let local = tokio::task::LocalSet::new();
        let counter = steps.clone();
        let task = local.spawn_local(gate.gate(async move {
            for _ in 0..10 {
                counter.set(counter.get() + 1);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }));
        local
            .run_until(async {
                tokio::time::sleep(Duration::from_millis(25)).await;
                gate.pause();
                let at_pause = steps.get();
                tokio::time::sleep(Duration::from_millis(100)).await;
                assert_eq!(steps.get(), at_pause, "a paused task made progress");
                gate.resume();
                task.await.unwrap();
            })
            .await;
        assert_eq!(steps.get(), 10);
    }

    #[test]
    fn an_armed_pause_strikes_once_at_its_step_only() {
        let gate = PauseGate::default();
        gate.arm("write", 300);
        assert!(!gate.strike("release", 5), "another step");
        assert!(gate.strike("write", 7));
        assert!(!gate.strike("write", 9), "it struck already");
        assert!(!gate.is_armed());
        let struck = Struck {
            step: "write".into(),
            at_ms: 7,
            for_ms: 300,
        };
        assert_eq!(gate.take_struck(), vec![struck]);
        assert!(gate.take_struck().is_empty());
        gate.arm("write", 10);
        gate.disarm();
        assert!(!gate.strike("write", 11));
    }

    #[test]
    fn a_trip_stops_the_host_at_its_step_until_resumed() {
        let gate = PauseGate::default();
        gate.set_trips(vec!["exists".into()]);
        assert!(!gate.strike("write", 3));
        assert!(gate.strike("exists", 4));
        assert_eq!(gate.take_tripped(), vec![("exists".to_string(), 4)]);
        assert!(gate.0.borrow().paused);
        gate.resume();
        gate.set_trips(Vec::new());
        assert!(!gate.strike("exists", 5));
        assert!(gate.take_tripped().is_empty());
    }
}
