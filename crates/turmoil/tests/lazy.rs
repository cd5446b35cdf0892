//! Lazy hosts (`Sim::set_lazy`): skipped on the steps they have nothing to do, with the same
//! simulation as when every host runs on every step.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use turmoil::net::{TcpListener, TcpStream};
use turmoil::{Builder, Polls};

type Log = Rc<RefCell<Vec<(String, Duration)>>>;

fn note(log: &Log, what: impl Into<String>) {
    log.borrow_mut()
        .push((what.into(), turmoil::sim_elapsed().unwrap()));
}

/// A server that answers each byte after a sleep, and a client that sends on a schedule of
/// its own; what each saw when, and how often hosts ran.
fn run(lazy: bool) -> (Vec<(String, Duration)>, Polls) {
    let log: Log = Rc::default();
    let mut sim = Builder::new()
        .tick_duration(Duration::from_millis(1))
        .min_message_latency(Duration::from_millis(1))
        .max_message_latency(Duration::from_millis(7))
        .rng_seed(7)
        .build();
    let server_log = log.clone();
    sim.host("server", move || {
        let log = server_log.clone();
        async move {
            let listener = TcpListener::bind(("0.0.0.0", 1000)).await?;
            let (mut stream, _) = listener.accept().await?;
            let mut byte = [0];
            while stream.read_exact(&mut byte).await.is_ok() {
                note(&log, format!("server got {}", byte[0]));
                turmoil::sleep(Duration::from_millis(byte[0] as u64)).await;
                stream.write_all(&byte).await?;
            }
            Ok(())
        }
    });
    let client_log = log.clone();
    sim.client("client", async move {
        let mut stream = TcpStream::connect(("server", 1000)).await?;
        for wait in [3u8, 40, 0, 17] {
            turmoil::sleep(Duration::from_millis(25)).await;
            stream.write_all(&[wait]).await?;
            let mut back = [0];
            stream.read_exact(&mut back).await?;
            note(&client_log, format!("client got {}", back[0]));
        }
        Ok(())
    });
    sim.set_lazy("server", lazy);
    sim.set_lazy("client", lazy);
    sim.run().unwrap();
    let polls = sim.polls();
    (log.take(), polls)
}

#[test]
fn a_lazy_host_sees_what_an_eager_one_sees_when_it_sees_it() {
    let (eager, eager_polls) = run(false);
    let (lazy, lazy_polls) = run(true);
    assert_eq!(eager.len(), 8);
    assert_eq!(lazy, eager);
    assert_eq!(eager_polls.skipped, 0);
    assert_eq!(
        lazy_polls.run + lazy_polls.skipped + lazy_polls.fired,
        eager_polls.run
    );
    assert!(
        lazy_polls.run * 4 < eager_polls.run,
        "lazy {lazy_polls:?}, eager {eager_polls:?}"
    );
}

#[test]
fn a_lazy_host_woken_from_outside_runs_on_the_next_step() {
    let flag = Rc::new(tokio::sync::Notify::new());
    let woke_at = Rc::new(RefCell::new(None));
    let mut sim = Builder::new()
        .tick_duration(Duration::from_millis(1))
        .build();
    let (waiting, at) = (flag.clone(), woke_at.clone());
    sim.client("sleeper", async move {
        waiting.notified().await;
        *at.borrow_mut() = turmoil::sim_elapsed();
        Ok(())
    });
    sim.set_lazy("sleeper", true);
    for _ in 0..10 {
        sim.step().unwrap();
    }
    flag.notify_one();
    assert!(sim.step().unwrap(), "the woken client finished");
    assert_eq!(*woke_at.borrow(), Some(Duration::from_millis(10)));
    assert_eq!(sim.polls().run, 2, "{:?}", sim.polls());
}

/// The order in which host "a" runs two tasks made ready at 11 ms: one by its own sleep,
/// one by host "b" (run before it on each step) through a `Notify` they share.
fn order_of_wakes(lazy: bool) -> Vec<&'static str> {
    let log = Rc::new(RefCell::new(Vec::new()));
    let notify = Rc::new(tokio::sync::Notify::new());
    let mut sim = Builder::new()
        .tick_duration(Duration::from_millis(1))
        .build();
    let waker = notify.clone();
    sim.client("b", async move {
        turmoil::sleep(Duration::from_millis(11)).await;
        waker.notify_one();
        Ok(())
    });
    let (woken, slept) = (log.clone(), log.clone());
    sim.client("a", async move {
        let by_b = tokio::task::spawn_local(async move {
            notify.notified().await;
            woken.borrow_mut().push("woken by b");
        });
        let own = tokio::task::spawn_local(async move {
            turmoil::sleep(Duration::from_millis(11)).await;
            slept.borrow_mut().push("own sleep");
        });
        let _ = (by_b.await, own.await);
        Ok(())
    });
    sim.set_lazy("a", lazy);
    sim.run().unwrap();
    log.take()
}

/// A sleep due as a step ends fires as the host's tick ends, queueing its task ahead of one
/// that another host wakes on the next step: a lazy host runs on that step too, or the two
/// would run the other way round.
#[test]
fn a_sleep_due_as_a_step_ends_queues_its_task_ahead_of_the_next_steps_wakes() {
    assert_eq!(order_of_wakes(false), ["own sleep", "woken by b"]);
    assert_eq!(order_of_wakes(true), order_of_wakes(false));
}

/// `Sim::skip_idle` moves through the steps in which no host would run, once a step ran
/// none, stopping before the step in which a sleep is due, and no further than it is told.
#[test]
fn idle_steps_pass_at_once_up_to_the_next_thing_due() {
    let mut sim = Builder::new()
        .tick_duration(Duration::from_millis(1))
        .build();
    sim.client("sleeper", async {
        turmoil::sleep(Duration::from_millis(10)).await;
        Ok(())
    });
    sim.set_lazy("sleeper", true);
    assert!(!sim.step().unwrap());
    assert_eq!(sim.skip_idle(u32::MAX), 0, "the first step ran the client");
    assert!(!sim.step().unwrap());
    assert_eq!(sim.skip_idle(3), 3);
    let idle = sim.skip_idle(u32::MAX);
    assert_eq!(idle, 4, "steps 6 to 9 ms, not the one the sleep ends");
    assert_eq!(sim.skip_idle(u32::MAX), 0);
    assert_eq!(sim.elapsed(), Duration::from_millis(9));
    while !sim.step().unwrap() {}
    assert_eq!(sim.elapsed(), Duration::from_millis(11));
    let polls = sim.polls();
    assert_eq!((polls.run, polls.skipped, polls.fired), (2, 8, 1));
}

/// A message in flight ends the idle steps where it arrives, and an eager host has none.
#[test]
fn a_message_in_flight_or_an_eager_host_ends_the_idle_steps() {
    for lazy in [true, false] {
        let mut sim = Builder::new()
            .tick_duration(Duration::from_millis(1))
            .min_message_latency(Duration::from_millis(6))
            .max_message_latency(Duration::from_millis(6))
            .build();
        sim.host("server", || async {
            let listener = TcpListener::bind(("0.0.0.0", 1000)).await?;
            let (mut stream, _) = listener.accept().await?;
            stream.write_all(&[1]).await?;
            Ok(())
        });
        sim.client("client", async {
            let mut stream = TcpStream::connect(("server", 1000)).await?;
            stream.read_exact(&mut [0]).await?;
            Ok(())
        });
        sim.set_lazy("server", lazy);
        sim.set_lazy("client", lazy);
        sim.step().unwrap();
        sim.step().unwrap();
        let idle = sim.skip_idle(u32::MAX);
        match lazy {
            true => assert_eq!(idle, 4, "the connect arrives on the step ending at 7 ms"),
            false => assert_eq!(idle, 0),
        }
        sim.run().unwrap();
    }
}
