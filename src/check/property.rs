//! The properties a run can be judged by: the built-in ones, and any a user names for a
//! checker of their own.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::Mutex;

/// A property a run is judged by, known by its name: the command line, trace files,
/// verdicts and `--json` all spell it so. The built-in ones are constants; a checker of your
/// own names its property with `Property::new`.
///
/// Properties order as verdicts list them: the built-ins in `BUILTIN` order, then the
/// others by name.
///
/// ```
/// use locksim::Property;
/// const AT_MOST_TWO: Property = Property::new("at-most-two");
/// assert_eq!(AT_MOST_TWO.name(), "at-most-two");
/// assert!(Property::LIVENESS < AT_MOST_TWO);
/// ```
#[derive(Clone, Copy)]
pub struct Property {
    name: &'static str,
}

impl Property {
    /// At most one client holds a lock at any true instant.
    pub const MUTEX: Property = Property::new("mutex");
    /// A writer never holds a lock together with anyone; readers may share it.
    pub const RW_EXCLUSION: Property = Property::new("rw-exclusion");
    /// The protected register never accepts a write based on a stale read.
    pub const RESOURCE: Property = Property::new("resource");
    /// A lock-node deletion wakes at most one waiting client.
    pub const HERD: Property = Property::new("herd");
    /// After the heal, every client that wants a lock gets it within a bound.
    pub const LIVENESS: Property = Property::new("liveness");
    /// Grants follow queue order among live contenders.
    pub const FIFO: Property = Property::new("fifo");
    /// At most one client believes it leads an election at any true instant, and after the
    /// heal a leader is elected within a bound.
    pub const LEADER: Property = Property::new("leader");
    /// A queue loses no item offered, hands none out twice, and keeps each producer's order.
    pub const QUEUE: Property = Property::new("queue");
    /// Nobody passes a barrier before every process arrived, nor leaves it before every
    /// process is done with its work; after the heal everyone passes within a bound.
    pub const BARRIER: Property = Property::new("barrier");
    /// Within a session, no read shows a znode older than the session has seen it, by its
    /// own write or an earlier read, whichever server it moved to.
    pub const READ_YOUR_WRITES: Property = Property::new("read-your-writes");

    /// The built-in properties, each with a checker in `check`, in the order verdicts list
    /// them.
    pub const BUILTIN: [Property; 10] = [
        Property::MUTEX,
        Property::RW_EXCLUSION,
        Property::RESOURCE,
        Property::HERD,
        Property::LIVENESS,
        Property::FIFO,
        Property::LEADER,
        Property::QUEUE,
        Property::BARRIER,
        Property::READ_YOUR_WRITES,
    ];

    /// The property called `name`: lowercase letters, digits and `-`, as a command line and
    /// a file name take it.
    ///
    /// # Panics
    /// On any other name (at compile time for a `const`).
    pub const fn new(name: &'static str) -> Property {
        assert!(
            well_formed(name),
            "a property name is lowercase letters, digits and '-'"
        );
        Property { name }
    }

    /// The property a file or a message names, for any well-formed name.
    pub fn named(name: &str) -> Result<Property, BadPropertyName> {
        if !well_formed(name) {
            return Err(BadPropertyName(name.to_string()));
        }
        if let Some(p) = Property::BUILTIN.into_iter().find(|p| p.name == name) {
            return Ok(p);
        }
        Ok(Property { name: intern(name) })
    }

    /// The name used on the command line, in trace files and in serde.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// Whether it is one of `BUILTIN`, judged by a checker of locksim's own.
    pub fn is_builtin(self) -> bool {
        self.rank() < Property::BUILTIN.len()
    }

    /// Its place in `BUILTIN`; past the end for a user's.
    fn rank(self) -> usize {
        Property::BUILTIN
            .iter()
            .position(|p| p.name == self.name)
            .unwrap_or(Property::BUILTIN.len())
    }
}

const fn well_formed(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if !matches!(bytes[i], b'a'..=b'z' | b'0'..=b'9' | b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// One `'static` copy of each user property name read from a file: few, and kept for the
/// process's life, so a property stays a `Copy` value.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

impl PartialEq for Property {
    fn eq(&self, other: &Property) -> bool {
        self.name == other.name
    }
}

impl Eq for Property {}

impl Hash for Property {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl Ord for Property {
    fn cmp(&self, other: &Property) -> Ordering {
        (self.rank(), self.name).cmp(&(other.rank(), other.name))
    }
}

impl PartialOrd for Property {
    fn partial_cmp(&self, other: &Property) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Property({})", self.name)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Serialize for Property {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

impl<'de> Deserialize<'de> for Property {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Property, D::Error> {
        let name = String::deserialize(d)?;
        Property::named(&name).map_err(serde::de::Error::custom)
    }
}

/// A property name with characters a name cannot have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPropertyName(pub String);

impl fmt::Display for BadPropertyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad property name `{}`: lowercase letters, digits and '-' only",
            self.0
        )
    }
}

impl std::error::Error for BadPropertyName {}

/// A property name that none of `Property::BUILTIN` answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProperty {
    /// The name given.
    pub name: String,
}

impl fmt::Display for UnknownProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown property `{}` (known:", self.name)?;
        for property in Property::BUILTIN {
            write!(f, " {property}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownProperty {}

/// Parses a built-in property's name (the command line's `--properties`).
impl FromStr for Property {
    type Err = UnknownProperty;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Property::BUILTIN
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
        for property in Property::BUILTIN {
            let name = property.to_string();
            assert_eq!(name.parse::<Property>(), Ok(property));
            assert_eq!(
                serde_json::to_string(&property).unwrap(),
                format!("\"{name}\"")
            );
            let back: Property = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, property);
            assert!(property.is_builtin());
        }
    }

    #[test]
    fn names_are_the_command_line_ones() {
        let names: Vec<String> = Property::BUILTIN.iter().map(|p| p.to_string()).collect();
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
                "barrier",
                "read-your-writes"
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
            "unknown property `Mutex` (known: mutex rw-exclusion resource herd liveness fifo leader queue barrier read-your-writes)"
        );
        assert!(serde_json::from_str::<Property>("\"Safety!\"").is_err());
    }

    #[test]
    fn a_users_property_reads_back_as_itself_and_sorts_after_the_builtins() {
        const MINE: Property = Property::new("at-most-k");
        let back: Property = serde_json::from_str("\"at-most-k\"").unwrap();
        assert_eq!(back, MINE);
        assert!(!MINE.is_builtin());
        assert_eq!(Property::named("at-most-k").unwrap().name(), "at-most-k");
        let mut sorted = vec![
            MINE,
            Property::new("a-first"),
            Property::BARRIER,
            Property::MUTEX,
        ];
        sorted.sort();
        assert_eq!(
            sorted,
            [
                Property::MUTEX,
                Property::BARRIER,
                Property::new("a-first"),
                MINE
            ]
        );
        assert_eq!(
            Property::named("Bad Name").unwrap_err().to_string(),
            "bad property name `Bad Name`: lowercase letters, digits and '-' only"
        );
        assert!(
            "at-most-k".parse::<Property>().is_err(),
            "the command line takes built-ins"
        );
    }
}
