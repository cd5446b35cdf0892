//! `locksim serve redis` on a real socket: a malformed request closes only its connection,
//! one core serves every connection, the active expiry runs, and the real `redis-cli` (from
//! the Debian package `redis-tools`, which `redis-server` brings) works against it. Real
//! sockets and real time: the deliberate exception to simulated tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `locksim serve redis` process on a free loopback port, killed on drop.
struct Served {
    child: Child,
    addr: SocketAddr,
    /// The first line it printed.
    banner: String,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        Served::start_with_env(extra, "info")
    }

    fn start_with_env(extra: &[&str], rust_log: &str) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
            .args(["serve", "redis", "--port", "0"])
            .args(extra)
            .env("RUST_LOG", rust_log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("locksim starts");
        let mut banner = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut banner)
            .expect("the listening line");
        let addr = banner
            .split(|c: char| c.is_whitespace() || c == '"')
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no address in {banner:?}"));
        Served {
            child,
            addr,
            banner,
        }
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

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `request` and reads `reply.len()` bytes, which must be `reply`.
fn exchange(stream: &mut TcpStream, request: &[u8], reply: &[u8]) {
    stream.write_all(request).expect("write");
    let mut got = vec![0; reply.len()];
    stream.read_exact(&mut got).expect("a reply");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(reply),
        "the reply to {:?}",
        String::from_utf8_lossy(request)
    );
}

/// Sends `request` and returns everything the server sends until it closes the connection.
fn until_closed(served: &Served, request: &[u8]) -> Vec<u8> {
    let mut stream = served.connect();
    stream.write_all(request).expect("write");
    let mut got = Vec::new();
    stream
        .read_to_end(&mut got)
        .unwrap_or_else(|e| panic!("{request:?}: the server should close the connection: {e}"));
    got
}

#[test]
fn a_malformed_request_closes_only_its_connection() {
    let mut served = Served::start(&[]);
    let mut other = served.connect();
    exchange(&mut other, b"PING\r\n", b"+PONG\r\n");
    for (request, reply) in [
        (
            &b"*abc\r\n"[..],
            &b"-ERR Protocol error: invalid multibulk length\r\n"[..],
        ),
        (
            b"*1\r\n$-3\r\n",
            b"-ERR Protocol error: invalid bulk length\r\n",
        ),
        (
            b"ECHO \"unbalanced\r\n",
            b"-ERR Protocol error: unbalanced quotes in request\r\n",
        ),
        // The replies before the error are sent, then the error, then nothing more.
        (
            b"PING\r\n*1\r\nx\r\nPING\r\n",
            b"+PONG\r\n-ERR Protocol error: expected '$', got 'x'\r\n",
        ),
        // Redis's guard against cross-protocol scripting: closed without a word.
        (b"POST / HTTP/1.1\r\nHost: x\r\n\r\n", b""),
    ] {
        let got = until_closed(&served, request);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(reply),
            "{:?}",
            String::from_utf8_lossy(request)
        );
    }
    // A client that goes away mid-request.
    drop(served.connect().write_all(b"*2\r\n$3\r\nGET"));
    assert!(
        served.is_running(),
        "the server must survive malformed input"
    );
    // The connection opened before still works, on the same core as a new one.
    exchange(&mut other, b"SET shared 1\r\n", b"+OK\r\n");
    exchange(&mut served.connect(), b"GET shared\r\n", b"$1\r\n1\r\n");
    exchange(&mut other, b"QUIT\r\n", b"+OK\r\n");
    assert!(served.is_running());
}

#[test]
fn a_request_split_across_reads_and_pipelined_requests_are_answered_in_order() {
    let served = Served::start(&[]);
    let mut stream = served.connect();
    stream.write_all(b"*3\r\n$3\r\nSET\r\n$1\r\nk").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    exchange(&mut stream, b"\r\n$1\r\nv\r\n", b"+OK\r\n");
    let pipelined = b"GET k\r\nDEL k\r\nGET k\r\n".repeat(1000);
    let reply = b"$1\r\nv\r\n:1\r\n$-1\r\n".to_vec();
    stream.write_all(b"SET k v\r\n").unwrap();
    exchange(
        &mut stream,
        &[&pipelined[..], b"PING\r\n"].concat(),
        &[
            &b"+OK\r\n"[..],
            &reply,
            &b"$-1\r\n:0\r\n$-1\r\n".repeat(999),
            b"+PONG\r\n",
        ]
        .concat(),
    );
}

#[test]
fn the_active_expiry_deletes_keys_nobody_reads() {
    let served = Served::start_with_env(&[], "debug");
    let mut stream = served.connect();
    exchange(&mut stream, b"SET forgotten v PX 50\r\n", b"+OK\r\n");
    // A few cycles of 100 ms after the deadline.
    std::thread::sleep(Duration::from_millis(500));
    let log = served.stop_and_log();
    assert!(
        log.contains("active expiry: DEL forgotten"),
        "the expiry cycle deleted the key:\n{log}"
    );
}

#[test]
fn json_banner_and_the_monotonic_expiry_clock() {
    let served = Served::start(&["--json"]);
    let banner: serde_json::Value = serde_json::from_str(&served.banner).expect("a JSON line");
    assert_eq!(banner["serving"], "redis");
    assert_eq!(banner["address"], served.addr.to_string());
    assert_eq!(banner["expiry_clock"], "wall");
    drop(served);

    let served = Served::start(&["--expiry-clock", "monotonic"]);
    assert!(
        served.banner.contains("expiry clock monotonic"),
        "{}",
        served.banner
    );
    let mut stream = served.connect();
    exchange(&mut stream, b"SET k v PX 100000\r\n", b"+OK\r\n");
    exchange(&mut stream, b"EXPIRE k 50\r\n", b":1\r\n");
    exchange(&mut stream, b"TTL k\r\n", b":50\r\n");
}

/// The server's resident memory, from /proc.
fn resident_bytes(served: &Served) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", served.child.id()))
        .expect("/proc/PID/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kb * 1024
}

/// A fresh connection gets PING, SET and GET answered.
fn healthy(served: &mut Served) {
    assert!(served.is_running(), "the server must survive");
    let mut stream = served.connect();
    exchange(&mut stream, b"PING\r\n", b"+PONG\r\n");
    exchange(&mut stream, b"SET healthy yes\r\n", b"+OK\r\n");
    exchange(&mut stream, b"GET healthy\r\n", b"$3\r\nyes\r\n");
}

#[test]
fn each_request_limit_gets_redis_error_then_the_connection_closes() {
    // Replies checked against redis-server 7.0.15 with its default configuration.
    let mut served = Served::start(&[]);
    let digits = "1".repeat(65_537);
    let cases: [(Vec<u8>, &[u8]); 6] = [
        (
            b"*1\r\n$536870913\r\n".to_vec(),
            b"-ERR Protocol error: invalid bulk length\r\n",
        ),
        (
            b"*2147483648\r\n".to_vec(),
            b"-ERR Protocol error: invalid multibulk length\r\n",
        ),
        (
            vec![b'x'; 65_537],
            b"-ERR Protocol error: too big inline request\r\n",
        ),
        (
            format!("*{digits}").into_bytes(),
            b"-ERR Protocol error: too big mbulk count string\r\n",
        ),
        (
            format!("*1\r\n${digits}").into_bytes(),
            b"-ERR Protocol error: too big bulk count string\r\n",
        ),
        (
            b"SET k \"v\r\n".to_vec(),
            b"-ERR Protocol error: unbalanced quotes in request\r\n",
        ),
    ];
    for (request, reply) in cases {
        let got = until_closed(&served, &request);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(reply),
            "{:?}",
            String::from_utf8_lossy(&request[..request.len().min(40)])
        );
        healthy(&mut served);
    }
    // Just under each limit the server waits for the rest instead.
    let mut waiting = Vec::new();
    for request in [
        &b"*1\r\n$536870912\r\n"[..],
        b"*2147483647\r\n",
        &[b'x'; 65_536],
    ] {
        let mut stream = served.connect();
        stream.write_all(request).unwrap();
        waiting.push(stream);
    }
    healthy(&mut served);
    // Redis 7.0's count limit is INT_MAX, not the 1024 * 1024 of older versions.
    let mut stream = served.connect();
    let mut many = b"*1100000\r\n$3\r\nDEL\r\n".to_vec();
    many.extend(b"$1\r\nk\r\n".repeat(1_099_999));
    exchange(&mut stream, &many, b":0\r\n");
}

#[test]
fn declared_sizes_cost_no_memory_until_their_bytes_arrive() {
    let mut served = Served::start(&[]);
    healthy(&mut served);
    let before = resident_bytes(&served);
    // 64 clients each declaring the largest argument (and the largest count) and sending a
    // few bytes of it: 32 GB declared.
    let mut clients = Vec::new();
    for _ in 0..64 {
        let mut stream = served.connect();
        stream
            .write_all(b"*2147483647\r\n$536870912\r\nsome bytes")
            .unwrap();
        clients.push(stream);
    }
    healthy(&mut served);
    let grown = resident_bytes(&served).saturating_sub(before);
    assert!(
        grown < 32 << 20,
        "declared sizes cost {grown} bytes of resident memory"
    );
}

#[test]
fn the_limits_are_flags() {
    let mut served = Served::start(&[
        "--proto-max-bulk-len",
        "4mb",
        "--client-query-buffer-limit",
        "1mb",
    ]);
    let got = until_closed(&served, b"*2\r\n$4\r\nECHO\r\n$4194305\r\n");
    assert_eq!(got, b"-ERR Protocol error: invalid bulk length\r\n");
    // 1.2 MB of an argument waiting in the query buffer: closed without a reply, as
    // redis-server 7.0.15 does with the same settings.
    let mut request = b"*2\r\n$4\r\nECHO\r\n$2000000\r\n".to_vec();
    request.extend(vec![b'x'; 1_200_000]);
    assert_eq!(until_closed(&served, &request), b"");
    healthy(&mut served);
    // An argument within both limits is answered.
    let mut stream = served.connect();
    let value = vec![b'v'; 1_000_000];
    let mut request = b"*2\r\n$4\r\nECHO\r\n$1000000\r\n".to_vec();
    request.extend(&value);
    request.extend(b"\r\n");
    let reply = [&b"$1000000\r\n"[..], &value, b"\r\n"].concat();
    exchange(&mut stream, &request, &reply);
}

#[test]
fn bad_limit_flags_are_refused_in_one_line() {
    for (flag, value) in [
        ("--proto-max-bulk-len", "12x"),
        ("--proto-max-bulk-len", "1000"),
        ("--client-query-buffer-limit", "-1"),
        ("--client-query-buffer-limit", "1.5gb"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_locksim"))
            .args(["serve", "redis", "--port", "0", &format!("{flag}={value}")])
            .output()
            .expect("locksim runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(flag), "names the flag: {stderr}");
    }
}

/// Runs `redis-cli -p PORT args...` with `stdin` and returns its stdout.
fn redis_cli(addr: SocketAddr, args: &[&str], stdin: &[u8]) -> String {
    let mut child = Command::new("redis-cli")
        .args(["-h", &addr.ip().to_string(), "-p", &addr.port().to_string()])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run redis-cli ({e}): apt-get install redis-server (it brings redis-tools)"
            )
        });
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write redis-cli's input");
    let out = child.wait_with_output().expect("redis-cli runs");
    assert!(
        out.status.success(),
        "redis-cli {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn redis_cli_works_against_serve_redis() {
    let served = Served::start(&[]);
    let a = served.addr;
    assert_eq!(redis_cli(a, &["SET", "k", "v", "PX", "1000"], b""), "OK\n");
    assert_eq!(redis_cli(a, &["GET", "k"], b""), "v\n");
    let pttl: i64 = redis_cli(a, &["PTTL", "k"], b"").trim().parse().unwrap();
    assert!((0..=1000).contains(&pttl), "PTTL {pttl}");
    // Without a terminal redis-cli prints raw replies: one line per element, nil as empty.
    let eval = redis_cli(
        a,
        &["EVAL", "return {1, 'two', {ok='x'}, false, 3.7}", "0"],
        b"",
    );
    assert_eq!(eval, "1\ntwo\nx\n\n3\n");
    let eval = redis_cli(
        a,
        &[
            "EVAL",
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
            "1",
            "k",
            "v",
        ],
        b"",
    );
    assert_eq!(eval, "1\n");
    assert_eq!(
        redis_cli(a, &["EVALSHA", &"0".repeat(40), "0"], b""),
        "NOSCRIPT No matching script. Please use EVAL.\n\n",
        "redis-cli follows an error with an empty line"
    );
    // A piped session: one connection, commands from stdin.
    let session = redis_cli(
        a,
        &[],
        b"SET lock me NX PX 5000\nSET lock you NX PX 5000\nGET lock\nEXISTS lock nothing\nDEL lock\nFOO bar\n",
    );
    assert_eq!(
        session,
        "OK\n\nme\n1\n1\nERR unknown command 'FOO', with args beginning with: 'bar' \n\n"
    );
    // Mass insertion: raw RESP through --pipe, which ends with its own ECHO.
    let mass: Vec<u8> = (0..100)
        .flat_map(|i| format!("*3\r\n$3\r\nSET\r\n$5\r\nkey{i:02}\r\n$1\r\nv\r\n").into_bytes())
        .collect();
    let piped = redis_cli(a, &["--pipe"], &mass);
    assert!(
        piped.contains("errors: 0, replies: 100"),
        "redis-cli --pipe: {piped}"
    );
    assert_eq!(redis_cli(a, &["EXISTS", "key00", "key99"], b""), "2\n");
}

/// redis-rs, in its default configuration, runs `pipe().atomic()` (MULTI ... EXEC) against
/// `serve redis` and gets the values; a WATCH another connection broke gives its nil. In a
/// debug build this also checks that redis-rs's own assertions hold.
#[test]
fn redis_rs_transactions_work_against_serve_redis() {
    use locksim::redis_rs::{self, Commands};
    let served = Served::start(&[]);
    let client = redis_rs::Client::open(format!("redis://{}/", served.addr)).expect("a URL");
    let mut conn = client.get_connection().expect("connect");
    let mut other = client.get_connection().expect("connect");
    let (set, value, gone): (String, String, i64) = redis_rs::pipe()
        .atomic()
        .set("tx", "1")
        .get("tx")
        .del("missing")
        .query(&mut conn)
        .expect("EXEC");
    assert_eq!((set.as_str(), value.as_str(), gone), ("OK", "1", 0));
    let () = redis_rs::cmd("WATCH")
        .arg("tx")
        .query(&mut conn)
        .expect("WATCH");
    let () = other.set("tx", "theirs").expect("SET");
    let aborted: Option<(String,)> = redis_rs::pipe()
        .atomic()
        .set("tx", "mine")
        .query(&mut conn)
        .expect("EXEC");
    assert_eq!(aborted, None);
    let now: String = conn.get("tx").expect("GET");
    assert_eq!(now, "theirs");
}

/// The acceptance check of `HELLO 3`: `redis-cli -3` prints Redis 7.0's map, `proto 3`
/// among it, and the replies that follow are RESP3's.
#[test]
fn redis_cli_speaks_resp3_after_hello() {
    let served = Served::start(&[]);
    let a = served.addr;
    assert_eq!(
        redis_cli(a, &["-3", "HELLO", "3"], b""),
        "server redis\nversion 7.0.15\nproto 3\nid 2\nmode standalone\nrole master\nmodules \n"
    );
    let mut stream = served.connect();
    exchange(
        &mut stream,
        b"HELLO 3\r\nGET nokey\r\nEVAL \"return false\" 0\r\n",
        b"%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n\
          $5\r\nproto\r\n:3\r\n$2\r\nid\r\n:3\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n\
          $4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n_\r\n_\r\n",
    );
}

/// redis-rs told `protocol=resp3` in its URL: HELLO 3, its CLIENT SETINFO (which Redis 7.0
/// refuses and redis-rs ignores), then RESP3 replies.
#[test]
fn redis_rs_with_resp3_against_serve_redis() {
    use locksim::redis_rs::{Client, Value, cmd};
    let served = Served::start(&[]);
    let url = format!("redis://{}/?protocol=resp3", served.addr);
    let mut conn = Client::open(url).unwrap().get_connection().unwrap();
    let hello: Value = cmd("HELLO").query(&mut conn).unwrap();
    let proto = (Value::BulkString(b"proto".to_vec()), Value::Int(3));
    assert!(
        matches!(&hello, Value::Map(pairs) if pairs.contains(&proto)),
        "{hello:?}"
    );
    let set: Value = cmd("SET")
        .arg("k")
        .arg("v")
        .arg("NX")
        .query(&mut conn)
        .unwrap();
    assert_eq!(set, Value::Okay);
    let missing: Value = cmd("GET").arg("nokey").query(&mut conn).unwrap();
    assert_eq!(missing, Value::Nil);
    let name: Value = cmd("CLIENT").arg("GETNAME").query(&mut conn).unwrap();
    assert_eq!(name, Value::Nil);
}

/// `--lua-memory-limit` sets what one script may allocate: a 4 MiB string passes under the
/// default 64 MiB and fails under 1mb with the error naming the limit and saying that a real
/// Redis sets none; the server answers afterwards.
#[test]
fn lua_memory_limit_is_a_flag_and_its_error_names_it() {
    let script = b"EVAL \"return #string.rep('x', 4194304)\" 0\r\n";
    let served = Served::start(&[]);
    exchange(&mut served.connect(), script, b":4194304\r\n");
    let small = Served::start(&["--lua-memory-limit", "1mb"]);
    let mut stream = small.connect();
    stream.write_all(script).expect("write");
    let mut reply = Vec::new();
    let mut byte = [0u8; 1];
    while !reply.ends_with(b"\r\n") {
        stream.read_exact(&mut byte).expect("a reply");
        reply.push(byte[0]);
    }
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.starts_with("-ERR Error running script")
            && reply.contains("Lua memory limit of 1 MiB (a real Redis sets none)"),
        "{reply}"
    );
    exchange(&mut stream, b"PING\r\n", b"+PONG\r\n");
}

#[test]
fn a_subscriber_receives_what_another_connection_publishes_until_it_leaves() {
    let served = Served::start(&[]);
    let mut subscriber = served.connect();
    let mut publisher = served.connect();
    exchange(
        &mut subscriber,
        b"SUBSCRIBE news\r\n",
        b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n",
    );
    let mut resp3 = served.connect();
    resp3.write_all(b"HELLO 3\r\n").unwrap();
    let mut hello = Vec::new();
    while !hello.ends_with(b"$7\r\nmodules\r\n*0\r\n") {
        let mut byte = [0];
        resp3.read_exact(&mut byte).expect("HELLO's map");
        hello.push(byte[0]);
    }
    exchange(
        &mut resp3,
        b"PSUBSCRIBE n*\r\n",
        b">3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n",
    );
    exchange(&mut publisher, b"PUBLISH news hi\r\n", b":2\r\n");
    exchange(
        &mut subscriber,
        b"",
        b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n",
    );
    exchange(
        &mut resp3,
        b"",
        b">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n",
    );
    drop(subscriber);
    drop(resp3);
    // The server forgets the subscribers that left (it may take a moment to notice).
    let mut receivers = Vec::new();
    for _ in 0..50 {
        exchange(
            &mut publisher,
            b"PUBSUB NUMSUB news\r\n",
            b"*2\r\n$4\r\nnews\r\n:",
        );
        let mut count = [0; 3];
        publisher.read_exact(&mut count).unwrap();
        receivers.push(count);
        if &count == b"0\r\n" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(receivers.last(), Some(b"0\r\n"), "{receivers:?}");
    exchange(&mut publisher, b"PUBLISH news again\r\n", b":0\r\n");
}

#[test]
fn a_blpop_is_woken_by_another_connections_push_and_a_blocked_client_that_leaves_is_forgotten() {
    let served = Served::start(&[]);
    let mut waiter = served.connect();
    let mut pusher = served.connect();
    waiter.write_all(b"BLPOP jobs 0\r\nPING\r\n").unwrap();
    let mut gone = served.connect();
    gone.write_all(b"BLPOP other 0\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    drop(gone);
    exchange(&mut pusher, b"RPUSH jobs a b\r\n", b":2\r\n");
    exchange(
        &mut waiter,
        b"",
        b"*2\r\n$4\r\njobs\r\n$1\r\na\r\n+PONG\r\n",
    );
    exchange(&mut pusher, b"LRANGE jobs 0 -1\r\n", b"*1\r\n$1\r\nb\r\n");
    // The client that left no longer waits: the element stays.
    std::thread::sleep(Duration::from_millis(50));
    exchange(&mut pusher, b"RPUSH other x\r\n", b":1\r\n");
    exchange(&mut pusher, b"LLEN other\r\n", b":1\r\n");
    // A timeout answers the null array.
    exchange(&mut waiter, b"BRPOP none 0.05\r\n", b"*-1\r\n");
}
