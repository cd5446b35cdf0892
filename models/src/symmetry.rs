//! Renaming clients, for symmetry reduction: a model whose clients are interchangeable gives
//! its state a `Representative` (one state per class of states that differ only by which
//! client is which), and stateright's depth-first search explores each class once.
//!
//! Client ids are plain `u8`s, the type of sequence numbers and tokens too, and stateright's
//! `Rewrite` is a no-op for every `u8`, so each model renames its client ids field by field
//! with a `Renaming` instead of deriving `Rewrite`.

use stateright::RewritePlan;
use stateright::util::DenseNatMap;

/// A permutation of the clients: client `i` becomes client `new[i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renaming {
    new: Vec<usize>,
}

impl Renaming {
    /// The renaming that orders the clients by `keys` (client `i`'s key at `i`): client `i`
    /// becomes its key's rank, clients with equal keys keep their order. A model's keys say
    /// everything the state holds about a client, so states that differ only by a renaming
    /// sort to the same state.
    pub fn sorting<K: Ord>(keys: &[K]) -> Self {
        let plan = RewritePlan::<usize, DenseNatMap<usize, usize>>::from_values_to_sort(keys);
        Renaming {
            new: (0..keys.len()).map(|i| plan.rewrite(&i)).collect(),
        }
    }

    /// The renaming that sends client `i` to `new[i]`; `None` unless `new` is a permutation.
    pub fn new(new: Vec<usize>) -> Option<Self> {
        let mut seen = vec![false; new.len()];
        for &n in &new {
            if *seen.get(n)? {
                return None;
            }
            seen[n] = true;
        }
        Some(Renaming { new })
    }

    /// Every renaming of `clients` clients.
    pub fn all(clients: usize) -> Vec<Renaming> {
        let mut out = vec![Vec::new()];
        for _ in 0..clients {
            out = out
                .into_iter()
                .flat_map(|prefix: Vec<usize>| {
                    (0..clients)
                        .filter(|c| !prefix.contains(c))
                        .map(|c| {
                            let mut next = prefix.clone();
                            next.push(c);
                            next
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        out.into_iter().map(|new| Renaming { new }).collect()
    }

    /// The new id of client `c`.
    pub fn client(&self, c: u8) -> u8 {
        self.new[usize::from(c)] as u8
    }

    /// Per-client values moved to the clients' new ids.
    pub fn reorder<T: Clone>(&self, per_client: &[T]) -> Vec<T> {
        let mut out = per_client.to_vec();
        for (i, value) in per_client.iter().enumerate() {
            out[self.new[i]] = value.clone();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_ranks_each_client_by_its_key() {
        let r = Renaming::sorting(&['b', 'c', 'a', 'b']);
        assert_eq!(
            (0..4).map(|c| r.client(c)).collect::<Vec<_>>(),
            [1, 3, 0, 2]
        );
        assert_eq!(r.reorder(&['b', 'c', 'a', 'b']), ['a', 'b', 'b', 'c']);
    }

    #[test]
    fn only_permutations_are_renamings() {
        assert!(Renaming::new(vec![1, 0, 2]).is_some());
        assert!(Renaming::new(vec![1, 1, 0]).is_none());
        assert!(Renaming::new(vec![0, 3, 1]).is_none());
        let all = Renaming::all(3);
        assert_eq!(all.len(), 6);
        assert!(
            all.iter()
                .all(|r| Renaming::new(r.new.clone()).as_ref() == Some(r))
        );
        assert_eq!(all[0], Renaming::new(vec![0, 1, 2]).unwrap());
    }
}
