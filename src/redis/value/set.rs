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
