//! WATCH's registry (Redis's `db->watched_keys` and each client's `CLIENT_DIRTY_CAS`, from
//! multi.c): which connections watch which keys, and which of them a change to a watched key
//! has doomed, so that their next EXEC answers the null array. The keyspace owns it and
//! touches a key whenever it changes one, so no command can forget to (Redis calls
//! `signalModifiedKey` from each command instead). Connections are named by their ids: the
//! core only ever holds the connection whose request it runs, yet a write must reach every
//! watcher.

use std::collections::{BTreeMap, BTreeSet};

/// One connection watching one key.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Watcher {
    conn: u64,
    /// The key had already expired (not yet deleted) when WATCH was called: its deletion is
    /// no change, and EXEC does not count it as expiring.
    expired: bool,
}

/// The watched keys of a database and the connections a change has flagged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Watched {
    /// Each watched key's watchers, in the order they watched it.
    keys: BTreeMap<Vec<u8>, Vec<Watcher>>,
    /// Connections whose EXEC must fail (CLIENT_DIRTY_CAS).
    dirty: BTreeSet<u64>,
}

impl Watched {
    /// `watchForKey`: `conn` watches `key`, which has `expired` already; a second WATCH of
    /// the same key changes nothing.
    pub(crate) fn watch(&mut self, conn: u64, key: &[u8], expired: bool) {
        let watchers = self.keys.entry(key.to_vec()).or_default();
        if !watchers.iter().any(|w| w.conn == conn) {
            watchers.push(Watcher { conn, expired });
        }
    }

    /// `unwatchAllKeys` and the end of CLIENT_DIRTY_CAS: `conn` stops watching `keys` (the
    /// ones it watched) and is no longer flagged.
    pub(crate) fn forget(&mut self, conn: u64, keys: &[Vec<u8>]) {
        for key in keys {
            if let Some(watchers) = self.keys.get_mut(key) {
                watchers.retain(|w| w.conn != conn);
                if watchers.is_empty() {
                    self.keys.remove(key);
                }
            }
        }
        self.dirty.remove(&conn);
    }

    /// Whether a change to a watched key has flagged `conn`.
    pub(crate) fn is_dirty(&self, conn: u64) -> bool {
        self.dirty.contains(&conn)
    }

    /// Whether `conn` watched `key` when it had already expired.
    pub(crate) fn was_expired(&self, conn: u64, key: &[u8]) -> bool {
        self.keys
            .get(key)
            .and_then(|watchers| watchers.iter().find(|w| w.conn == conn))
            .is_some_and(|w| w.expired)
    }

    /// `touchWatchedKey`: `key` changed and now `exists` or not. Every watcher is flagged,
    /// except one that watched the key already expired: the key's deletion is no change to
    /// it, it now watches a missing key. Redis 7.0.15 stops at the first such watcher
    /// whose key still exists (a `break` where `continue` was meant), and so does this.
    pub(crate) fn touch(&mut self, key: &[u8], exists: bool) {
        let Some(watchers) = self.keys.get_mut(key) else {
            return;
        };
        for watcher in watchers {
            if watcher.expired {
                if exists {
                    break;
                }
                watcher.expired = false;
                continue;
            }
            self.dirty.insert(watcher.conn);
        }
    }

    /// `touchAllWatchedKeysInDb` for a flush: the watchers of every watched key that
    /// `exists` are flagged, except those that watched it already expired (its deletion is
    /// no change). Watching a missing key survives a flush.
    pub(crate) fn touch_all(&mut self, exists: impl Fn(&[u8]) -> bool) {
        for (key, watchers) in &mut self.keys {
            if !exists(key) {
                continue;
            }
            for watcher in watchers {
                if watcher.expired {
                    watcher.expired = false;
                } else {
                    self.dirty.insert(watcher.conn);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|k| k.as_bytes().to_vec()).collect()
    }

    #[test]
    fn a_touch_flags_every_watcher_of_the_key_until_it_forgets() {
        let mut w = Watched::default();
        w.watch(2, b"k", false);
        w.watch(3, b"k", false);
        w.watch(3, b"other", false);
        w.touch(b"unwatched", true);
        assert!(!w.is_dirty(2) && !w.is_dirty(3));
        w.touch(b"k", false);
        assert!(w.is_dirty(2) && w.is_dirty(3));
        w.forget(2, &keys(&["k"]));
        assert!(!w.is_dirty(2) && w.is_dirty(3));
        w.touch(b"k", true);
        assert!(!w.is_dirty(2), "2 no longer watches k");
        w.forget(3, &keys(&["k", "other"]));
        assert_eq!(w, Watched::default());
    }

    #[test]
    fn an_already_expired_key_being_deleted_is_no_change() {
        let mut w = Watched::default();
        w.watch(2, b"k", true);
        assert!(w.was_expired(2, b"k"));
        w.touch(b"k", false);
        assert!(!w.is_dirty(2) && !w.was_expired(2, b"k"));
        // Now it watches a missing key: writing it is a change.
        w.touch(b"k", true);
        assert!(w.is_dirty(2));
    }

    #[test]
    fn like_redis_7_0_an_expired_watcher_of_a_key_still_there_hides_the_later_ones() {
        let mut w = Watched::default();
        w.watch(2, b"k", true);
        w.watch(3, b"k", false);
        w.touch(b"k", true);
        assert!(!w.is_dirty(2) && !w.is_dirty(3));
    }

    #[test]
    fn a_flush_flags_the_watchers_of_keys_that_existed() {
        let mut w = Watched::default();
        w.watch(2, b"there", false);
        w.watch(3, b"missing", false);
        w.watch(4, b"stale", true);
        w.touch_all(|key| key != b"missing");
        assert!(w.is_dirty(2) && !w.is_dirty(3) && !w.is_dirty(4));
        assert!(!w.was_expired(4, b"stale"));
    }
}
