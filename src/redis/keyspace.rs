//! The data of one database: keys, their typed values and their deadlines, in two maps as
//! Redis keeps them (`dict` and `expires`), but ordered, so that every walk over them, the
//! active expiry's included, is the same on every run.
//!
//! Plain storage: what counts as expired, and what happens then, is the commands' business
//! (see `cmd`), because it depends on the node's role. Every change made through it touches
//! the key's watchers, except a change made in place through [`Keyspace::get_mut`], which the
//! command reports with [`Keyspace::modified`] (Redis's `signalModifiedKey`) if it changed
//! anything.

use crate::redis::value::Value;
use crate::redis::watched::Watched;
use std::collections::BTreeMap;
use std::ops::Bound;

/// How many databases a server has (Redis's default `databases 16`): SELECT's range.
pub const DATABASES: usize = 16;

/// Keys, values and deadlines (on the server's expiry clock).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keyspace {
    dict: BTreeMap<Vec<u8>, Value>,
    expires: BTreeMap<Vec<u8>, i64>,
    /// Where the active expiry's sampling goes on from: the last key it looked at.
    cursor: Option<Vec<u8>>,
    /// WATCH's registry: every change below touches the key in it.
    watched: Watched,
}

impl Keyspace {
    /// The stored value, expired or not.
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.dict.get(key)
    }

    /// The stored value, to change in place; the command then calls [`Keyspace::modified`]
    /// if it changed it, and [`Keyspace::remove_if_empty`] if it took elements out.
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Value> {
        self.dict.get_mut(key)
    }

    /// How many keys it holds, expired or not (DBSIZE).
    pub fn len(&self) -> usize {
        self.dict.len()
    }

    /// The key's deadline, if it has one.
    pub fn expire_of(&self, key: &[u8]) -> Option<i64> {
        self.expires.get(key).copied()
    }

    /// Redis's `keyIsExpired`: a deadline strictly before `now`.
    pub fn is_expired(&self, key: &[u8], now: i64) -> bool {
        self.expire_of(key).is_some_and(|when| now > when)
    }

    /// Stores a string; the old deadline goes unless `keep_ttl` (SET's KEEPTTL).
    pub fn set(&mut self, key: &[u8], value: &[u8], keep_ttl: bool) {
        self.insert(key, Value::String(value.to_vec()), keep_ttl);
    }

    /// Stores a value of any type, replacing what was there; the old deadline goes unless
    /// `keep_ttl`.
    pub fn insert(&mut self, key: &[u8], value: Value, keep_ttl: bool) {
        self.dict.insert(key.to_vec(), value);
        if !keep_ttl {
            self.expires.remove(key);
        }
        self.watched.touch(key, true);
    }

    /// A command changed `key`'s value in place (Redis's `signalModifiedKey`).
    pub fn modified(&mut self, key: &[u8]) {
        let exists = self.dict.contains_key(key);
        self.watched.touch(key, exists);
    }

    /// Deletes `key` if it holds an aggregate with no elements left, as Redis does after
    /// every command that takes elements out: whether it did.
    pub fn remove_if_empty(&mut self, key: &[u8]) -> bool {
        let empty = self.dict.get(key).is_some_and(Value::is_empty_aggregate);
        empty && self.remove(key)
    }

    /// Drops a key's deadline (PERSIST): whether it had one.
    pub fn persist(&mut self, key: &[u8]) -> bool {
        let had = self.expires.remove(key).is_some();
        if had {
            self.watched.touch(key, true);
        }
        had
    }

    /// Takes a key out with its deadline, as RENAME and MOVE do (the watchers are touched).
    pub fn take(&mut self, key: &[u8]) -> Option<(Value, Option<i64>)> {
        let value = self.dict.remove(key)?;
        let when = self.expires.remove(key);
        self.watched.touch(key, false);
        Some((value, when))
    }

    /// Gives an existing key a deadline; a missing key gets none.
    pub fn set_expire(&mut self, key: &[u8], when: i64) {
        if self.dict.contains_key(key) {
            self.expires.insert(key.to_vec(), when);
            self.watched.touch(key, true);
        }
    }

    /// Deletes a key and its deadline: whether it was there.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        self.expires.remove(key);
        let removed = self.dict.remove(key).is_some();
        if removed {
            self.watched.touch(key, false);
        }
        removed
    }

    /// Deletes every key (FLUSHDB, or a full resync), touching the watched ones that were
    /// there. The watches themselves stay.
    pub fn flush(&mut self) {
        let dict = &self.dict;
        self.watched.touch_all(|key| dict.contains_key(key));
        self.dict.clear();
        self.expires.clear();
        self.cursor = None;
    }

    /// WATCH's registry.
    pub(crate) fn watched(&self) -> &Watched {
        &self.watched
    }

    /// WATCH's registry, to watch and unwatch in.
    pub(crate) fn watched_mut(&mut self) -> &mut Watched {
        &mut self.watched
    }

    /// Every key in order, with its value and deadline.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Value, Option<i64>)> {
        self.dict
            .iter()
            .map(|(k, v)| (k.as_slice(), v, self.expire_of(k)))
    }

    /// Up to `n` distinct keys that have a deadline, in key order from just after the last
    /// sampled one and wrapping around: the active expiry's sample (Redis walks its expires
    /// table with a cursor in the same spirit).
    pub fn sample_expires(&mut self, n: usize) -> Vec<(Vec<u8>, i64)> {
        let n = n.min(self.expires.len());
        let after = match &self.cursor {
            Some(key) => Bound::Excluded(key.as_slice()),
            None => Bound::Unbounded,
        };
        let sample: Vec<(Vec<u8>, i64)> = self
            .expires
            .range::<[u8], _>((after, Bound::Unbounded))
            .chain(self.expires.iter())
            .take(n)
            .map(|(k, &when)| (k.clone(), when))
            .collect();
        if let Some((last, _)) = sample.last() {
            self.cursor = Some(last.clone());
        }
        sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(sample: &[(Vec<u8>, i64)]) -> Vec<&[u8]> {
        sample.iter().map(|(k, _)| k.as_slice()).collect()
    }

    #[test]
    fn set_keeps_or_drops_the_deadline() {
        let mut ks = Keyspace::default();
        ks.set(b"k", b"1", false);
        ks.set_expire(b"k", 100);
        ks.set(b"k", b"2", true);
        assert_eq!(ks.expire_of(b"k"), Some(100));
        ks.set(b"k", b"3", false);
        assert_eq!(ks.expire_of(b"k"), None);
        ks.set_expire(b"missing", 100);
        assert_eq!(ks.expire_of(b"missing"), None);
        assert!(ks.remove(b"k"));
        assert!(!ks.remove(b"k"));
    }

    #[test]
    fn expired_strictly_after_the_deadline() {
        let mut ks = Keyspace::default();
        ks.set(b"k", b"v", false);
        ks.set_expire(b"k", 100);
        assert!(!ks.is_expired(b"k", 100));
        assert!(ks.is_expired(b"k", 101));
        ks.set(b"p", b"v", false);
        assert!(!ks.is_expired(b"p", i64::MAX));
    }

    #[test]
    fn sampling_walks_on_and_wraps() {
        let mut ks = Keyspace::default();
        for k in [b"a", b"b", b"c", b"d", b"e"] {
            ks.set(k, b"v", false);
        }
        for k in [b"a", b"c", b"d", b"e"] {
            ks.set_expire(k, 1);
        }
        assert_eq!(keys(&ks.sample_expires(2)), [b"a", b"c"]);
        assert_eq!(keys(&ks.sample_expires(3)), [b"d", b"e", b"a"]);
        // The cursor survives the deletion of the key it names.
        ks.remove(b"a");
        assert_eq!(keys(&ks.sample_expires(9)), [b"c", b"d", b"e"]);
        assert!(Keyspace::default().sample_expires(20).is_empty());
    }
}
