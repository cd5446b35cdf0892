//! What a key holds: a string, a list, a hash, a set or a sorted set, as Redis 7.0's five
//! types. Each aggregate type has a module of its own; this one holds what they share: the
//! type's name (TYPE, and WRONGTYPE's check) and how a value reads in the history.
//!
//! Orders are deterministic everywhere: where Redis 7.0's order depends on its encoding (a
//! small hash keeps insertion order, a set of integers is sorted by value, a large one is in
//! its hash table's random order), the simulation keeps the small encoding's order for every
//! size, so a run replays the same replies.

pub mod hash;
pub mod list;
pub mod set;
pub mod zset;

pub use hash::Hash;
pub use list::List;
pub use set::Set;
pub use zset::ZSet;

/// The most elements of an aggregate [`Value::render`] spells out.
const RENDER_ELEMENTS: usize = 16;

/// One key's value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value {
    /// A string (also what INCR counts in).
    String(Vec<u8>),
    /// A list (LPUSH, BLPOP...).
    List(List),
    /// A hash of fields (HSET...).
    Hash(Hash),
    /// A set of members (SADD...).
    Set(Set),
    /// A sorted set of scored members (ZADD...).
    ZSet(ZSet),
}

impl Value {
    /// TYPE's answer: `string`, `list`, `hash`, `set` or `zset`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
        }
    }

    /// The string, if it is one.
    #[cfg(test)]
    pub fn as_string(&self) -> Option<&[u8]> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether an aggregate has no elements left: Redis deletes such a key (a string, even
    /// an empty one, stays).
    pub fn is_empty_aggregate(&self) -> bool {
        match self {
            Value::String(_) => false,
            Value::List(l) => l.is_empty(),
            Value::Hash(h) => h.is_empty(),
            Value::Set(s) => s.is_empty(),
            Value::ZSet(z) => z.is_empty(),
        }
    }

    /// How the value reads in a run's history: a string as it is; an aggregate as its type
    /// and its first elements in its order, e.g. `list[a, b]`, `hash{f=v}`, `zset{m=1}`, with
    /// `… (N in all)` when there are more than 16.
    pub fn render(&self) -> Vec<u8> {
        let (name, elements, len): (&str, Vec<Vec<u8>>, usize) = match self {
            Value::String(s) => return s.clone(),
            Value::List(l) => ("list", l.iter().map(<[u8]>::to_vec).collect(), l.len()),
            Value::Hash(h) => ("hash", h.iter().map(|(f, v)| pair(f, v)).collect(), h.len()),
            Value::Set(s) => ("set", s.iter().map(<[u8]>::to_vec).collect(), s.len()),
            Value::ZSet(z) => (
                "zset",
                z.iter()
                    .map(|(m, score)| pair(m, zset::format_score(score).as_bytes()))
                    .collect(),
                z.len(),
            ),
        };
        let (open, close) = if matches!(self, Value::List(_)) {
            (b'[', b']')
        } else {
            (b'{', b'}')
        };
        let mut out = name.as_bytes().to_vec();
        out.push(open);
        for (i, element) in elements.iter().take(RENDER_ELEMENTS).enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(element);
        }
        if len > RENDER_ELEMENTS {
            out.extend_from_slice(format!(", … ({len} in all)").as_bytes());
        }
        out.push(close);
        out
    }
}

fn pair(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = a.to_vec();
    out.push(b'=');
    out.extend_from_slice(b);
    out
}

/// A value of one type, as the commands of that type find it at a key: the seam for
/// [`crate::redis::keyspace::Keyspace`]'s typed lookups, which answer WRONGTYPE for another.
pub trait Typed: Sized + Default {
    /// The value, if it is of this type.
    fn of(value: &Value) -> Option<&Self>;
    /// The value, if it is of this type, to change.
    fn of_mut(value: &mut Value) -> Option<&mut Self>;
    /// A value of this type.
    fn into_value(self) -> Value;
}

macro_rules! typed {
    ($type:ty, $variant:ident) => {
        impl Typed for $type {
            fn of(value: &Value) -> Option<&Self> {
                match value {
                    Value::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn of_mut(value: &mut Value) -> Option<&mut Self> {
                match value {
                    Value::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn into_value(self) -> Value {
                Value::$variant(self)
            }
        }
    };
}

typed!(Vec<u8>, String);
typed!(List, List);
typed!(Hash, Hash);
typed!(Set, Set);
typed!(ZSet, ZSet);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_strings_as_they_are_and_aggregates_by_type() {
        assert_eq!(Value::String(b"v1".to_vec()).render(), b"v1");
        let mut list = List::default();
        for i in 0..20 {
            list.push_back(format!("e{i}").into_bytes());
        }
        let text = String::from_utf8(Value::List(list).render()).unwrap();
        assert!(text.starts_with("list[e0, e1, "), "{text}");
        assert!(text.ends_with("e15, … (20 in all)]"), "{text}");
        let mut hash = Hash::default();
        hash.insert(b"f".to_vec(), b"v".to_vec());
        assert_eq!(Value::Hash(hash).render(), b"hash{f=v}");
        assert_eq!(Value::Set(Set::default()).render(), b"set{}");
    }

    #[test]
    fn typed_lookups_see_only_their_type() {
        let value = Value::String(b"x".to_vec());
        assert!(<Vec<u8>>::of(&value).is_some());
        assert!(List::of(&value).is_none());
        assert_eq!(List::default().into_value().type_name(), "list");
        assert!(Value::Hash(Hash::default()).is_empty_aggregate());
        assert!(!Value::String(Vec::new()).is_empty_aggregate());
    }
}
