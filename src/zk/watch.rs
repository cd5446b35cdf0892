//! Watch tables, keyed by connection as in ZooKeeper 3.8.0's `WatchManager`: the data table
//! holds getData and exists watches (exists may watch a missing path), the child table
//! getChildren watches, and both hold the persistent and persistent-recursive watches of
//! addWatch. A connection has one mode per path in a table, the last one added (3.8.0's
//! `WatcherModeManager`: a getData watch on a path watched persistently makes it one-shot).
//! A standard watch goes when it fires; a persistent one stays and sees its own path's
//! events; a recursive one stays and sees every event at or below its path but
//! NodeChildrenChanged.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use crate::zk::proto::{EventType, WatcherType};
use crate::zk::server::ConnId;
use crate::zk::tree::parent_of;

/// How a connection watches a path (3.8's `WatcherMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One-shot: getData, exists, getChildren.
    Standard,
    /// addWatch mode 0: stays, for the path's own events.
    Persistent,
    /// addWatch mode 1: stays, for the events at and below the path but NodeChildrenChanged.
    Recursive,
}

/// One of the two tables.
#[derive(Debug, Clone, Default)]
struct Table {
    by_path: BTreeMap<String, BTreeMap<ConnId, Mode>>,
    /// How many recursive entries it holds: while none, a trigger looks at the path alone.
    recursive: usize,
}

impl Table {
    fn add(&mut self, path: &str, conn: ConnId, mode: Mode) {
        let conns = match self.by_path.get_mut(path) {
            Some(conns) => conns,
            None => self.by_path.entry(path.to_string()).or_default(),
        };
        if let Some(Mode::Recursive) = conns.insert(conn, mode) {
            self.recursive -= 1;
        }
        if mode == Mode::Recursive {
            self.recursive += 1;
        }
    }

    /// `triggerWatch`: the connections an event of `kind` at `path` goes to; one-shot
    /// watches at `path` go.
    fn trigger(&mut self, path: &str, kind: EventType) -> BTreeSet<ConnId> {
        let mut fired = BTreeSet::new();
        if let Some(conns) = self.by_path.get_mut(path) {
            conns.retain(|&conn, mode| {
                if *mode != Mode::Recursive || kind != EventType::NodeChildrenChanged {
                    fired.insert(conn);
                }
                *mode != Mode::Standard
            });
            if conns.is_empty() {
                self.by_path.remove(path);
            }
        }
        if self.recursive > 0 && kind != EventType::NodeChildrenChanged {
            let mut at = path;
            while at != "/" {
                at = parent_of(at);
                let above = self.by_path.get(at).into_iter().flatten();
                fired.extend(
                    above
                        .filter(|(_, mode)| **mode == Mode::Recursive)
                        .map(|(c, _)| *c),
                );
            }
        }
        fired
    }

    fn contains(&self, path: &str) -> bool {
        self.by_path.contains_key(path)
    }

    fn remove(&mut self, path: &str, conn: ConnId) -> bool {
        let Some(conns) = self.by_path.get_mut(path) else {
            return false;
        };
        let removed = conns.remove(&conn);
        if removed == Some(Mode::Recursive) {
            self.recursive -= 1;
        }
        if conns.is_empty() {
            self.by_path.remove(path);
        }
        removed.is_some()
    }

    fn remove_conn(&mut self, conn: ConnId) {
        let recursive = &mut self.recursive;
        self.by_path.retain(|_, conns| {
            if conns.remove(&conn) == Some(Mode::Recursive) {
                *recursive -= 1;
            }
            !conns.is_empty()
        });
    }
}

#[derive(Debug, Clone, Default)]
pub struct Watches {
    data: Table,
    child: Table,
}

impl Watches {
    /// A getData or exists watch.
    pub fn add_data(&mut self, path: &str, conn: ConnId) {
        self.data.add(path, conn, Mode::Standard);
    }

    /// A getChildren watch.
    pub fn add_child(&mut self, path: &str, conn: ConnId) {
        self.child.add(path, conn, Mode::Standard);
    }

    /// An addWatch (or a setWatches2's persistent lists): in both tables, as 3.8 puts it.
    pub fn add_persistent(&mut self, path: &str, conn: ConnId, mode: Mode) {
        self.data.add(path, conn, mode);
        self.child.add(path, conn, mode);
    }

    /// Who the data table sends an event of `kind` at `path` to.
    pub fn fire_data(&mut self, path: &str, kind: EventType) -> BTreeSet<ConnId> {
        self.data.trigger(path, kind)
    }

    /// Who the child table sends an event of `kind` at `path` to.
    pub fn fire_child(&mut self, path: &str, kind: EventType) -> BTreeSet<ConnId> {
        self.child.trigger(path, kind)
    }

    /// Whether any connection has a watch of `kind` on `path`: what ZooKeeper 3.8's
    /// checkWatches asks (`WatchManager.containsWatcher` looks for a watcher on the path, not
    /// for the asking connection's), so another connection's watch answers it too.
    pub fn any_on(&self, path: &str, kind: WatcherType) -> bool {
        match kind {
            WatcherType::Children => self.child.contains(path),
            WatcherType::Data => self.data.contains(path),
            WatcherType::Any => self.child.contains(path) || self.data.contains(path),
        }
    }

    /// Whether a write at `path` may fire a watch here: one on the path in either table,
    /// one on its parent's children, or any recursive one. A sequential create's `path`
    /// is its name's prefix, so any data watch under that prefix counts. It errs towards
    /// yes; no means no write at `path` fires anything.
    pub fn may_fire(&self, path: &str, sequential: bool) -> bool {
        if self.data.recursive > 0 || self.child.recursive > 0 {
            return true;
        }
        let data = match sequential {
            true => {
                let mut after = self
                    .data
                    .by_path
                    .range::<str, _>((Bound::Included(path), Bound::Unbounded));
                after
                    .next()
                    .is_some_and(|(watched, _)| watched.starts_with(path))
            }
            false => self.data.contains(path),
        };
        data || self.child.contains(path) || self.child.contains(parent_of(path))
    }

    /// Drops `conn`'s watches of `kind` on `path`, whatever their mode; whether it had any.
    pub fn remove(&mut self, path: &str, conn: ConnId, kind: WatcherType) -> bool {
        match kind {
            WatcherType::Children => self.child.remove(path, conn),
            WatcherType::Data => self.data.remove(path, conn),
            WatcherType::Any => {
                let child = self.child.remove(path, conn);
                self.data.remove(path, conn) || child
            }
        }
    }

    /// Drops every watch of a closed connection.
    pub fn remove_conn(&mut self, conn: ConnId) {
        self.data.remove_conn(conn);
        self.child.remove_conn(conn);
    }

    pub fn clear(&mut self) {
        *self = Watches::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EventType::*;

    #[test]
    fn one_shot_and_per_table() {
        let mut w = Watches::default();
        w.add_data("/a", 2);
        w.add_data("/a", 1);
        w.add_data("/a", 2);
        w.add_child("/a", 3);
        assert_eq!(w.fire_data("/a", NodeDataChanged), BTreeSet::from([1, 2]));
        assert!(w.fire_data("/a", NodeDataChanged).is_empty());
        assert_eq!(w.fire_child("/a", NodeChildrenChanged), BTreeSet::from([3]));
        assert!(w.fire_child("/a", NodeChildrenChanged).is_empty());
    }

    #[test]
    fn a_write_may_fire_the_watches_on_its_path_its_parent_s_children_and_any_recursive_one() {
        let mut w = Watches::default();
        assert!(!w.may_fire("/p/a", false));
        w.add_data("/p/a", 1);
        w.add_data("/q/n-0000000003", 1);
        assert!(w.may_fire("/p/a", false));
        assert!(!w.may_fire("/p/b", false));
        assert!(
            w.may_fire("/q/n-", true),
            "a sequential create's name is unknown"
        );
        assert!(!w.may_fire("/q/m-", true));
        assert!(!w.may_fire("/q/n-", false));
        w.add_child("/r", 2);
        assert!(w.may_fire("/r/x", false), "the parent's children change");
        assert!(
            w.may_fire("/r", false),
            "a delete fires the node's child watch"
        );
        w.add_persistent("/s", 3, Mode::Recursive);
        assert!(
            w.may_fire("/anywhere", false),
            "a recursive watch: yes, to be safe"
        );
    }

    #[test]
    fn removing_a_conn_keeps_the_others() {
        let mut w = Watches::default();
        w.add_data("/a", 1);
        w.add_data("/a", 2);
        w.add_child("/b", 1);
        w.add_persistent("/", 1, Mode::Recursive);
        w.remove_conn(1);
        assert_eq!(w.fire_data("/a", NodeDeleted), BTreeSet::from([2]));
        assert!(w.fire_child("/b", NodeChildrenChanged).is_empty());
        assert_eq!(w.data.recursive + w.child.recursive, 0);
    }

    #[test]
    fn persistent_watches_stay_for_their_own_path() {
        let mut w = Watches::default();
        w.add_persistent("/a", 1, Mode::Persistent);
        for _ in 0..2 {
            assert_eq!(w.fire_data("/a", NodeDataChanged), BTreeSet::from([1]));
            assert_eq!(w.fire_child("/a", NodeChildrenChanged), BTreeSet::from([1]));
        }
        assert!(w.fire_data("/a/b", NodeCreated).is_empty(), "not below it");
    }

    #[test]
    fn recursive_watches_see_below_but_no_child_events() {
        let mut w = Watches::default();
        w.add_persistent("/a", 1, Mode::Recursive);
        w.add_data("/a/b/c", 2);
        assert_eq!(w.fire_data("/a/b/c", NodeCreated), BTreeSet::from([1, 2]));
        assert_eq!(w.fire_data("/a/b/c", NodeDataChanged), BTreeSet::from([1]));
        assert_eq!(w.fire_data("/a", NodeDeleted), BTreeSet::from([1]));
        assert!(w.fire_child("/a", NodeChildrenChanged).is_empty());
        assert!(
            w.fire_data("/ab", NodeCreated).is_empty(),
            "a sibling, not a child"
        );
        w.add_persistent("/", 3, Mode::Recursive);
        assert_eq!(w.fire_data("/x", NodeCreated), BTreeSet::from([3]));
    }

    #[test]
    fn the_last_mode_added_on_a_path_wins() {
        let mut w = Watches::default();
        w.add_persistent("/a", 1, Mode::Recursive);
        w.add_data("/a", 1);
        assert_eq!(w.data.recursive, 0);
        assert_eq!(w.fire_data("/a", NodeDataChanged), BTreeSet::from([1]));
        assert!(
            w.fire_data("/a/b", NodeCreated).is_empty(),
            "one-shot now, and gone"
        );
        assert!(
            w.remove("/a", 1, WatcherType::Children),
            "still in the child table"
        );
        assert!(!w.remove("/a", 1, WatcherType::Any));
    }
}
