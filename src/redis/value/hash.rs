//! A hash: fields and their values, kept in the order they were first set, as a small
//! Redis 7.0 hash (a listpack) keeps them; Redis's large hashes (a hash table) have no order
//! a client can rely on, so the simulation keeps this one for every size.

use std::collections::BTreeMap;

/// The fields of a hash key, in insertion order, with an index by field. Two hashes are
/// equal when they hold the same fields and values in the same order, however they got
/// there (the insertion numbers are bookkeeping).
#[derive(Debug, Clone, Default)]
pub struct Hash {
    /// Field → (its insertion number, its value).
    fields: BTreeMap<Vec<u8>, (u64, Vec<u8>)>,
    /// Insertion number → field: the iteration order.
    order: BTreeMap<u64, Vec<u8>>,
    next: u64,
}

impl Hash {
    /// How many fields it holds.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether it holds none (Redis then deletes the key).
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// A field's value.
    pub fn get(&self, field: &[u8]) -> Option<&[u8]> {
        self.fields.get(field).map(|(_, v)| v.as_slice())
    }

    /// Sets a field; a new field goes last. Whether it was new.
    pub fn insert(&mut self, field: Vec<u8>, value: Vec<u8>) -> bool {
        if let Some((_, old)) = self.fields.get_mut(&field) {
            *old = value;
            return false;
        }
        self.order.insert(self.next, field.clone());
        self.fields.insert(field, (self.next, value));
        self.next += 1;
        true
    }

    /// Deletes a field: whether it was there.
    pub fn remove(&mut self, field: &[u8]) -> bool {
        match self.fields.remove(field) {
            Some((n, _)) => {
                self.order.remove(&n);
                true
            }
            None => false,
        }
    }

    /// Fields and values in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.order.values().map(|field| {
            let value = self
                .fields
                .get(field)
                .map_or(&[][..], |(_, v)| v.as_slice());
            (field.as_slice(), value)
        })
    }
}

impl PartialEq for Hash {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Hash {}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(h: &Hash) -> Vec<(&[u8], &[u8])> {
        h.iter().collect()
    }

    #[test]
    fn insertion_order_kept_across_updates_and_reinsertions() {
        let mut h = Hash::default();
        assert!(h.insert(b"b".to_vec(), b"1".to_vec()));
        assert!(h.insert(b"a".to_vec(), b"2".to_vec()));
        // An update keeps the field's place.
        assert!(!h.insert(b"b".to_vec(), b"3".to_vec()));
        assert_eq!(fields(&h), [(&b"b"[..], &b"3"[..]), (b"a", b"2")]);
        // Deleted and set again, a field goes last.
        assert!(h.remove(b"b") && !h.remove(b"b"));
        h.insert(b"b".to_vec(), b"4".to_vec());
        assert_eq!(fields(&h), [(&b"a"[..], &b"2"[..]), (b"b", b"4")]);
        assert_eq!(
            (h.len(), h.get(b"a"), h.get(b"z")),
            (2, Some(&b"2"[..]), None)
        );
    }
}
