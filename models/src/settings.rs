//! `--set key=value` pairs, and the errors a model's parameters report. Names, units and
//! values are spelled as `locksim` spells them (`ttl_ms`, `fencing=true`, snake_case names,
//! flavors as the simulation's scenario names end); a model counts time in ticks, but a
//! parameter is given in milliseconds, a multiple of the tick. The spellings the models had
//! before are refused with the new one named (`Renamed`).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// An old spelling of a parameter (`ttl`) or of one of its values (`fencing=on`), refused
/// with the spelling that replaced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Renamed {
    /// The key, or `key=value`, as the models spelled it before.
    pub old: &'static str,
    /// What to write instead.
    pub new: &'static str,
    /// How to convert, or where the new spelling comes from.
    pub note: &'static str,
}

impl Renamed {
    /// `ttl`, in ticks of 100 ms, now `ttl_ms`: the Redis models' TTL.
    pub const TTL: Renamed = Renamed {
        old: "ttl",
        new: "ttl_ms",
        note: "milliseconds: ttl=3 is ttl_ms=300",
    };
}

/// Why the parameters were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// Not of the form `key=value`.
    NotKeyValue(String),
    /// The key given twice.
    Duplicate(String),
    /// A key the model does not take.
    Unknown {
        /// The key given.
        key: String,
        /// The keys the model takes.
        known: Vec<&'static str>,
    },
    /// A value the key does not take.
    Malformed {
        /// The key given.
        key: String,
        /// Its value.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// A setting under which the clients are not interchangeable, given with `--symmetry`.
    Asymmetric {
        /// The `key=value` given.
        given: String,
        /// Why it makes the clients differ.
        why: &'static str,
    },
    /// An old spelling, now spelled as `locksim` spells it.
    Renamed {
        /// The `key=value` given.
        given: String,
        /// The spelling that replaced it.
        renamed: Renamed,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::NotKeyValue(arg) => write!(f, "--set {arg:?}: expected key=value"),
            ParamError::Duplicate(key) => write!(f, "--set {key}: given twice"),
            ParamError::Unknown { key, known } => {
                write!(
                    f,
                    "--set {key}: unknown parameter (known: {})",
                    known.join(", ")
                )
            }
            ParamError::Malformed {
                key,
                value,
                expected,
            } => write!(f, "--set {key}={value}: expected {expected}"),
            ParamError::Asymmetric { given, why } => write!(
                f,
                "--set {given}: --symmetry needs interchangeable clients, and here {why}; check it without"
            ),
            ParamError::Renamed { given, renamed } => write!(
                f,
                "--set {given}: now spelled {}, as locksim spells it ({})",
                renamed.new, renamed.note
            ),
        }
    }
}

impl std::error::Error for ParamError {}

/// The `--set` pairs of one command, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings(BTreeMap<String, String>);

impl Settings {
    /// The `key=value` pairs, each key once.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Settings, ParamError> {
        let mut map = BTreeMap::new();
        for arg in args {
            let arg = arg.as_ref();
            let Some((key, value)) = arg.split_once('=') else {
                return Err(ParamError::NotKeyValue(arg.into()));
            };
            if key.is_empty() {
                return Err(ParamError::NotKeyValue(arg.into()));
            }
            if map.insert(key.to_string(), value.to_string()).is_some() {
                return Err(ParamError::Duplicate(key.into()));
            }
        }
        Ok(Settings(map))
    }

    /// Refuses an old spelling in `renamed` (of a key, or of a `key=value`) naming the new
    /// one, then any key not in `params` (name, meaning).
    pub fn only(
        &self,
        params: &[(&'static str, &str)],
        renamed: &[Renamed],
    ) -> Result<(), ParamError> {
        for (key, value) in &self.0 {
            let given = format!("{key}={value}");
            if let Some(&r) = renamed.iter().find(|r| r.old == key || r.old == given) {
                return Err(ParamError::Renamed { given, renamed: r });
            }
        }
        match self.0.keys().find(|k| !params.iter().any(|(p, _)| p == k)) {
            Some(key) => Err(ParamError::Unknown {
                key: key.clone(),
                known: params.iter().map(|(p, _)| *p).collect(),
            }),
            None => Ok(()),
        }
    }

    /// The value at `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// The number at `key` within `range`, or `default` when it is not set.
    pub fn number<T>(
        &self,
        key: &str,
        range: RangeInclusive<T>,
        default: T,
    ) -> Result<T, ParamError>
    where
        T: FromStr + PartialOrd + fmt::Display,
    {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        match value.parse::<T>() {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(ParamError::Malformed {
                key: key.into(),
                value: value.into(),
                expected: format!("a number from {} to {}", range.start(), range.end()),
            }),
        }
    }

    /// The duration in milliseconds at `key` as a number of ticks of `tick_ms` within
    /// `ticks`, or `default` (in ticks) when it is not set. A value that is not a whole number
    /// of ticks is refused, not rounded: the model could not tell it from its neighbours.
    pub fn millis<T>(
        &self,
        key: &str,
        tick_ms: u64,
        ticks: RangeInclusive<T>,
        default: T,
    ) -> Result<T, ParamError>
    where
        T: Copy + PartialOrd + Into<u64> + TryFrom<u64>,
    {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        let in_ticks = value
            .parse::<u64>()
            .ok()
            .filter(|ms| ms % tick_ms == 0)
            .and_then(|ms| T::try_from(ms / tick_ms).ok())
            .filter(|n| ticks.contains(n));
        in_ticks.ok_or_else(|| ParamError::Malformed {
            key: key.into(),
            value: value.into(),
            expected: format!(
                "milliseconds from {} to {} in steps of {tick_ms} (the model's tick)",
                (*ticks.start()).into() * tick_ms,
                (*ticks.end()).into() * tick_ms
            ),
        })
    }

    /// The option named at `key` among `options` (name, value), or `default` when unset.
    pub fn choice<T: Copy>(
        &self,
        key: &str,
        options: &[(&str, T)],
        default: T,
    ) -> Result<T, ParamError> {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        match options.iter().find(|(name, _)| *name == value) {
            Some(&(_, v)) => Ok(v),
            None => Err(ParamError::Malformed {
                key: key.into(),
                value: value.into(),
                expected: options
                    .iter()
                    .map(|(name, _)| *name)
                    .collect::<Vec<_>>()
                    .join(" or "),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_parse_and_bad_ones_are_named() {
        let s = Settings::parse(&["clients=3", "flavor=plain-del"]).unwrap();
        assert_eq!(s.get("flavor"), Some("plain-del"));
        assert_eq!(s.number("clients", 1..=4, 2), Ok(3));
        assert_eq!(s.number("pauses", 0..=3, 1), Ok(1));
        assert!(matches!(
            s.number("clients", 1..=2, 2),
            Err(ParamError::Malformed { .. })
        ));
        assert_eq!(
            Settings::parse(&["clients"]),
            Err(ParamError::NotKeyValue("clients".into()))
        );
        assert_eq!(
            Settings::parse(&["=3"]),
            Err(ParamError::NotKeyValue("=3".into()))
        );
        assert_eq!(
            Settings::parse(&["a=1", "a=2"]),
            Err(ParamError::Duplicate("a".into()))
        );
        assert_eq!(
            s.choice("flavor", &[("plain-del", 1), ("recipe", 0)], 0),
            Ok(1)
        );
        assert_eq!(s.choice("pause-at", &[("any", 0)], 0), Ok(0));
        assert!(matches!(
            s.choice("flavor", &[("recipe", 0)], 0),
            Err(ParamError::Malformed { expected, .. }) if expected == "recipe"
        ));
        assert!(matches!(
            s.only(&[("clients", "")], &[]),
            Err(ParamError::Unknown { key, .. }) if key == "flavor"
        ));
    }

    #[test]
    fn milliseconds_become_whole_ticks_or_are_refused() {
        let s =
            Settings::parse(&["ttl_ms=300", "odd_ms=250", "big_ms=2100", "neg_ms=-100"]).unwrap();
        assert_eq!(s.millis("ttl_ms", 100, 1..=20u64, 3), Ok(3));
        assert_eq!(s.millis("unset_ms", 100, 1..=20u64, 4), Ok(4));
        for key in ["odd_ms", "big_ms", "neg_ms"] {
            assert!(
                matches!(
                    s.millis(key, 100, 1..=20u64, 3),
                    Err(ParamError::Malformed { .. })
                ),
                "{key}"
            );
        }
        assert_eq!(
            s.millis("odd_ms", 100, 1..=20u8, 3)
                .unwrap_err()
                .to_string(),
            "--set odd_ms=250: expected milliseconds from 100 to 2000 in steps of 100 (the model's tick)"
        );
    }

    #[test]
    fn an_old_spelling_names_the_new_one() {
        const RENAMED: &[Renamed] = &[
            Renamed::TTL,
            Renamed {
                old: "fencing=on",
                new: "fencing=true",
                note: "true or false",
            },
        ];
        let params = &[("ttl_ms", ""), ("fencing", "")];
        let only = |args: &[&str]| Settings::parse(args).unwrap().only(params, RENAMED);
        assert_eq!(only(&["ttl_ms=300", "fencing=true"]), Ok(()));
        assert_eq!(
            only(&["ttl=3"]).unwrap_err().to_string(),
            "--set ttl=3: now spelled ttl_ms, as locksim spells it (milliseconds: ttl=3 is ttl_ms=300)"
        );
        assert_eq!(
            only(&["fencing=on"]).unwrap_err().to_string(),
            "--set fencing=on: now spelled fencing=true, as locksim spells it (true or false)"
        );
    }
}
