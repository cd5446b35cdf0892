use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use pin_project_lite::pin_project;
use rand::rngs::SmallRng;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio::task::LocalSet;
use tokio::time::{sleep, Duration, Instant, Sleep};

use super::Result;

// To support re-creation, we need to store a factory of the future that
// represents the software. This is somewhat annoying in that it requires
// boxxing to avoid generics.
type Software<'a> = Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result>>> + 'a>;

/// Runtime kinds.
pub enum Kind<'a> {
    /// A runtime for executing test code.
    Client,

    /// A runtime that is running simulated host software.
    Host { software: Software<'a> },

    /// A runtime without any software. The network topology uses this for
    /// time tracking and message delivery.
    NoSoftware,
}

/// Runtime configuration.
#[derive(Clone, Default)]
pub struct Config {
    /// Whether io is enabled on the runtime.
    pub enable_io: bool,

    /// Rng used to seed the tokio runtime.
    ///
    /// A seed is drawn from it whether or not the `tokio_unstable` cfg flag is
    /// set, so a simulation consumes the same randomness in both builds; tokio
    /// only takes the seed if the flag is set.
    pub rng: Option<SmallRng>,
}

/// Per host simulated runtime.
///
/// The tokio runtime is paused (see [`Builder::start_paused`]), which gives us
/// control over when and how to advance time. In particular, see [`Rt::tick`],
/// which lets the runtime do a bit more work.
pub struct Rt<'a> {
    pub kind: Kind<'a>,

    /// Handle to the Tokio runtime driving this simulated host. Each runtime
    /// may have a different sense of "now" which simulates clock skew.
    tokio: Runtime,

    /// Local task set used for running !Send tasks.
    local: LocalSet,

    /// A user readable name to identify the node.
    pub nodename: Arc<str>,

    /// Optional handle to a host's software. When software finishes, the handle is
    /// consumed to check for error, which is propagated up to fail the simulation.
    handle: Option<JoinHandle<Result>>,

    /// Runtime configuration.
    config: Config,

    /// Whether a task of this runtime was woken and has not run yet.
    woken: Arc<Woken>,

    /// `woken` as the waker a tick polls the host's tasks with, made once.
    woken_waker: Waker,

    /// The tick's own sleep, made once per runtime and reset for each tick.
    tick_sleep: Option<Pin<Box<Sleep>>>,

    /// Simulated time that passed while the host was skipped (see [`Rt::tick`]).
    pub(crate) owed: Duration,

    /// Whether the host may be skipped on steps it has no work (`Sim::set_lazy`).
    pub(crate) lazy: bool,
}

impl<'a> Rt<'a> {
    pub(crate) fn client<F>(nodename: Arc<str>, client: F, mut config: Config) -> Self
    where
        F: Future<Output = Result> + 'static,
    {
        let (tokio, local) = init(&mut config);

        let handle = with(&tokio, &local, || tokio::task::spawn_local(client));

        let (woken, woken_waker) = Woken::new(true);
        Self {
            kind: Kind::Client,
            tokio,
            local,
            nodename,
            handle: Some(handle),
            config,
            woken,
            woken_waker,
            tick_sleep: None,
            owed: Duration::ZERO,
            lazy: false,
        }
    }

    pub(crate) fn host<F, Fut>(nodename: Arc<str>, software: F, mut config: Config) -> Self
    where
        F: Fn() -> Fut + 'a,
        Fut: Future<Output = Result> + 'static,
    {
        let (tokio, local) = init(&mut config);

        let software: Software = Box::new(move || Box::pin(software()));
        let handle = with(&tokio, &local, || tokio::task::spawn_local(software()));

        let (woken, woken_waker) = Woken::new(true);
        Self {
            kind: Kind::Host { software },
            tokio,
            local,
            nodename,
            handle: Some(handle),
            config,
            woken,
            woken_waker,
            tick_sleep: None,
            owed: Duration::ZERO,
            lazy: false,
        }
    }

    pub(crate) fn no_software() -> Self {
        let mut config = Config::default();
        let (tokio, local) = init(&mut config);

        let (woken, woken_waker) = Woken::new(false);
        Self {
            kind: Kind::NoSoftware,
            tokio,
            local,
            nodename: String::new().into(),
            handle: None,
            config,
            woken,
            woken_waker,
            tick_sleep: None,
            owed: Duration::ZERO,
            lazy: false,
        }
    }

    pub(crate) fn is_client(&self) -> bool {
        matches!(self.kind, Kind::Client)
    }

    fn is_host(&self) -> bool {
        matches!(self.kind, Kind::Host { .. })
    }

    pub(crate) fn is_software_running(&self) -> bool {
        self.handle.is_some()
    }

    pub(crate) fn now(&self) -> Instant {
        let _guard = self.tokio.enter();
        Instant::now()
    }

    // This method is called by [`Sim::run`], which iterates through all the
    // runtimes and ticks each one. The magic of this method is described in the
    // documentation for [`LocalSet::run_until`], but it may not be entirely
    // obvious how things fit together.
    //
    // A [`LocalSet`] tracks the tasks to run, which may in turn spawn more
    // tasks. `run_until` drives a top level task to completion, but not its
    // children. If you look below, you may be confused. The task we run here
    // just sleeps and has no children! However, it's the _same `LocalSet`_ that
    // is used to run software on the host.
    //
    // In this way, every time `tick` is called, the following unfolds:
    //
    // 1. Time advances on the runtime
    // 2. We schedule a new task that simply sleeps
    // 3. Other tasks on the `LocalSet` get a chance to run
    // 4. The sleep finishes
    // 5. The runtime pauses
    //
    // Before 1, a lazy host that was skipped has its clock moved over the time
    // it owes (see `catch_up`) and `arrive` is called with the host's time, to
    // deliver what the network has for it: one `block_on` for all three.
    //
    // Returns whether the software has finished successfully or the error
    // that caused failure. Subsequent calls do not return the error as it is
    // expected to fail the simulation.
    pub(crate) fn tick(
        &mut self,
        duration: Duration,
        arrive: impl FnOnce(Instant),
    ) -> Result<bool> {
        let (woken, waker) = (&self.woken, &self.woken_waker);
        let owed = mem::take(&mut self.owed);
        let tick_sleep = self.tick_sleep.get_or_insert_with(|| {
            let _runtime = self.tokio.enter();
            Box::pin(sleep(duration))
        });
        self.tokio.block_on(async {
            // As `catch_up`: the sleeps this fires wake their tasks ahead of what
            // `arrive` delivers, and no task runs before `Recording` polls them.
            if !owed.is_zero() {
                tokio::time::advance(owed).await;
            }
            let now = Instant::now();
            arrive(now);
            tick_sleep.as_mut().reset(now + duration);
            Recording {
                woken,
                waker,
                inner: self.local.run_until(Plain {
                    woken,
                    inner: tick_sleep.as_mut(),
                }),
            }
            .await
        });

        // pull for software completion
        match &self.handle {
            Some(handle) if handle.is_finished() => {
                // Consume handle to extract task result
                if let Some(h) = self.handle.take() {
                    match self.tokio.block_on(h) {
                        // If the host was crashed the JoinError is cancelled, which
                        // needs to be handled to not fail the simulation.
                        Err(je) if je.is_cancelled() => {}
                        res => res??,
                    }
                };
                Ok(true)
            }
            Some(_) => Ok(false),
            None => Ok(true),
        }
    }

    /// Moves the clock over the time owed by a lazy host that was skipped, running no task:
    /// no sleep was due before its end and no task was woken (see `Sim::set_lazy`), so this
    /// is what ticking through it would have done, sleeps due at its end fired included.
    pub(crate) fn catch_up(&mut self) {
        let owed = mem::take(&mut self.owed);
        if !owed.is_zero() {
            self.tokio.block_on(tokio::time::advance(owed));
        }
    }

    /// Whether a task was woken since this runtime last ran, or is left to run: a lazy host
    /// without one is skipped unless a message or a deadline is due.
    pub(crate) fn is_woken(&self) -> bool {
        self.woken.flag.load(Ordering::Relaxed)
    }

    pub(crate) fn crash(&mut self) {
        if !self.is_host() {
            panic!("can only crash host's software");
        }

        if self.handle.take().is_some() {
            self.cancel_tasks();
        };
    }

    pub(crate) fn bounce(&mut self) {
        if !self.is_host() {
            panic!("can only bounce host's software");
        }

        self.cancel_tasks();

        if let Kind::Host { software } = &self.kind {
            let handle = with(&self.tokio, &self.local, || {
                tokio::task::spawn_local(software())
            });
            self.handle.replace(handle);
            self.woken.flag.store(true, Ordering::Relaxed);
        };
    }

    /// Cancel all tasks within the [`Rt`] by dropping the current tokio
    /// [`Runtime`].
    ///
    /// Dropping the runtime blocks the calling thread until all futures have
    /// completed, which is desired here to ensure host software completes and
    /// all resources are dropped.
    ///
    /// Both the [`Runtime`] and [`LocalSet`] are replaced with new instances.
    fn cancel_tasks(&mut self) {
        // The new runtime's clock starts where a new one does; the old one's debt goes.
        self.owed = Duration::ZERO;
        self.tick_sleep = None;
        let (tokio, local) = init(&mut self.config);

        _ = mem::replace(&mut self.tokio, tokio);
        drop(mem::replace(&mut self.local, local));
    }
}

fn init(config: &mut Config) -> (Runtime, LocalSet) {
    let mut tokio_builder = tokio::runtime::Builder::new_current_thread();

    #[cfg(tokio_unstable)]
    tokio_builder.unhandled_panic(tokio::runtime::UnhandledPanic::ShutdownRuntime);

    if config.enable_io {
        tokio_builder.enable_io();
    }

    if let Some(rng) = &mut config.rng {
        let bytes: [u8; 32] = rand::Rng::random(rng);
        #[cfg(tokio_unstable)]
        tokio_builder.rng_seed(tokio::runtime::RngSeed::from_bytes(&bytes));
        #[cfg(not(tokio_unstable))]
        let _ = bytes;
    }

    let tokio = tokio_builder
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();

    tokio.block_on(async {
        // Sleep to "round" `Instant::now()` to the closest `ms`
        tokio::time::sleep(Duration::from_millis(1)).await;
    });

    (tokio, new_local())
}

fn new_local() -> LocalSet {
    #[cfg(not(tokio_unstable))]
    let local = LocalSet::new();

    #[cfg(tokio_unstable)]
    let mut local = LocalSet::new();

    #[cfg(tokio_unstable)]
    local.unhandled_panic(tokio::runtime::UnhandledPanic::ShutdownRuntime);

    local
}

/// The waker a host's `LocalSet` is polled with: it records that a task of the host was
/// woken, then wakes the runtime as the waker it wraps would.
struct Woken {
    flag: AtomicBool,
    inner: Mutex<Option<Waker>>,
}

impl Woken {
    /// A `Woken`, and itself as a waker.
    fn new(woken: bool) -> (Arc<Woken>, Waker) {
        let woken = Arc::new(Woken {
            flag: AtomicBool::new(woken),
            inner: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&woken));
        (woken, waker)
    }
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flag.store(true, Ordering::Relaxed);
        // Waking the runtime only marks it woken: it cannot come back here.
        if let Some(waker) = self.inner.lock().unwrap().as_ref() {
            waker.wake_by_ref();
        }
    }
}

pin_project! {
    /// Polls a tick's `run_until` with [`Woken`] as the waker, so that the flag ends up
    /// saying whether a task is left to run: it is cleared before each poll, set by every
    /// wake-up of a task since, and kept on the last poll, in which `run_until` returns
    /// before running them.
    struct Recording<'a, F> {
        woken: &'a Arc<Woken>,
        waker: &'a Waker,
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Recording<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let me = self.project();
        {
            let mut slot = me.woken.inner.lock().unwrap();
            if !slot.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *slot = Some(cx.waker().clone());
            }
        }
        let was = me.woken.flag.swap(false, Ordering::Relaxed);
        let done = me.inner.poll(&mut Context::from_waker(me.waker));
        if done.is_ready() && was {
            me.woken.flag.store(true, Ordering::Relaxed);
        }
        done
    }
}

pin_project! {
    /// The tick's own sleep, polled with the runtime's waker rather than [`Woken`]: its
    /// firing is not a task's wake-up.
    struct Plain<'a, F> {
        woken: &'a Arc<Woken>,
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Plain<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let me = self.project();
        // A sleep's poll wakes no task of the host, so nothing locks this again meanwhile.
        match me.woken.inner.lock().unwrap().as_ref() {
            Some(waker) => me.inner.poll(&mut Context::from_waker(waker)),
            None => me.inner.poll(cx),
        }
    }
}

fn with<R>(tokio: &Runtime, local: &LocalSet, f: impl FnOnce() -> R) -> R {
    tokio.block_on(async { local.run_until(async { f() }).await })
}
