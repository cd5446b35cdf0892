//! What each request does to the tree and the watch tables, and which notifications it
//! fires (DataTree.createNode / deleteNode / setData / setWatches, FinalRequestProcessor).

use std::collections::BTreeSet;

use super::ids::ConnId;
use super::output::{Change, Output};
use super::replica::Replica;
use crate::zk::acl::{self, AuthId};
use crate::zk::proto::ClientInfo;
use crate::zk::proto::{
    AddWatchMode, CreateMode, ErrorCode, EventType, KeeperState, ReadOp, ReadResult, Request,
    Response, WatcherEvent,
};
use crate::zk::tree::{Txn, parent_of};
use crate::zk::watch::Mode;

/// The longest time to live 3.8 accepts (`EphemeralType.TTL.maxValue()`, 2⁴⁰ − 1 ms).
const MAX_TTL_MS: i64 = (1 << 40) - 1;

/// Who writes in the txn `zxid`, and when (wall-clock ms).
pub(super) fn txn(wall_ms: i64, session: i64, zxid: i64, who: &[AuthId]) -> Txn<'_> {
    Txn {
        session,
        zxid,
        time: wall_ms,
        who,
    }
}

impl Replica {
    /// Runs one request that is not a write for `session` on `conn`, against the tree this
    /// server has applied.
    pub(super) fn read_request(
        &mut self,
        conn: ConnId,
        session: i64,
        req: Request,
        out: &mut Vec<Output>,
    ) -> Result<Response, ErrorCode> {
        let who = self.who(conn);
        let who = who.as_slice();
        match req {
            Request::Exists { path, watch } => {
                if path.contains('\0') {
                    return Err(ErrorCode::BadArguments);
                }
                // exists leaves a watch even on a missing node: it fires NodeCreated later.
                if watch {
                    self.watches.add_data(&path, conn);
                }
                let stat = self.tree.stat(&path).ok_or(ErrorCode::NoNode)?;
                Ok(Response::Exists { stat })
            }
            Request::GetData { path, watch } => {
                let (data, stat) = self.tree.data(&path).ok_or(ErrorCode::NoNode)?;
                self.tree.permits(&path, acl::READ, who)?;
                if watch {
                    self.watches.add_data(&path, conn);
                }
                Ok(Response::GetData { data, stat })
            }
            Request::GetChildren {
                path,
                watch,
                stat_reply,
            } => {
                let (children, stat) = self.tree.children(&path).ok_or(ErrorCode::NoNode)?;
                self.tree.permits(&path, acl::READ, who)?;
                if watch {
                    self.watches.add_child(&path, conn);
                }
                Ok(if stat_reply {
                    Response::GetChildren2 { children, stat }
                } else {
                    Response::GetChildren { children }
                })
            }
            // A single server is always up to date: sync only keeps its place in the
            // session's order, which handling requests one by one already gives.
            Request::Sync { path } => Ok(Response::Sync { path }),
            Request::Ping => Ok(Response::Ping),
            Request::SetWatches {
                relative_zxid,
                data,
                exist,
                child,
            } => {
                self.set_watches(conn, relative_zxid, &data, &exist, &child, out);
                Ok(Response::SetWatches)
            }
            // The persistent watches come back as they were, with no missed event fired.
            Request::SetWatches2 {
                relative_zxid,
                data,
                exist,
                child,
                persistent,
                persistent_recursive,
            } => {
                self.set_watches(conn, relative_zxid, &data, &exist, &child, out);
                for (paths, mode) in [
                    (persistent, Mode::Persistent),
                    (persistent_recursive, Mode::Recursive),
                ] {
                    for path in paths {
                        self.watches.add_persistent(&path, conn, mode);
                    }
                }
                Ok(Response::SetWatches2)
            }
            // No check of the path or of an ACL, as in 3.8.0.
            Request::AddWatch { path, mode } => {
                let mode = match mode {
                    AddWatchMode::Persistent => Mode::Persistent,
                    AddWatchMode::PersistentRecursive => Mode::Recursive,
                };
                self.watches.add_persistent(&path, conn, mode);
                Ok(Response::AddWatch)
            }
            Request::GetEphemerals { prefix } => {
                // As 3.8: a blank or "/" prefix (trimmed) means all; any other is matched as is.
                let all = matches!(prefix.trim(), "" | "/");
                let prefix = if all { "" } else { prefix.as_str() };
                let paths = self.tree.ephemerals(session, prefix);
                Ok(Response::GetEphemerals { paths })
            }
            Request::MultiRead { ops } => {
                let results = ops.into_iter().map(|op| self.read_op(op, who)).collect();
                Ok(Response::MultiRead { results })
            }
            Request::CheckWatches { path, kind } => match self.watches.any_on(&path, kind) {
                true => Ok(Response::CheckWatches),
                false => Err(ErrorCode::NoWatcher),
            },
            Request::RemoveWatches { path, kind } => match self.watches.remove(&path, conn, kind) {
                true => Ok(Response::RemoveWatches),
                false => Err(ErrorCode::NoWatcher),
            },
            Request::GetAllChildrenNumber { path } => {
                let total = self.tree.descendants(&path).ok_or(ErrorCode::NoNode)?;
                self.tree.permits(&path, acl::READ, who)?;
                Ok(Response::GetAllChildrenNumber {
                    total: i32::try_from(total).unwrap_or(i32::MAX),
                })
            }
            Request::GetAcl { path } => {
                let (acl, stat) = self.tree.get_acl(&path, who)?;
                Ok(Response::GetAcl { acl, stat })
            }
            Request::WhoAmI => {
                let clients = who
                    .iter()
                    .map(|id| ClientInfo {
                        auth_scheme: id.scheme.clone(),
                        user: id.user().to_string(),
                    })
                    .collect();
                Ok(Response::WhoAmI { clients })
            }
            // `handle_request` answers an auth before a session is looked at, and sends
            // writes to `commit`.
            _ => Err(ErrorCode::MarshallingError),
        }
    }

    /// 3.8's `validateCreateRequest` on a create's mode and time to live (`None`: the request
    /// has no TTL field): a TTL mode is Unimplemented while extended types are off, and
    /// BadArguments without a TTL in 1..=2⁴⁰−1; a TTL with another mode is BadArguments
    /// (3.8 too when it is not negative; a negative one makes 3.8 fail as it applies the txn).
    pub(super) fn check_ttl(&self, mode: CreateMode, ttl_ms: Option<i64>) -> Result<(), ErrorCode> {
        if mode.is_ttl() && !self.config.extended_types {
            return Err(ErrorCode::Unimplemented);
        }
        match (mode.is_ttl(), ttl_ms) {
            (true, Some(ttl_ms)) if (1..=MAX_TTL_MS).contains(&ttl_ms) => Ok(()),
            (false, None) => Ok(()),
            _ => Err(ErrorCode::BadArguments),
        }
    }

    /// One read of a multiRead, which leaves no watch.
    fn read_op(&self, op: ReadOp, who: &[AuthId]) -> ReadResult {
        let path = match &op {
            ReadOp::GetChildren { path } | ReadOp::GetData { path } => path,
        };
        if let Err(err) = self.tree.permits(path, acl::READ, who) {
            return ReadResult::Error { err };
        }
        let found = match op {
            ReadOp::GetChildren { path } => self
                .tree
                .children(&path)
                .map(|(children, _)| ReadResult::Children { children }),
            ReadOp::GetData { path } => self
                .tree
                .data(&path)
                .map(|(data, stat)| ReadResult::Data { data, stat }),
        };
        found.unwrap_or(ReadResult::Error {
            err: ErrorCode::NoNode,
        })
    }

    /// Deletes the session's ephemerals inside the txn `zxid`, firing their watches.
    pub(super) fn kill_session(&mut self, session: i64, zxid: i64, out: &mut Vec<Output>) {
        for path in self.tree.kill_session(session, zxid) {
            self.deleted(&path, session, zxid, out);
        }
    }

    /// Reports a node `txn` created and fires NodeCreated, then the parent's
    /// NodeChildrenChanged (`DataTree.createNode`).
    pub(super) fn created(&mut self, path: &str, txn: Txn<'_>, out: &mut Vec<Output>) {
        out.push(Output::Changed(Change::Created {
            path: path.to_string(),
            session: txn.session,
            zxid: txn.zxid,
        }));
        let watchers = self.watches.fire_data(path, EventType::NodeCreated);
        notify(out, watchers, EventType::NodeCreated, path);
        self.fire_children_changed(parent_of(path), out);
    }

    /// Reports a node deleted in the txn `zxid` made by `session`, and fires its watches.
    pub(super) fn deleted(&mut self, path: &str, session: i64, zxid: i64, out: &mut Vec<Output>) {
        out.push(Output::Changed(Change::Deleted {
            path: path.to_string(),
            session,
            zxid,
        }));
        self.fire_deleted(path, out);
    }

    pub(super) fn data_changed(&mut self, path: &str, out: &mut Vec<Output>) {
        let watchers = self.watches.fire_data(path, EventType::NodeDataChanged);
        notify(out, watchers, EventType::NodeDataChanged, path);
    }

    /// NodeDeleted goes once to each connection watching the path by data, exists or child
    /// watch (deleteNode suppresses the child-table watchers already notified), then
    /// NodeChildrenChanged to the parent's child watchers.
    fn fire_deleted(&mut self, path: &str, out: &mut Vec<Output>) {
        let mut watchers = self.watches.fire_data(path, EventType::NodeDeleted);
        watchers.extend(self.watches.fire_child(path, EventType::NodeDeleted));
        notify(out, watchers, EventType::NodeDeleted, path);
        self.fire_children_changed(parent_of(path), out);
    }

    fn fire_children_changed(&mut self, parent: &str, out: &mut Vec<Output>) {
        let watchers = self
            .watches
            .fire_child(parent, EventType::NodeChildrenChanged);
        notify(out, watchers, EventType::NodeChildrenChanged, parent);
    }

    /// `DataTree.setWatches`: fires at once what the client missed since `relative_zxid`
    /// and re-arms the rest.
    fn set_watches(
        &mut self,
        conn: ConnId,
        relative_zxid: i64,
        data: &[String],
        exist: &[String],
        child: &[String],
        out: &mut Vec<Output>,
    ) {
        for path in data {
            match self.tree.stat(path) {
                None => notify_one(out, conn, EventType::NodeDeleted, path),
                Some(s) if s.mzxid > relative_zxid => {
                    notify_one(out, conn, EventType::NodeDataChanged, path)
                }
                Some(_) => self.watches.add_data(path, conn),
            }
        }
        for path in exist {
            match self.tree.stat(path) {
                Some(_) => notify_one(out, conn, EventType::NodeCreated, path),
                None => self.watches.add_data(path, conn),
            }
        }
        for path in child {
            match self.tree.stat(path) {
                None => notify_one(out, conn, EventType::NodeDeleted, path),
                Some(s) if s.pzxid > relative_zxid => {
                    notify_one(out, conn, EventType::NodeChildrenChanged, path)
                }
                Some(_) => self.watches.add_child(path, conn),
            }
        }
    }
}

fn notify(out: &mut Vec<Output>, conns: BTreeSet<ConnId>, event_type: EventType, path: &str) {
    for conn in conns {
        notify_one(out, conn, event_type, path);
    }
}

fn notify_one(out: &mut Vec<Output>, conn: ConnId, event_type: EventType, path: &str) {
    out.push(Output::Notify {
        conn,
        event: WatcherEvent {
            event_type,
            state: KeeperState::SyncConnected,
            path: path.to_string(),
        },
    });
}
