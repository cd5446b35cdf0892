//! What the client keeps about its session across connections, the timers derived from the
//! negotiated timeout, and the state the handles share with the driver.

use tokio::sync::mpsc::UnboundedSender;

use super::config::ResumeZxid;
use super::error::ZkError;
use super::watches::{WatchRegistry, session_event};
use crate::zk::proto::{ConnectRequest, ConnectResponse, KeeperState, WatcherEvent};

/// The password a new session connects with (the Java client sends 16 zero bytes).
const NEW_SESSION_PASSWD: [u8; 16] = [0; 16];

/// The server answered a reconnect with timeout <= 0: the session is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Expired;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Session {
    requested_timeout_ms: i32,
    negotiated_timeout_ms: u32,
    id: i64,
    passwd: Vec<u8>,
    /// Highest zxid seen in a reply header (notifications carry -1 and do not count).
    last_zxid: i64,
    /// What a reconnect sends of `last_zxid`.
    resume_zxid: ResumeZxid,
}

impl Session {
    pub(super) fn new(requested_timeout_ms: u32, resume_zxid: ResumeZxid) -> Self {
        let requested = i32::try_from(requested_timeout_ms).unwrap_or(i32::MAX);
        Session {
            requested_timeout_ms: requested,
            negotiated_timeout_ms: requested_timeout_ms,
            id: 0,
            passwd: NEW_SESSION_PASSWD.to_vec(),
            last_zxid: 0,
            resume_zxid,
        }
    }

    pub(super) fn id(&self) -> i64 {
        self.id
    }

    pub(super) fn last_zxid(&self) -> i64 {
        self.last_zxid
    }

    pub(super) fn observe_zxid(&mut self, zxid: i64) {
        if zxid > self.last_zxid {
            self.last_zxid = zxid;
        }
    }

    /// The first packet of every connection: new session (id 0) or a resume of this one.
    pub(super) fn connect_request(&self) -> ConnectRequest {
        ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: match self.resume_zxid {
                ResumeZxid::LastSeen => self.last_zxid,
                ResumeZxid::Zero => 0,
            },
            timeout_ms: self.requested_timeout_ms,
            session_id: self.id,
            passwd: self.passwd.clone(),
            read_only: false,
        }
    }

    /// Takes the server's answer to a connect: the session it granted and its timeout.
    pub(super) fn accept(&mut self, response: &ConnectResponse) -> Result<(), Expired> {
        let Ok(timeout) = u32::try_from(response.timeout_ms) else {
            return Err(Expired);
        };
        if timeout == 0 {
            return Err(Expired);
        }
        self.negotiated_timeout_ms = timeout;
        self.id = response.session_id;
        self.passwd = response.passwd.clone();
        Ok(())
    }

    /// Silence from the server longer than this drops the connection (Java: 2/3 of the
    /// negotiated timeout, leaving a third to reconnect before the server expires us).
    pub(super) fn read_timeout_ms(&self) -> u64 {
        u64::from(self.negotiated_timeout_ms) * 2 / 3
    }

    /// Nothing sent for this long sends a ping, so the server never sees us idle for more
    /// than half the read timeout (rounded up to a whole ms, as a timer wheel would).
    pub(super) fn ping_interval_ms(&self) -> u64 {
        self.read_timeout_ms().div_ceil(2)
    }
}

/// State the `ZkClient` handles read and the driver writes.
#[derive(Debug, Default)]
pub(super) struct Shared {
    pub(super) session_id: i64,
    /// Set once the client is over for good (SessionExpired or Closed); later calls fail so.
    pub(super) terminal: Option<ZkError>,
    /// Receivers of session events (`ZkClient::events`).
    pub(super) subscribers: Vec<UnboundedSender<WatcherEvent>>,
    /// Receivers of every event, node and session, in arrival order (`ZkClient::all_events`).
    pub(super) all_subscribers: Vec<UnboundedSender<WatcherEvent>>,
}

impl Shared {
    /// The error a call gets when the driver can no longer answer it.
    pub(super) fn gone(&self) -> ZkError {
        self.terminal.clone().unwrap_or(ZkError::Closed)
    }

    /// Hands an event to the `all_events` subscribers still listening.
    pub(super) fn publish(&mut self, event: &WatcherEvent) {
        self.all_subscribers
            .retain(|tx| tx.send(event.clone()).is_ok());
    }
}

/// Where session events go: the `events()` subscribers and every registered watch.
pub(super) fn announce(shared: &mut Shared, watches: &mut WatchRegistry, state: KeeperState) {
    let event = session_event(state);
    shared
        .subscribers
        .retain(|tx| tx.send(event.clone()).is_ok());
    shared.publish(&event);
    watches.broadcast(&event);
}

/// Ends the client for good: the last session event goes out, then every watch and event
/// stream ends and later calls fail with `terminal`.
pub(super) fn finish(
    shared: &mut Shared,
    watches: &mut WatchRegistry,
    state: KeeperState,
    terminal: ZkError,
) {
    announce(shared, watches, state);
    watches.clear();
    shared.subscribers.clear();
    shared.all_subscribers.clear();
    shared.terminal = Some(terminal);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(timeout_ms: i32) -> ConnectResponse {
        ConnectResponse {
            protocol_version: 0,
            timeout_ms,
            session_id: 0x0100_0000_0000_0001,
            passwd: vec![9; 16],
            read_only: false,
        }
    }

    #[test]
    fn timers_follow_the_negotiated_timeout() {
        let mut session = Session::new(30_000, ResumeZxid::LastSeen);
        session.accept(&response(6_000)).unwrap();
        assert_eq!(session.read_timeout_ms(), 4_000);
        assert_eq!(session.ping_interval_ms(), 2_000);
        session.accept(&response(200)).unwrap();
        assert_eq!(session.read_timeout_ms(), 133);
        assert_eq!(session.ping_interval_ms(), 67);
    }

    #[test]
    fn reconnect_carries_id_password_and_last_zxid() {
        let mut session = Session::new(6_000, ResumeZxid::LastSeen);
        assert_eq!(session.connect_request().session_id, 0);
        assert_eq!(session.connect_request().passwd, vec![0; 16]);
        session.accept(&response(6_000)).unwrap();
        session.observe_zxid(42);
        session.observe_zxid(-1);
        let request = session.connect_request();
        assert_eq!(request.session_id, 0x0100_0000_0000_0001);
        assert_eq!(request.passwd, vec![9; 16]);
        assert_eq!(request.last_zxid_seen, 42);
        assert_eq!(request.timeout_ms, 6_000);
    }

    #[test]
    fn the_zero_flaw_resumes_with_zxid_zero_whatever_it_saw() {
        let mut session = Session::new(6_000, ResumeZxid::Zero);
        session.accept(&response(6_000)).unwrap();
        session.observe_zxid(42);
        assert_eq!(session.last_zxid(), 42);
        assert_eq!(session.connect_request().last_zxid_seen, 0);
    }

    #[test]
    fn zero_or_negative_timeout_means_expired() {
        let mut session = Session::new(6_000, ResumeZxid::LastSeen);
        assert_eq!(session.accept(&response(0)), Err(Expired));
        assert_eq!(session.accept(&response(-1)), Err(Expired));
    }
}
