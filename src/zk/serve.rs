//! `locksim serve zk`: the simulated ZooKeeper's core served by tokio on a real TCP socket
//! and the real clock, so any ZooKeeper client (zkCli.sh, the Java client, kazoo, locksim's
//! own) can talk to it; with `--servers 3` (or 5), an ensemble of cores on as many ports,
//! linked in the process. This is the one place that reads the host clock: it is not
//! simulated.

use crate::zk::host::{self, Env, Host, HostEvent, LinkKind, SharedHost};
use crate::zk::proto::{DecodeError, Request};
pub use crate::zk::server::CONTAINER_CHECK_MS;
use crate::zk::server::{Change, EnsembleConfig, Now, PeerMsg, Server, ServerConfig, ServerId};
use std::future::Future;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::spawn_local;
use tracing::{debug, info, warn};

/// The knobs of `locksim serve zk`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeConfig {
    /// ZooKeeper's tickTime: sessions expire on its ticks, and the default timeout bounds
    /// are counted in it.
    pub tick_ms: u64,
    /// Defaults to 2 × tick, as ZooKeeper's.
    pub min_session_timeout_ms: Option<u64>,
    /// Defaults to 20 × tick.
    pub max_session_timeout_ms: Option<u64>,
    /// Lose the reply to every Nth applied create (and drop that connection).
    pub lose_reply_every: Option<u64>,
    /// Seed of session passwords.
    pub seed: u64,
    /// jute.maxbuffer: the longest frame body a client may send; a longer (or negative)
    /// length closes that connection, as ZooKeeper does (0xfffff by default).
    pub jute_maxbuffer: usize,
    /// How often empty containers and expired TTL nodes are deleted
    /// (`znode.container.checkIntervalMs`, 60000 in ZooKeeper).
    pub container_check_ms: u64,
    /// Whether TTL nodes may be created (`zookeeper.extendedTypesEnabled`).
    pub extended_types: bool,
    /// 1, or an ensemble of 3 or 5 led by the last, each on its own listener.
    pub servers: u32,
}

impl ServeConfig {
    /// Checks the timeouts the server would grant, defaults included: a minimum above the
    /// maximum (say `--tick-ms 600000 --max-session-timeout-ms 1000`) is refused.
    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.servers, 1 | 3 | 5) {
            return Err(format!(
                "--servers {} is not served: 1, or an ensemble of 3 or 5",
                self.servers
            ));
        }
        let server = self.server();
        if server.min_session_timeout_ms > server.max_session_timeout_ms {
            return Err(format!(
                "the minimum session timeout ({} ms) must not exceed the maximum ({} ms); \
                 without --min-session-timeout-ms it is 2 x --tick-ms, without \
                 --max-session-timeout-ms 20 x --tick-ms",
                server.min_session_timeout_ms, server.max_session_timeout_ms
            ));
        }
        Ok(())
    }

    fn server(&self) -> ServerConfig {
        let base = ServerConfig::with_tick(self.tick_ms, self.seed);
        ServerConfig {
            min_session_timeout_ms: self
                .min_session_timeout_ms
                .unwrap_or(base.min_session_timeout_ms),
            max_session_timeout_ms: self
                .max_session_timeout_ms
                .unwrap_or(base.max_session_timeout_ms),
            container_check_ms: self.container_check_ms,
            extended_types: self.extended_types,
            ..base
        }
    }
}

struct RealEnv {
    started: Instant,
    lose_every: Option<u64>,
    applied_creates: u64,
    jute_maxbuffer: usize,
}

impl Env for RealEnv {
    fn now(&self) -> Now {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Now {
            mono_ms: self.started.elapsed().as_millis() as u64,
            wall_ms: wall.as_millis() as i64,
        }
    }

    fn wait_until(&self, mono_ms: u64) -> Duration {
        Duration::from_millis(mono_ms.saturating_sub(self.now().mono_ms))
    }

    fn lose_reply(&mut self, client: &str, request: &Request, applied: bool) -> bool {
        let Some(every) = self
            .lose_every
            .filter(|_| applied && host::is_create(request))
        else {
            return false;
        };
        self.applied_creates += 1;
        let lose = self.applied_creates.is_multiple_of(every);
        if lose {
            info!(
                "losing the reply to {client}'s create (applied create #{})",
                self.applied_creates
            );
        }
        lose
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        match event {
            HostEvent::Accepted { conn, client } => debug!("conn {conn}: accepted from {client}"),
            HostEvent::Connected {
                conn,
                session,
                timeout_ms,
            } if timeout_ms > 0 => {
                info!("conn {conn}: session {session:#x}, timeout {timeout_ms} ms")
            }
            HostEvent::Connected { conn, .. } => {
                info!("conn {conn}: session refused (expired, unknown or wrong password)")
            }
            HostEvent::Handled {
                conn,
                xid,
                request,
                err,
                lost,
            } => {
                debug!(
                    "conn {conn}: xid {xid} {request:?} -> {err:?}{}",
                    if lost { " (reply lost)" } else { "" }
                )
            }
            HostEvent::Malformed {
                conn,
                client,
                error: DecodeError::BadFrameLength(len),
            } => {
                warn!(
                    "conn {conn} from {client}: malformed packet (length {len}, negative or past \
                     jute.maxbuffer ({})), closing the connection",
                    self.jute_maxbuffer
                )
            }
            HostEvent::Malformed {
                conn,
                client,
                error,
            } => {
                warn!(
                    "conn {conn} from {client}: malformed packet ({error:?}), closing the connection"
                )
            }
            HostEvent::Closed { conn } => debug!("conn {conn}: closed"),
            HostEvent::Refused {
                conn,
                xid,
                error,
                err,
            } => info!("conn {conn}: request {xid} refused with {err:?} ({error:?})"),
            HostEvent::Changed(Change::SessionExpired { session, .. }) => {
                info!("session {session:#x} expired")
            }
            HostEvent::Changed(Change::Leading { epoch, .. }) => info!("leading epoch {epoch}"),
            HostEvent::Changed(change) => debug!("{change:?}"),
            // Measured for a guided search only, never here (`measures_margins: false`).
            HostEvent::ReadMargin(_) | HostEvent::RequestMargin(_) => {}
        }
    }
}

/// Serves on `listeners` until `shutdown` completes: one server, or an ensemble of one
/// member per listener, led by the last. Runs on the current thread's LocalSet (the core is
/// single-threaded, like the simulation).
pub async fn serve(
    listeners: Vec<TcpListener>,
    config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) {
    let servers = ServerId::try_from(listeners.len()).unwrap_or(ServerId::MAX);
    let hosts: Vec<SharedHost<RealEnv>> = (1..=servers)
        .map(|id| member(&config, id, servers))
        .collect();
    if let Some((leader, followers)) = hosts.split_last() {
        for (id, follower) in (1..).zip(followers) {
            link(servers, leader, id, follower);
        }
    }
    let mut tasks: Vec<_> = hosts
        .iter()
        .flat_map(|host| {
            [
                spawn_local(host::tick(host.clone())),
                spawn_local(host::wake_when_due(host.clone())),
            ]
        })
        .collect();
    let mut served = listeners.into_iter().zip(hosts);
    let Some((first, first_host)) = served.next() else {
        return;
    };
    for (listener, host) in served {
        tasks.push(spawn_local(async move {
            accept(&listener, &host, std::future::pending()).await
        }));
    }
    accept(&first, &first_host, shutdown).await;
    for task in tasks {
        task.abort();
    }
    info!("stopped");
}

/// Server `id` of `servers`: a server alone, or a member of the ensemble led by the last.
fn member(config: &ServeConfig, id: ServerId, servers: ServerId) -> SharedHost<RealEnv> {
    let env = RealEnv {
        started: Instant::now(),
        lose_every: config.lose_reply_every,
        applied_creates: 0,
        jute_maxbuffer: config.jute_maxbuffer,
    };
    let ensemble = (servers > 1).then(|| EnsembleConfig {
        members: (1..=servers).collect(),
        leader: servers,
        apply_lag_ms: 0,
    });
    let server = Server::new(ServerConfig {
        server_id: id,
        ensemble,
        ..config.server()
    });
    let host = Host::new(env, server, config.tick_ms);
    host.borrow_mut().set_max_frame(config.jute_maxbuffer);
    host.borrow_mut().restart();
    host
}

/// Links follower `id` to the leader (member `leader_id`) in the process: their messages go
/// both ways in order, and the link never breaks.
fn link(
    leader_id: ServerId,
    leader: &SharedHost<RealEnv>,
    id: ServerId,
    follower: &SharedHost<RealEnv>,
) {
    let (to_follower, at_follower) = mpsc::unbounded_channel();
    let (to_leader, at_leader) = mpsc::unbounded_channel();
    leader
        .borrow_mut()
        .link_up(id, LinkKind::Quorum, to_follower);
    follower
        .borrow_mut()
        .link_up(leader_id, LinkKind::Quorum, to_leader);
    spawn_local(deliver(at_follower, follower.clone(), leader_id));
    spawn_local(deliver(at_leader, leader.clone(), id));
}

/// Hands `host` every message member `from` sends it.
async fn deliver(
    mut messages: mpsc::UnboundedReceiver<PeerMsg>,
    host: SharedHost<RealEnv>,
    from: ServerId,
) {
    while let Some(msg) = messages.recv().await {
        host.borrow_mut().peer_message(from, msg);
    }
}

/// Serves `host`'s clients from `listener` until `shutdown` completes.
async fn accept(
    listener: &TcpListener,
    host: &SharedHost<RealEnv>,
    shutdown: impl Future<Output = ()>,
) {
    crate::serve::accept_until(listener, shutdown, |stream, peer| {
        spawn_local(host::serve_conn(
            host.clone(),
            peer.to_string(),
            peer.ip(),
            stream,
        ));
    })
    .await;
}
