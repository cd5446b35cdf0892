//! When a follower must be woken to apply a lagged commit. Applying a write that answers no
//! client here, fires no watch here and lets no sync go says nothing, and whatever next
//! reaches the member applies what is due before anything else: so the member is woken
//! only for a commit that has something to say, and the run is the same as if it were
//! woken for every one. The test of a write errs towards waking.

use super::member::Member;
use super::write::{Write, WriteOp};
use crate::zk::proto::{
    CreateRequest, CreateTtlRequest, DeleteRequest, MultiOp, Request, SetDataRequest,
};
use crate::zk::watch::Watches;

impl Member {
    /// When (monotonic ms) a driver must next wake the member (`Server::wake`): the first
    /// lagged commit that has something to say here (where `watches` are its clients'
    /// watches) is due, or a stall ends before it.
    pub(super) fn next_apply_ms(&self, watches: &Watches) -> Option<u64> {
        let mut applied = i64::MIN;
        for &(due, upto) in &self.to_apply {
            if upto <= applied {
                continue;
            }
            let mut writes = self.log.range(applied.saturating_add(1)..=upto);
            if writes.any(|(_, (write, _))| !self.quiet(watches, write)) {
                return Some(due.max(self.stalled_until_ms));
            }
            applied = upto;
        }
        None
    }

    /// Whether applying `write` here says nothing: it came in on another member, no sync
    /// waits here, and it is not a session's end nor a write that may fire a watch here.
    fn quiet(&self, w: &Watches, write: &Write) -> bool {
        if write.origin.is_some_and(|o| o.server == self.me) || !self.syncs.is_empty() {
            return false;
        }
        match &write.op {
            WriteOp::Refused(_) | WriteOp::CreateSession { .. } => true,
            WriteOp::ExpireSession => false,
            WriteOp::DeleteContainer { path } => !w.may_fire(path, false),
            WriteOp::Request(req) => quiet_request(w, req),
        }
    }
}

fn quiet_request(w: &Watches, req: &Request) -> bool {
    match req {
        Request::Create(CreateRequest { path, mode, .. })
        | Request::Create2(CreateRequest { path, mode, .. })
        | Request::CreateContainer(CreateRequest { path, mode, .. })
        | Request::CreateTtl(CreateTtlRequest { path, mode, .. }) => {
            !w.may_fire(path, mode.is_sequential())
        }
        Request::Delete(DeleteRequest { path, .. })
        | Request::SetData(SetDataRequest { path, .. }) => !w.may_fire(path, false),
        Request::SetAcl { .. } => true,
        Request::Multi { ops } => ops.iter().all(|op| match op {
            MultiOp::Create(CreateRequest { path, mode, .. })
            | MultiOp::CreateTtl(CreateTtlRequest { path, mode, .. }) => {
                !w.may_fire(path, mode.is_sequential())
            }
            MultiOp::Delete(DeleteRequest { path, .. })
            | MultiOp::SetData(SetDataRequest { path, .. }) => !w.may_fire(path, false),
            MultiOp::CreateUnknownMode { .. } | MultiOp::Check(_) => true,
        }),
        // closeSession (its connection may be here) and whatever else: wake.
        _ => false,
    }
}
