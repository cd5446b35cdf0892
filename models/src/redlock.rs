//! Redlock: M Redis instances each holding one key, clients that acquire by sending
//! `SET key token NX PX ttl` to every instance and let the recipe's own `decide` judge the
//! votes against the time the attempt took on their clock, global time in ticks up to a
//! bound. A client's monotonic clock is true time (a paused client takes no action, but sees
//! the elapsed time when it resumes); an instance's wall clock is true time plus an offset
//! that a clock jump moves forward, and the instance expires its key once its wall clock
//! reaches the key's expiry. A request takes no time: an unpaused client finishes its attempt,
//! its write and its unlock within the tick, and notices at the tick its validity runs out
//! that it lost the lock. Faults are capped actions: client pauses, instance clock jumps,
//! crashes (losing the key without persistence) and restarts (after a delay).

use crate::check::{Narrated, Transition};
use crate::export::Exportable;
use crate::settings::{ParamError, Renamed, Settings};
use crate::symmetry::Renaming;
use locksim::params::Params;
use locksim::recipes::redis::decide::{self, Decision, Flavor, Release};
use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
use stateright::{Model, Property, Representative};

/// Simulated milliseconds per tick of global time.
pub const TICK_MS: u64 = 100;

/// Where a client may be paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseAt {
    /// Anywhere it is doing something: acquiring, holding, writing, unlocking.
    Any,
    /// Only between the attempt's first SET and the decision: votes in flight.
    Acquiring,
}

/// The model's switches and bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedlockModel {
    pub flavor: Flavor,
    pub instances: u8,
    pub clients: u8,
    /// The lock's TTL, in ticks.
    pub ttl_ticks: u64,
    /// Time stops here, in ticks.
    pub time_ticks: u8,
    /// Pauses allowed in a run, all clients together.
    pub pauses: u8,
    pub pause_at: PauseAt,
    /// Wall-clock jumps allowed in a run, all instances together.
    pub jumps: u8,
    /// How far one jump moves an instance's wall clock forward, in ticks.
    pub jump_ticks: u8,
    /// Instance crashes allowed in a run.
    pub crashes: u8,
    /// Whether a crashed instance keeps its key (an fsync'd AOF) or loses it.
    pub persist: bool,
    /// How long a crashed instance stays down at least, in ticks.
    pub restart_delay_ticks: u8,
}

impl Default for RedlockModel {
    /// The configuration of the published TLA+ model's pause counterexample: 3 instances,
    /// 2 clients, TTL 3, time bound 8, one pause.
    fn default() -> Self {
        RedlockModel {
            flavor: Flavor::Recipe,
            instances: 3,
            clients: 2,
            ttl_ticks: 3,
            time_ticks: 8,
            pauses: 1,
            pause_at: PauseAt::Any,
            jumps: 0,
            jump_ticks: 3,
            crashes: 0,
            persist: false,
            restart_delay_ticks: 0,
        }
    }
}

/// The parameters `--set` accepts, with what each means.
pub const PARAMS: &[(&str, &str)] = &[
    (
        "flavor",
        "recipe, novalidity, nounlock (the scenarios redlock-novalidity, redlock-nounlock) or del (release by plain DEL, no scenario)",
    ),
    ("redis_nodes", "Redis instances, 1 to 5"),
    ("clients", "number of clients, 1 to 3"),
    (
        "ttl_ms",
        "the lock's TTL, 100 to 2000 in steps of 100 (the tick)",
    ),
    (
        "run_limit_ms",
        "time stops here, 100 to 3000 in steps of 100 (the tick)",
    ),
    ("pauses", "client pauses allowed in a run, 0 to 3"),
    (
        "pause_at",
        "any (acquiring, holding, writing, unlocking) or acquiring (votes in flight)",
    ),
    (
        "jumps",
        "instance wall-clock jumps allowed in a run, 0 to 3",
    ),
    (
        "clock_jump_ms",
        "how far a jump moves a wall clock forward, 100 to 2000 in steps of 100 (the tick)",
    ),
    ("crashes", "instance crashes allowed in a run, 0 to 3"),
    (
        "persistence",
        "what a crashed instance keeps: none (loses its key) or aof-always (keeps it); aof-everysec is not modelled",
    ),
    (
        "restart_delay_ms",
        "a crashed instance stays down at least this, 0 to 2000 in steps of 100 (the tick)",
    ),
];

/// The flavors, named as the simulation's scenarios end (`redlock-novalidity`); `del` as
/// the single-node lock's `redis-lock-del`.
const FLAVORS: &[(&str, Flavor)] = &[
    ("recipe", Flavor::Recipe),
    ("novalidity", Flavor::NoValidity),
    ("nounlock", Flavor::NoUnlock),
    ("del", Flavor::PlainDel),
];

/// The simulation's flavors the model cannot express, and why.
pub const UNEXPRESSED: &[(&str, &str)] = &[(
    "fixed-retry",
    "its flaw is timing: clients retrying after the same delay split the votes for ever; the model has no retry delays (a client may retry at any tick) and checks no liveness over unbounded runs",
)];

const PAUSE_AT: &[(&str, PauseAt)] = &[("any", PauseAt::Any), ("acquiring", PauseAt::Acquiring)];

/// Whether a crashed instance keeps its key, as `locksim`'s `persistence` names it.
const PERSISTENCE: &[(&str, bool)] = &[("none", false), ("aof-always", true)];

/// The spellings this model had before it spelled its parameters as `locksim` does.
pub const RENAMED: &[Renamed] = &[
    Renamed {
        old: "instances",
        new: "redis_nodes",
        note: "the number of Redis instances",
    },
    Renamed::TTL,
    Renamed {
        old: "time",
        new: "run_limit_ms",
        note: "milliseconds: time=8 is run_limit_ms=800",
    },
    Renamed {
        old: "pause-at",
        new: "pause_at",
        note: "snake_case",
    },
    Renamed {
        old: "jump",
        new: "clock_jump_ms",
        note: "milliseconds: jump=3 is clock_jump_ms=300",
    },
    Renamed {
        old: "persist",
        new: "persistence",
        note: "persist=true is persistence=aof-always, persist=false is persistence=none",
    },
    Renamed {
        old: "restart-delay",
        new: "restart_delay_ms",
        note: "milliseconds: restart-delay=3 is restart_delay_ms=300",
    },
    Renamed {
        old: "flavor=no-validity",
        new: "flavor=novalidity",
        note: "the scenario redlock-novalidity",
    },
    Renamed {
        old: "flavor=no-unlock",
        new: "flavor=nounlock",
        note: "the scenario redlock-nounlock",
    },
    Renamed {
        old: "flavor=plain-del",
        new: "flavor=del",
        note: "the scenario redis-lock-del",
    },
];

impl RedlockModel {
    /// The model as `--set` configures it, the rest as `default` has it.
    pub fn from_settings(settings: &Settings) -> Result<Self, ParamError> {
        settings.only(PARAMS, RENAMED)?;
        let d = RedlockModel::default();
        Ok(RedlockModel {
            flavor: settings.choice("flavor", FLAVORS, d.flavor)?,
            instances: settings.number("redis_nodes", 1..=5, d.instances)?,
            clients: settings.number("clients", 1..=3, d.clients)?,
            ttl_ticks: settings.millis("ttl_ms", TICK_MS, 1..=20, d.ttl_ticks)?,
            time_ticks: settings.millis("run_limit_ms", TICK_MS, 1..=30, d.time_ticks)?,
            pauses: settings.number("pauses", 0..=3, d.pauses)?,
            pause_at: settings.choice("pause_at", PAUSE_AT, d.pause_at)?,
            jumps: settings.number("jumps", 0..=3, d.jumps)?,
            jump_ticks: settings.millis("clock_jump_ms", TICK_MS, 1..=20, d.jump_ticks)?,
            crashes: settings.number("crashes", 0..=3, d.crashes)?,
            persist: settings.choice("persistence", PERSISTENCE, d.persist)?,
            restart_delay_ticks: settings.millis(
                "restart_delay_ms",
                TICK_MS,
                0..=20,
                d.restart_delay_ticks,
            )?,
        })
    }

    /// The parameters as the report prints them: as `--set` takes them.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let ms = |ticks: u64| (ticks * TICK_MS).to_string();
        vec![
            ("flavor", name_of(FLAVORS, self.flavor).into()),
            ("redis_nodes", self.instances.to_string()),
            ("clients", self.clients.to_string()),
            ("ttl_ms", ms(self.ttl_ticks)),
            ("run_limit_ms", ms(self.time_ticks.into())),
            ("pauses", self.pauses.to_string()),
            ("pause_at", name_of(PAUSE_AT, self.pause_at).into()),
            ("jumps", self.jumps.to_string()),
            ("clock_jump_ms", ms(self.jump_ticks.into())),
            ("crashes", self.crashes.to_string()),
            ("persistence", name_of(PERSISTENCE, self.persist).into()),
            ("restart_delay_ms", ms(self.restart_delay_ticks.into())),
        ]
    }

    fn ttl_ms(&self) -> u64 {
        self.ttl_ticks * TICK_MS
    }

    fn all_instances(&self) -> u8 {
        ((1u16 << self.instances) - 1) as u8
    }

    /// What `decide` makes of `votes` read at `now` for an attempt that started at `started`.
    fn judge(&self, started: u8, votes: u8, now: u8) -> Decision {
        decide::decide(
            self.flavor,
            votes.count_ones() as usize,
            usize::from(self.instances),
            self.ttl_ms(),
            ms(now) - ms(started),
        )
    }

    fn may_pause(&self, phase: Phase) -> bool {
        match (self.pause_at, phase) {
            (_, Phase::Idle) => false,
            (PauseAt::Any, _) => true,
            (PauseAt::Acquiring, phase) => matches!(phase, Phase::Acquiring { .. }),
        }
    }
}

/// The `--set` name of `value` among `options`.
fn name_of<T: PartialEq>(options: &[(&'static str, T)], value: T) -> &'static str {
    options
        .iter()
        .find(|(_, o)| *o == value)
        .map_or("?", |(n, _)| *n)
}

fn ms(ticks: u8) -> u64 {
    u64::from(ticks) * TICK_MS
}

/// An instance's key: whose token it holds, and when it expires on the instance's wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub owner: u8,
    pub expires_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance {
    pub key: Option<Key>,
    /// How far its wall clock is ahead of true time, in ticks.
    pub ahead: u8,
    /// Down since this tick, if crashed.
    pub down_since: Option<u8>,
}

impl Instance {
    fn wall_ms(&self, now: u8) -> u64 {
        ms(now) + ms(self.ahead)
    }

    /// Drops the key once the wall clock has reached its expiry.
    fn expire(&mut self, now: u8) {
        let wall = self.wall_ms(now);
        self.key = self.key.filter(|k| wall < k.expires_ms);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Idle,
    /// An attempt that started at `started`: the SETs that reached an instance (or found it
    /// down) in `sent`, those that set the key in `votes` (bit i: instance i).
    Acquiring {
        started: u8,
        sent: u8,
        votes: u8,
    },
    /// `decide` said acquired: the client believes it holds the lock until `valid_until_ms`
    /// on its clock.
    Holding {
        valid_until_ms: u64,
    },
    /// It checked its validity and sent its write to the resource; the write has not landed.
    Writing,
    /// Unlocking every instance (`held`: after its write, else after a failed attempt).
    Releasing {
        held: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client {
    pub phase: Phase,
    pub paused: bool,
}

/// A write that landed although another client had acquired the lock after the writer did:
/// what a fencing token would have rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StaleWrite {
    pub writer: u8,
    pub latest: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub now: u8,
    pub instances: Vec<Instance>,
    pub clients: Vec<Client>,
    pub pauses_left: u8,
    pub jumps_left: u8,
    pub crashes_left: u8,
    /// The client that acquired the lock last.
    pub latest: Option<u8>,
    /// The first stale write, if any.
    pub stale_write: Option<StaleWrite>,
}

impl State {
    fn now_ms(&self) -> u64 {
        ms(self.now)
    }

    /// Whether client `c` believes it holds the lock: holding, or with its write in flight.
    pub fn believes(&self, c: usize) -> bool {
        matches!(
            self.clients[c].phase,
            Phase::Holding { .. } | Phase::Writing
        )
    }

    /// The same state with its clients renamed: they sit at their new index, and the keys,
    /// the latest acquirer and the stale write name them by their new id.
    pub fn renamed(&self, renaming: &Renaming) -> State {
        State {
            instances: self
                .instances
                .iter()
                .map(|i| Instance {
                    key: i.key.map(|k| Key {
                        owner: renaming.client(k.owner),
                        ..k
                    }),
                    ..*i
                })
                .collect(),
            clients: renaming.reorder(&self.clients),
            latest: self.latest.map(|c| renaming.client(c)),
            stale_write: self.stale_write.map(|w| StaleWrite {
                writer: renaming.client(w.writer),
                latest: renaming.client(w.latest),
            }),
            ..self.clone()
        }
    }

    /// An unpaused client in the middle of requests, which take no time.
    fn someone_must_act(&self) -> bool {
        self.clients.iter().any(|c| {
            !c.paused
                && matches!(
                    c.phase,
                    Phase::Acquiring { .. } | Phase::Writing | Phase::Releasing { .. }
                )
        })
    }
}

/// Clients are interchangeable: a key's owner is compared only for equality, and every
/// property counts clients or asks whether a stale write happened. The representative orders
/// the clients by their phase, the expiry of each instance's key they own, and whether they
/// are the latest acquirer or a party to the stale write: clients that tie on all of these
/// are identical, so the order does not matter.
impl Representative for State {
    fn representative(&self) -> State {
        let keys: Vec<_> = (0..self.clients.len() as u8)
            .map(|c| {
                let owned: Vec<Option<u64>> = self
                    .instances
                    .iter()
                    .map(|i| i.key.filter(|k| k.owner == c).map(|k| k.expires_ms))
                    .collect();
                let stale = self.stale_write.map(|w| (w.writer == c, w.latest == c));
                (
                    self.clients[usize::from(c)],
                    owned,
                    self.latest == Some(c),
                    stale,
                )
            })
            .collect();
        self.renamed(&Renaming::sorting(&keys))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Time moves on a tick: instances expire keys, unpaused holders whose validity ran out
    /// know they lost the lock.
    Tick,
    /// Client's SET NX PX reaches instance (the first one starts the attempt).
    Set(u8, u8),
    /// The client reads its replies and `decide` judges the votes.
    Decide(u8),
    /// A holder checks its validity and sends its write to the resource.
    BeginWrite(u8),
    /// The write lands on the resource.
    Write(u8),
    /// The unlock (as `decide::release` says) reaches every instance that is up.
    Unlock(u8),
    Pause(u8),
    /// The client resumes and reads its clock: a holder past its validity knows it lost.
    Resume(u8),
    /// The instance's wall clock jumps forward.
    Jump(u8),
    Crash(u8),
    Restart(u8),
}

impl Model for RedlockModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            now: 0,
            instances: vec![
                Instance {
                    key: None,
                    ahead: 0,
                    down_since: None,
                };
                usize::from(self.instances)
            ],
            clients: vec![
                Client {
                    phase: Phase::Idle,
                    paused: false,
                };
                usize::from(self.clients)
            ],
            pauses_left: self.pauses,
            jumps_left: self.jumps,
            crashes_left: self.crashes,
            latest: None,
            stale_write: None,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        if state.now < self.time_ticks && !state.someone_must_act() {
            actions.push(Action::Tick);
        }
        for (i, client) in state.clients.iter().enumerate() {
            let c = i as u8;
            if client.paused {
                actions.push(Action::Resume(c));
                continue;
            }
            match client.phase {
                Phase::Idle => actions.extend((0..self.instances).map(|n| Action::Set(c, n))),
                Phase::Acquiring { sent, .. } if sent == self.all_instances() => {
                    actions.push(Action::Decide(c))
                }
                Phase::Acquiring { sent, .. } => actions.extend(
                    (0..self.instances)
                        .filter(|n| sent & (1 << n) == 0)
                        .map(|n| Action::Set(c, n)),
                ),
                Phase::Holding { .. } => actions.push(Action::BeginWrite(c)),
                Phase::Writing => actions.push(Action::Write(c)),
                Phase::Releasing { .. } => actions.push(Action::Unlock(c)),
            }
            if state.pauses_left > 0 && self.may_pause(client.phase) {
                actions.push(Action::Pause(c));
            }
        }
        for (n, instance) in state.instances.iter().enumerate() {
            let n = n as u8;
            if state.jumps_left > 0 {
                actions.push(Action::Jump(n));
            }
            match instance.down_since {
                None if state.crashes_left > 0 => actions.push(Action::Crash(n)),
                Some(since) if state.now >= since + self.restart_delay_ticks => {
                    actions.push(Action::Restart(n))
                }
                _ => {}
            }
        }
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        let mut next = state.clone();
        let now_ms = state.now_ms();
        match action {
            Action::Tick => {
                next.now += 1;
                let now = next.now;
                for instance in &mut next.instances {
                    instance.expire(now);
                }
                for client in &mut next.clients {
                    if let Phase::Holding { valid_until_ms } = client.phase
                        && !client.paused
                        && valid_until_ms <= ms(now)
                    {
                        client.phase = Phase::Idle;
                    }
                }
            }
            Action::Set(c, n) => {
                let (started, sent, votes) = match state.clients[usize::from(c)].phase {
                    Phase::Idle => (state.now, 0, 0),
                    Phase::Acquiring {
                        started,
                        sent,
                        votes,
                    } => (started, sent, votes),
                    _ => return None,
                };
                let instance = &mut next.instances[usize::from(n)];
                let granted = instance.down_since.is_none() && instance.key.is_none();
                if granted {
                    instance.key = Some(Key {
                        owner: c,
                        expires_ms: instance.wall_ms(state.now) + self.ttl_ms(),
                    });
                }
                next.clients[usize::from(c)].phase = Phase::Acquiring {
                    started,
                    sent: sent | 1 << n,
                    votes: votes | u8::from(granted) << n,
                };
            }
            Action::Decide(c) => {
                let Phase::Acquiring { started, votes, .. } = state.clients[usize::from(c)].phase
                else {
                    return None;
                };
                let decision = self.judge(started, votes, state.now);
                next.clients[usize::from(c)].phase = match decision {
                    Decision::Acquired { validity_ms } => {
                        let valid_until_ms = decide::valid_until(ms(started), validity_ms);
                        if valid_until_ms > now_ms {
                            next.latest = Some(c);
                            Phase::Holding { valid_until_ms }
                        } else {
                            Phase::Idle
                        }
                    }
                    Decision::Failed if decide::unlocks_after_failure(self.flavor) => {
                        Phase::Releasing { held: false }
                    }
                    Decision::Failed => Phase::Idle,
                };
            }
            Action::BeginWrite(c) => next.clients[usize::from(c)].phase = Phase::Writing,
            Action::Write(c) => {
                if let Some(latest) = state.latest.filter(|&l| l != c) {
                    next.stale_write
                        .get_or_insert(StaleWrite { writer: c, latest });
                }
                next.clients[usize::from(c)].phase = Phase::Releasing { held: true };
            }
            Action::Unlock(c) => {
                let release = decide::release(self.flavor);
                for instance in next.instances.iter_mut().filter(|i| i.down_since.is_none()) {
                    let deletes = match (release, instance.key) {
                        (_, None) => false,
                        (Release::Delete, Some(_)) => true,
                        (Release::CompareAndDelete, Some(key)) => key.owner == c,
                    };
                    if deletes {
                        instance.key = None;
                    }
                }
                next.clients[usize::from(c)].phase = Phase::Idle;
            }
            Action::Pause(c) => {
                next.clients[usize::from(c)].paused = true;
                next.pauses_left -= 1;
            }
            Action::Resume(c) => {
                let client = &mut next.clients[usize::from(c)];
                client.paused = false;
                if let Phase::Holding { valid_until_ms } = client.phase
                    && valid_until_ms <= now_ms
                {
                    client.phase = Phase::Idle;
                }
            }
            Action::Jump(n) => {
                let instance = &mut next.instances[usize::from(n)];
                instance.ahead += self.jump_ticks;
                instance.expire(state.now);
                next.jumps_left -= 1;
            }
            Action::Crash(n) => {
                let instance = &mut next.instances[usize::from(n)];
                instance.down_since = Some(state.now);
                if !self.persist {
                    instance.key = None;
                }
                next.crashes_left -= 1;
            }
            Action::Restart(n) => next.instances[usize::from(n)].down_since = None,
        }
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("mutex", |_, s: &State| {
                (0..s.clients.len()).filter(|&c| s.believes(c)).count() <= 1
            }),
            Property::always("fenced-resource", |_, s: &State| s.stale_write.is_none()),
            Property::sometimes("acquires", |_, s: &State| {
                (0..s.clients.len()).any(|c| s.believes(c))
            }),
        ]
    }
}

impl Narrated for RedlockModel {
    fn narrate(&self, before: &State, action: &Action, after: &State) -> String {
        let at = format!("t={:>4} ms", before.now_ms());
        let key = |k: Option<Key>| match k {
            Some(k) => format!("c{}'s until {} ms", k.owner, k.expires_ms),
            None => "none".into(),
        };
        match *action {
            Action::Tick => {
                let expired: Vec<String> = before
                    .instances
                    .iter()
                    .zip(&after.instances)
                    .enumerate()
                    .filter_map(|(n, (b, a))| match (b.key, a.key) {
                        (Some(k), None) => Some(format!("r{n} expires c{}'s key", k.owner)),
                        _ => None,
                    })
                    .chain(
                        (0..before.clients.len())
                            .filter(|&c| before.believes(c) && !after.believes(c))
                            .map(|c| format!("c{c}'s validity ran out: it knows it lost")),
                    )
                    .collect();
                let tail = if expired.is_empty() {
                    String::new()
                } else {
                    format!("; {}", expired.join("; "))
                };
                format!("{at}  time moves to {} ms{tail}", after.now_ms())
            }
            Action::Set(c, n) => {
                let b = before.instances[usize::from(n)];
                let a = after.instances[usize::from(n)];
                let answer = if b.down_since.is_some() {
                    "r{n} is down: no vote".replace("{n}", &n.to_string())
                } else if a.key != b.key {
                    format!("OK, r{n} key is {}", key(a.key))
                } else {
                    format!("refused, r{n} key is {}", key(b.key))
                };
                let first = if before.clients[usize::from(c)].phase == Phase::Idle {
                    " (starts an attempt)"
                } else {
                    ""
                };
                format!(
                    "{at}  c{c} SET NX PX {} on r{n}{first}: {answer}",
                    self.ttl_ms()
                )
            }
            Action::Decide(c) => {
                let Phase::Acquiring { started, votes, .. } = before.clients[usize::from(c)].phase
                else {
                    return format!("{at}  c{c} decides on an attempt it never made");
                };
                let waited = before.now_ms() - ms(started);
                let verdict = match (
                    self.judge(started, votes, before.now),
                    after.clients[usize::from(c)].phase,
                ) {
                    (_, Phase::Holding { valid_until_ms })
                        if valid_until_ms > ms(started) + self.ttl_ms() =>
                    {
                        "acquired, valid for ever (the validity wrapped below zero)".to_string()
                    }
                    (_, Phase::Holding { valid_until_ms }) => {
                        format!("acquired, valid until {valid_until_ms} ms")
                    }
                    (Decision::Acquired { .. }, _) => {
                        "acquired, but the validity is already over".into()
                    }
                    (_, Phase::Releasing { .. }) => "failed, unlocks every instance".into(),
                    _ => "failed, leaves its votes in place".into(),
                };
                format!(
                    "{at}  c{c} reads {} of {} votes {waited} ms after its attempt started: decide says {verdict}",
                    votes.count_ones(),
                    self.instances
                )
            }
            Action::BeginWrite(c) => {
                format!("{at}  c{c} checks its validity and sends its write to the resource")
            }
            Action::Write(c) => match after.stale_write.filter(|_| before.stale_write.is_none()) {
                Some(w) => format!(
                    "{at}  c{c}'s write lands, though c{} acquired the lock after it",
                    w.latest
                ),
                None => format!("{at}  c{c}'s write lands"),
            },
            Action::Unlock(c) => {
                let name = match decide::release(self.flavor) {
                    Release::CompareAndDelete => "compare-and-delete",
                    Release::Delete => "DEL",
                };
                let deleted: Vec<String> = before
                    .instances
                    .iter()
                    .zip(&after.instances)
                    .enumerate()
                    .filter_map(|(n, (b, a))| match (b.key, a.key) {
                        (Some(k), None) => Some(format!("r{n} deletes c{}'s key", k.owner)),
                        _ => None,
                    })
                    .collect();
                let what = if deleted.is_empty() {
                    "deletes nothing".into()
                } else {
                    deleted.join(", ")
                };
                format!("{at}  c{c} unlocks with {name}: {what}")
            }
            Action::Pause(c) => format!("{at}  c{c} pauses"),
            Action::Resume(c) => {
                let lost = before.believes(usize::from(c)) && !after.believes(usize::from(c));
                let tail = if lost {
                    ": its validity ran out while paused, it knows it lost"
                } else {
                    ""
                };
                format!("{at}  c{c} resumes{tail}")
            }
            Action::Jump(n) => {
                let b = before.instances[usize::from(n)];
                let a = after.instances[usize::from(n)];
                let expired = match (b.key, a.key) {
                    (Some(k), None) => format!(": c{}'s key expires", k.owner),
                    _ => String::new(),
                };
                format!(
                    "{at}  r{n}'s wall clock jumps from {} to {} ms{expired}",
                    b.wall_ms(before.now),
                    a.wall_ms(after.now)
                )
            }
            Action::Crash(n) => {
                let lost = match before.instances[usize::from(n)].key {
                    Some(k) if !self.persist => format!(", losing c{}'s key", k.owner),
                    Some(k) => format!(", keeping c{}'s key on disk", k.owner),
                    None => String::new(),
                };
                format!("{at}  r{n} crashes{lost}")
            }
            Action::Restart(n) => format!("{at}  r{n} restarts"),
        }
    }

    fn believers(&self, state: &State) -> Vec<usize> {
        (0..state.clients.len())
            .filter(|&c| state.believes(c))
            .collect()
    }
}

impl Exportable for RedlockModel {
    fn scenario(&self) -> Result<(&'static str, Vec<String>), String> {
        let scenario = match self.flavor {
            Flavor::Recipe => "redlock",
            Flavor::NoValidity => "redlock-novalidity",
            Flavor::NoUnlock => "redlock-nounlock",
            other => {
                return Err(format!(
                    "flavor {} has no scenario to trace into yet",
                    name_of(FLAVORS, other)
                ));
            }
        };
        Ok((
            scenario,
            vec![
                format!("redis_nodes={}", self.instances),
                format!("clients={}", self.clients),
                format!("ttl_ms={}", self.ttl_ms()),
            ],
        ))
    }

    /// A pause of a client that believes it holds the lock becomes `pause_before` its write
    /// (armed from the start, it strikes in its first critical section), long enough for its
    /// keys to expire: 2 × TTL. The other fault steps have no mapping yet.
    fn faults(&self, path: &[Transition<Self>], params: &Params) -> Result<FaultPlan, String> {
        let mut plan = Vec::new();
        for (before, action, _) in path {
            match *action {
                Action::Pause(c) if before.believes(usize::from(c)) => plan.push(TimedFault {
                    at_ms: 0,
                    fault: Fault::PauseBefore {
                        node: format!("c{}", c + 1),
                        step: "write".into(),
                        for_ms: 2 * params.redis.ttl_ms,
                    },
                }),
                Action::Pause(c) => {
                    return Err(format!(
                        "a pause of c{c} while it does not hold the lock has no mapping yet"
                    ));
                }
                Action::Jump(_) => return Err("a clock jump has no mapping yet".into()),
                Action::Crash(_) | Action::Restart(_) => {
                    return Err("an instance crash or restart has no mapping yet".into());
                }
                Action::Tick
                | Action::Set(..)
                | Action::Decide(_)
                | Action::BeginWrite(_)
                | Action::Write(_)
                | Action::Unlock(_)
                | Action::Resume(_) => {}
            }
        }
        Ok(FaultPlan::new(plan))
    }
}
