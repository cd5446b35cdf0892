//! A set of members. Redis 7.0 keeps a set of integers (an intset) sorted by value and any
//! other set in a hash table whose order is random; the simulation walks a set of integers
//! by value and any other in byte order, so replies replay.

use crate::redis::num::parse_i64;
use std::collections::BTreeSet;

/// The members of a set key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Set {
    members: BTreeSet<Vec<u8>>,
}

impl Set {
    /// How many members it holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether it holds none (Redis then deletes the key).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether `member` is in it.
    pub fn contains(&self, member: &[u8]) -> bool {
        self.members.contains(member)
    }

    /// Adds a member: whether it was new.
    pub fn insert(&mut self, member: Vec<u8>) -> bool {
        self.members.insert(member)
    }

    /// Removes a member: whether it was there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        self.members.remove(member)
    }

    /// The members: by value when every one is an integer (as an intset), else in byte order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let numbers: Option<Vec<(i64, &[u8])>> = self
            .members
            .iter()
            .map(|m| parse_i64(m).map(|n| (n, m.as_slice())))
            .collect();
        let ordered: Vec<&[u8]> = match numbers {
            Some(mut numbers) => {
                numbers.sort_unstable();
                numbers.into_iter().map(|(_, m)| m).collect()
            }
            None => self.members.iter().map(Vec::as_slice).collect(),
        };
        ordered.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(members: &[&[u8]]) -> Set {
        let mut s = Set::default();
        for m in members {
            s.insert(m.to_vec());
        }
        s
    }

    #[test]
    fn integers_by_value_anything_else_by_bytes() {
        let numbers = set(&[b"10", b"9", b"-1", b"-20"]);
        assert_eq!(
            numbers.iter().collect::<Vec<_>>(),
            [&b"-20"[..], b"-1", b"9", b"10"]
        );
        // One member that Redis would not store as an integer ("09") orders them all by bytes.
        let mixed = set(&[b"10", b"9", b"09"]);
        assert_eq!(mixed.iter().collect::<Vec<_>>(), [&b"09"[..], b"10", b"9"]);
    }

    #[test]
    fn membership_and_removal() {
        let mut s = set(&[b"a", b"b"]);
        assert!(!s.insert(b"a".to_vec()));
        assert!(s.contains(b"b") && !s.contains(b"c"));
        assert!(s.remove(b"a") && !s.remove(b"a"));
        assert!(s.remove(b"b"));
        assert!(s.is_empty());
    }
}
