//! One-shot watch tables, keyed by connection as in ZooKeeper's `WatchManager`: the data
//! table holds getData and exists watches (exists may watch a missing path), the child
//! table getChildren watches. A firing removes the path's whole entry.

use std::collections::{BTreeMap, BTreeSet};

use crate::zk::proto::WatcherType;
use crate::zk::server::ConnId;

#[derive(Debug, Clone, Default)]
pub struct Watches {
    data: BTreeMap<String, BTreeSet<ConnId>>,
    child: BTreeMap<String, BTreeSet<ConnId>>,
}

impl Watches {
    pub fn add_data(&mut self, path: &str, conn: ConnId) {
        self.data.entry(path.to_string()).or_default().insert(conn);
    }

    pub fn add_child(&mut self, path: &str, conn: ConnId) {
        self.child.entry(path.to_string()).or_default().insert(conn);
    }

    /// Removes and returns the data/exists watchers of `path`.
    pub fn take_data(&mut self, path: &str) -> BTreeSet<ConnId> {
        self.data.remove(path).unwrap_or_default()
    }

    /// Removes and returns the child watchers of `path`.
    pub fn take_child(&mut self, path: &str) -> BTreeSet<ConnId> {
        self.child.remove(path).unwrap_or_default()
    }

    /// Whether any connection has a watch of `kind` on `path`: what ZooKeeper 3.8's
    /// checkWatches asks (`WatchManager.containsWatcher` looks for a watcher on the path, not
    /// for the asking connection's), so another connection's watch answers it too.
    pub fn any_on(&self, path: &str, kind: WatcherType) -> bool {
        self.tables(kind)
            .into_iter()
            .any(|table| table.contains_key(path))
    }

    /// Drops `conn`'s watches of `kind` on `path`; whether it had any.
    pub fn remove(&mut self, path: &str, conn: ConnId, kind: WatcherType) -> bool {
        let mut removed = false;
        for table in self.tables_mut(kind) {
            if let Some(conns) = table.get_mut(path) {
                removed |= conns.remove(&conn);
                if conns.is_empty() {
                    table.remove(path);
                }
            }
        }
        removed
    }

    fn tables(&self, kind: WatcherType) -> Vec<&BTreeMap<String, BTreeSet<ConnId>>> {
        match kind {
            WatcherType::Children => vec![&self.child],
            WatcherType::Data => vec![&self.data],
            WatcherType::Any => vec![&self.child, &self.data],
        }
    }

    fn tables_mut(&mut self, kind: WatcherType) -> Vec<&mut BTreeMap<String, BTreeSet<ConnId>>> {
        match kind {
            WatcherType::Children => vec![&mut self.child],
            WatcherType::Data => vec![&mut self.data],
            WatcherType::Any => vec![&mut self.child, &mut self.data],
        }
    }

    /// Drops every watch of a closed connection.
    pub fn remove_conn(&mut self, conn: ConnId) {
        for table in [&mut self.data, &mut self.child] {
            table.retain(|_, conns| {
                conns.remove(&conn);
                !conns.is_empty()
            });
        }
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.child.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shot_and_per_table() {
        let mut w = Watches::default();
        w.add_data("/a", 2);
        w.add_data("/a", 1);
        w.add_data("/a", 2);
        w.add_child("/a", 3);
        assert_eq!(w.take_data("/a"), BTreeSet::from([1, 2]));
        assert!(w.take_data("/a").is_empty());
        assert_eq!(w.take_child("/a"), BTreeSet::from([3]));
        assert!(w.take_child("/a").is_empty());
    }

    #[test]
    fn removing_a_conn_keeps_the_others() {
        let mut w = Watches::default();
        w.add_data("/a", 1);
        w.add_data("/a", 2);
        w.add_child("/b", 1);
        w.remove_conn(1);
        assert_eq!(w.take_data("/a"), BTreeSet::from([2]));
        assert!(w.take_child("/b").is_empty());
    }
}
