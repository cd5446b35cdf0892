//! A sorted set: members with a score each, ordered by score and then by member bytes, as
//! Redis orders them (its skiplist, or a listpack when small, in the same order).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// A score: a double that is never NaN (Redis refuses NaN before storing one), so it has a
/// total order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score(f64);

impl Score {
    /// A score; None for NaN.
    pub fn new(score: f64) -> Option<Score> {
        (!score.is_nan()).then_some(Score(score))
    }

    /// The double.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    /// C's comparison of doubles: -0 and 0 are equal (the member then decides).
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.partial_cmp(&other.0).unwrap_or(Ordering::Equal)
    }
}

/// The members of a sorted-set key with their scores.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZSet {
    scores: BTreeMap<Vec<u8>, Score>,
    ordered: BTreeSet<(Score, Vec<u8>)>,
}

impl ZSet {
    /// How many members it holds.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether it holds none (Redis then deletes the key).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// A member's score.
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.scores.get(member).map(|s| s.get())
    }

    /// Sets a member's score: whether it was new.
    pub fn insert(&mut self, member: Vec<u8>, score: Score) -> bool {
        let old = self.scores.insert(member.clone(), score);
        if let Some(old) = old {
            self.ordered.remove(&(old, member.clone()));
        }
        self.ordered.insert((score, member));
        old.is_none()
    }

    /// Removes a member: whether it was there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        match self.scores.remove(member) {
            Some(score) => {
                self.ordered.remove(&(score, member.to_vec()));
                true
            }
            None => false,
        }
    }

    /// Members and scores, lowest score first, ties by member bytes.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], f64)> {
        self.ordered.iter().map(|(s, m)| (m.as_slice(), s.get()))
    }
}

/// A score as the history shows it (the shortest text that reads back as the same double).
pub(super) fn format_score(score: f64) -> String {
    format!("{score}")
}
