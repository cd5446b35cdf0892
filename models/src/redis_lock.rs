//! The single-node Redis lock: one Redis node holding one key, N clients, global time in
//! ticks up to a bound. Acquiring is `SET key token NX PX ttl` judged by the recipe's own
//! `decide` (one node); releasing, and cleaning up after a failed attempt, is whatever
//! `decide::release` says for the flavor. The node deletes the key once time passes its
//! expiry. A request and its reply take no time, so an unpaused client answers at once and
//! notices at once that its validity ran out; only a pause (a capped number of them) lets time
//! pass while a client is mid-attempt, holding or about to release.

use crate::check::Narrated;
use crate::settings::{ParamError, Renamed, Settings};
use crate::symmetry::Renaming;
use locksim::recipes::redis::decide::{self, Decision, Flavor, Release};
use stateright::{Model, Property, Representative};

/// Simulated milliseconds per tick of global time.
pub const TICK_MS: u64 = 100;

/// The model's switches and bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisLockModel {
    pub flavor: Flavor,
    pub clients: u8,
    /// The lock's TTL, in ticks.
    pub ttl_ticks: u64,
    /// Time stops here, in ticks.
    pub time_ticks: u8,
    /// Pauses allowed in a run, all clients together.
    pub pauses: u8,
}

impl Default for RedisLockModel {
    fn default() -> Self {
        RedisLockModel {
            flavor: Flavor::Recipe,
            clients: 2,
            ttl_ticks: 3,
            time_ticks: 6,
            pauses: 1,
        }
    }
}

/// The parameters `--set` accepts, with what each means.
pub const PARAMS: &[(&str, &str)] = &[
    (
        "flavor",
        "recipe (compare-and-delete) or del (plain DEL, the scenario redis-lock-del)",
    ),
    ("clients", "number of clients, 1 to 4"),
    (
        "ttl_ms",
        "the lock's TTL, 100 to 2000 in steps of 100 (the tick)",
    ),
    (
        "run_limit_ms",
        "time stops here, 100 to 3000 in steps of 100 (the tick)",
    ),
    ("pauses", "client pauses allowed in a run, 0 to 3"),
];

/// The flavors, named as the simulation's scenarios end (`redis-lock-del`).
const FLAVORS: &[(&str, Flavor)] = &[("recipe", Flavor::Recipe), ("del", Flavor::PlainDel)];

/// The spellings this model had before it spelled its parameters as `locksim` does.
pub const RENAMED: &[Renamed] = &[
    Renamed::TTL,
    Renamed {
        old: "time",
        new: "run_limit_ms",
        note: "milliseconds: time=6 is run_limit_ms=600",
    },
    Renamed {
        old: "flavor=plain-del",
        new: "flavor=del",
        note: "the scenario redis-lock-del",
    },
];

impl RedisLockModel {
    /// The model as `--set` configures it, the rest as `default` has it.
    pub fn from_settings(settings: &Settings) -> Result<Self, ParamError> {
        settings.only(PARAMS, RENAMED)?;
        let d = RedisLockModel::default();
        Ok(RedisLockModel {
            flavor: settings.choice("flavor", FLAVORS, d.flavor)?,
            clients: settings.number("clients", 1..=4, d.clients)?,
            ttl_ticks: settings.millis("ttl_ms", TICK_MS, 1..=20, d.ttl_ticks)?,
            time_ticks: settings.millis("run_limit_ms", TICK_MS, 1..=30, d.time_ticks)?,
            pauses: settings.number("pauses", 0..=3, d.pauses)?,
        })
    }

    /// The parameters as the report prints them: as `--set` takes them.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let flavor = FLAVORS
            .iter()
            .find(|(_, f)| *f == self.flavor)
            .map_or("?", |(name, _)| *name);
        vec![
            ("flavor", flavor.into()),
            ("clients", self.clients.to_string()),
            ("ttl_ms", self.ttl_ms().to_string()),
            (
                "run_limit_ms",
                (u64::from(self.time_ticks) * TICK_MS).to_string(),
            ),
            ("pauses", self.pauses.to_string()),
        ]
    }

    fn ttl_ms(&self) -> u64 {
        self.ttl_ticks * TICK_MS
    }
}

/// The key on the node: whose token it holds, and when the node lets it expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub owner: u8,
    pub expires_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Idle,
    /// The SET has been applied (`granted` or refused); the client has not read the reply.
    Acquiring {
        started: u8,
        granted: bool,
    },
    /// `decide` said acquired: the client believes it holds the lock until `valid_until_ms`.
    Holding {
        valid_until_ms: u64,
    },
    /// The client has decided to release (`held`: as a holder, else cleaning up after a
    /// failed attempt); its request has not reached the node.
    Releasing {
        held: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client {
    pub phase: Phase,
    pub paused: bool,
}

/// A release that deleted another client's key: `by` deleted `owner`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ForeignDelete {
    pub by: u8,
    pub owner: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub now: u8,
    pub key: Option<Key>,
    pub clients: Vec<Client>,
    pub pauses_left: u8,
    /// The first release that deleted another client's key, if any.
    pub foreign_delete: Option<ForeignDelete>,
    /// Whether some release deleted the releasing client's own key.
    pub own_delete: bool,
}

impl State {
    fn now_ms(&self) -> u64 {
        u64::from(self.now) * TICK_MS
    }

    /// Whether client `c` believes it holds the lock.
    fn believes(&self, c: usize) -> bool {
        matches!(
            self.clients[c].phase,
            Phase::Holding { .. } | Phase::Releasing { held: true }
        )
    }

    /// The same state with its clients renamed: they sit at their new index, and the key and
    /// the foreign delete name them by their new id.
    pub fn renamed(&self, renaming: &Renaming) -> State {
        State {
            key: self.key.map(|k| Key {
                owner: renaming.client(k.owner),
                ..k
            }),
            clients: renaming.reorder(&self.clients),
            foreign_delete: self.foreign_delete.map(|d| ForeignDelete {
                by: renaming.client(d.by),
                owner: renaming.client(d.owner),
            }),
            ..self.clone()
        }
    }

    /// An unpaused client that must act before time moves on: its reply is in, its release
    /// is on its way, or its validity has run out.
    fn someone_must_act(&self) -> bool {
        let now_ms = self.now_ms();
        self.clients.iter().any(|c| {
            !c.paused
                && match c.phase {
                    Phase::Idle => false,
                    Phase::Acquiring { .. } | Phase::Releasing { .. } => true,
                    Phase::Holding { valid_until_ms } => valid_until_ms <= now_ms,
                }
        })
    }
}

/// Clients are interchangeable: the key's owner is compared only for equality, and both
/// properties ask whether some release deleted a key, not whose. The representative orders
/// the clients by their phase, whether they own the key, and their part in the foreign
/// delete: clients that tie on all of these are identical.
impl Representative for State {
    fn representative(&self) -> State {
        let keys: Vec<_> = (0..self.clients.len() as u8)
            .map(|c| {
                let owns = self.key.is_some_and(|k| k.owner == c);
                let foreign = self.foreign_delete.map(|d| (d.by == c, d.owner == c));
                (self.clients[usize::from(c)], owns, foreign)
            })
            .collect();
        self.renamed(&Renaming::sorting(&keys))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Global time moves on one tick; the node expires the key once time passes its expiry.
    Tick,
    /// `SET key token NX PX ttl` reaches the node.
    Acquire(u8),
    /// The client reads the SET's reply and `decide` judges it.
    Reply(u8),
    /// A holder whose validity has not run out decides to release.
    BeginRelease(u8),
    /// The release request (compare-and-delete or DEL) reaches the node.
    Release(u8),
    /// A holder's validity has run out on its clock: it knows it lost the lock.
    NoticeLoss(u8),
    Pause(u8),
    Resume(u8),
}

impl Model for RedisLockModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            now: 0,
            key: None,
            clients: vec![
                Client {
                    phase: Phase::Idle,
                    paused: false,
                };
                usize::from(self.clients)
            ],
            pauses_left: self.pauses,
            foreign_delete: None,
            own_delete: false,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        if state.now < self.time_ticks && !state.someone_must_act() {
            actions.push(Action::Tick);
        }
        let now_ms = state.now_ms();
        for (i, client) in state.clients.iter().enumerate() {
            let c = i as u8;
            if client.paused {
                actions.push(Action::Resume(c));
                continue;
            }
            match client.phase {
                Phase::Idle => actions.push(Action::Acquire(c)),
                Phase::Acquiring { .. } => actions.push(Action::Reply(c)),
                Phase::Holding { valid_until_ms } if valid_until_ms <= now_ms => {
                    actions.push(Action::NoticeLoss(c))
                }
                Phase::Holding { .. } => actions.push(Action::BeginRelease(c)),
                Phase::Releasing { .. } => actions.push(Action::Release(c)),
            }
            if client.phase != Phase::Idle && state.pauses_left > 0 {
                actions.push(Action::Pause(c));
            }
        }
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        let mut next = state.clone();
        match action {
            Action::Tick => {
                next.now += 1;
                let now_ms = next.now_ms();
                next.key = next.key.filter(|k| now_ms <= k.expires_ms);
            }
            Action::Acquire(c) => {
                let granted = next.key.is_none();
                if granted {
                    next.key = Some(Key {
                        owner: c,
                        expires_ms: state.now_ms() + self.ttl_ms(),
                    });
                }
                next.clients[usize::from(c)].phase = Phase::Acquiring {
                    started: state.now,
                    granted,
                };
            }
            Action::Reply(c) => {
                let Phase::Acquiring { started, granted } = state.clients[usize::from(c)].phase
                else {
                    return None;
                };
                let started_ms = u64::from(started) * TICK_MS;
                let elapsed_ms = state.now_ms() - started_ms;
                let votes = usize::from(granted);
                next.clients[usize::from(c)].phase =
                    match decide::decide(self.flavor, votes, 1, self.ttl_ms(), elapsed_ms) {
                        Decision::Acquired { validity_ms } => Phase::Holding {
                            valid_until_ms: started_ms + validity_ms,
                        },
                        Decision::Failed if decide::unlocks_after_failure(self.flavor) => {
                            Phase::Releasing { held: false }
                        }
                        Decision::Failed => Phase::Idle,
                    };
            }
            Action::BeginRelease(c) => {
                next.clients[usize::from(c)].phase = Phase::Releasing { held: true };
            }
            Action::Release(c) => {
                let deletes = match (decide::release(self.flavor), state.key) {
                    (_, None) => None,
                    (Release::Delete, Some(key)) => Some(key.owner),
                    (Release::CompareAndDelete, Some(key)) => (key.owner == c).then_some(key.owner),
                };
                if let Some(owner) = deletes {
                    next.key = None;
                    if owner == c {
                        next.own_delete = true;
                    } else if next.foreign_delete.is_none() {
                        next.foreign_delete = Some(ForeignDelete { by: c, owner });
                    }
                }
                next.clients[usize::from(c)].phase = Phase::Idle;
            }
            Action::NoticeLoss(c) => {
                next.clients[usize::from(c)].phase = Phase::Idle;
            }
            Action::Pause(c) => {
                next.clients[usize::from(c)].paused = true;
                next.pauses_left -= 1;
            }
            Action::Resume(c) => {
                next.clients[usize::from(c)].paused = false;
            }
        }
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("release-only-own", |_, s: &State| {
                s.foreign_delete.is_none()
            }),
            Property::sometimes("release-own", |_, s: &State| s.own_delete),
        ]
    }
}

impl Narrated for RedisLockModel {
    fn narrate(&self, before: &State, action: &Action, after: &State) -> String {
        let at = format!("t={:>4} ms", before.now_ms());
        let key = |k: Option<Key>| match k {
            Some(k) => format!("c{}'s until {} ms", k.owner, k.expires_ms),
            None => "none".into(),
        };
        match *action {
            Action::Tick => {
                let expired = match (before.key, after.key) {
                    (Some(k), None) => format!("; c{}'s key expires", k.owner),
                    _ => String::new(),
                };
                format!("{at}  time moves to {} ms{expired}", after.now_ms())
            }
            Action::Acquire(c) => {
                let answer = if after.key != before.key {
                    format!("OK, key is {}", key(after.key))
                } else {
                    format!("refused, key is {}", key(before.key))
                };
                format!("{at}  c{c} SET NX PX {}: {answer}", self.ttl_ms())
            }
            Action::Reply(c) => {
                let Phase::Acquiring { started, .. } = before.clients[usize::from(c)].phase else {
                    return format!("{at}  c{c} reads a reply it never asked for");
                };
                let waited = before.now_ms() - u64::from(started) * TICK_MS;
                let verdict = match after.clients[usize::from(c)].phase {
                    Phase::Holding { valid_until_ms } => {
                        format!("acquired, valid until {valid_until_ms} ms")
                    }
                    Phase::Releasing { .. } => format!(
                        "failed, cleans up with {}",
                        release_name(decide::release(self.flavor))
                    ),
                    _ => "failed".into(),
                };
                format!("{at}  c{c} reads its SET reply after {waited} ms: decide says {verdict}")
            }
            Action::BeginRelease(c) => format!("{at}  c{c} is done and starts to release"),
            Action::Release(c) => {
                let what = match (before.key, after.key) {
                    (Some(k), None) if k.owner == c => "deletes its own key".to_string(),
                    (Some(k), None) => format!("deletes c{}'s key", k.owner),
                    (Some(k), Some(_)) => format!("leaves c{}'s key alone", k.owner),
                    (None, _) => "finds no key".to_string(),
                };
                let name = release_name(decide::release(self.flavor));
                format!("{at}  c{c} {name}: {what}")
            }
            Action::NoticeLoss(c) => {
                format!("{at}  c{c}'s validity has run out: it knows it lost the lock")
            }
            Action::Pause(c) => format!("{at}  c{c} pauses"),
            Action::Resume(c) => format!("{at}  c{c} resumes"),
        }
    }

    fn believers(&self, state: &State) -> Vec<usize> {
        (0..state.clients.len())
            .filter(|&c| state.believes(c))
            .collect()
    }
}

fn release_name(release: Release) -> &'static str {
    match release {
        Release::CompareAndDelete => "compare-and-delete",
        Release::Delete => "DEL",
    }
}
