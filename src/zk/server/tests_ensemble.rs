//! Three servers exchanging peer messages in-process: writes through the leader on a quorum,
//! stale reads and session order on a lagging follower, sync, sessions across servers.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::test_support::{TICK, at, connect_req, create_req, delete_req};
use super::*;
use crate::zk::proto::{ConnectResponse, CreateMode};

/// Connections are numbered per server; the leader is server 3, as a fresh ensemble elects
/// the highest id.
const LEADER: ServerId = 3;

struct Net {
    servers: BTreeMap<ServerId, Server>,
    /// Peer messages on their way: (from, to, message), FIFO.
    wire: VecDeque<(ServerId, ServerId, PeerMsg)>,
    /// Servers whose incoming peer messages wait (a slow link).
    held: BTreeSet<ServerId>,
    /// Pairs of servers between which every message is lost (a partition).
    cut: BTreeSet<(ServerId, ServerId)>,
    /// What the servers sent their clients, by server.
    seen: Vec<(ServerId, Output)>,
    /// The peer messages delivered, as `from→to Kind`.
    delivered: Vec<String>,
    mono_ms: u64,
}

impl Net {
    fn new(apply_lag_ms: u64) -> Net {
        Net::with(apply_lag_ms, false)
    }

    /// An ensemble whose members measure their reads' margins when `measures_reads`.
    fn with(apply_lag_ms: u64, measures_reads: bool) -> Net {
        let members = vec![1, 2, 3];
        let servers = members
            .iter()
            .map(|&id| {
                let config = ServerConfig {
                    server_id: id,
                    ensemble: Some(EnsembleConfig {
                        members: members.clone(),
                        leader: LEADER,
                        apply_lag_ms: if id == LEADER { 0 } else { apply_lag_ms },
                    }),
                    measures_margins: measures_reads,
                    ..ServerConfig::with_tick(TICK, u64::from(id))
                };
                (id, Server::new(config))
            })
            .collect();
        let mut net = Net {
            servers,
            wire: VecDeque::new(),
            held: BTreeSet::new(),
            cut: BTreeSet::new(),
            seen: Vec::new(),
            delivered: Vec::new(),
            mono_ms: 0,
        };
        // Each start of a member's software, the first (its boot) included.
        for id in members {
            net.input(id, |s, now| s.restart(now));
        }
        for id in [1, 2] {
            net.input(id, |s, _| s.peer_up(LEADER));
        }
        net
    }

    fn now(&self) -> Now {
        at(self.mono_ms)
    }

    fn route(&mut self, from: ServerId, outputs: Vec<Output>) {
        for output in outputs {
            match output {
                Output::Peer { to, msg } => self.wire.push_back((from, to, msg)),
                other => self.seen.push((from, other)),
            }
        }
    }

    /// Delivers peer messages until none is left but the held ones.
    fn settle(&mut self) {
        let mut waiting = VecDeque::new();
        while let Some((from, to, msg)) = self.wire.pop_front() {
            if self.cut.contains(&(from, to)) {
                continue;
            }
            if self.held.contains(&to) {
                waiting.push_back((from, to, msg));
                continue;
            }
            let kind = format!("{msg:?}");
            let kind = kind.split(|c: char| !c.is_alphanumeric()).next();
            self.delivered
                .push(format!("{from}→{to} {}", kind.unwrap_or_default()));
            let now = self.now();
            let out = self
                .servers
                .get_mut(&to)
                .unwrap()
                .handle_peer(now, from, msg);
            self.route(to, out);
        }
        self.wire = waiting;
    }

    fn input(&mut self, server: ServerId, f: impl FnOnce(&mut Server, Now) -> Vec<Output>) {
        let now = self.now();
        let out = f(self.servers.get_mut(&server).unwrap(), now);
        self.route(server, out);
        self.settle();
    }

    /// Opens a session on `server`'s connection `conn`, ticking until it is answered; its id.
    fn open(&mut self, server: ServerId, conn: ConnId) -> i64 {
        let req = connect_req(0, vec![0; 16], 1_000);
        self.input(server, |s, now| s.handle_connect(now, conn, &req));
        for _ in 0..10 {
            if let Some(response) = self.connected(server, conn) {
                return response.session_id;
            }
            self.tick_to(self.mono_ms + TICK);
        }
        panic!("no session for {server}'s connection {conn}");
    }

    fn connected(&self, server: ServerId, conn: ConnId) -> Option<ConnectResponse> {
        self.seen.iter().rev().find_map(|(s, o)| match o {
            Output::Connected {
                conn: c, response, ..
            } if *s == server && *c == conn => Some(response.clone()),
            _ => None,
        })
    }

    fn send(&mut self, server: ServerId, conn: ConnId, xid: i32, req: Request) {
        self.input(server, |s, now| s.handle_request(now, conn, xid, req));
    }

    /// The reply `server` sent on `conn` to `xid`, if it has.
    fn reply(&self, server: ServerId, conn: ConnId, xid: i32) -> Option<(ErrorCode, i64)> {
        self.seen.iter().find_map(|(s, o)| match o {
            Output::Reply {
                conn: c,
                xid: x,
                err,
                zxid,
                ..
            } if *s == server && *c == conn && *x == xid => Some((*err, *zxid)),
            _ => None,
        })
    }

    /// Where on `server`'s `conn` the reply to `xid` and notifications came, in order.
    fn on_conn(&self, server: ServerId, conn: ConnId) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|(s, o)| match o {
                Output::Reply { conn: c, xid, .. } if *s == server && *c == conn => {
                    Some(format!("reply {xid}"))
                }
                Output::Notify { conn: c, event } if *s == server && *c == conn => {
                    Some(format!("{:?} {}", event.event_type, event.path))
                }
                _ => None,
            })
            .collect()
    }

    fn exists(&mut self, server: ServerId, conn: ConnId, xid: i32, path: &str) -> ErrorCode {
        let req = Request::Exists {
            path: path.into(),
            watch: false,
        };
        self.send(server, conn, xid, req);
        self.reply(server, conn, xid)
            .expect("a read is answered at once")
            .0
    }

    fn stat(&self, server: ServerId, path: &str) -> Option<crate::zk::proto::Stat> {
        self.servers[&server].stat(path)
    }
}

#[test]
fn a_write_on_a_follower_commits_on_the_leader_and_every_server_applies_it() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.send(1, 10, 1, create_req("/a", CreateMode::Persistent));
    let (err, zxid) = net.reply(1, 10, 1).expect("answered once applied");
    assert_eq!(err, ErrorCode::Ok);
    for id in [1, 2, 3] {
        assert_eq!(
            net.stat(id, "/a").map(|s| s.czxid),
            Some(zxid),
            "server {id}"
        );
        assert_eq!(net.servers[&id].last_zxid(), zxid);
    }
}

#[test]
fn the_change_is_reported_once_by_the_leader() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.send(1, 10, 1, create_req("/a", CreateMode::Persistent));
    let reporters: Vec<ServerId> = net
        .seen
        .iter()
        .filter(|(_, o)| matches!(o, Output::Changed(Change::Created { .. })))
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(reporters, vec![LEADER]);
}

#[test]
fn without_a_quorum_a_write_waits_and_commits_once_a_follower_acknowledges() {
    let mut net = Net::new(0);
    net.open(LEADER, 10);
    net.held.extend([1, 2]);
    net.send(LEADER, 10, 1, create_req("/a", CreateMode::Persistent));
    assert_eq!(net.reply(LEADER, 10, 1), None, "one of three logged it");
    assert!(net.stat(LEADER, "/a").is_none());
    net.held.remove(&2);
    net.settle();
    assert_eq!(net.reply(LEADER, 10, 1).map(|r| r.0), Some(ErrorCode::Ok));
    assert!(net.stat(2, "/a").is_some());
    assert!(net.stat(1, "/a").is_none(), "its link still holds");
}

#[test]
fn a_lagging_follower_serves_stale_reads_and_holds_its_own_session_s_next_request() {
    let mut net = Net::new(500);
    net.open(1, 10);
    net.tick_to(600);
    net.open(2, 20);
    net.tick_to(1_200);
    net.send(2, 20, 1, create_req("/a", CreateMode::Persistent));
    assert!(net.stat(LEADER, "/a").is_some(), "committed");
    assert_eq!(net.reply(2, 20, 1), None, "answered once applied here");
    // Another server's client reads the past; the writer's next read waits behind its write.
    assert_eq!(net.exists(1, 10, 1, "/a"), ErrorCode::NoNode);
    net.send(
        2,
        20,
        2,
        Request::Exists {
            path: "/a".into(),
            watch: false,
        },
    );
    assert_eq!(net.reply(2, 20, 2), None);
    net.tick_to(1_700);
    assert_eq!(net.reply(2, 20, 1).map(|r| r.0), Some(ErrorCode::Ok));
    assert_eq!(net.reply(2, 20, 2).map(|r| r.0), Some(ErrorCode::Ok));
    assert_eq!(net.on_conn(2, 20), vec!["reply 1", "reply 2"]);
}

/// A session whose write's reply it never saw moves to a follower that has not applied
/// the write yet: its reads there miss it, by the time until it is due, then have the time
/// since to spare. A session that saw the write connects only where it is applied, so its
/// reads measure nothing; nor does a member that does not measure.
#[test]
fn a_read_measures_how_near_it_came_to_missing_its_session_s_unseen_write() {
    let margins = |net: &Net| -> Vec<(ServerId, i64)> {
        net.seen
            .iter()
            .filter_map(|(s, o)| match o {
                Output::ReadMargin(ms) => Some((*s, *ms)),
                _ => None,
            })
            .collect()
    };
    for measures in [true, false] {
        let mut net = Net::with(500, measures);
        let session = net.open(1, 10);
        let passwd = net.connected(1, 10).unwrap().passwd;
        net.tick_to(600);
        net.send(1, 10, 1, create_req("/a", CreateMode::Persistent));
        let zxid = net.stat(LEADER, "/a").expect("committed").czxid;
        let resume = connect_req(session, passwd.clone(), 1_000);
        net.input(2, |s, now| s.handle_connect(now, 20, &resume));
        assert_eq!(net.exists(2, 20, 1, "/a"), ErrorCode::NoNode);
        net.tick_to(1_200);
        assert_eq!(net.exists(2, 20, 2, "/a"), ErrorCode::Ok);
        let seen = ConnectRequest {
            last_zxid_seen: zxid,
            ..connect_req(session, passwd, 1_000)
        };
        net.input(2, |s, now| s.handle_connect(now, 21, &seen));
        assert_eq!(net.exists(2, 21, 1, "/a"), ErrorCode::Ok);
        let want = if measures {
            vec![(2, -500), (2, 100)]
        } else {
            vec![]
        };
        assert_eq!(margins(&net), want, "measures: {measures}");
    }
}

#[test]
fn a_sync_on_a_lagging_follower_is_answered_once_it_caught_up_with_the_leader() {
    let mut net = Net::new(500);
    net.open(1, 10);
    net.tick_to(600);
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    assert_eq!(net.exists(1, 10, 1, "/a"), ErrorCode::NoNode);
    net.send(1, 10, 2, Request::Sync { path: "/".into() });
    assert_eq!(net.reply(1, 10, 2), None);
    net.tick_to(1_200);
    assert_eq!(net.reply(1, 10, 2).map(|r| r.0), Some(ErrorCode::Ok));
    assert_eq!(net.exists(1, 10, 3, "/a"), ErrorCode::Ok);
}

#[test]
fn a_stalled_follower_applies_nothing_until_its_stall_ends() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.input(1, |s, now| s.stall_apply(now, 3_000));
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    assert_eq!(net.reply(LEADER, 30, 1).map(|r| r.0), Some(ErrorCode::Ok));
    net.tick_to(2_000);
    net.input(1, |s, now| s.wake(now));
    assert!(net.stat(1, "/a").is_none());
    net.tick_to(3_100);
    net.input(1, |s, now| s.wake(now));
    assert!(net.stat(1, "/a").is_some());
}

#[test]
fn a_stall_ends_early_when_it_is_cut_to_zero() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.input(1, |s, now| s.stall_apply(now, 60_000));
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    net.tick_to(1_000);
    assert!(net.stat(1, "/a").is_none());
    net.input(1, |s, now| s.stall_apply(now, 0));
    assert!(net.stat(1, "/a").is_some());
}

#[test]
fn a_follower_fires_its_watches_as_it_applies_before_its_writer_s_reply() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.open(1, 11);
    net.send(
        1,
        11,
        1,
        Request::Exists {
            path: "/a".into(),
            watch: true,
        },
    );
    net.send(
        1,
        10,
        1,
        Request::Exists {
            path: "/a".into(),
            watch: true,
        },
    );
    net.send(1, 10, 2, create_req("/a", CreateMode::Persistent));
    assert_eq!(
        net.on_conn(1, 10),
        vec!["reply 1", "NodeCreated /a", "reply 2"]
    );
    assert_eq!(net.on_conn(1, 11), vec!["reply 1", "NodeCreated /a"]);
    assert!(net.on_conn(LEADER, 10).is_empty());
}

#[test]
fn the_leader_expires_a_follower_s_session_unless_its_touches_keep_it_alive() {
    let mut net = Net::new(0);
    let kept = net.open(1, 10);
    let left = net.open(1, 11);
    net.send(1, 11, 1, create_req("/e", CreateMode::Ephemeral));
    for t in (100..=3_000).step_by(100) {
        net.mono_ms = t;
        net.send(1, 10, t as i32, Request::Ping);
        net.input(1, |s, now| s.handle_timeout(now));
        net.input(LEADER, |s, now| s.handle_timeout(now));
    }
    for id in [1, 2, 3] {
        assert!(net.stat(id, "/e").is_none(), "server {id}");
    }
    let expired: Vec<(ServerId, i64)> = net
        .seen
        .iter()
        .filter_map(|(s, o)| match o {
            Output::Changed(Change::SessionExpired { session, .. }) => Some((*s, *session)),
            _ => None,
        })
        .collect();
    assert_eq!(expired, vec![(LEADER, left)]);
    assert!(net.seen.contains(&(1, Output::Close { conn: 11 })));
    assert_eq!(net.exists(1, 10, 99_999, "/"), ErrorCode::Ok);
    assert!(net.servers[&LEADER].session_deadline(kept).is_some());
}

#[test]
fn a_write_on_the_connection_a_session_moved_away_from_closes_it_unanswered() {
    let mut net = Net::new(0);
    let session = net.open(1, 10);
    let passwd = net.connected(1, 10).unwrap().passwd;
    let resume = connect_req(session, passwd, 1_000);
    net.input(2, |s, now| s.handle_connect(now, 20, &resume));
    assert_eq!(net.connected(2, 20).map(|c| c.session_id), Some(session));
    net.send(1, 10, 1, create_req("/old", CreateMode::Persistent));
    // The leader refuses it with SessionMoved (a zxid taken); the old server closes the
    // connection rather than answer, as 3.8 does.
    assert_eq!(net.reply(1, 10, 1), None);
    assert!(net.seen.contains(&(1, Output::Close { conn: 10 })));
    net.send(2, 20, 1, create_req("/new", CreateMode::Persistent));
    assert_eq!(net.reply(2, 20, 1).map(|r| r.0), Some(ErrorCode::Ok));
    assert!(net.stat(LEADER, "/old").is_none());
}

#[test]
fn a_resume_with_a_wrong_password_or_of_an_unknown_session_is_refused_at_once() {
    let mut net = Net::new(0);
    let session = net.open(1, 10);
    for (conn, id) in [(20, session), (21, session ^ 0x7f)] {
        let req = connect_req(id, vec![9; 16], 1_000);
        net.input(2, |s, now| s.handle_connect(now, conn, &req));
        assert_eq!(net.connected(2, conn).map(|c| c.timeout_ms), Some(0));
    }
}

#[test]
fn a_follower_that_loses_its_leader_drops_its_clients_and_rejoins_the_leader_a_quorum_follows() {
    let mut net = Net::new(0);
    net.open(1, 10);
    net.input(1, |s, now| s.peer_down(now, LEADER));
    assert!(net.seen.contains(&(1, Output::Close { conn: 10 })));
    // The others answer its vote with theirs: it follows the leader they follow.
    assert_eq!(
        net.servers[&1].quorum_role(),
        Some(QuorumRole::Follow(LEADER))
    );
    let req = connect_req(0, vec![0; 16], 1_000);
    net.input(1, |s, now| s.handle_connect(now, 11, &req));
    assert_eq!(net.connected(1, 11), None, "not before it is up to date");
    assert!(net.seen.contains(&(1, Output::Close { conn: 11 })));
    net.input(1, |s, _| s.peer_up(LEADER));
    assert!(net.open(1, 12) != 0);
    assert_eq!(net.servers[&LEADER].quorum_role(), Some(QuorumRole::Lead));
}

#[test]
fn a_leader_without_a_quorum_serves_reads_and_syncs_until_its_tick_then_looks_for_a_leader() {
    let mut net = Net::new(0);
    net.open(LEADER, 30);
    net.partition(LEADER, 1);
    net.partition(LEADER, 2);
    // ZOOKEEPER-1675's window: nothing it proposes can commit, but until its tick it still
    // answers reads and a sync with nothing outstanding.
    assert_eq!(net.exists(LEADER, 30, 1, "/"), ErrorCode::Ok);
    net.send(LEADER, 30, 2, Request::Sync { path: "/".into() });
    assert_eq!(net.reply(LEADER, 30, 2).map(|r| r.0), Some(ErrorCode::Ok));
    assert!(!net.seen.contains(&(LEADER, Output::Close { conn: 30 })));
    net.tick_to(net.mono_ms + TICK);
    assert!(net.seen.contains(&(LEADER, Output::Close { conn: 30 })));
    assert_eq!(net.servers[&LEADER].quorum_role(), Some(QuorumRole::Look));
}

#[test]
fn followers_that_lose_their_leader_elect_the_most_complete_log_and_start_a_new_epoch() {
    let mut net = Net::new(0);
    net.open(LEADER, 30);
    // Follower 1 logs the write, 2 never hears of it, and the leader is cut off before it
    // hears a quorum logged it.
    net.held.insert(2);
    net.cut.insert((1, LEADER));
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    net.wire.retain(|(_, to, _)| *to != 2);
    net.held.remove(&2);
    net.partition(LEADER, 1);
    net.partition(LEADER, 2);
    // 1's vote reaches 2 when 1 sends it again, at its tick; they decide at the next.
    net.tick_to(net.mono_ms + 2 * TICK);
    assert_eq!(
        net.servers[&1].quorum_role(),
        Some(QuorumRole::Lead),
        "1 logged more"
    );
    assert_eq!(net.servers[&2].quorum_role(), Some(QuorumRole::Follow(1)));
    net.input(2, |s, _| s.peer_up(1));
    // The write a quorum (1 and 2 now) logged commits in the new epoch; its writer, on the
    // old leader, never hears so.
    assert!(net.stat(1, "/a").is_some() && net.stat(2, "/a").is_some());
    assert_eq!(net.stat(LEADER, "/a"), None);
    assert_eq!(net.reply(LEADER, 30, 1), None);
    let new = net.open(2, 20);
    net.send(2, 20, 1, create_req("/b", CreateMode::Persistent));
    assert_eq!(net.reply(2, 20, 1).map(|r| r.1 >> 32), Some(2), "epoch 2");
    assert!(new != 0);
}

#[test]
fn a_write_only_the_old_leader_logged_is_truncated_when_it_rejoins() {
    let mut net = Net::new(0);
    net.open(LEADER, 30);
    net.partition(LEADER, 1);
    net.partition(LEADER, 2);
    net.send(LEADER, 30, 1, create_req("/lost", CreateMode::Persistent));
    net.tick_to(net.mono_ms + 2 * TICK);
    assert_eq!(net.servers[&2].quorum_role(), Some(QuorumRole::Lead));
    net.input(1, |s, _| s.peer_up(2));
    // The old leader, looking again, joins the new one, which tells it to drop the write.
    net.bring_the_old_leader_back();
    assert_eq!(
        net.servers[&LEADER].quorum_role(),
        Some(QuorumRole::Follow(2))
    );
    net.input(LEADER, |s, _| s.peer_up(2));
    net.open(2, 20);
    net.send(2, 20, 1, create_req("/kept", CreateMode::Persistent));
    for id in [1, 2, LEADER] {
        assert!(net.stat(id, "/lost").is_none(), "server {id}");
        assert!(net.stat(id, "/kept").is_some(), "server {id}");
    }
}

/// A member that missed writes of an old epoch, deciding to follow a leader that has
/// started a new one, gets the new epoch's first write only after the history it lacks:
/// taken before it, that write would count as the next it expects, and its history as
/// known (found by a guided campaign on a user's lock over tokio-zookeeper: its replica
/// kept a node deleted long before, and numbered new sequential nodes from the past).
#[test]
fn a_member_joining_a_new_epoch_gets_its_first_write_after_what_it_missed() {
    let mut net = Net::new(0);
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    net.missed_by(1, |net| net.send(LEADER, 30, 2, delete_req("/a")));
    // The leader is cut off: 2, whose log is longer, leads 1, which does not join yet.
    net.partition(LEADER, 1);
    net.partition(LEADER, 2);
    net.tick_to(net.mono_ms + 2 * TICK);
    assert_eq!(net.servers[&2].quorum_role(), Some(QuorumRole::Lead));
    assert_eq!(net.servers[&1].quorum_role(), Some(QuorumRole::Follow(2)));
    // The old leader comes back and joins 2, which starts epoch 2 with it.
    net.bring_the_old_leader_back();
    net.input(LEADER, |s, _| s.peer_up(2));
    // The new epoch's first write (a session), then 1 joins.
    net.open(2, 20);
    net.input(1, |s, _| s.peer_up(2));
    net.send(2, 20, 1, create_req("/b", CreateMode::Persistent));
    for id in [1, 2, LEADER] {
        assert!(net.stat(id, "/a").is_none(), "server {id} kept /a");
        assert!(net.stat(id, "/b").is_some(), "server {id}");
    }
}

#[test]
fn a_new_leader_takes_over_every_session_with_a_fresh_timeout() {
    let mut net = Net::new(0);
    let session = net.open(1, 10);
    let passwd = net.connected(1, 10).unwrap().passwd;
    net.tick_to(500);
    net.partition(LEADER, 1);
    net.partition(LEADER, 2);
    net.tick_to(1_200);
    assert_eq!(net.servers[&2].quorum_role(), Some(QuorumRole::Lead));
    net.input(1, |s, _| s.peer_up(2));
    // Past the deadline its last touch (by 500) set, but not past the new leader's.
    net.tick_to(1_900);
    let req = connect_req(session, passwd.clone(), 1_000);
    net.input(1, |s, now| s.handle_connect(now, 11, &req));
    assert!(net.connected(1, 11).is_some_and(|c| c.timeout_ms > 0));
    // Unheard from for a timeout since, it expires.
    net.input(1, |s, now| s.handle_disconnect(now, 11));
    net.tick_to(3_200);
    let req = connect_req(session, passwd, 1_000);
    net.input(2, |s, now| s.handle_connect(now, 21, &req));
    assert_eq!(net.connected(2, 21).map(|c| c.timeout_ms), Some(0));
}

#[test]
fn a_restarted_member_looks_for_its_leader_and_follows_the_one_a_quorum_follows() {
    let mut net = Net::new(0);
    net.input(1, |s, now| s.restart(now));
    // The others answer its vote with the one they decided on.
    assert_eq!(
        net.servers[&1].quorum_role(),
        Some(QuorumRole::Follow(LEADER))
    );
    net.input(1, |s, _| s.peer_up(LEADER));
    assert!(net.open(1, 10) != 0);
}

#[test]
fn a_follower_that_missed_proposals_asks_for_them_and_catches_up() {
    let mut net = Net::new(0);
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    // Follower 1 loses what the leader sent it, then hears of a later write.
    net.missed_by(1, |net| {
        net.send(LEADER, 30, 2, create_req("/b", CreateMode::Persistent))
    });
    net.send(LEADER, 30, 3, delete_req("/a"));
    assert!(net.stat(1, "/b").is_some() && net.stat(1, "/a").is_none());
    let zxids: BTreeSet<i64> = [1, 2, 3].map(|id| net.servers[&id].last_zxid()).into();
    assert_eq!(zxids.len(), 1, "every server applied the same log");
}

impl Net {
    /// Cuts `a` off from `b` both ways; both see their link go.
    fn partition(&mut self, a: ServerId, b: ServerId) {
        self.cut.extend([(a, b), (b, a)]);
        self.input(a, |s, now| s.peer_down(now, b));
        self.input(b, |s, now| s.peer_down(now, a));
    }

    fn heal(&mut self, a: ServerId, b: ServerId) {
        self.cut.remove(&(a, b));
        self.cut.remove(&(b, a));
    }

    /// What `f` makes the others send `server` is lost on the way (a broken link).
    fn missed_by(&mut self, server: ServerId, f: impl FnOnce(&mut Net)) {
        self.held.insert(server);
        f(self);
        self.wire.retain(|(_, to, _)| *to != server);
        self.held.remove(&server);
    }

    /// Heals the first leader's links, and gives it the ticks to look for the leader the
    /// others elected meanwhile.
    fn bring_the_old_leader_back(&mut self) {
        self.heal(LEADER, 1);
        self.heal(LEADER, 2);
        self.tick_to(self.mono_ms + 3 * TICK);
    }

    /// Advances the clock tick by tick to `t`, every server ticking.
    fn tick_to(&mut self, t: u64) {
        while self.mono_ms < t {
            self.mono_ms = (self.mono_ms + TICK).min(t);
            for id in [1, 2, 3] {
                self.input(id, |s, now| s.handle_timeout(now));
            }
        }
    }
}

#[test]
fn the_leader_pings_only_followers_that_touched_nothing_unasked_in_the_last_half_tick() {
    // Times stay well within the sessions' timeout (1 s): no expiry writes.
    let mut net = Net::new(0);
    net.open(1, 10);
    net.open(LEADER, 30);
    net.tick_to(200);
    assert!(
        !net.servers[&1].ticks(),
        "a linked follower's tick has nothing to do"
    );
    assert!(net.servers[&LEADER].ticks());
    // Quiet ticks: each follower answers each ping with its touches (Learner.ping).
    let pinged = ["3→1 Ping", "3→2 Ping", "1→3 Touch", "2→3 Touch"];
    for t in [300, 400] {
        net.delivered.clear();
        net.tick_to(t);
        assert_eq!(net.heartbeats(), pinged, "at {t}");
    }
    // Half a tick after their last, the followers touch unasked with their acks.
    net.mono_ms = 420;
    net.delivered.clear();
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    assert!(net.heartbeats().is_empty(), "{:?}", net.delivered);
    net.mono_ms = 460;
    net.send(LEADER, 30, 2, create_req("/b", CreateMode::Persistent));
    assert_eq!(net.heartbeats(), ["1→3 Touch", "2→3 Touch"]);
    // Touched in the last half tick: no ping. The tick after, pings again.
    net.delivered.clear();
    net.tick_to(500);
    assert!(net.heartbeats().is_empty(), "{:?}", net.delivered);
    net.tick_to(600);
    assert_eq!(net.heartbeats(), pinged);
    // A follower that lost its leader ticks again, to give up a role it cannot take up.
    net.partition(1, LEADER);
    assert!(net.servers[&1].ticks());
}

impl Net {
    /// The pings and touches among the peer messages delivered.
    fn heartbeats(&self) -> Vec<&str> {
        let beats = self.delivered.iter().map(String::as_str);
        beats
            .filter(|m| m.ends_with("Ping") || m.ends_with("Touch"))
            .collect()
    }
}

#[test]
fn a_lagging_follower_asks_to_be_woken_only_for_a_commit_with_something_to_say_there() {
    let mut net = Net::new(500);
    net.open(1, 10);
    net.tick_to(600);
    net.open(LEADER, 30);
    assert_eq!(
        net.servers[&1].next_apply_ms(),
        None,
        "the new session says nothing on 1"
    );
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    assert_eq!(
        net.servers[&1].next_apply_ms(),
        None,
        "no watch on 1 sees /a"
    );
    let watch = Request::Exists {
        path: "/b".into(),
        watch: true,
    };
    net.send(1, 10, 1, watch);
    net.send(LEADER, 30, 2, create_req("/b", CreateMode::Persistent));
    assert_eq!(
        net.servers[&1].next_apply_ms(),
        Some(1_100),
        "its watch fires"
    );
    // Woken then, it applies everything due in order: the quiet writes too.
    assert!(net.stat(1, "/a").is_none());
    net.mono_ms = 1_100;
    net.input(1, |s, now| s.wake(now));
    assert!(net.stat(1, "/a").is_some() && net.stat(1, "/b").is_some());
    assert_eq!(net.on_conn(1, 10), vec!["reply 1", "NodeCreated /b"]);
    assert_eq!(net.servers[&1].next_apply_ms(), None);
}

#[test]
fn a_stall_that_starts_after_a_commit_s_lag_passed_does_not_hold_it_back() {
    let mut net = Net::new(100);
    net.open(1, 10);
    net.tick_to(200);
    net.open(LEADER, 30);
    net.send(LEADER, 30, 1, create_req("/a", CreateMode::Persistent));
    assert_eq!(
        net.servers[&1].next_apply_ms(),
        None,
        "nothing on 1 needs /a now"
    );
    net.mono_ms = 350;
    net.input(1, |s, now| s.stall_apply(now, 10_000));
    assert_eq!(net.exists(1, 10, 1, "/a"), ErrorCode::Ok);
}
