//! Sans-IO ZooKeeper server core: data tree, sessions, watches. Inputs arrive through
//! `handle_*` with the time as an argument; outputs are returned. No I/O, no clock reads.
//!
//! Modelled on a single ZooKeeper 3.8 server. As there, every write request (failed ones
//! too) and every new session takes a zxid, and notifications a request causes precede its
//! reply. Every input first expires the sessions that are due, so the outcome does not
//! depend on whether the driver called `handle_timeout` just before.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::zk::acl::AuthId;
use crate::zk::proto::{self, ConnectRequest, ReplyHeader, Request};
pub use crate::zk::proto::{ConnectResponse, ErrorCode, Response, WatcherEvent};
use crate::zk::session::{MAX_TIMEOUT_MS, Sessions, negotiate_timeout};
use crate::zk::tree::Tree;
use crate::zk::watch::Watches;
use commit::{WriteOp, is_write};
use ensemble::Ensemble;
pub use ensemble::{EnsembleConfig, PeerMsg, QuorumRole, ServerId};
use ops::Run;

mod apply_wake;
mod commit;
mod election;
mod ensemble;
mod leadership;
mod multi;
mod ops;
mod requests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests_acl;
#[cfg(test)]
mod tests_containers;
#[cfg(test)]
mod tests_ensemble;
#[cfg(test)]
mod tests_multi;
#[cfg(test)]
mod tests_requests;
#[cfg(test)]
mod tests_sessions;
#[cfg(test)]
mod tests_watches;

/// The zxid epoch: a single server that never changes leader keeps epoch 1.
const EPOCH: i64 = 1;

/// Identifies one client connection (the driver assigns them).
pub type ConnId = u64;

/// The server's clocks at the moment of an input: `mono_ms` drives session expiry,
/// `wall_ms` (ms since the Unix epoch) fills Stat.ctime/mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    pub mono_ms: u64,
    pub wall_ms: i64,
}

/// How a request refused as it was read is answered ([`Server::handle_refused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The reply's error code.
    pub err: ErrorCode,
    /// Whether the request was a write, which takes a zxid even when it fails.
    pub write: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// ZooKeeper tickTime.
    pub tick_ms: u64,
    /// Default 2 × tick.
    pub min_session_timeout_ms: u64,
    /// Default 20 × tick.
    pub max_session_timeout_ms: u64,
    /// Server id: the top byte of session ids.
    pub server_id: u8,
    /// Seed of the server's own random stream (session passwords).
    pub seed: u64,
    /// Where every node's sequence counter starts (ZooKeeper: 0).
    pub seq_start: i32,
    /// How often the reaper deletes empty containers and expired TTL nodes
    /// (`znode.container.checkIntervalMs`, 60 s in 3.8); its first round is one interval
    /// after the server starts.
    pub container_check_ms: u64,
    /// Whether TTL nodes may be created (`zookeeper.extendedTypesEnabled`, off in 3.8).
    pub extended_types: bool,
    /// The ensemble this server is a member of (`server_id` its id); None: it serves alone.
    pub ensemble: Option<EnsembleConfig>,
}

/// 3.8's default `znode.container.checkIntervalMs`.
pub const CONTAINER_CHECK_MS: u64 = 60_000;

impl ServerConfig {
    /// ZooKeeper's defaults, capped at what a session timeout can be (a Java int).
    pub fn with_tick(tick_ms: u64, seed: u64) -> Self {
        let ticks = |n: u64| tick_ms.saturating_mul(n).min(MAX_TIMEOUT_MS);
        ServerConfig {
            tick_ms,
            min_session_timeout_ms: ticks(2),
            max_session_timeout_ms: ticks(20),
            server_id: 1,
            seed,
            seq_start: 0,
            container_check_ms: CONTAINER_CHECK_MS,
            extended_types: false,
            ensemble: None,
        }
    }
}

/// A change to the tree, the sessions or who leads, reported so the driver can record it
/// in the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Created {
        path: String,
        session: i64,
        zxid: i64,
    },
    Deleted {
        path: String,
        session: i64,
        zxid: i64,
    },
    SessionExpired {
        session: i64,
        zxid: i64,
    },
    /// A new leader's epoch started: its zxids count from `zxid` (`epoch << 32`).
    Leading {
        epoch: u32,
        zxid: i64,
    },
}

impl Change {
    /// The zxid of the write that made the change.
    pub fn zxid(&self) -> i64 {
        match self {
            Change::Created { zxid, .. }
            | Change::Deleted { zxid, .. }
            | Change::SessionExpired { zxid, .. }
            | Change::Leading { zxid, .. } => *zxid,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Answer to a connect; when `close` the driver closes the connection after sending.
    Connected {
        conn: ConnId,
        response: ConnectResponse,
        close: bool,
    },
    /// Answer to a request (`body` only when `err` is Ok).
    Reply {
        conn: ConnId,
        xid: i32,
        zxid: i64,
        err: ErrorCode,
        body: Option<Response>,
    },
    Notify {
        conn: ConnId,
        event: WatcherEvent,
    },
    /// The server closes this connection (after closeSession's reply, for example).
    Close {
        conn: ConnId,
    },
    Changed(Change),
    /// A message for another member of the ensemble.
    Peer {
        to: ServerId,
        msg: PeerMsg,
    },
}

impl Output {
    /// The connection and the exact bytes a driver sends for this output; None for outputs
    /// that are not packets (Close, Changed).
    pub fn packet(&self) -> Option<(ConnId, Vec<u8>)> {
        match self {
            Output::Connected { conn, response, .. } => {
                Some((*conn, proto::encode_connect_response(response)))
            }
            Output::Reply {
                conn,
                xid,
                zxid,
                err,
                body,
            } => {
                let header = ReplyHeader {
                    xid: *xid,
                    zxid: *zxid,
                    err: *err,
                };
                Some((*conn, proto::encode_reply(&header, body.as_ref())))
            }
            Output::Notify { conn, event } => Some((*conn, proto::encode_notification(event))),
            Output::Close { .. } | Output::Changed(_) | Output::Peer { .. } => None,
        }
    }
}

pub struct Server {
    config: ServerConfig,
    rng: ChaCha8Rng,
    tree: Tree,
    sessions: Sessions,
    watches: Watches,
    /// Connections that completed a handshake, and the session each one serves.
    conns: BTreeMap<ConnId, i64>,
    /// Each connection's identities (3.8's `authInfo`): its address from the accept, and
    /// what its auth packets added. ACLs are checked against them.
    identities: BTreeMap<ConnId, Rc<Vec<AuthId>>>,
    /// Zxid of the last txn; reads and pings report it.
    last_zxid: i64,
    /// Zxid of the last write it took (proposed): a leader's runs ahead of what it applied.
    last_proposed: i64,
    /// When the reaper next looks for empty containers and expired TTL nodes (monotonic ms).
    next_reap_ms: u64,
    /// Its part in an ensemble, when it is a member of one.
    ensemble: Option<Ensemble>,
}

impl Server {
    pub fn new(config: ServerConfig) -> Self {
        Server {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            tree: Tree::with_seq_start(config.seq_start),
            sessions: Sessions::new(config.server_id, config.tick_ms),
            watches: Watches::default(),
            conns: BTreeMap::new(),
            identities: BTreeMap::new(),
            last_zxid: EPOCH << 32,
            last_proposed: EPOCH << 32,
            next_reap_ms: config.container_check_ms,
            ensemble: config
                .ensemble
                .clone()
                .map(|e| Ensemble::new(config.server_id, e, config.tick_ms)),
            config,
        }
    }

    /// A connection from `peer` was accepted: it holds the identity `ip:<peer>`.
    pub fn handle_accept(&mut self, conn: ConnId, peer: IpAddr) {
        self.identities
            .insert(conn, Rc::new(vec![AuthId::ip(peer)]));
    }

    /// A connection's first packet. Session 0 opens a new session; otherwise the session is
    /// resumed if it is alive and the password matches, else the reply carries timeout 0 and
    /// id 0 and the connection is closed (`finishSessionInit(cnxn, false)`).
    pub fn handle_connect(&mut self, now: Now, conn: ConnId, req: &ConnectRequest) -> Vec<Output> {
        let mut out = self.due(now);
        if self.conns.contains_key(&conn) {
            // A second handshake on a live connection is a protocol error.
            self.detach(conn);
            out.push(Output::Close { conn });
            return out;
        }
        if req.last_zxid_seen > self.last_zxid {
            // The client has seen a newer state than ours: the real server refuses it
            // without a reply so the client tries another server.
            out.push(Output::Close { conn });
            return out;
        }
        let timeout_ms = negotiate_timeout(
            req.timeout_ms,
            self.config.min_session_timeout_ms,
            self.config.max_session_timeout_ms,
        );
        if let Some(ens) = &self.ensemble {
            if !ens.serving() {
                // A follower without a leader does not serve: the client tries another.
                out.push(Output::Close { conn });
                return out;
            }
            if let Some(old) = self.sessions.get(req.session_id).and_then(|s| s.conn) {
                self.detach(old);
                out.push(Output::Close { conn: old });
            }
            self.ensemble_connect(now, conn, req, timeout_ms, &mut out);
            return out;
        }
        if req.session_id == 0 {
            let mut passwd = [0u8; 16];
            self.rng.fill_bytes(&mut passwd);
            let session = self.sessions.next_id();
            let op = WriteOp::CreateSession { timeout_ms, passwd };
            let write = self.propose(now, session, Rc::default(), op);
            // A createSession txn fires nothing and cannot fail.
            let _ = self.commit(now, write, &mut out);
            self.attach(conn, session);
            out.push(connected(conn, timeout_ms, session, passwd));
            return out;
        }
        // processConnectRequest closes the session's current connection before it even
        // checks the password.
        if let Some(old) = self.sessions.get(req.session_id).and_then(|s| s.conn) {
            self.detach(old);
            out.push(Output::Close { conn: old });
        }
        let passwd = match self.sessions.get_mut(req.session_id) {
            Some(s) if s.passwd[..] == req.passwd[..] => {
                s.timeout_ms = timeout_ms;
                s.conn = Some(conn);
                s.passwd
            }
            _ => {
                out.push(refused_connect(conn));
                return out;
            }
        };
        self.sessions.touch(req.session_id, now.mono_ms);
        self.conns.insert(conn, req.session_id);
        out.push(connected(conn, timeout_ms, req.session_id, passwd));
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
            return run(self, conn, xid, req);
        }
        if self.ensemble.is_some() {
            return self.member(now, conn, xid, Ok(req));
        }
        let closing = matches!(req, Request::CloseSession);
        self.handle(
            now,
            conn,
            xid,
            closing,
            |server, session, out| match is_write(&req) {
                true => server.write_now(now, conn, session, WriteOp::Request(req), out),
                false => server.read_request(conn, session, req, out),
            },
        )
    }

    /// The identities of the connection `conn`.
    fn who(&self, conn: ConnId) -> Rc<Vec<AuthId>> {
        self.identities.get(&conn).cloned().unwrap_or_default()
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
        self.handle(
            now,
            conn,
            xid,
            false,
            |server, session, out| match refusal.write {
                true => server.write_now(now, conn, session, WriteOp::Refused(refusal.err), out),
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
        let (mut out, session) = self.live_session(now, conn);
        if let Some(session) = session {
            self.ensemble_request(now, conn, session, xid, req, &mut out);
        }
        out
    }

    /// What is due, and the session on `conn`, re-armed; a connection without a live session
    /// (closed already when its session just expired, or it never had one) is closed.
    fn live_session(&mut self, now: Now, conn: ConnId) -> (Vec<Output>, Option<i64>) {
        let mut out = self.due(now);
        let Some(&session) = self.conns.get(&conn) else {
            if !out.contains(&Output::Close { conn }) {
                out.push(Output::Close { conn });
            }
            return (out, None);
        };
        self.sessions.touch(session, now.mono_ms);
        (out, Some(session))
    }

    /// Runs `apply` for the session on `conn` (re-armed first) and replies with its result.
    fn handle(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        closing: bool,
        apply: impl FnOnce(&mut Server, i64, &mut Vec<Output>) -> Result<Response, ErrorCode>,
    ) -> Vec<Output> {
        let (mut out, session) = self.live_session(now, conn);
        let Some(session) = session else {
            return out;
        };
        let result = apply(self, session, &mut out);
        let (err, body) = match result {
            Ok(body) => (ErrorCode::Ok, Some(body)),
            Err(err) => (err, None),
        };
        out.push(Output::Reply {
            conn,
            xid,
            zxid: self.last_zxid,
            err,
            body,
        });
        if closing {
            self.detach(conn);
            out.push(Output::Close { conn });
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
        self.detach(conn);
        out
    }

    /// The server's tick: a server alone, or an ensemble's leader, expires every session
    /// whose deadline is at or before `now.mono_ms`; a leader pings its followers, and a
    /// member gives up a role it cannot keep.
    pub fn handle_timeout(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble {
            Some(_) => self.ensemble_tick(now),
            None => self.expire_due(now),
        }
    }

    /// Whether [`Server::handle_timeout`] has anything to do on the next tick: a server
    /// alone, a leader and a member looking for one always; a follower only while it is
    /// not yet linked to its leader. A driver need not tick one that says no.
    pub fn ticks(&self) -> bool {
        self.ensemble_ticks()
    }

    /// What is due before an input: a server alone (or leading) expires sessions and runs
    /// the reaper; a follower applies what its lag has let through.
    fn due(&mut self, now: Now) -> Vec<Output> {
        match self.ensemble {
            Some(_) => self.ensemble_due(now),
            None => self.expire_due(now),
        }
    }

    /// The earliest session deadline (monotonic ms), when any session is open. The hosts
    /// expire sessions on the server's tick instead; tests read it.
    #[cfg(test)]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.sessions.next_deadline()
    }

    /// A restart that loses no data: connections and their watches are gone, the tree and the
    /// sessions stay, and every session deadline is counted afresh from `now`. A member
    /// restarted looks for its leader; what it sends to do so.
    pub fn restart(&mut self, now: Now) -> Vec<Output> {
        let looks = self.ensemble.as_mut().is_some_and(Ensemble::restart);
        self.conns.clear();
        self.identities.clear();
        self.watches.clear();
        self.sessions.restart(now.mono_ms);
        self.next_reap_ms = now.mono_ms.saturating_add(self.config.container_check_ms);
        let mut out = Vec::new();
        if looks {
            self.start_looking(now, &mut out);
        }
        out
    }

    /// Zxid of the last txn applied.
    #[cfg(test)]
    pub fn last_zxid(&self) -> i64 {
        self.last_zxid
    }

    /// The stat of a node, if it exists.
    #[cfg(test)]
    pub fn stat(&self, path: &str) -> Option<proto::Stat> {
        self.tree.stat(path)
    }

    /// Monotonic deadline of an open session.
    #[cfg(test)]
    pub fn session_deadline(&self, session: i64) -> Option<u64> {
        self.sessions.get(session).map(|s| s.deadline_ms)
    }

    fn next_zxid(&mut self) -> i64 {
        self.last_proposed += 1;
        self.last_proposed
    }

    /// `conn` now serves `session`.
    fn attach(&mut self, conn: ConnId, session: i64) {
        if let Some(s) = self.sessions.get_mut(session) {
            s.conn = Some(conn);
        }
        self.conns.insert(conn, session);
    }

    /// Forgets a connection: its session (if any) is left without one, its watches and
    /// identities dropped.
    fn detach(&mut self, conn: ConnId) {
        self.identities.remove(&conn);
        if let Some(session) = self.conns.remove(&conn)
            && let Some(s) = self.sessions.get_mut(session)
            && s.conn == Some(conn)
        {
            s.conn = None;
        }
        self.watches.remove_conn(conn);
    }

    /// Each expiry is one closeSession txn. The expired session's connection is closed
    /// without notifications (the real server closes the socket, dropping what is queued).
    /// Then the reaper's round, when one is due.
    fn expire_due(&mut self, now: Now) -> Vec<Output> {
        let mut out = self.expire_sessions(now);
        if now.mono_ms >= self.next_reap_ms {
            self.reap(now, &mut out);
        }
        out
    }

    /// 3.8's `ContainerManager` round: one deleteContainer txn per candidate, the candidates
    /// chosen before any is deleted (a container emptied by the round waits for the next).
    /// Rounds run at a fixed rate; missed ones are not made up.
    fn reap(&mut self, now: Now, out: &mut Vec<Output>) {
        let interval = self.config.container_check_ms.max(1);
        let behind = (now.mono_ms - self.next_reap_ms) / interval;
        self.next_reap_ms += (behind + 1) * interval;
        for path in self.tree.reapable(now.wall_ms) {
            self.write_own(now, 0, WriteOp::DeleteContainer { path }, out);
        }
    }

    fn expire_sessions(&mut self, now: Now) -> Vec<Output> {
        let mut out = Vec::new();
        for session in self.sessions.due(now.mono_ms) {
            self.sessions.set_closing(session);
            self.write_own(now, session, WriteOp::ExpireSession, &mut out);
        }
        out
    }

    /// A write of the server's own (an expiry, a reaper's delete): applied at once by a
    /// server alone, proposed to the followers by a leader. Its outcome answers nobody (a
    /// container that gained a child since it was chosen stays).
    fn write_own(&mut self, now: Now, session: i64, op: WriteOp, out: &mut Vec<Output>) {
        let write = self.propose(now, session, Rc::default(), op);
        match self.ensemble {
            Some(_) => self.broadcast(now, write, out),
            None => {
                let _ = self.commit(now, write, out);
            }
        }
    }
}

/// The answer to a connect that cannot resume its session: timeout 0, and the connection
/// closed (`finishSessionInit(cnxn, false)`).
fn refused_connect(conn: ConnId) -> Output {
    Output::Connected {
        conn,
        response: ConnectResponse {
            protocol_version: 0,
            timeout_ms: 0,
            session_id: 0,
            passwd: vec![0; 16],
            read_only: false,
        },
        close: true,
    }
}

fn connected(conn: ConnId, timeout_ms: u64, session_id: i64, passwd: [u8; 16]) -> Output {
    Output::Connected {
        conn,
        response: ConnectResponse {
            protocol_version: 0,
            timeout_ms: i32::try_from(timeout_ms).unwrap_or(i32::MAX),
            session_id,
            passwd: passwd.to_vec(),
            read_only: false,
        },
        close: false,
    }
}
