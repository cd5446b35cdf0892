//! What the server families' host tests share: a world of 1 ms ticks and latencies, stepped
//! until its clients finish, with steps of the test's own done to it at their instants, and
//! its hosts as their software sees them.

use crate::recorder::Recorder;
use crate::sim::clock::Clock;
use crate::sim::node::Node;
use crate::sim::param::ParamValues;
use crate::sim::pause::PauseGate;
use crate::sim::seed::Seeds;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// A step done to the world at a true instant (ms), given what the test keeps at hand.
pub(crate) type TimedStep<C> = (u64, Box<dyn Fn(&mut turmoil::Sim<'_>, &C)>);

/// Host `name` of seed 1 with a clock at zero, recording into `recorder`, reading `params`.
pub(crate) fn node(name: &str, recorder: &Recorder, params: &Rc<ParamValues>) -> Node {
    Node {
        name: name.into(),
        clock: Rc::new(RefCell::new(Clock::default())),
        gate: PauseGate::default(),
        recorder: recorder.clone(),
        seeds: Seeds::new(1),
        params: params.clone(),
        kept: Default::default(),
    }
}

/// A turmoil world of 1 ms ticks and 1 ms latencies, for a minute at most.
pub(crate) fn sim<'a>() -> turmoil::Sim<'a> {
    turmoil::Builder::new()
        .tick_duration(Duration::from_millis(1))
        .min_message_latency(Duration::from_millis(1))
        .max_message_latency(Duration::from_millis(1))
        .simulation_duration(Duration::from_secs(60))
        .build()
}

/// Steps `sim` until its clients finish, doing each of `steps` (in time order) once true time
/// reaches its instant, with `at_hand`.
///
/// # Panics
/// When a client fails: its checks are the test's.
pub(crate) fn run<C: ?Sized>(sim: &mut turmoil::Sim<'_>, steps: Vec<TimedStep<C>>, at_hand: &C) {
    let mut steps = steps.into_iter().peekable();
    loop {
        let now = sim.elapsed().as_millis() as u64;
        while let Some((_, step)) = steps.next_if(|(at, _)| *at <= now) {
            step(sim, at_hand);
        }
        if sim.step().expect("the client's checks hold") {
            break;
        }
    }
}
