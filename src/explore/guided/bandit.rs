//! A bandit over the campaign's choices (mutations, fault kinds): each arm drawn in
//! proportion to how often it found a new transition, so the search spends its runs where
//! the recipe reacts.

use crate::explore::mutate;
use rand_chacha::ChaCha8Rng;

/// Wins and tries of each arm: how often a choice found a new transition.
#[derive(Debug, Clone)]
pub(super) struct Bandit<T> {
    /// Each arm, its wins and its tries.
    pub(super) arms: Vec<(T, u64, u64)>,
}

impl<T: Copy + PartialEq> Bandit<T> {
    pub(super) fn new(arms: impl IntoIterator<Item = T>) -> Self {
        Bandit {
            arms: arms.into_iter().map(|a| (a, 0, 0)).collect(),
        }
    }

    /// An arm drawn in proportion to its estimated chance of finding something new.
    pub(super) fn draw(&self, rng: &mut ChaCha8Rng) -> T {
        let weights: Vec<f64> = self
            .arms
            .iter()
            .map(|&(_, wins, tries)| (wins as f64 + 1.0) / (tries as f64 + 2.0))
            .collect();
        self.arms[mutate::weighted(&weights, rng)].0
    }

    /// Counts a try of `arm`, and whether it won.
    pub(super) fn reward(&mut self, arm: T, won: bool) {
        if let Some(entry) = self.arms.iter_mut().find(|(a, _, _)| *a == arm) {
            entry.1 += u64::from(won);
            entry.2 += 1;
        }
    }
}
