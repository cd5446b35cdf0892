//! Sans-IO ZooKeeper server core: data tree, sessions, watches, and a member's part in an
//! ensemble. Inputs arrive through `handle_*` with the time as an argument; outputs are
//! returned. No I/O, no clock reads.
//!
//! Modelled on ZooKeeper 3.8. As there, every write request (failed ones too) and every
//! new session takes a zxid, and notifications a request causes precede its reply. Every
//! input first does what is due (a server alone or a leader expires the sessions that are
//! due, a follower applies its lagged commits), so the outcome does not depend on whether
//! the driver called `handle_timeout` just before.
//!
//! [`Server`] is a replica (the tree, the sessions, the connections) alone, or with its
//! part in an ensemble, whose role (looking, leading, following) each input is dispatched
//! to (`ensemble`). The files import one way, each only from those before it: the records
//! (`ids`, `write`, `looking` with its votes, `peer`, `output`, `config`), the `replica`
//! with its requests (`requests`, `multi`, `commit`), the `member` state (and `apply_wake`),
//! the roles (`leading`, `learner_handler`, `following`), their dispatch (`ensemble`), and
//! this file; `tests_imports` checks it.

use std::net::IpAddr;

use crate::zk::proto::{ConnectRequest, Request};
use crate::zk::session::negotiate_timeout;
use ensemble::Ensemble;
use member::ClientRequest;
use ops::{Run, is_write};
use replica::Replica;
use write::WriteOp;

pub use crate::zk::proto::{ErrorCode, Response};
#[cfg(any(feature = "serve", test))]
pub use config::CONTAINER_CHECK_MS;
pub use config::{EnsembleConfig, ServerConfig};
pub use ids::{ConnId, Now, ServerId};
pub use output::{Change, Output, Refusal, RequestMargin};
pub use own_writes::READ_YOUR_WRITES;
pub use peer::{PeerMsg, QuorumRole};

mod apply_wake;
mod commit;
mod config;
mod ensemble;
mod following;
mod ids;
mod leading;
mod learner_handler;
mod looking;
mod member;
mod multi;
mod near_misses;
mod ops;
mod output;
mod own_writes;
mod peer;
mod replica;
mod requests;
mod write;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests_acl;
#[cfg(test)]
mod tests_containers;
#[cfg(test)]
mod tests_ensemble;
#[cfg(test)]
mod tests_imports;
#[cfg(test)]
mod tests_multi;
#[cfg(test)]
mod tests_requests;
#[cfg(test)]
mod tests_sessions;
#[cfg(test)]
mod tests_watches;

pub struct Server {
    replica: Replica,
    /// Its part in an ensemble, when it is a member of one.
    ensemble: Option<Ensemble>,
}

impl Server {
    pub fn new(config: ServerConfig) -> Self {
        let ensemble = config
            .ensemble
            .clone()
            .map(|e| Ensemble::new(config.server_id, e, config.tick_ms, config.measures_margins));
        Server {
            replica: Replica::new(config),
            ensemble,
        }
    }

    /// A connection from `peer` was accepted: it holds the identity `ip:<peer>`.
    pub fn handle_accept(&mut self, conn: ConnId, peer: IpAddr) {
        self.replica.accept(conn, peer);
    }

    /// A connection's first packet. Session 0 opens a new session; otherwise the session is
    /// resumed if it is alive and the password matches, else the reply carries timeout 0 and
    /// id 0 and the connection is closed (`finishSessionInit(cnxn, false)`).
    pub fn handle_connect(&mut self, now: Now, conn: ConnId, req: &ConnectRequest) -> Vec<Output> {
        let mut out = self.due(now);
        let rep = &mut self.replica;
        if rep.conns.contains_key(&conn) {
            // A second handshake on a live connection is a protocol error.
            rep.detach(conn);
            out.push(Output::Close { conn });
            return out;
        }
        if req.last_zxid_seen > rep.last_zxid {
            // The client has seen a newer state than ours: the real server refuses it
            // without a reply so the client tries another server.
            out.push(Output::Close { conn });
            return out;
        }
        let timeout_ms = negotiate_timeout(
            req.timeout_ms,
            rep.config.min_session_timeout_ms,
            rep.config.max_session_timeout_ms,
        );
        let Some(ens) = self.ensemble.as_mut() else {
            rep.connect(now, conn, req, timeout_ms, &mut out);
            return out;
        };
        if !ens.serving() {
            // A follower without a leader does not serve: the client tries another.
            out.push(Output::Close { conn });
            return out;
        }
        if let Some(old) = rep.sessions.get(req.session_id).and_then(|s| s.conn) {
            rep.detach(old);
            out.push(Output::Close { conn: old });
        }
        ens.connect(rep, now, conn, req, timeout_ms, &mut out);
        out
    }

    /// A request on an established connection. Watch notifications it causes come before
    /// its reply. A connection without a live session is closed.
    pub fn handle_request(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        req: Request,
    ) -> Vec<Output> {
        if let Some(Run::AtOnce(run)) = ops::run_of(&req) {
            return run(&mut self.replica, conn, xid, req);
        }
        if self.ensemble.is_some() {
            return self.member(now, conn, xid, Ok(req));
        }
        let closing = matches!(req, Request::CloseSession);
        let out = self.due(now);
        self.replica
            .handle(now, conn, xid, closing, out, |rep, session, out| {
                rep.measure(now, conn, session, &req, out);
                match is_write(&req) {
                    true => rep.write_now(now, conn, session, WriteOp::Request(req), out),
                    false => rep.read_request(conn, session, req, out),
                }
            })
    }

    /// A request refused before it could be decoded in full, as ZooKeeper 3.8 refuses a
    /// create whose flags name no mode (`BadArguments` from `CreateMode.fromFlag`, a write:
    /// it takes a zxid like any failed write) or a checkWatches of no known watch type
    /// (`MarshallingError`, a read). It touches the session, and the reply carries `err`.
    pub fn handle_refused(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        refusal: Refusal,
    ) -> Vec<Output> {
        if self.ensemble.is_some() && refusal.write {
            return self.member(now, conn, xid, Err(refusal.err));
        }
        let out = self.due(now);
        self.replica.handle(
            now,
            conn,
            xid,
            false,
            out,
            |rep, session, out| match refusal.write {
                true => rep.write_now(now, conn, session, WriteOp::Refused(refusal.err), out),
                false => Err(refusal.err),
            },
        )
    }

    /// A request on an ensemble member's connection (`Err`: a write refused as it was read):
    /// ordered through the leader or read here, its reply sent when it is done. A
    /// connection without a live session is closed.
    fn member(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        req: Result<Request, ErrorCode>,
    ) -> Vec<Output> {
        let mut out = self.due(now);
        let rep = &mut self.replica;
        if let Some(session) = rep.live_session(now, conn, &mut out)
            && let Some(ens) = self.ensemble.as_mut()
        {
            if let Ok(req) = &req {
                rep.measure(now, conn, session, req, &mut out);
            }
            let req = ClientRequest::new(conn, xid, req);
            ens.request(rep, now, session, req, &mut out);
        }
        out
    }

    /// The transport lost the connection: its watches go, its session lives on until its
    /// deadline.
    pub fn handle_disconnect(&mut self, now: Now, conn: ConnId) -> Vec<Output> {
        let out = self.due(now);
        if let Some(ens) = self.ensemble.as_mut() {
            ens.forget_conn(conn);
        }
        self.replica.detach(conn);
        out
    }

    /// The server's tick: a server alone, or an ensemble's leader, expires every session
    /// whose deadline is at or before `now.mono_ms`; a leader pings its followers, and a
    /// member gives up a role it cannot keep.
    pub fn handle_timeout(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.tick(&mut self.replica, now),
            None => self.due(now),
        }
    }

    /// Whether [`Server::handle_timeout`] has anything to do on the next tick: a server
    /// alone, a leader and a member looking for one always; a follower only while it is
    /// not yet linked to its leader. A driver need not tick one that says no.
    pub fn ticks(&self) -> bool {
        self.ensemble.as_ref().is_none_or(Ensemble::ticks)
    }

    /// What is due before an input: a server alone (or leading) expires sessions and runs
    /// the reaper; a follower applies what its lag has let through.
    fn due(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.due(&mut self.replica, now),
            None => self.replica.expire_due(now, &mut |rep, now, write, out| {
                let _ = rep.commit(now, write, out);
            }),
        }
    }

    /// The earliest session deadline (monotonic ms), when any session is open. The hosts
    /// expire sessions on the server's tick instead; tests read it.
    #[cfg(test)]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.replica.sessions.next_deadline()
    }

    /// A restart that loses no data: connections and their watches are gone, the tree and the
    /// sessions stay, and every session deadline is counted afresh from `now`. A member
    /// restarted looks for its leader; what it sends to do so.
    pub fn restart(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.restart(&mut self.replica, now),
            None => {
                self.replica.restart(now);
                Vec::new()
            }
        }
    }

    /// Zxid of the last txn applied.
    #[cfg(test)]
    pub fn last_zxid(&self) -> i64 {
        self.replica.last_zxid
    }

    /// The stat of a node, if it exists.
    #[cfg(test)]
    pub fn stat(&self, path: &str) -> Option<crate::zk::proto::Stat> {
        self.replica.tree.stat(path)
    }

    /// Monotonic deadline of an open session.
    #[cfg(test)]
    pub fn session_deadline(&self, session: i64) -> Option<u64> {
        self.replica.sessions.get(session).map(|s| s.deadline_ms)
    }

    /// A message from peer `from`. A quorum message counts only between a leader and its
    /// follower: one from a former leader, or to a member that no longer leads, is dropped.
    pub fn handle_peer(&mut self, now: Now, from: ServerId, msg: PeerMsg) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.handle_peer(&mut self.replica, now, from, msg),
            None => Vec::new(),
        }
    }

    /// A follower applies nothing for `for_ms` from now (a `stall_apply` fault: a long GC
    /// pause or a slow disk behind its commit processor); it still logs and acknowledges
    /// proposals, so the ensemble commits without it. `for_ms` 0 ends a stall at once.
    pub fn stall_apply(&mut self, now: Now, for_ms: u64) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.stall_apply(&mut self.replica, now, for_ms),
            None => Vec::new(),
        }
    }

    /// The link to member `peer` is gone. A follower that lost its leader looks for one
    /// (3.8's `followLeader` ends); a leader loses a follower, and steps down at its next
    /// tick if that leaves it without a quorum.
    pub fn peer_down(&mut self, now: Now, peer: ServerId) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.peer_down(&mut self.replica, now, peer),
            None => Vec::new(),
        }
    }

    /// When (monotonic ms) a member looking for a leader next decides or sends its vote
    /// again: a driver wakes the server then (`wake`).
    pub fn next_vote_ms(&self) -> Option<u64> {
        self.ensemble.as_ref()?.next_vote_ms()
    }

    /// When (monotonic ms) a driver must next wake the member ([`Server::wake`]): the first
    /// lagged commit that has something to say here is due, or a stall ends before it.
    pub fn next_apply_ms(&self) -> Option<u64> {
        self.ensemble.as_ref()?.next_apply_ms(&self.replica)
    }

    /// Does what is due by `now`: the commits whose lag has passed, an election's decision.
    pub fn wake(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble.as_mut() {
            Some(ens) => ens.wake(&mut self.replica, now),
            None => Vec::new(),
        }
    }

    /// The link to member `peer` is (re)established: a follower tells its leader how far
    /// it got; a leader waits for that.
    pub fn peer_up(&mut self, peer: ServerId) -> Vec<Output> {
        match self.ensemble.as_ref() {
            Some(ens) => ens.peer_up(&self.replica, peer),
            None => Vec::new(),
        }
    }

    /// Who this member works with on the quorum port now: `None` for a server alone.
    pub fn quorum_role(&self) -> Option<QuorumRole> {
        self.ensemble.as_ref().map(Ensemble::quorum_role)
    }

    /// Whether replies may come after the input that asked: writes and syncs of an
    /// ensemble's member are answered once done.
    pub fn answers_later(&self) -> bool {
        self.ensemble.is_some()
    }
}
