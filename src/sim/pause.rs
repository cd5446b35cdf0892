//! Stop-the-world pause of one simulated process (a GC pause, SIGSTOP). Every task of a
//! paused host stops at its next await and resumes when the gate opens: timers that fire and
//! bytes that arrive meanwhile wait, exactly as they would for a frozen process.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Debug, Clone, Default)]
pub struct PauseGate(Rc<RefCell<GateState>>);

#[derive(Debug, Default)]
struct GateState {
    paused: bool,
    waiting: Vec<Waker>,
}

impl PauseGate {
    pub fn pause(&self) {
        self.0.borrow_mut().paused = true;
    }

    pub fn resume(&self) {
        let waiting = {
            let mut state = self.0.borrow_mut();
            state.paused = false;
            std::mem::take(&mut state.waiting)
        };
        waiting.into_iter().for_each(Waker::wake);
    }

    /// Wraps a task of this host so that it makes no progress while the host is paused.
    pub fn gate<F: Future>(&self, inner: F) -> Gated<F> {
        Gated {
            gate: self.clone(),
            inner: Box::pin(inner),
        }
    }
}

pub struct Gated<F> {
    gate: PauseGate,
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for Gated<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        {
            let mut state = self.gate.0.borrow_mut();
            if state.paused {
                state.waiting.push(cx.waker().clone());
                return Poll::Pending;
            }
        }
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
}
