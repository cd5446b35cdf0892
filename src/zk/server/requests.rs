//! What the handlers share (`ops` holds them, a file per family of ops): the txn a write is
//! applied as, the TTL checks of the creates, and the notifications a change fires
//! (DataTree.createNode / deleteNode / setData).

use std::collections::BTreeSet;

use super::ids::{ConnId, Now};
use super::near_misses::Looks;
use super::output::{Change, Output};
use super::replica::Replica;
use crate::zk::acl::AuthId;
use crate::zk::proto::{CreateMode, ErrorCode, EventType, KeeperState, Request, WatcherEvent};
use crate::zk::tree::{Txn, parent_of};

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

    /// Deletes the session's ephemerals inside the txn `zxid`, firing their watches.
    pub(super) fn kill_session(&mut self, session: i64, zxid: i64, out: &mut Vec<Output>) {
        for path in self.tree.kill_session(session, zxid) {
            if let Some(misses) = &mut self.near_misses {
                misses.deleted(&path, true);
            }
            self.deleted(&path, session, zxid, out);
        }
        if let Some(misses) = &mut self.near_misses {
            misses.ended(session);
        }
    }

    /// Notes `session`'s request `req` on `conn`, come in at `now`, when it measures margins
    /// (`near_misses`): what the request looks at or makes that a read could come near
    /// missing. A margin it closes goes into `out`.
    pub(super) fn measure(
        &mut self,
        now: Now,
        conn: ConnId,
        session: i64,
        req: &Request,
        out: &mut Vec<Output>,
    ) {
        let Some(misses) = &mut self.near_misses else {
            return;
        };
        let owner = |path: &str| self.tree.stat(path).map(|stat| stat.ephemeral_owner);
        let looks = match req {
            Request::Ping => return,
            Request::Exists { path, .. } | Request::GetData { path, .. } => match owner(path) {
                Some(owner) => Looks::Finds {
                    path,
                    ephemeral_of_other: owner != 0 && owner != session,
                },
                None => Looks::Other,
            },
            Request::Create(c) | Request::Create2(c) | Request::CreateContainer(c)
                if !c.mode.is_sequential() && owner(&c.path).is_none() =>
            {
                Looks::Creates { path: &c.path }
            }
            Request::GetChildren { path, .. } | Request::GetChildren2 { path, .. } => {
                Looks::Lists { path }
            }
            _ => Looks::Other,
        };
        misses.request(session, conn, now.mono_ms, looks, out);
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
        if let Some(misses) = &mut self.near_misses {
            misses.deleted(path, false);
        }
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
}

fn notify(out: &mut Vec<Output>, conns: BTreeSet<ConnId>, event_type: EventType, path: &str) {
    for conn in conns {
        notify_one(out, conn, event_type, path);
    }
}

/// Sends `conn` the event `event_type` on `path`.
pub(super) fn notify_one(out: &mut Vec<Output>, conn: ConnId, event_type: EventType, path: &str) {
    out.push(Output::Notify {
        conn,
        event: WatcherEvent {
            event_type,
            state: KeeperState::SyncConnected,
            path: path.to_string(),
        },
    });
}
