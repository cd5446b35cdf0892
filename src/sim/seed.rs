//! One run seed split into named, independent ChaCha streams, so adding randomness in one
//! place (say, a new fault kind) does not shift the draws of every other place.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// A run's seed, as the source of its named random streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seeds {
    root: u64,
}

impl Seeds {
    /// The streams of the run whose seed is `root`.
    pub(crate) fn new(root: u64) -> Self {
        Seeds { root }
    }

    /// The stream called `name` ("faults", "workload", "net", or a node name).
    pub fn stream(&self, name: &str) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.root);
        rng.set_stream(fnv1a(name.as_bytes()));
        rng
    }

    /// A u64 drawn from the stream `name`, for components that seed themselves.
    pub fn derive(&self, name: &str) -> u64 {
        rand::Rng::random(&mut self.stream(name))
    }

    /// `servers` in the order client host `host` tries them: shuffled once, from the host's
    /// own stream. ZooKeeper's clients connect in this order (`zk::try_order`), and the guided
    /// search reads it to find, on another seed, the member a client's session would reach.
    pub(crate) fn try_order(&self, host: &str, mut servers: Vec<String>) -> Vec<String> {
        if servers.len() > 1 {
            let seed = self.derive(&format!("{host}/servers"));
            servers.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        servers
    }
}

/// 64-bit FNV-1a of `bytes`: a fixed hash, the same on every machine and release.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_name_same_draws_other_name_other_draws() {
        let s = Seeds::new(42);
        let a: [u64; 4] = s.stream("faults").random();
        let b: [u64; 4] = s.stream("faults").random();
        let c: [u64; 4] = s.stream("workload").random();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let d: [u64; 4] = Seeds::new(43).stream("faults").random();
        assert_ne!(a, d);
    }
}
