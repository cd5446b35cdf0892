//! `--set key=value` pairs, and the errors a model's parameters report.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// Why the parameters were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// Not of the form `key=value`.
    NotKeyValue(String),
    Duplicate(String),
    Unknown {
        key: String,
        known: Vec<&'static str>,
    },
    Malformed {
        key: String,
        value: String,
        expected: String,
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
        }
    }
}

impl std::error::Error for ParamError {}

/// The `--set` pairs of one command, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings(BTreeMap<String, String>);

impl Settings {
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

    /// Refuses any key not in `params` (name, meaning).
    pub fn only(&self, params: &[(&'static str, &str)]) -> Result<(), ParamError> {
        match self.0.keys().find(|k| !params.iter().any(|(p, _)| p == k)) {
            Some(key) => Err(ParamError::Unknown {
                key: key.clone(),
                known: params.iter().map(|(p, _)| *p).collect(),
            }),
            None => Ok(()),
        }
    }

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
            s.only(&[("clients", "")]),
            Err(ParamError::Unknown { key, .. }) if key == "flavor"
        ));
    }
}
