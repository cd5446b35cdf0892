//! One server's own copy of the replicated state (the tree and the sessions) and its own
//! clients (connections, their identities and watches): what 3.8's `ZooKeeperServer` holds
//! whatever its role. Alone it is the whole server; in an ensemble, each role
//! (`leading`, `following`, `looking`) works on it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::{EPOCH, ServerConfig};
use super::ids::{ConnId, Now};
use super::near_misses::NearMisses;
use super::output::{Output, connected, refused_connect};
use super::write::{Write, WriteOp};
use crate::zk::acl::AuthId;
use crate::zk::proto::{ConnectRequest, ErrorCode, Response};
use crate::zk::session::Sessions;
use crate::zk::tree::Tree;
use crate::zk::watch::Watches;

/// What becomes of a write of the server's own (an expiry, a reaper's delete): applied at
/// once by a server alone, proposed to the followers by a leader.
pub(super) type OwnWrite<'a> = &'a mut dyn FnMut(&mut Replica, Now, Write, &mut Vec<Output>);

pub(super) struct Replica {
    pub(super) config: ServerConfig,
    pub(super) rng: ChaCha8Rng,
    pub(super) tree: Tree,
    pub(super) sessions: Sessions,
    pub(super) watches: Watches,
    /// Connections that completed a handshake, and the session each one serves.
    pub(super) conns: BTreeMap<ConnId, i64>,
    /// Each connection's identities (3.8's `authInfo`): its address from the accept, and
    /// what its auth packets added. ACLs are checked against them.
    pub(super) identities: BTreeMap<ConnId, Rc<Vec<AuthId>>>,
    /// Zxid of the last txn; reads and pings report it.
    pub(super) last_zxid: i64,
    /// Zxid of the last write it took (proposed): a leader's runs ahead of what it applied.
    pub(super) last_proposed: i64,
    /// When the reaper next looks for empty containers and expired TTL nodes (monotonic ms).
    next_reap_ms: u64,
    /// When it measures margins (`ServerConfig::measures_margins`): the reads and creates
    /// of nodes that a read could come near missing, until the nodes go.
    pub(super) near_misses: Option<NearMisses>,
}

impl Replica {
    pub(super) fn new(config: ServerConfig) -> Self {
        Replica {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            tree: Tree::with_seq_start(config.seq_start),
            sessions: Sessions::new(config.server_id, config.tick_ms),
            watches: Watches::default(),
            conns: BTreeMap::new(),
            identities: BTreeMap::new(),
            last_zxid: EPOCH << 32,
            last_proposed: EPOCH << 32,
            next_reap_ms: config.container_check_ms,
            near_misses: config.measures_margins.then(NearMisses::default),
            config,
        }
    }

    /// A connection from `peer` was accepted: it holds the identity `ip:<peer>`.
    pub(super) fn accept(&mut self, conn: ConnId, peer: IpAddr) {
        self.identities
            .insert(conn, Rc::new(vec![AuthId::ip(peer)]));
    }

    /// A new password from the server's own random stream.
    pub(super) fn new_passwd(&mut self) -> [u8; 16] {
        let mut passwd = [0u8; 16];
        self.rng.fill_bytes(&mut passwd);
        passwd
    }

    /// A connect on a server alone: a new session is created and committed at once; a
    /// resume takes over the session if it is alive and the password matches.
    pub(super) fn connect(
        &mut self,
        now: Now,
        conn: ConnId,
        req: &ConnectRequest,
        timeout_ms: u64,
        out: &mut Vec<Output>,
    ) {
        if req.session_id == 0 {
            let passwd = self.new_passwd();
            let session = self.sessions.next_id();
            let op = WriteOp::CreateSession { timeout_ms, passwd };
            let write = self.propose(now, session, Rc::default(), op);
            // A createSession txn fires nothing and cannot fail.
            let _ = self.commit(now, write, out);
            self.attach(conn, session);
            out.push(connected(conn, timeout_ms, session, passwd));
            return;
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
                return;
            }
        };
        self.sessions.touch(req.session_id, now.mono_ms);
        self.conns.insert(conn, req.session_id);
        out.push(connected(conn, timeout_ms, req.session_id, passwd));
    }

    /// The identities of the connection `conn`.
    pub(super) fn who(&self, conn: ConnId) -> Rc<Vec<AuthId>> {
        self.identities.get(&conn).cloned().unwrap_or_default()
    }

    /// The session on `conn`, re-armed; a connection without a live session (closed
    /// already when its session just expired, or it never had one) is closed.
    pub(super) fn live_session(
        &mut self,
        now: Now,
        conn: ConnId,
        out: &mut Vec<Output>,
    ) -> Option<i64> {
        let Some(&session) = self.conns.get(&conn) else {
            if !out.contains(&Output::Close { conn }) {
                out.push(Output::Close { conn });
            }
            return None;
        };
        self.sessions.touch(session, now.mono_ms);
        Some(session)
    }

    /// Runs `apply` for the session on `conn` (re-armed first) and replies with its
    /// result, after what was due (`out`).
    pub(super) fn handle(
        &mut self,
        now: Now,
        conn: ConnId,
        xid: i32,
        closing: bool,
        mut out: Vec<Output>,
        apply: impl FnOnce(&mut Replica, i64, &mut Vec<Output>) -> Result<Response, ErrorCode>,
    ) -> Vec<Output> {
        let Some(session) = self.live_session(now, conn, &mut out) else {
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

    /// A restart that loses no data: connections and their watches are gone, the tree and
    /// the sessions stay, and every session deadline is counted afresh from `now`.
    pub(super) fn restart(&mut self, now: Now) {
        self.conns.clear();
        self.identities.clear();
        self.watches.clear();
        self.sessions.restart(now.mono_ms);
        self.next_reap_ms = now.mono_ms.saturating_add(self.config.container_check_ms);
    }

    pub(super) fn next_zxid(&mut self) -> i64 {
        self.last_proposed += 1;
        self.last_proposed
    }

    /// `conn` now serves `session`.
    pub(super) fn attach(&mut self, conn: ConnId, session: i64) {
        if let Some(s) = self.sessions.get_mut(session) {
            s.conn = Some(conn);
        }
        self.conns.insert(conn, session);
    }

    /// Forgets a connection: its session (if any) is left without one, its watches and
    /// identities dropped.
    pub(super) fn detach(&mut self, conn: ConnId) {
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
    /// Then the reaper's round, when one is due. Each of these writes goes to `own`.
    pub(super) fn expire_due(&mut self, now: Now, own: OwnWrite<'_>) -> Vec<Output> {
        let mut out = Vec::new();
        for session in self.sessions.due(now.mono_ms) {
            self.sessions.set_closing(session);
            self.write_own(now, session, WriteOp::ExpireSession, own, &mut out);
        }
        if now.mono_ms >= self.next_reap_ms {
            self.reap(now, own, &mut out);
        }
        out
    }

    /// 3.8's `ContainerManager` round: one deleteContainer txn per candidate, the candidates
    /// chosen before any is deleted (a container emptied by the round waits for the next).
    /// Rounds run at a fixed rate; missed ones are not made up.
    fn reap(&mut self, now: Now, own: OwnWrite<'_>, out: &mut Vec<Output>) {
        let interval = self.config.container_check_ms.max(1);
        let behind = (now.mono_ms - self.next_reap_ms) / interval;
        self.next_reap_ms += (behind + 1) * interval;
        for path in self.tree.reapable(now.wall_ms) {
            self.write_own(now, 0, WriteOp::DeleteContainer { path }, own, out);
        }
    }

    /// A write of the server's own: its outcome answers nobody (a container that gained a
    /// child since it was chosen stays).
    fn write_own(
        &mut self,
        now: Now,
        session: i64,
        op: WriteOp,
        own: OwnWrite<'_>,
        out: &mut Vec<Output>,
    ) {
        let write = self.propose(now, session, Rc::default(), op);
        own(self, now, write, out);
    }
}
