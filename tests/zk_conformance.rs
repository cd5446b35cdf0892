//! Differential conformance: scripted operation sequences run through locksim's ZooKeeper
//! client against a real ZooKeeper 3.8 (the Debian package `zookeeper`, started here on a
//! free loopback port with a throwaway data dir) and against `locksim serve zk`, with the
//! same tick. Each case yields a normalised transcript per server (reply codes, paths, data,
//! children as sets, Stat fields with zxids as ranks and times as relations, each session's
//! events in order); the transcripts must be equal.
//!
//! `zookeeper_ensemble_conformance` does the same between a real ensemble of three (one JVM
//! per member) and `locksim serve zk --servers 3`, with cases that name the members.
//!
//! `cargo test --profile suite --test suite zk_conformance:: -- --nocapture` shows the per-case verdicts (and, with
//! `LOCKSIM_ZK_CONFORMANCE_SHOW=1`, every transcript).
//!
//! Real time is unavoidable against a real server: this module is the documented exception
//! to "no sleeps". It waits for events with deadlines rather than for fixed times, and runs
//! a differing case again (up to [`ATTEMPTS`] runs) before counting it.

#[path = "zk_conformance/cases_acl.rs"]
mod cases_acl;
#[path = "zk_conformance/cases_ensemble.rs"]
mod cases_ensemble;
#[path = "zk_conformance/cases_multi.rs"]
mod cases_multi;
#[path = "zk_conformance/cases_sessions.rs"]
mod cases_sessions;
#[path = "zk_conformance/cases_tree.rs"]
mod cases_tree;
#[path = "zk_conformance/cases_watches.rs"]
mod cases_watches;
#[path = "zk_conformance/ops.rs"]
mod ops;
#[path = "zk_conformance/raw.rs"]
mod raw;
#[path = "zk_conformance/script.rs"]
mod script;
use crate::server_process;
#[path = "zk_conformance/servers.rs"]
pub mod servers;
#[path = "zk_conformance/transcript.rs"]
mod transcript;
#[path = "zk_conformance/valve.rs"]
mod valve;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use script::Cx;
use transcript::{Transcript, first_difference};

/// ZooKeeper tickTime on both sides: sessions clamp to 200..2000 ms.
const TICK_MS: u64 = 100;

/// Runs of a case before its difference counts. Cases race real session and watch timers,
/// which a loaded machine can stretch past a case's margins; a difference of behaviour
/// repeats, one of timing does not, and every rerun is printed.
const ATTEMPTS: u32 = 3;

type CaseFn = fn(Cx) -> Pin<Box<dyn Future<Output = Transcript>>>;

macro_rules! cases {
    ($($module:ident :: $name:ident),+ $(,)?) => {
        &[$((stringify!($name), |cx| Box::pin($module::$name(cx)))),+]
    };
}

const CASES: &[(&str, CaseFn)] = cases![
    cases_tree::create_modes,
    cases_tree::sequence_numbers,
    cases_tree::create_errors,
    cases_tree::versions,
    cases_tree::create_flags,
    cases_tree::ephemerals_and_counts,
    cases_tree::containers_and_ttl,
    cases_tree::zookeeper_subtree,
    cases_watches::data_watches,
    cases_watches::missing_node_watches,
    cases_watches::child_watches,
    cases_watches::one_shot,
    cases_watches::two_sessions,
    cases_watches::events_before_replies,
    cases_watches::check_and_remove_watches,
    cases_watches::set_watches2,
    cases_watches::persistent_watches,
    cases_multi::multi_success,
    cases_multi::multi_failure,
    cases_multi::multi_watches,
    cases_multi::sync,
    cases_multi::multi_zxids,
    cases_multi::multi_read,
    cases_multi::multi_entries,
    cases_multi::kazoo_locking_queue,
    cases_sessions::close_session,
    cases_sessions::session_expiry,
    cases_sessions::reconnect_set_watches,
    cases_sessions::wrong_password,
    cases_sessions::expired_reconnect,
    cases_sessions::refused_ops,
    cases_acl::acls_and_auth,
];

/// Cases on three members, followers first and the leader last (`Cx::members`).
const ENSEMBLE_CASES: &[(&str, CaseFn)] = cases![
    cases_ensemble::each_member,
    cases_ensemble::session_moves,
    cases_ensemble::session_moved,
    cases_ensemble::set_watches_after_move,
    cases_ensemble::sync_on_a_follower,
];

fn run_case(rt: &tokio::runtime::Runtime, case: CaseFn, cx: Cx) -> Vec<String> {
    let local = tokio::task::LocalSet::new();
    local.block_on(rt, case(cx)).render()
}

fn show(entry: Option<String>) -> String {
    entry.unwrap_or_else(|| "(nothing)".into())
}

#[test]
fn zookeeper_conformance() {
    let (real, sim) = std::thread::scope(|scope| {
        let real = scope.spawn(|| servers::start_real(TICK_MS));
        let sim = servers::start_sim(TICK_MS);
        (real.join().expect("start zookeeper"), sim)
    });
    let real = real.unwrap_or_else(|e| panic!("real ZooKeeper: {e}"));
    let sim = sim.unwrap_or_else(|e| panic!("locksim serve zk: {e}"));
    let differences = compare(
        CASES,
        |base| Cx::new(real.addr, base),
        |base| Cx::new(sim.addr, base),
    );
    println!("{} cases, {differences} differences", CASES.len());
    assert_eq!(differences, 0, "the servers differ (see above)");
}

#[test]
fn zookeeper_ensemble_conformance() {
    let (real, sim) = std::thread::scope(|scope| {
        let real = scope.spawn(|| servers::start_real_ensemble(TICK_MS, 3));
        let sim = servers::start_sim_ensemble(TICK_MS, 3);
        (real.join().expect("start zookeeper"), sim)
    });
    let real = real.unwrap_or_else(|e| panic!("real ZooKeeper ensemble: {e}"));
    let (_sim, sim_members) = sim.unwrap_or_else(|e| panic!("locksim serve zk --servers 3: {e}"));
    let real_members: Vec<SocketAddr> = real.iter().map(|member| member.addr).collect();
    let differences = compare(
        ENSEMBLE_CASES,
        |base| Cx::ensemble(real_members.clone(), base),
        |base| Cx::ensemble(sim_members.clone(), base),
    );
    println!(
        "{} ensemble cases, {differences} differences",
        ENSEMBLE_CASES.len()
    );
    assert_eq!(differences, 0, "the ensembles differ (see above)");
}

/// Runs each case on the real server (`real` makes its context from the case's subtree) and
/// on locksim's, a differing case up to [`ATTEMPTS`] times; prints a verdict per case and
/// returns how many differ.
fn compare(cases: &[(&str, CaseFn)], real: impl Fn(&str) -> Cx, sim: impl Fn(&str) -> Cx) -> usize {
    const REAL: &str = "zookeeper";
    const SIM: &str = "locksim";
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // LOCKSIM_ZK_CONFORMANCE_SHOW=1 prints the transcripts of agreeing cases too.
    let show_all = std::env::var_os("LOCKSIM_ZK_CONFORMANCE_SHOW").is_some();
    let mut differences = 0;
    for &(name, case) in cases {
        let mut attempt = 1;
        let (expected, got) = loop {
            // A rerun works in a fresh subtree of its own.
            let base = match attempt {
                1 => name.to_string(),
                n => format!("{name}-{n}"),
            };
            let expected = run_case(&rt, case, real(&base));
            let got = run_case(&rt, case, sim(&base));
            match first_difference(&expected, &got) {
                Some((line, want, have)) if attempt < ATTEMPTS => {
                    println!("{name}: attempt {attempt} differs at entry {line}, run again");
                    println!("  {REAL:<9} {}", show(want));
                    println!("  {SIM:<9} {}", show(have));
                    attempt += 1;
                }
                _ => break (expected, got),
            }
        };
        match first_difference(&expected, &got) {
            None => {
                println!("{name}: ok ({} entries)", expected.len());
                if show_all {
                    for entry in &expected {
                        println!("    {entry}");
                    }
                }
            }
            Some((line, want, have)) => {
                differences += 1;
                println!("{name}: DIFFERS at entry {line}");
                println!("  {REAL:<9} {}", show(want));
                println!("  {SIM:<9} {}", show(have));
                println!("  full {REAL} transcript:");
                for entry in &expected {
                    println!("    {entry}");
                }
                println!("  full {SIM} transcript:");
                for entry in &got {
                    println!("    {entry}");
                }
            }
        }
    }
    differences
}
