//! The client matrix: real Redis clients, each in its default configuration (host and port,
//! no protocol option), run one program each through what lock libraries use (strings with
//! SET NX PX and INCR, hashes, sorted sets, a transaction, a script helper, lists with blocking
//! pops, pub/sub, redis-py's own `Lock` across threads, and two lock libraries in their
//! default configuration: python-redis-lock, whose waiters block in BLPOP, and
//! redis-semaphore's mutex and sorted-set semaphore on ioredis) against a real redis-server 7.0
//! and against `locksim serve redis`; the two transcripts must be equal.
//!
//! The clients: redis-py and node-redis and ioredis as child processes (`tests/client_matrix/`
//! holds their programs and pinned versions, which `./test.sh` installs inside the clone), and
//! redis-rs in this process. On the ZooKeeper side, kazoo runs its recipes (locks, read-write
//! locks, a semaphore, counters, an election, barriers, parties, queues, data and children
//! watches, a tree cache, a lease, a set partitioner), node-zookeeper-client through node kinds,
//! watches, transactions and ACLs, and zookeeper-client (Rust, in this process) through the
//! 3.5+ operations it sends by default, its multi writer and its lock,
//! against a real ZooKeeper 3.8 and against `locksim serve zk`, both at ZooKeeper's default
//! tickTime. A missing interpreter or package fails at once with the command
//! to run; a program that runs past `run::TIME_LIMIT` is killed.
//!
//! `LOCKSIM_CLIENT_MATRIX_SHOW=1 cargo test --profile suite --test suite client_matrix:: -- --nocapture`
//! prints both transcripts of every client.
//!
//! Real sockets and real time against real servers: like the conformance suite, the
//! documented exception to "no sleeps" (a waiter is given 200 ms to block before the push that
//! wakes it; its transcript is the same if it has not).

#[path = "client_matrix/compare.rs"]
mod compare;
#[path = "client_matrix/installs.rs"]
mod installs;
#[path = "client_matrix/redis_rs.rs"]
mod redis_rs;
#[path = "client_matrix/run.rs"]
mod run;
#[path = "client_matrix/zookeeper_client.rs"]
mod zookeeper_client;
use crate::redis_conformance::servers;
use crate::zk_conformance::servers as zk_servers;

use run::Run;
use std::process::Command;
use std::sync::Mutex;

/// One client at a time: each test starts its own pair of servers, and the machine has few
/// cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `program` (given a server's port) against a fresh redis-server and a fresh
/// `locksim serve redis`, and compares the transcripts.
fn matrix(client: &str, program: impl Fn(u16) -> Run) {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let real = servers::start_real().unwrap_or_else(|e| panic!("redis-server: {e}"));
    let sim = servers::start_sim().unwrap_or_else(|e| panic!("locksim serve redis: {e}"));
    let (real, sim) = (program(real.addr.port()), program(sim.addr.port()));
    compare_runs(client, compare::REDIS, real, sim);
}

/// ZooKeeper's default tickTime: sessions may last up to 40 s, as kazoo's ask for 10 s.
const ZK_TICK_MS: u64 = 2_000;

/// Runs `program` against a fresh ZooKeeper 3.8 and a fresh `locksim serve zk`, and compares
/// the transcripts.
fn zk_matrix(client: &str, program: impl Fn(u16) -> Run) {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let real = zk_servers::start_real(ZK_TICK_MS).unwrap_or_else(|e| panic!("zookeeper: {e}"));
    let sim = zk_servers::start_sim(ZK_TICK_MS).unwrap_or_else(|e| panic!("locksim serve zk: {e}"));
    let (real, sim) = (program(real.addr.port()), program(sim.addr.port()));
    compare_runs(client, compare::ZOOKEEPER, real, sim);
}

fn compare_runs(client: &str, servers: compare::Servers, real_run: Run, sim_run: Run) {
    if std::env::var_os("LOCKSIM_CLIENT_MATRIX_SHOW").is_some() {
        for (server, run) in [(servers.real, &real_run), ("locksim", &sim_run)] {
            println!("--- {client} against {server}:");
            run.lines.iter().for_each(|line| println!("{line}"));
        }
    }
    if let Err(report) = compare::verdict(client, servers, &real_run, &sim_run) {
        panic!("{report}");
    }
    println!(
        "{client}: {} lines, the same against both servers",
        real_run.lines.len()
    );
}

/// Runs an external program, failing at once (one line) when it cannot start.
fn external(client: &str, command: Result<Command, String>) -> Run {
    let command = command.unwrap_or_else(|hint| panic!("{client}: {hint}"));
    run::program(command, run::TIME_LIMIT)
        .unwrap_or_else(|e| panic!("{client}: cannot start it: {e}"))
}

#[test]
fn redis_py() {
    matrix("redis-py", |port| {
        external(
            "redis-py",
            installs::python("redis_py.py", &port.to_string()),
        )
    });
}

#[test]
fn node_redis() {
    matrix("node-redis", |port| {
        external("node-redis", installs::node("node_redis.js", port))
    });
}

#[test]
fn ioredis() {
    matrix("ioredis", |port| {
        external("ioredis", installs::node("ioredis.js", port))
    });
}

#[test]
fn kazoo() {
    zk_matrix("kazoo", |port| {
        external(
            "kazoo",
            installs::python("kazoo_recipes.py", &port.to_string()),
        )
    });
}

/// kazoo's recipes against `locksim serve zk --servers 3`, its connect string naming all
/// three (kazoo picks among them at random), say what they say against one real 3.8 server.
#[test]
fn kazoo_on_a_served_ensemble() {
    ensemble_matrix("kazoo", |servers| {
        external("kazoo", installs::python("kazoo_recipes.py", servers))
    });
}

/// Runs `program` with a connect string: one real ZooKeeper 3.8's, and that of a fresh
/// `locksim serve zk --servers 3` naming every member; compares the transcripts.
fn ensemble_matrix(client: &str, program: impl Fn(&str) -> Run) {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let real = zk_servers::start_real(ZK_TICK_MS).unwrap_or_else(|e| panic!("zookeeper: {e}"));
    let (_sim, members) = zk_servers::start_sim_ensemble(ZK_TICK_MS, 3)
        .unwrap_or_else(|e| panic!("locksim serve zk --servers 3: {e}"));
    assert_eq!(members.len(), 3, "{members:?}");
    let hosts: Vec<String> = members.iter().map(ToString::to_string).collect();
    let (real_run, sim_run) = (program(&real.addr.to_string()), program(&hosts.join(",")));
    compare_runs(
        &format!("{client} (ensemble)"),
        compare::ZOOKEEPER,
        real_run,
        sim_run,
    );
}

#[test]
fn node_zookeeper_client() {
    zk_matrix("node-zookeeper-client", |port| {
        external(
            "node-zookeeper-client",
            installs::node("node_zookeeper_client.js", port),
        )
    });
}

#[test]
fn zookeeper_client() {
    zk_matrix("zookeeper-client", |port| {
        run::in_thread(run::TIME_LIMIT, move |out| {
            zookeeper_client::transcript(format!("127.0.0.1:{port}"), out)
        })
    });
}

#[test]
fn zookeeper_client_on_a_served_ensemble() {
    ensemble_matrix("zookeeper-client", |servers| {
        let servers = servers.to_string();
        run::in_thread(run::TIME_LIMIT, move |out| {
            zookeeper_client::transcript(servers, out)
        })
    });
}

#[test]
fn redis_rs_sync() {
    matrix("redis-rs (sync)", |port| {
        run::in_thread(run::TIME_LIMIT, move |out| {
            redis_rs::sync_transcript(port, out)
        })
    });
}

#[test]
fn redis_rs_async_multiplexed() {
    matrix("redis-rs (async multiplexed)", |port| {
        run::in_thread(run::TIME_LIMIT, move |out| {
            redis_rs::async_transcript(port, out)
        })
    });
}
