//! Parameters of a user's own scenario: declared once as a typed constant (key, default,
//! range, doc), set like the built-in ones (`Experiment::set("permits=3")`, trace files), and
//! read back typed by the recipe (`Node::param`) and by its checker (`CheckConfig::param`).
//! They live with the node primitives because a host's software reads them from its node.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// A parameter of your own scenario, declared once as a constant: its key, type, default,
/// range and doc. Declare it on the experiment (`Experiment::param`), set it like a built-in
/// one (`.set("permits=3")`; trace files record it), and read it where it is used:
/// `node.param(PERMITS)` in the recipe, `cfg.param(PERMITS)` in a checker.
///
/// ```
/// use locksim::Param;
///
/// /// How many holders the semaphore admits at once.
/// const PERMITS: Param<u32> = Param::u32("permits", 2)
///     .range(1, 8)
///     .doc("holders the semaphore admits at once");
/// assert_eq!(PERMITS.key(), "permits");
/// assert_eq!(PERMITS.default_value(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param<T> {
    key: &'static str,
    default: T,
    range: Option<(u64, u64)>,
    doc: &'static str,
}

impl Param<u64> {
    /// A number parameter, any `u64` unless `range` narrows it.
    pub const fn u64(key: &'static str, default: u64) -> Param<u64> {
        Param::declare(key, default, Some((0, u64::MAX)))
    }

    /// Only values in `min..=max` are accepted.
    pub const fn range(self, min: u64, max: u64) -> Param<u64> {
        Param {
            range: Some((min, max)),
            ..self
        }
    }
}

impl Param<u32> {
    /// A number parameter, any `u32` unless `range` narrows it.
    pub const fn u32(key: &'static str, default: u32) -> Param<u32> {
        Param::declare(key, default, Some((0, u32::MAX as u64)))
    }

    /// Only values in `min..=max` are accepted.
    pub const fn range(self, min: u32, max: u32) -> Param<u32> {
        Param {
            range: Some((min as u64, max as u64)),
            ..self
        }
    }
}

impl Param<bool> {
    /// A switch, `true` or `false`.
    pub const fn bool(key: &'static str, default: bool) -> Param<bool> {
        Param::declare(key, default, None)
    }
}

impl<T: Copy> Param<T> {
    const fn declare(key: &'static str, default: T, range: Option<(u64, u64)>) -> Param<T> {
        Param {
            key,
            default,
            range,
            doc: "",
        }
    }

    /// What it means, for messages and listings.
    pub const fn doc(self, doc: &'static str) -> Param<T> {
        Param { doc, ..self }
    }

    /// Its key, as `set` and trace files name it.
    pub const fn key(&self) -> &'static str {
        self.key
    }

    /// Its value when nothing sets it.
    pub const fn default_value(&self) -> T {
        self.default
    }
}

/// A type a parameter can have: `u64`, `u32` or `bool`.
pub trait ParamValue: sealed::Sealed + Copy + fmt::Debug + 'static {
    /// The value as a trace file holds it.
    fn to_json(self) -> Value;
    /// The value a trace file or setting holds, if it is of this type.
    fn from_json(value: &Value) -> Option<Self>;
}

mod sealed {
    #[allow(
        unnameable_types,
        reason = "sealed: no type outside locksim implements ParamValue"
    )]
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u32 {}
    impl Sealed for bool {}
}

impl ParamValue for u64 {
    fn to_json(self) -> Value {
        self.into()
    }
    fn from_json(value: &Value) -> Option<u64> {
        value.as_u64()
    }
}

impl ParamValue for u32 {
    fn to_json(self) -> Value {
        self.into()
    }
    fn from_json(value: &Value) -> Option<u32> {
        value.as_u64().and_then(|v| u32::try_from(v).ok())
    }
}

impl ParamValue for bool {
    fn to_json(self) -> Value {
        self.into()
    }
    fn from_json(value: &Value) -> Option<bool> {
        value.as_bool()
    }
}

/// A declared parameter with its type erased, as a scenario keeps its own: what checks a
/// value set for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// Its key.
    pub key: &'static str,
    /// Its default, as a trace file holds it.
    pub default: Value,
    /// The accepted values of a number parameter, inclusive; None for a switch.
    pub range: Option<(u64, u64)>,
    /// What it means.
    pub doc: &'static str,
}

impl<T: ParamValue> From<Param<T>> for ParamSpec {
    fn from(param: Param<T>) -> ParamSpec {
        ParamSpec {
            key: param.key,
            default: param.default.to_json(),
            range: param.range,
            doc: param.doc,
        }
    }
}

impl ParamSpec {
    /// Whether `value` may be set for it: the type of its default, within its range.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        match (self.range, value) {
            (None, Value::Bool(_)) => Ok(()),
            (None, _) => Err(format!("{}={value} must be true or false", self.key)),
            (Some((lo, hi)), _) => match value.as_u64() {
                Some(v) if (lo..=hi).contains(&v) => Ok(()),
                Some(v) => Err(format!("{}={v} is outside {lo}..={hi}", self.key)),
                None => Err(format!(
                    "{}={value} must be a non-negative integer",
                    self.key
                )),
            },
        }
    }
}

/// The values a run gives the parameters its scenario declared, by key: what `Node::param`
/// and `CheckConfig::param` read. Flat beside the built-in ones in trace files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ParamValues(BTreeMap<String, Value>);

impl ParamValues {
    /// `param`'s value in this run; its default when the scenario does not declare it
    /// (declare it to set it).
    ///
    /// # Panics
    /// When the run's value is not of `param`'s type: two declarations of one key with
    /// different types.
    pub fn get<T: ParamValue>(&self, param: Param<T>) -> T {
        match self.0.get(param.key) {
            None => param.default,
            Some(value) => T::from_json(value).unwrap_or_else(|| {
                panic!(
                    "parameter '{}' is {value}, not a {}",
                    param.key,
                    std::any::type_name::<T>()
                )
            }),
        }
    }

    /// Sets `key` to `value` (already checked against its declaration).
    pub fn insert(&mut self, key: &str, value: Value) {
        self.0.insert(key.to_string(), value);
    }

    /// Every value, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<T: ParamValue> FromIterator<(Param<T>, T)> for ParamValues {
    /// Values for a checker's unit test: `[(PERMITS, 3)].into_iter().collect()`.
    fn from_iter<I: IntoIterator<Item = (Param<T>, T)>>(iter: I) -> ParamValues {
        ParamValues(
            iter.into_iter()
                .map(|(param, value)| (param.key.to_string(), value.to_json()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERMITS: Param<u32> = Param::u32("permits", 2).range(1, 8).doc("holders");
    const FENCED: Param<bool> = Param::bool("fenced", false);

    #[test]
    fn a_declaration_checks_type_and_range() {
        let spec = ParamSpec::from(PERMITS);
        assert_eq!(spec.default, Value::from(2));
        assert_eq!(spec.check(&3.into()), Ok(()));
        assert_eq!(
            spec.check(&9.into()).unwrap_err(),
            "permits=9 is outside 1..=8"
        );
        assert!(spec.check(&true.into()).is_err());
        assert!(spec.check(&Value::from(-1)).is_err());
        let spec = ParamSpec::from(FENCED);
        assert_eq!(spec.check(&true.into()), Ok(()));
        assert_eq!(
            spec.check(&1.into()).unwrap_err(),
            "fenced=1 must be true or false"
        );
        let wide = ParamSpec::from(Param::u32("n", 0));
        assert!(wide.check(&Value::from(u64::from(u32::MAX) + 1)).is_err());
    }

    #[test]
    fn a_value_reads_back_typed_and_an_undeclared_one_as_its_default() {
        let values: ParamValues = [(PERMITS, 5)].into_iter().collect();
        assert_eq!(values.get(PERMITS), 5);
        assert!(!values.get(FENCED));
    }
}
