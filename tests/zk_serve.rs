//! `locksim serve zk` on a real socket: it survives malformed input, and real ZooKeeper
//! clients (zkCli.sh from the Debian `zookeeper` package, which ./test.sh installs) work
//! against it. Real sockets and real time: the deliberate exception to simulated tests.

use locksim::zk::client::{ConnectFuture, ZkClient, ZkConfig};
use locksim::zk::proto::CreateMode;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `locksim serve zk` process on a free loopback port, killed on drop.
struct Served {
    child: Child,
    addr: SocketAddr,
}

impl Served {
    fn start() -> Served {
        Served::start_with(&[])
    }

    fn start_with(extra: &[&str]) -> Served {
        Served::listening(extra).0
    }

    /// The server with `extra` arguments, and the addresses its first line gives.
    fn listening(extra: &[&str]) -> (Served, Vec<SocketAddr>) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
            .args(["serve", "zk", "--port", "0", "--tick-ms", "100"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("locksim starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the listening line");
        let addrs: Vec<SocketAddr> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        let addr = *addrs
            .first()
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        (Served { child, addr }, addrs)
    }

    fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Stops the server and returns what it logged.
    fn stop_and_log(mut self) -> String {
        let _ = self.child.kill();
        let mut log = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut log);
        }
        log
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `locksim serve zk` with `args`, which it must refuse at startup, and returns its
/// stderr. A server that starts instead is killed after a few seconds and fails the test.
fn refused_at_startup(args: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["serve", "zk", "--port", "0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("locksim starts");
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve zk {args:?} started serving instead of refusing its arguments");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    stderr
}

/// Sends `bytes` on a fresh connection and reports whether the server closed it.
fn server_closes_after(addr: SocketAddr, bytes: &[u8]) -> bool {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(bytes).expect("write");
    let mut buf = [0u8; 64];
    matches!(stream.read(&mut buf), Ok(0) | Err(_))
}

/// Runs `script` with a session of locksim's own client on the server at `addr`.
fn with_session<F: std::future::Future<Output = ()>>(
    addr: SocketAddr,
    script: impl FnOnce(ZkClient) -> F,
) {
    on_local(async {
        let client = session(move || Box::pin(tokio::net::TcpStream::connect(addr))).await;
        script(client.clone()).await;
        client.close().await;
    });
}

/// Runs `body` on a current-thread runtime's LocalSet, where a client's driver can run.
fn on_local<F: std::future::Future>(body: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tokio::task::LocalSet::new().block_on(&runtime, body)
}

/// A session of 2 s through `connector`, reconnecting after 20 ms, its driver spawned.
async fn session(
    connector: impl Fn() -> ConnectFuture<tokio::net::TcpStream> + 'static,
) -> ZkClient {
    let mut config = ZkConfig::with_session_timeout(2000);
    config.reconnect_backoff_ms = 20;
    let (client, driver) = ZkClient::connect(connector, config)
        .await
        .expect("a session");
    tokio::task::spawn_local(driver.run());
    client
}

/// A create then a read through locksim's own client: the server still serves sessions.
fn session_works(addr: SocketAddr, path: &'static str) {
    with_session(addr, |client| async move {
        let created = client
            .create(path, b"still here", CreateMode::Persistent)
            .await
            .expect("create");
        assert_eq!(created, path);
        let (data, _) = client.get_data(path).await.expect("get");
        assert_eq!(data, b"still here");
    });
}

/// Opens a session on a raw connection, sends `packet` (a request with xid `xid`) and asserts
/// the answer ZooKeeper 3.8 gives an op it does not serve: {xid, zxid -1, err -6}, then the
/// connection closes.
fn assert_unimplemented_then_closed(addr: SocketAddr, xid: u8, packet: &[u8]) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(&connect_request()).unwrap();
    let mut response = [0u8; 41];
    stream.read_exact(&mut response).expect("connect response");
    stream.write_all(packet).unwrap();
    let mut reply = [0u8; 20];
    stream
        .read_exact(&mut reply)
        .expect("an Unimplemented reply");
    let mut expected =
        *b"\x00\x00\x00\x10\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfa";
    expected[7] = xid;
    assert_eq!(reply, expected);
    let mut rest = [0u8; 8];
    assert!(
        matches!(stream.read(&mut rest), Ok(0) | Err(_)),
        "then the connection closes"
    );
}

#[test]
fn an_unsupported_op_gets_unimplemented_then_its_connection_closes_as_zookeeper_does() {
    let served = Served::start();
    // xid 7, op 99, then a path.
    let packet = b"\x00\x00\x00\x0d\x00\x00\x00\x07\x00\x00\x00\x63\x00\x00\x00\x01/";
    assert_unimplemented_then_closed(served.addr, 7, packet);
    session_works(served.addr, "/after-unimplemented");
}

#[test]
fn lose_reply_every_applies_the_create_and_drops_its_reply() {
    let served = Served::start_with(&["--lose-reply-every", "2"]);
    with_session(served.addr, |client| async move {
        let first = client.create("/one", b"", CreateMode::Persistent).await;
        assert_eq!(first.as_deref(), Ok("/one"));
        let second = client.create("/two", b"", CreateMode::Persistent).await;
        assert_eq!(second, Err(locksim::zk::client::ZkError::ConnectionLoss));
        // The create was applied: once the client has reconnected, the node is there.
        let mut found = None;
        for _ in 0..100 {
            match client.exists("/two").await {
                Ok(stat) => {
                    found = stat;
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
        assert!(found.is_some(), "the lost create was applied");
    });
}

#[test]
fn malformed_and_truncated_requests_close_only_their_connection() {
    let mut served = Served::start();
    // A negative frame length, a frame far over the limit, and a connect request cut short.
    assert!(server_closes_after(
        served.addr,
        &[0xff, 0xff, 0xff, 0xf0, 1, 2, 3]
    ));
    assert!(server_closes_after(served.addr, &[0x7f, 0xff, 0xff, 0xff]));
    assert!(server_closes_after(
        served.addr,
        b"\x00\x00\x00\x05\x00\x00\x00\x00\x00"
    ));
    // Garbage where the connect request should be.
    assert!(server_closes_after(served.addr, b"\x00\x00\x00\x04GET "));
    // A truncated packet whose client just goes away.
    drop(TcpStream::connect(served.addr).and_then(|mut s| s.write_all(b"\x00\x00\x00\x2d\x00")));
    assert!(
        served.is_running(),
        "the server must survive malformed input"
    );
    session_works(served.addr, "/after-garbage");
    assert!(served.is_running());
    let log = served.stop_and_log();
    assert!(
        log.matches("malformed packet").count() >= 4,
        "each closed connection has its log line:\n{log}"
    );
}

/// A connect request for a new session, framed.
fn connect_request() -> Vec<u8> {
    locksim::zk::proto::encode_connect_request(&locksim::zk::proto::ConnectRequest {
        protocol_version: 0,
        last_zxid_seen: 0,
        timeout_ms: 2000,
        session_id: 0,
        passwd: vec![0; 16],
        read_only: false,
    })
}

#[test]
fn frames_past_jute_maxbuffer_close_their_connection_before_the_body_arrives() {
    let mut served = Served::start();
    // ZooKeeper 3.8's default, 0xfffff: one byte more is refused on its length alone (no
    // body sent), after a session was set up or before.
    let mut over = connect_request();
    over.extend_from_slice(&0x100000u32.to_be_bytes());
    assert!(server_closes_after(served.addr, &over));
    assert!(server_closes_after(served.addr, &0x100000u32.to_be_bytes()));
    assert!(server_closes_after(served.addr, &i32::MIN.to_be_bytes()));
    // The largest frame waits for its body; many such cost no memory until it comes.
    let waiting: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut stream = TcpStream::connect(served.addr).expect("connect");
            stream.write_all(&0xfffffu32.to_be_bytes()).unwrap();
            stream
        })
        .collect();
    assert!(served.is_running());
    session_works(served.addr, "/after-big-frames");
    drop(waiting);
    let log = served.stop_and_log();
    assert!(
        log.matches("past jute.maxbuffer (1048575)").count() >= 3,
        "each closed connection has its log line:\n{log}"
    );
}

#[test]
fn jute_maxbuffer_is_a_flag() {
    let mut served = Served::start_with(&["--jute-maxbuffer", "100"]);
    let mut stream = TcpStream::connect(served.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(&connect_request()).unwrap();
    let mut response = [0u8; 41];
    stream.read_exact(&mut response).expect("connect response");
    // A frame one byte past the limit.
    let mut create = 101u32.to_be_bytes().to_vec();
    create.extend_from_slice(&[0; 101]);
    stream.write_all(&create).unwrap();
    let mut rest = [0u8; 8];
    assert!(
        matches!(stream.read(&mut rest), Ok(0) | Err(_)),
        "the connection closes"
    );
    assert!(served.is_running());
    session_works(served.addr, "/small");
    for value in ["0", "-1", "2147483648", "1mb"] {
        let stderr = refused_at_startup(&[&format!("--jute-maxbuffer={value}")]);
        assert!(stderr.contains("--jute-maxbuffer"), "{stderr}");
    }
}

fn zk_cli(addr: SocketAddr, command: &[&str]) -> String {
    let script = "/usr/share/zookeeper/bin/zkCli.sh";
    assert!(
        std::path::Path::new(script).exists(),
        "{script} not found: install the Debian package `zookeeper` (./test.sh does)"
    );
    let output = Command::new(script)
        .arg("-server")
        .arg(addr.to_string())
        .args(command)
        .output()
        .expect("zkCli.sh runs");
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

#[test]
fn zkcli_works_against_serve_zk() {
    let served = Served::start();
    let a = served.addr;
    assert!(zk_cli(a, &["create", "/app", "v1"]).contains("Created /app"));
    let out = zk_cli(a, &["create", "-e", "-s", "/app/member-", "m"]);
    assert!(out.contains("Created /app/member-0000000000"), "{out}");
    let out = zk_cli(a, &["ls", "/"]);
    assert!(out.contains("[app]") || out.contains("app"), "{out}");
    assert!(
        zk_cli(a, &["get", "/app"])
            .lines()
            .any(|l| l.trim() == "v1")
    );
    zk_cli(a, &["set", "/app", "v2"]);
    assert!(
        zk_cli(a, &["get", "/app"])
            .lines()
            .any(|l| l.trim() == "v2")
    );
    let stat = zk_cli(a, &["stat", "/app"]);
    assert!(stat.contains("dataVersion = 1"), "{stat}");
    assert!(stat.contains("dataLength = 2"), "{stat}");
    // The ephemeral member went with its zkCli session, so /app is empty and deletable.
    assert!(zk_cli(a, &["stat", "/app"]).contains("numChildren = 0"));
    zk_cli(a, &["delete", "/app"]);
    let out = zk_cli(a, &["ls", "/app"]);
    assert!(out.contains("Node does not exist"), "{out}");
}

#[test]
fn session_timeouts_beyond_a_java_int_are_refused_at_startup() {
    // u64::MAX was once accepted: the client was told i32::MAX and the session expired at
    // the next tick, its deadline having wrapped.
    for flag in ["--min-session-timeout-ms", "--max-session-timeout-ms"] {
        for value in ["18446744073709551615", "2147483648"] {
            let stderr = refused_at_startup(&[flag, value]);
            assert!(
                stderr.contains(flag) && stderr.contains("2147483647"),
                "names the option and the limit: {stderr}"
            );
        }
    }
}

#[test]
fn the_largest_session_timeout_is_granted_and_lasts() {
    let limit = i32::MAX.to_string();
    let served = Served::start_with(&[
        "--min-session-timeout-ms",
        &limit,
        "--max-session-timeout-ms",
        &limit,
    ]);
    with_session(served.addr, |client| async move {
        // Several ticks of 100 ms: a session whose deadline overflowed would be gone.
        tokio::time::sleep(Duration::from_millis(500)).await;
        client
            .create("/still-alive", b"", CreateMode::Ephemeral)
            .await
            .expect("the session outlives a few ticks");
    });
}

#[test]
fn a_watch_event_and_the_reply_after_it_are_not_held_back_by_nagle() {
    let served = Served::start();
    with_session(served.addr, |client| async move {
        client
            .create("/nagle", b"", CreateMode::Persistent)
            .await
            .expect("create");
        let mut exchanges = Vec::new();
        for _ in 0..9 {
            let started = Instant::now();
            let (_, _, mut watch) = client.get_data_watch("/nagle").await.expect("get");
            client.set_data("/nagle", b"x", -1).await.expect("set");
            watch.next().await.expect("the watch event");
            exchanges.push(started.elapsed());
        }
        exchanges.sort();
        let median = exchanges[exchanges.len() / 2];
        // The set's watch event and its reply are two writes: without TCP_NODELAY the reply
        // waits for the client's delayed ACK of the event, about 40 ms on Linux. Loopback
        // takes well under a millisecond, so 20 ms leaves room for a loaded machine.
        assert!(
            median < Duration::from_millis(20),
            "median get(watch)+set took {median:?} (all: {exchanges:?}): Nagle's delay?"
        );
    });
}

/// `serve zk --servers 3` with a 100 ms tick, losing the reply to every create (and its
/// connection), and its members' addresses.
fn start_ensemble() -> (Served, Vec<SocketAddr>) {
    let (served, members) = Served::listening(&["--servers", "3", "--lose-reply-every", "1"]);
    assert_eq!(members.len(), 3, "{members:?}");
    (served, members)
}

#[test]
fn a_session_on_a_served_ensemble_moves_to_another_member_and_every_member_has_its_writes() {
    let (_served, members) = start_ensemble();
    on_local(async {
        // One session whose every connect attempt goes to the next member: zk1, then zk2.
        let attempts = std::rc::Rc::new(std::cell::Cell::new(0usize));
        let client = session({
            let (members, attempts) = (members.clone(), attempts.clone());
            move || {
                let addr = members[attempts.get() % members.len()];
                attempts.set(attempts.get() + 1);
                Box::pin(tokio::net::TcpStream::connect(addr))
            }
        })
        .await;
        let session_id = client.session_id();
        // zk1 applies the create and drops the connection instead of replying: the session
        // moves to zk2, where (synced) it finds its node, and writes it.
        let path = "/ensemble";
        let created = client.create(path, b"one", CreateMode::Persistent).await;
        assert!(created.is_err(), "the reply is lost: {created:?}");
        // Calls fail with ConnectionLoss until the session is back (on zk2).
        let mut synced = client.sync(path).await;
        for _ in 0..100 {
            if synced.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            synced = client.sync(path).await;
        }
        synced.expect("sync on zk2");
        assert_eq!(client.get_data(path).await.expect("get").0, b"one");
        client
            .set_data(path, b"two", -1)
            .await
            .expect("set_data on zk2");
        assert_eq!(client.session_id(), session_id, "the same session");
        assert_eq!(attempts.get(), 2, "connected to zk1, then zk2");
        // Every member has the write once synced: a session on zk3 reads it.
        let zk3 = members[2];
        let other = session(move || Box::pin(tokio::net::TcpStream::connect(zk3))).await;
        other.sync(path).await.expect("sync on zk3");
        assert_eq!(other.get_data(path).await.expect("get").0, b"two");
        other.close().await;
        client.close().await;
    });
}

#[test]
fn an_even_ensemble_is_refused_at_startup() {
    for servers in ["2", "4", "7"] {
        let stderr = refused_at_startup(&["--servers", servers]);
        assert!(stderr.contains("--servers"), "{stderr}");
    }
}
