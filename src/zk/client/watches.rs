//! Client-side watch bookkeeping, as the Java client's ZKWatchManager: one-shot registrations
//! per path in three tables (data, exist, child), which node event removes which, persistent
//! and persistent-recursive registrations (addWatch) that stay, and the session events every
//! registration also sees.

use std::collections::BTreeMap;

use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use crate::zk::proto::{
    AddWatchMode, ErrorCode, EventType, KeeperState, Request, WatcherEvent, WatcherType,
};

/// One watch registration. Yields every session event (type None: Disconnected,
/// SyncConnected, Expired, Closed) delivered while it is registered, then the node event that
/// fires it; after that (or once the session is over) `next` returns None. A persistent one
/// (`ZkClient::add_watch`) yields every node event it sees until it is removed or the
/// session ends.
#[derive(Debug)]
pub struct Watch {
    events: UnboundedReceiver<WatcherEvent>,
}

impl Watch {
    /// The next event, waiting for it; None once the watch fired or the session ended.
    pub async fn next(&mut self) -> Option<WatcherEvent> {
        self.events.recv().await
    }

    /// An event already delivered, without waiting.
    pub fn try_next(&mut self) -> Option<WatcherEvent> {
        self.events.try_recv().ok()
    }

    /// True once no further event can arrive and none is left to read.
    pub fn is_finished(&mut self) -> bool {
        self.events.is_closed() && self.events.is_empty()
    }
}

/// A client's events from the moment of subscribing: its session events (type None) from
/// `ZkClient::events`, or every event it receives from `ZkClient::all_events`.
#[derive(Debug)]
pub struct SessionEvents {
    events: UnboundedReceiver<WatcherEvent>,
}

impl SessionEvents {
    pub(super) fn new(events: UnboundedReceiver<WatcherEvent>) -> Self {
        SessionEvents { events }
    }

    /// The next event; None once the client is closed or expired and all were read.
    pub async fn next(&mut self) -> Option<WatcherEvent> {
        self.events.recv().await
    }

    /// An event already delivered, without waiting.
    pub fn try_next(&mut self) -> Option<WatcherEvent> {
        self.events.try_recv().ok()
    }
}

/// A session event (type None, no path) in the given state.
pub(super) fn session_event(state: KeeperState) -> WatcherEvent {
    WatcherEvent {
        event_type: EventType::None,
        state,
        path: String::new(),
    }
}

/// The table a watch lives in; SetWatches re-arms each table separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WatchKind {
    Data,
    Exist,
    Child,
    Persistent,
    Recursive,
}

/// Which table a watching request's reply registers into, and for which path: the watch is
/// kept only when the server kept one (getData / getChildren: on success; exists: always,
/// as a data watch when the node exists and an exist watch when it does not).
pub(super) fn registration(request: &Request, err: ErrorCode) -> Option<(WatchKind, &str)> {
    let kind = match (request, err) {
        (Request::Exists { watch: true, .. }, ErrorCode::Ok) => WatchKind::Data,
        (Request::Exists { watch: true, .. }, ErrorCode::NoNode) => WatchKind::Exist,
        (Request::GetData { watch: true, .. }, ErrorCode::Ok) => WatchKind::Data,
        (
            Request::GetChildren { watch: true, .. } | Request::GetChildren2 { watch: true, .. },
            ErrorCode::Ok,
        ) => WatchKind::Child,
        (Request::AddWatch { mode, .. }, ErrorCode::Ok) => match mode {
            AddWatchMode::Persistent => WatchKind::Persistent,
            AddWatchMode::PersistentRecursive => WatchKind::Recursive,
        },
        _ => return None,
    };
    match request {
        Request::Exists { path, .. }
        | Request::GetData { path, .. }
        | Request::GetChildren { path, .. }
        | Request::GetChildren2 { path, .. }
        | Request::AddWatch { path, .. } => Some((kind, path)),
        _ => None,
    }
}

type Registrations = BTreeMap<String, Vec<UnboundedSender<WatcherEvent>>>;

/// The registered watches of one session (BTreeMaps: SetWatches lists paths in order).
#[derive(Debug, Default)]
pub(super) struct WatchRegistry {
    data: Registrations,
    exist: Registrations,
    child: Registrations,
    persistent: Registrations,
    recursive: Registrations,
}

impl WatchRegistry {
    pub(super) fn register(&mut self, kind: WatchKind, path: &str) -> Watch {
        let (tx, rx) = mpsc::unbounded_channel();
        let table = match kind {
            WatchKind::Data => &mut self.data,
            WatchKind::Exist => &mut self.exist,
            WatchKind::Child => &mut self.child,
            WatchKind::Persistent => &mut self.persistent,
            WatchKind::Recursive => &mut self.recursive,
        };
        table.entry(path.to_owned()).or_default().push(tx);
        Watch { events: rx }
    }

    /// Forgets the registrations a removeWatches of `kind` on `path` removed on the server:
    /// their `Watch`es end.
    pub(super) fn remove(&mut self, path: &str, kind: WatcherType) {
        let tables = match kind {
            WatcherType::Children => vec![&mut self.child],
            WatcherType::Data => vec![&mut self.data, &mut self.exist],
            WatcherType::Any => vec![
                &mut self.data,
                &mut self.exist,
                &mut self.child,
                &mut self.persistent,
                &mut self.recursive,
            ],
        };
        for table in tables {
            table.remove(path);
        }
    }

    /// Delivers a node event to the registrations it fires and removes them (one-shot).
    pub(super) fn fire(&mut self, event: &WatcherEvent) {
        let path = event.path.as_str();
        let mut fired = Vec::new();
        match event.event_type {
            EventType::NodeCreated | EventType::NodeDataChanged => {
                fired.extend(self.data.remove(path));
                fired.extend(self.exist.remove(path));
            }
            EventType::NodeDeleted => {
                fired.extend(self.data.remove(path));
                fired.extend(self.exist.remove(path));
                fired.extend(self.child.remove(path));
            }
            EventType::NodeChildrenChanged => fired.extend(self.child.remove(path)),
            EventType::None => {}
        }
        for tx in fired.iter().flatten() {
            // A dropped Watch just does not hear of it.
            let _ = tx.send(event.clone());
        }
        let staying = self.persistent.get(path).into_iter().flatten();
        let below = match event.event_type {
            EventType::NodeChildrenChanged => None,
            _ => Some(
                self.recursive
                    .iter()
                    .filter(|(top, _)| at_or_below(path, top)),
            ),
        };
        let below = below.into_iter().flatten().flat_map(|(_, senders)| senders);
        for tx in staying.chain(below) {
            let _ = tx.send(event.clone());
        }
    }

    /// Delivers a session event to every registration without consuming any.
    pub(super) fn broadcast(&mut self, event: &WatcherEvent) {
        let tables = [
            &self.data,
            &self.exist,
            &self.child,
            &self.persistent,
            &self.recursive,
        ];
        for table in tables {
            for senders in table.values() {
                for tx in senders {
                    let _ = tx.send(event.clone());
                }
            }
        }
    }

    /// Forgets every registration (the session is over): their `Watch`es end.
    pub(super) fn clear(&mut self) {
        *self = WatchRegistry::default();
    }

    /// The SetWatches request that re-arms the live registrations after a reconnect, or None
    /// when there is nothing to re-arm; a SetWatches2 when there are persistent ones, as the
    /// Java client sends. Registrations whose `Watch` was dropped are let go.
    pub(super) fn set_watches(&mut self, relative_zxid: i64) -> Option<Request> {
        let paths = |table: &mut Registrations| {
            table.retain(|_, senders| {
                senders.retain(|tx| !tx.is_closed());
                !senders.is_empty()
            });
            table.keys().cloned().collect::<Vec<_>>()
        };
        let (data, exist, child) = (
            paths(&mut self.data),
            paths(&mut self.exist),
            paths(&mut self.child),
        );
        let (persistent, persistent_recursive) =
            (paths(&mut self.persistent), paths(&mut self.recursive));
        if !persistent.is_empty() || !persistent_recursive.is_empty() {
            return Some(Request::SetWatches2 {
                relative_zxid,
                data,
                exist,
                child,
                persistent,
                persistent_recursive,
            });
        }
        if data.is_empty() && exist.is_empty() && child.is_empty() {
            return None;
        }
        Some(Request::SetWatches {
            relative_zxid,
            data,
            exist,
            child,
        })
    }
}

/// Whether `path` is `top` or lies below it.
fn at_or_below(path: &str, top: &str) -> bool {
    top == "/"
        || path
            .strip_prefix(top)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node_event(event_type: EventType, path: &str) -> WatcherEvent {
        WatcherEvent {
            event_type,
            state: KeeperState::SyncConnected,
            path: path.into(),
        }
    }

    #[test]
    fn exists_registers_even_on_no_node_but_get_data_does_not() {
        let exists = Request::Exists {
            path: "/a".into(),
            watch: true,
        };
        let get_data = Request::GetData {
            path: "/a".into(),
            watch: true,
        };
        assert_eq!(
            registration(&exists, ErrorCode::NoNode),
            Some((WatchKind::Exist, "/a"))
        );
        assert_eq!(
            registration(&exists, ErrorCode::Ok),
            Some((WatchKind::Data, "/a"))
        );
        assert_eq!(registration(&get_data, ErrorCode::NoNode), None);
        assert_eq!(
            registration(&get_data, ErrorCode::Ok),
            Some((WatchKind::Data, "/a"))
        );
        let unwatched = Request::Exists {
            path: "/a".into(),
            watch: false,
        };
        assert_eq!(registration(&unwatched, ErrorCode::NoNode), None);
    }

    #[test]
    fn node_event_fires_once_and_session_events_do_not_consume() {
        let mut registry = WatchRegistry::default();
        let mut data = registry.register(WatchKind::Data, "/a");
        let mut child = registry.register(WatchKind::Child, "/a");
        registry.broadcast(&session_event(KeeperState::Disconnected));
        registry.fire(&node_event(EventType::NodeDataChanged, "/a"));
        registry.fire(&node_event(EventType::NodeDataChanged, "/a"));
        assert_eq!(
            data.try_next(),
            Some(session_event(KeeperState::Disconnected))
        );
        assert_eq!(
            data.try_next(),
            Some(node_event(EventType::NodeDataChanged, "/a"))
        );
        assert!(data.is_finished());
        assert_eq!(
            child.try_next(),
            Some(session_event(KeeperState::Disconnected))
        );
        assert!(
            !child.is_finished(),
            "a data change must not fire a child watch"
        );
        registry.fire(&node_event(EventType::NodeDeleted, "/a"));
        assert_eq!(
            child.try_next(),
            Some(node_event(EventType::NodeDeleted, "/a"))
        );
    }

    #[test]
    fn persistent_watches_stay_and_recursive_ones_see_below_but_no_child_events() {
        let mut registry = WatchRegistry::default();
        let mut persistent = registry.register(WatchKind::Persistent, "/a");
        let mut recursive = registry.register(WatchKind::Recursive, "/a");
        for event in [
            node_event(EventType::NodeDataChanged, "/a"),
            node_event(EventType::NodeChildrenChanged, "/a"),
            node_event(EventType::NodeCreated, "/a/b/c"),
            node_event(EventType::NodeCreated, "/ab"),
        ] {
            registry.fire(&event);
        }
        assert_eq!(
            persistent.try_next(),
            Some(node_event(EventType::NodeDataChanged, "/a"))
        );
        assert_eq!(
            persistent.try_next(),
            Some(node_event(EventType::NodeChildrenChanged, "/a"))
        );
        assert_eq!(persistent.try_next(), None);
        assert_eq!(
            recursive.try_next(),
            Some(node_event(EventType::NodeDataChanged, "/a"))
        );
        assert_eq!(
            recursive.try_next(),
            Some(node_event(EventType::NodeCreated, "/a/b/c"))
        );
        assert_eq!(recursive.try_next(), None);
        assert!(!persistent.is_finished() && !recursive.is_finished());
        assert!(matches!(
            registry.set_watches(3),
            Some(Request::SetWatches2 { persistent, persistent_recursive, .. })
                if persistent == ["/a"] && persistent_recursive == ["/a"]
        ));
        registry.remove("/a", WatcherType::Any);
        assert!(persistent.is_finished() && recursive.is_finished());
    }

    #[test]
    fn set_watches_lists_live_paths_per_table_in_order() {
        let mut registry = WatchRegistry::default();
        let _b = registry.register(WatchKind::Data, "/b");
        let _a = registry.register(WatchKind::Data, "/a");
        let dropped = registry.register(WatchKind::Exist, "/gone");
        drop(dropped);
        let _c = registry.register(WatchKind::Child, "/c");
        assert_eq!(
            registry.set_watches(7),
            Some(Request::SetWatches {
                relative_zxid: 7,
                data: vec!["/a".into(), "/b".into()],
                exist: vec![],
                child: vec!["/c".into()],
            })
        );
        registry.clear();
        assert_eq!(registry.set_watches(7), None);
    }
}
