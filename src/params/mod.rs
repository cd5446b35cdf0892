//! Scenario parameters: typed, with documented defaults, overridable by `--set key=value`
//! and stored whole in trace files so a replay does not depend on today's defaults.

use crate::sim::param::ParamValues;
use crate::sim::vocab::FaultKind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

mod groups;

pub use groups::{
    Barrier, Election, FaultSelection, Faults, Group, Network, ParamDoc, PersistenceMode, Queue,
    Redis, SharedLock, Workload, Zookeeper,
};

/// Every parameter, grouped by subject; flat in `--set` and in trace files (`clients=3`,
/// not `workload.clients=3`). The default time scale is small so an exploration runs
/// thousands of seeds a minute: 1 ms turmoil ticks, 1-3 ms links, a 20 ms ZooKeeper tick
/// and 200 ms sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Link latencies.
    #[serde(flatten)]
    pub network: Network,
    /// What the swarm may inject, and how hard.
    #[serde(flatten)]
    pub faults: Faults,
    /// What each client does, and the bounds a run is judged by.
    #[serde(flatten)]
    pub workload: Workload,
    /// Readers and writers of a shared lock.
    #[serde(flatten)]
    pub shared_lock: SharedLock,
    /// A leader election's terms.
    #[serde(flatten)]
    pub election: Election,
    /// A queue's producers and consumers.
    #[serde(flatten)]
    pub queue: Queue,
    /// How processes arrive at a barrier.
    #[serde(flatten)]
    pub barrier: Barrier,
    /// The simulated ZooKeeper's options.
    #[serde(flatten)]
    pub zookeeper: Zookeeper,
    /// The simulated Redis masters' options and the Redis recipes' knobs.
    #[serde(flatten)]
    pub redis: Redis,
    /// The values of the parameters the scenario declares itself (a user's scenario, with
    /// `Experiment::param`); flat beside the built-in ones. Last, so it takes only the keys
    /// no group above claims.
    #[serde(flatten)]
    pub own: ParamValues,
}

impl Params {
    /// Every value, built-in and the scenario's own, by key: what a node's software reads
    /// with `Node::param` (a built-in one with a `Param` of its key and type).
    pub(crate) fn node_values(&self) -> ParamValues {
        serde_json::to_value(self)
            .and_then(serde_json::from_value)
            .expect("parameters serialise to a flat object")
    }
}

/// Every group, in the order `locksim list` shows them.
pub const GROUPS: &[Group] = &[
    Network::GROUP,
    Faults::GROUP,
    Workload::GROUP,
    SharedLock::GROUP,
    Election::GROUP,
    Queue::GROUP,
    Barrier::GROUP,
    Zookeeper::GROUP,
    Redis::GROUP,
];

/// Why settings or a trace file's params were refused; the message names the key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamError {
    /// A setting that is not `key=value`.
    Syntax(String),
    /// A key that is neither built-in nor declared by the scenario.
    Unknown(String),
    /// A value that does not parse as the parameter's type.
    BadValue {
        /// The parameter.
        key: String,
        /// The value given.
        value: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A value out of its range, or a combination the scenario cannot run.
    Invalid(String),
    /// A profile the scenario does not have.
    UnknownProfile {
        /// The scenario asked.
        scenario: String,
        /// The profile asked for.
        name: String,
        /// The scenario's profiles, comma-separated; empty when it has none.
        known: String,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Syntax(s) => write!(f, "expected key=value, got '{s}'"),
            ParamError::Unknown(k) => {
                write!(
                    f,
                    "unknown parameter '{k}' (see `locksim list` for the parameters)"
                )
            }
            ParamError::BadValue { key, value, reason } => {
                write!(f, "bad value '{value}' for {key}: {reason}")
            }
            ParamError::Invalid(s) => write!(f, "invalid parameters: {s}"),
            ParamError::UnknownProfile {
                scenario,
                name,
                known,
            } if known.is_empty() => {
                write!(f, "unknown profile '{name}': {scenario} has no profiles")
            }
            ParamError::UnknownProfile {
                scenario,
                name,
                known,
            } => write!(
                f,
                "unknown profile '{name}' for {scenario} (known: {known})"
            ),
        }
    }
}

/// The longest simulated run locksim accepts: a run's wall time grows with its simulated
/// time (about 40 simulated seconds per wall second at the default scale with 5 clients), so
/// a configuration whose run limit is beyond this would run for many minutes or years.
pub const MAX_RUN_LIMIT_MS: u64 = 600_000;

impl Params {
    /// Applies `key=value` overrides in order, then validates the result once: bounds that
    /// relate two parameters (latency_min_ms <= latency_max_ms) judge the final combination,
    /// whatever order the overrides came in.
    pub fn overridden<S: AsRef<str>>(&self, assignments: &[S]) -> Result<Params, ParamError> {
        let mut map = self.to_map();
        for assignment in assignments {
            apply(&mut map, assignment.as_ref())?;
        }
        Params::from_map(map)
    }

    /// These parameters with one `key=value` assignment applied, checked on its own: the
    /// key known, the value of its type and, for a built-in one, in its range. Bounds that
    /// relate two parameters wait for `overridden`, which judges the final combination.
    pub fn with_assignment(&self, assignment: &str) -> Result<Params, ParamError> {
        let mut map = self.to_map();
        let key = apply(&mut map, assignment)?;
        let params: Params = serde_json::from_value(Value::Object(map))
            .map_err(|e| ParamError::Invalid(e.to_string()))?;
        match params.ranges().into_iter().find(|(name, ..)| *name == key) {
            Some((name, value, lo, hi)) if value < lo || value > hi => Err(ParamError::Invalid(
                format!("{name}={value} is outside {lo}..={hi}"),
            )),
            _ => Ok(params),
        }
    }

    /// Reads a trace file's params object: missing keys take defaults, unknown keys fail,
    /// and an error names the key it is about.
    pub fn from_json(value: &Value) -> Result<Params, ParamError> {
        Params::default().with_json(value)
    }

    /// A trace file's params object over `self`: keys it lacks keep `self`'s values, and a
    /// key that is neither built-in nor one of `self.own` fails.
    pub fn with_json(&self, value: &Value) -> Result<Params, ParamError> {
        let Value::Object(given) = value else {
            return Err(ParamError::Invalid(format!(
                "params must be an object, got {value}"
            )));
        };
        let mut map = self.to_map();
        for (key, value) in given {
            assign(&mut map, key, value.clone())?;
        }
        Params::from_map(map)
    }

    /// Whether `key` names a built-in parameter (a scenario cannot declare one of its own
    /// by that name).
    pub fn is_builtin(key: &str) -> bool {
        GROUPS.iter().flat_map(|g| g.params).any(|p| p.key == key)
    }

    fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => unreachable!("Params serialises to an object"),
        }
    }

    fn from_map(map: Map<String, Value>) -> Result<Params, ParamError> {
        let params: Params = serde_json::from_value(Value::Object(map))
            .map_err(|e| ParamError::Invalid(e.to_string()))?;
        params.validate()?;
        Ok(params)
    }

    /// Each built-in value with its name and range.
    fn ranges(&self) -> Vec<groups::Range> {
        [
            self.network.ranges(),
            self.faults.ranges(),
            self.workload.ranges(),
            self.shared_lock.ranges(),
            self.election.ranges(),
            self.queue.ranges(),
            self.barrier.ranges(),
            self.zookeeper.ranges(),
            self.redis.ranges(),
        ]
        .concat()
    }

    /// Checks each built-in value against its range and the relations between them (a
    /// scenario adds its own checks: `Scenario::validate`).
    pub fn validate(&self) -> Result<(), ParamError> {
        let ranges = self.ranges();
        if let Some((name, value, lo, hi)) = ranges.iter().find(|(_, v, lo, hi)| v < lo || v > hi) {
            return Err(ParamError::Invalid(format!(
                "{name}={value} is outside {lo}..={hi}"
            )));
        }
        let Network {
            latency_min_ms,
            latency_max_ms,
            ..
        } = self.network;
        if latency_min_ms > latency_max_ms {
            return Err(ParamError::Invalid(format!(
                "latency_min_ms={latency_min_ms} must not exceed latency_max_ms={latency_max_ms}"
            )));
        }
        let (limit, phase) = (self.workload.run_limit_ms, self.faults.fault_phase_ms);
        if limit > 0 && limit <= phase {
            return Err(ParamError::Invalid(format!(
                "run_limit_ms={limit} must exceed fault_phase_ms={phase} (the run would stop \
                 before the heal phase)"
            )));
        }
        Ok(())
    }

    /// The fault kinds `faults` selects.
    pub fn fault_kinds(&self) -> Vec<FaultKind> {
        self.faults.faults.kinds()
    }

    /// The client hosts, `c1..cN` for `clients=N`.
    pub fn client_names(&self) -> Vec<String> {
        (1..=self.workload.clients)
            .map(|i| format!("c{i}"))
            .collect()
    }
}

/// Puts `value` at `key`, if `key` is a parameter and the value has its type.
/// Applies one `key=value` assignment to `map`; returns the key.
fn apply<'a>(map: &mut Map<String, Value>, assignment: &'a str) -> Result<&'a str, ParamError> {
    let (key, raw) = assignment
        .split_once('=')
        .ok_or_else(|| ParamError::Syntax(assignment.to_string()))?;
    let (key, raw) = (key.trim(), raw.trim());
    let bad = |reason: &str| ParamError::BadValue {
        key: key.to_string(),
        value: raw.to_string(),
        reason: reason.to_string(),
    };
    let value = match map.get(key) {
        None => return Err(ParamError::Unknown(key.to_string())),
        Some(Value::Bool(_)) => {
            Value::Bool(raw.parse().map_err(|_| bad("expected true or false"))?)
        }
        Some(Value::Number(_)) => Value::Number(
            raw.parse::<u64>()
                .map_err(|_| bad("expected a non-negative integer"))?
                .into(),
        ),
        Some(_) => Value::String(raw.to_string()),
    };
    assign(map, key, value)?;
    Ok(key)
}

fn assign(map: &mut Map<String, Value>, key: &str, value: Value) -> Result<(), ParamError> {
    if !map.contains_key(key) {
        return Err(ParamError::Unknown(key.to_string()));
    }
    let previous = map.insert(key.to_string(), value.clone());
    if let Err(e) = serde_json::from_value::<Params>(Value::Object(map.clone())) {
        if let Some(previous) = previous {
            map.insert(key.to_string(), previous);
        }
        return Err(ParamError::BadValue {
            key: key.to_string(),
            value: value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string),
            reason: e.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::clock::ExpiryClock;
    use crate::redis::sim_host::Persistence;

    fn with(assignments: &[&str]) -> Result<Params, ParamError> {
        Params::default().overridden(assignments)
    }

    #[test]
    fn overrides_parse_by_type_and_reject_unknown() {
        let p = with(&["clients=3", "fencing=true", "faults=pause,lose_reply"]).unwrap();
        assert_eq!((p.workload.clients, p.workload.fencing), (3, true));
        assert_eq!(
            p.fault_kinds(),
            vec![FaultKind::Pause, FaultKind::LoseReply]
        );
        assert_eq!(with(&["nope=1"]), Err(ParamError::Unknown("nope".into())));
        assert!(matches!(
            with(&["clients=-1"]),
            Err(ParamError::BadValue { .. })
        ));
        assert!(matches!(with(&["clients=0"]), Err(ParamError::Invalid(_))));
        assert!(matches!(
            with(&["faults=meteor"]),
            Err(ParamError::BadValue { .. })
        ));
        assert!(matches!(with(&["clients"]), Err(ParamError::Syntax(_))));
        let p = with(&[
            "expiry_clock=monotonic",
            "persistence=aof-everysec",
            "faults=none",
        ]);
        let p = p.unwrap();
        assert_eq!(p.redis.expiry_clock, ExpiryClock::Monotonic);
        assert_eq!(
            p.redis.persistence(),
            Persistence::AofEverysec {
                fsync_every_ms: 1_000
            }
        );
        assert_eq!(p.fault_kinds(), []);
        for bad in [
            "expiry_clock=wallclock",
            "persistence=aof",
            "faults=pause,,loss",
        ] {
            let err = with(&[bad]).unwrap_err();
            assert!(matches!(&err, ParamError::BadValue { .. }), "{bad}: {err}");
        }
        let json = serde_json::to_value(with(&["faults=pause, lose_reply"]).unwrap()).unwrap();
        assert_eq!(json["faults"], "pause,lose_reply");
        assert_eq!(json["persistence"], "none");
        assert!(matches!(
            with(&["clock_jump_max_ms=9223372036854775808"]),
            Err(ParamError::Invalid(_))
        ));
        let rounds = with(&["rounds=4294967296"]).unwrap_err();
        assert!(
            matches!(&rounds, ParamError::BadValue { key, .. } if key == "rounds"),
            "{rounds}"
        );
        assert!(matches!(
            with(&["clock_drift_max_ppm=1000000"]),
            Err(ParamError::Invalid(_))
        ));
    }

    #[test]
    fn overrides_are_judged_together_not_one_by_one() {
        // Each alone breaks latency_min_ms <= latency_max_ms against the defaults (1..3).
        let p = with(&["latency_min_ms=5", "latency_max_ms=10"]).unwrap();
        assert_eq!(
            (p.network.latency_min_ms, p.network.latency_max_ms),
            (5, 10)
        );
        let p = with(&["latency_max_ms=0", "latency_min_ms=0"]).unwrap();
        assert_eq!((p.network.latency_min_ms, p.network.latency_max_ms), (0, 0));
        assert!(with(&["latency_min_ms=5"]).is_err());
        let later_wins = with(&["clients=3", "clients=4"]).unwrap();
        assert_eq!(later_wins.workload.clients, 4);
    }

    #[test]
    fn every_param_is_documented() {
        let Value::Object(map) = serde_json::to_value(Params::default()).unwrap() else {
            panic!("not an object")
        };
        let keys: Vec<_> = map.keys().cloned().collect();
        let mut documented: Vec<_> = GROUPS
            .iter()
            .flat_map(|g| g.params)
            .map(|p| p.key.to_string())
            .collect();
        documented.sort();
        assert_eq!(keys, documented);
    }

    #[test]
    fn json_takes_defaults_and_rejects_unknown_keys() {
        let p = Params::from_json(&serde_json::json!({"clients": 2})).unwrap();
        assert_eq!(p.workload.clients, 2);
        assert_eq!(p.workload.hold_ms, Params::default().workload.hold_ms);
        assert!(Params::from_json(&serde_json::json!({"client": 2})).is_err());
    }

    #[test]
    fn json_errors_name_the_key_and_need_an_object() {
        let err =
            Params::from_json(&serde_json::json!({"clients": 2, "hold_ms": "x"})).unwrap_err();
        assert!(
            matches!(&err, ParamError::BadValue { key, .. } if key == "hold_ms"),
            "{err}"
        );
        let err = Params::from_json(&serde_json::json!({"rounds": 4294967296u64})).unwrap_err();
        assert!(err.to_string().contains("for rounds"), "{err}");
        for not_an_object in [
            serde_json::json!([2]),
            serde_json::json!(null),
            serde_json::json!(3),
        ] {
            let err = Params::from_json(&not_an_object).unwrap_err();
            assert!(
                err.to_string().contains("params must be an object"),
                "{err}"
            );
        }
    }
}
