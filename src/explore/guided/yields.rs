//! How many new transitions each source of runs reached lately, and the shares of runs that
//! follow from it: a pure core the campaign asks before each run it draws.

use super::mutate;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Of every generation, at least this share is fresh swarm plans; more while fresh plans
/// reach new transitions more often than the other runs do (`Yields`).
pub(super) const FRESH: f64 = 0.25;

/// The generations over which the sources are compared.
pub(super) const WINDOW: usize = 4;

/// Where a run came from: the share of runs each source gets follows what it reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// A swarm plan drawn as random exploration draws one.
    Fresh,
    /// A run that came near something, squeezed (`ToSqueeze`).
    Squeeze,
    /// A corpus entry's client's next requests after a lost reply, lost too, on a new seed.
    FollowUp,
    /// A corpus entry's plan under the mutations' bandit.
    Mutant,
    /// A fresh swarm plan with a reply lost to a request of the kind a corpus entry's client
    /// sent, drawn by client and kind.
    Aim,
}

/// How many new transitions each source reached per run, over the last `WINDOW`
/// generations. Early in a campaign, and on scenarios whose states a mutant's prefix does
/// not lead toward, fresh plans reach more, and a fixed share of mutants would spend runs on
/// less than random exploration reaches. On a correct recipe nearly every run may come near
/// something (a first look at a barrier node, a read on a follower), and squeezing each
/// changes nothing it does, while on another the follow-ups of lost replies reach the most.
#[derive(Debug, Default)]
pub(super) struct Yields {
    /// Per generation and source (`Source as usize`), (new transitions, runs).
    generations: VecDeque<[(u64, u64); 5]>,
}

impl Yields {
    pub(super) fn next_generation(&mut self) {
        if self.generations.len() == WINDOW {
            self.generations.pop_front();
        }
        self.generations.push_back([(0, 0); 5]);
    }

    pub(super) fn record(&mut self, source: Source, new: usize) {
        if let Some(generation) = self.generations.back_mut() {
            let (reached, runs) = &mut generation[source as usize];
            *reached += new as u64;
            *runs += 1;
        }
    }

    /// New transitions per run of the sources in `of`, with a prior of one in two.
    fn rate(&self, of: &[Source]) -> f64 {
        let (reached, runs) = self.generations.iter().fold((0, 0), |(n, r), g| {
            of.iter()
                .map(|&s| g[s as usize])
                .fold((n, r), |(n, r), (gn, gr)| (n + gn, r + gr))
        });
        (reached as f64 + 1.0) / (runs as f64 + 2.0)
    }

    /// The source of a run that is not fresh, among the `open` ones (squeezes, follow-ups,
    /// mutants), drawn in proportion to their rates; none when none is open.
    pub(super) fn turn(&self, open: [bool; 3], rng: &mut ChaCha8Rng) -> Option<Source> {
        let arms: Vec<Source> = [Source::Squeeze, Source::FollowUp, Source::Mutant]
            .into_iter()
            .zip(open)
            .filter_map(|(source, open)| open.then_some(source))
            .collect();
        let weights: Vec<f64> = arms.iter().map(|&s| self.rate(&[s])).collect();
        (!arms.is_empty()).then(|| arms[mutate::weighted(&weights, rng)])
    }

    /// The share of fresh plans: their rate against all other runs', normalised, and at
    /// least `FRESH`.
    pub(super) fn fresh_share(&self) -> f64 {
        let fresh = self.rate(&[Source::Fresh]);
        let other = self.rate(&[
            Source::Squeeze,
            Source::FollowUp,
            Source::Mutant,
            Source::Aim,
        ]);
        (fresh / (fresh + other)).max(FRESH)
    }
}
