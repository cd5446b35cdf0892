//! What a simulated host's software sees of the world: its name, its own clock, its pause
//! gate, its randomness, and the recorder it appends events to.

use crate::history::{Event, Kind, Op, ServerEvent};
use crate::recorder::{Late, Margin, Recorder};
use crate::sim::clock::Clock;
use crate::sim::param::{Param, ParamValue, ParamValues};
use crate::sim::pause::PauseGate;
use crate::sim::seed::Seeds;
use crate::sim::timer::Timer;
use rand_chacha::ChaCha8Rng;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

thread_local! {
    /// The true time while the world's driver acts between simulation steps: no host is
    /// executing then, so turmoil has no time to give, yet a server applying a fault (a
    /// failover) reads its clocks and records what it did.
    static DRIVER_MS: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Puts back the driver time that was there before, even if the driver's work panicked.
struct DriverTime(Option<u64>);

impl Drop for DriverTime {
    fn drop(&mut self) {
        DRIVER_MS.set(self.0);
    }
}

/// A simulated host as its software sees it: what a recipe is given to read its clocks,
/// sleep, draw randomness, spawn tasks and record events.
#[derive(Debug, Clone)]
pub struct Node {
    /// The host's name (`c1`, `zk1`, `redis1`).
    pub name: String,
    /// Its clock, which faults skew, jump and make drift.
    pub(crate) clock: Rc<RefCell<Clock>>,
    /// What freezes it during a pause.
    pub(crate) gate: PauseGate,
    /// Where its events go.
    pub(crate) recorder: Recorder,
    /// The run's seed streams; the node draws from its own (named after it).
    pub(crate) seeds: Seeds,
    /// The run's values of the built-in parameters and of those its scenario declared
    /// (`param` reads them); shared, since a node is cloned wherever its software goes.
    pub(crate) params: Rc<ParamValues>,
    /// What its software keeps across sessions (`kept`).
    pub(crate) kept: Kept,
}

/// A host's values of its own, one per type, for as long as the host's run lasts.
#[derive(Clone, Default)]
pub(crate) struct Kept(Rc<RefCell<Vec<Rc<dyn Any>>>>);

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kept({} values)", self.0.borrow().len())
    }
}

impl Node {
    /// True simulated time in ms (for the history only: node logic must use its clocks).
    pub fn true_ms() -> u64 {
        turmoil::sim_elapsed()
            .map(|d| d.as_millis() as u64)
            .or_else(|| DRIVER_MS.get())
            .unwrap_or(0)
    }

    /// Runs `f` as the world's driver at true time `now_ms`: host software it calls into
    /// (a server applying a fault) reads that time.
    pub fn as_driver_at<T>(now_ms: u64, f: impl FnOnce() -> T) -> T {
        let _restore = DriverTime(DRIVER_MS.replace(Some(now_ms)));
        f()
    }

    /// Its wall clock's reading, ms since the epoch (jumps with it).
    pub fn wall_ms(&self) -> i64 {
        self.clock.borrow().wall_ms(Self::true_ms())
    }

    /// Its monotonic clock's reading, ms (drifts, never jumps).
    pub fn mono_ms(&self) -> u64 {
        self.clock.borrow().mono_ms(Self::true_ms())
    }

    /// Both clocks at one instant, `(mono_ms, wall_ms)`: what a server reads on every
    /// input, for the price of one look at true time.
    pub fn clocks_ms(&self) -> (u64, i64) {
        let true_ms = Self::true_ms();
        let clock = self.clock.borrow();
        (clock.mono_ms(true_ms), clock.wall_ms(true_ms))
    }

    /// Timers on this node's monotonic clock.
    pub fn timer(&self) -> Timer {
        Timer::node(self.clock.clone())
    }

    /// The node's own random stream: the same draws on every replay of the seed.
    pub fn rng(&self) -> ChaCha8Rng {
        self.seeds.stream(&self.name)
    }

    /// A number from the node's stream, for components that seed themselves.
    pub fn seed(&self) -> u64 {
        self.seeds.derive(&self.name)
    }

    /// The host's value of type `T`, made with `T::default()` the first time it is asked
    /// for and the same value (shared) every time after, for as long as the host runs:
    /// what a process keeps in memory across its sessions. A recipe bound to one session
    /// that must settle, on the next one, a request whose reply it lost keeps it here (the
    /// workload builds a new recipe object for each session).
    ///
    /// ```
    /// # fn f(node: &locksim::Node) {
    /// #[derive(Default)]
    /// struct InFlight(Option<String>);
    ///
    /// let in_flight = node.kept::<InFlight>();
    /// in_flight.borrow_mut().0 = Some("p1-0".into());
    /// assert_eq!(node.kept::<InFlight>().borrow().0.as_deref(), Some("p1-0"));
    /// # }
    /// ```
    pub fn kept<T: Default + 'static>(&self) -> Rc<RefCell<T>> {
        let mut kept = self.kept.0.borrow_mut();
        if let Some(value) = kept
            .iter()
            .find_map(|v| v.clone().downcast::<RefCell<T>>().ok())
        {
            return value;
        }
        let value = Rc::new(RefCell::new(T::default()));
        kept.push(value.clone());
        value
    }

    /// This run's value of a parameter of your own scenario (its default unless the
    /// experiment declares it and something sets it), or of a built-in one, read with a
    /// `Param` of its key and type (`Param::u64("session_timeout_ms", 200)`).
    ///
    /// ```
    /// const PERMITS: locksim::Param<u32> = locksim::Param::u32("permits", 2);
    /// # fn f(node: &locksim::Node) {
    /// let permits = node.param(PERMITS);
    /// # }
    /// ```
    pub fn param<T: ParamValue>(&self, param: Param<T>) -> T {
        self.params.get(param)
    }

    /// Whether the run keeps what its servers tell a search (a guided search's runs): a
    /// server asks before it names a request or measures a margin, so other runs pay a
    /// check and no more.
    pub(crate) fn keeps_server_log(&self) -> bool {
        self.recorder.keeps_server_log()
    }

    /// Notes that this server answered `client`'s request `op` (as `lose_reply` names it),
    /// its reply lost or not, beside the history: the guided search aims lost replies at
    /// such requests.
    pub(crate) fn answered(&self, client: &str, op: &'static str, lost: bool) {
        self.recorder
            .answered(Self::true_ms(), &self.name, client, op, lost);
    }

    /// Notes, beside the history, that this server measured `ms` to spare before a flaw of
    /// `name` (`recorder::Margin`): the guided search pushes the runs that came nearest.
    pub(crate) fn margin(&self, name: &'static str, ms: i64) {
        self.recorder.margin(Margin {
            name,
            at_ms: Self::true_ms(),
            ms,
            node: self.name.clone(),
            late: Late::Apply,
        });
    }

    /// Notes, beside the history, that this server measured `ms` to spare before a read
    /// missed a node (margin `name`): `client`'s requests, from the one that came in at
    /// `since_ms` of the server's monotonic clock until the one at `at_ms`, made that much
    /// later close it (`recorder::Late::Requests`; `reader` when they are the reader's own).
    pub(crate) fn request_margin(
        &self,
        name: &'static str,
        client: &str,
        (since_ms, at_ms): (u64, u64),
        ms: u64,
        reader: bool,
    ) {
        let (now_ms, mono_ms) = (Self::true_ms(), self.clocks_ms().0);
        let true_of = |mono: u64| now_ms.saturating_sub(mono_ms.saturating_sub(mono));
        self.recorder.margin(Margin {
            name,
            at_ms: true_of(at_ms),
            ms: i64::try_from(ms).unwrap_or(i64::MAX),
            node: self.name.clone(),
            late: Late::Requests {
                client: client.to_string(),
                since_ms: true_of(since_ms),
                reader,
            },
        });
    }

    /// Records `op` as this node's event of `kind`, at the true time and its clock's reading.
    pub fn record(&self, kind: Kind, op: Op) {
        let time_ms = Self::true_ms();
        self.recorder.record(Event {
            time_ms,
            clock_ms: self.clock.borrow().wall_ms(time_ms),
            node: self.name.clone(),
            kind,
            op,
        });
    }

    /// Records an event of the user's own: `event` serialises to an object tagged with its
    /// name under `op` (`#[serde(tag = "op", rename_all = "snake_case")]` on an enum), and a
    /// checker reads it back with `ServerEvent::read`. Timelines show it with its fields.
    ///
    /// ```
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// #[serde(tag = "op", rename_all = "snake_case")]
    /// enum Permit { Taken { slot: u32 } }
    /// # fn f(node: &locksim::Node) {
    /// node.record_event(&Permit::Taken { slot: 1 });
    /// # }
    /// ```
    ///
    /// # Panics
    /// When `event` does not serialise to such an object.
    pub fn record_event(&self, event: &impl serde::Serialize) {
        self.record(Kind::Info, Op::User(ServerEvent::new(event)));
    }

    /// The program reached `step`, a point of its own where a fault plan may aim a
    /// `pause_before` or a step trigger: a pause armed for it strikes here, and the host
    /// freezes before it goes on. A workload's steps are declared with it; a step of your
    /// own code is declared with `Experiment::steps` (or `Scenario::with_steps`).
    ///
    /// # Panics
    /// On a step nothing declares, naming it and those declared: no plan could ever aim at
    /// it, and a silent step is a test that cannot find what it was written for. The run
    /// ends as a harness error with that message, the same on every replay.
    pub async fn step(&self, step: &str) {
        if let Err(declared) = self.gate.declares(step) {
            panic!(
                "{} reached step '{step}', which no program declares (declared: {declared}); \
                 declare it with `Experiment::steps`",
                self.name
            );
        }
        if self.gate.strike(step, Self::true_ms()) {
            tokio::task::yield_now().await;
        }
    }

    /// Spawns a task of this host behind its pause gate.
    pub fn spawn<F>(&self, fut: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: std::future::Future + 'static,
        F::Output: 'static,
    {
        tokio::task::spawn_local(self.gate.gate(fut))
    }
}
