//! The properties a scenario can ask the checkers to judge.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// At most one client holds a lock at any true instant.
    Mutex,
    /// A writer never holds a lock together with anyone; readers may share it.
    #[serde(rename = "rw-exclusion")]
    RwExclusion,
    /// The protected register never accepts a write based on a stale read.
    Resource,
    /// A lock-node deletion wakes at most one waiting client.
    Herd,
    /// After the heal, every client that wants a lock gets it within a bound.
    Liveness,
    /// Grants follow queue order among live contenders.
    Fifo,
    /// At most one client believes it leads an election at any true instant, and after the
    /// heal a leader is elected within a bound.
    Leader,
    /// A queue loses no item offered, hands none out twice, and keeps each producer's order.
    Queue,
    /// Nobody passes a barrier before every process arrived, nor leaves it before every
    /// process is done with its work; after the heal everyone passes within a bound.
    Barrier,
}

impl Property {
    pub const ALL: [Property; 9] = [
        Property::Mutex,
        Property::RwExclusion,
        Property::Resource,
        Property::Herd,
        Property::Liveness,
        Property::Fifo,
        Property::Leader,
        Property::Queue,
        Property::Barrier,
    ];

    /// The name used on the command line, in scenario files and in serde.
    pub fn name(self) -> &'static str {
        match self {
            Property::Mutex => "mutex",
            Property::RwExclusion => "rw-exclusion",
            Property::Resource => "resource",
            Property::Herd => "herd",
            Property::Liveness => "liveness",
            Property::Fifo => "fifo",
            Property::Leader => "leader",
            Property::Queue => "queue",
            Property::Barrier => "barrier",
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A property name that none of `Property::ALL` answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProperty {
    pub name: String,
}

impl fmt::Display for UnknownProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown property `{}` (known:", self.name)?;
        for property in Property::ALL {
            write!(f, " {property}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownProperty {}

impl FromStr for Property {
    type Err = UnknownProperty;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Property::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| UnknownProperty {
                name: name.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_parse_and_serde_agree_on_every_name() {
        for property in Property::ALL {
            let name = property.to_string();
            assert_eq!(name.parse::<Property>(), Ok(property));
            assert_eq!(
                serde_json::to_string(&property).unwrap(),
                format!("\"{name}\"")
            );
            let back: Property = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, property);
        }
    }

    #[test]
    fn names_are_the_command_line_ones() {
        let names: Vec<String> = Property::ALL.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            names,
            [
                "mutex",
                "rw-exclusion",
                "resource",
                "herd",
                "liveness",
                "fifo",
                "leader",
                "queue",
                "barrier"
            ]
        );
    }

    #[test]
    fn unknown_name_is_a_typed_error() {
        let err = "Mutex".parse::<Property>().unwrap_err();
        assert_eq!(
            err,
            UnknownProperty {
                name: "Mutex".to_string()
            }
        );
        assert_eq!(
            err.to_string(),
            "unknown property `Mutex` (known: mutex rw-exclusion resource herd liveness fifo leader queue barrier)"
        );
        assert!(serde_json::from_str::<Property>("\"safety\"").is_err());
    }
}
