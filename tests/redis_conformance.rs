//! Differential conformance, in RESP2 and again in RESP3: the same raw RESP requests sent to a real Redis 7.0 (the Debian
//! package `redis-server`, started here on a free loopback port with no persistence, its
//! 16 databases and a throwaway dir) and to `locksim serve redis`, and the reply bytes compared
//! exactly; only TTL and PTTL replies get a little slack (`case::PTTL_SLACK_MS`,
//! `case::TTL_SLACK_S`), and INFO, COMMAND and CLIENT ID only their reply type (see
//! `cases_connection::introspection`). Each case runs on both servers at once, on a
//! connection of its own per server (and more when it says so).
//!
//! `cargo test --profile suite --test suite redis_conformance:: -- --nocapture` shows the per-case verdicts (and, with
//! `LOCKSIM_REDIS_CONFORMANCE_SHOW=1`, every exchange).
//!
//! Real time is unavoidable against a real server: this module is the documented exception
//! to "no sleeps". A few cases wait for deadlines to pass, a few hundred ms in all.
//!
//! Left out on purpose: what the simulator does not have (commands beyond its table, which
//! it answers as unknown), and `error()` with a table that has no `err` field, which crashes
//! redis-server 7.0.15. Lua's `cjson`, `cmsgpack`, `struct` and `bit` are in
//! `cases_lua_libs`, except where the simulation answers differently on purpose (memory
//! limits, library tables seen as proxies: see `vendor/redis-lua-libs/README.md`).

#[path = "redis_conformance/case.rs"]
mod case;
#[path = "redis_conformance/cases_connection.rs"]
mod cases_connection;
#[path = "redis_conformance/cases_expire.rs"]
mod cases_expire;
#[path = "redis_conformance/cases_hashes.rs"]
mod cases_hashes;
#[path = "redis_conformance/cases_hello.rs"]
mod cases_hello;
#[path = "redis_conformance/cases_keys.rs"]
mod cases_keys;
#[path = "redis_conformance/cases_lists.rs"]
mod cases_lists;
#[path = "redis_conformance/cases_locks.rs"]
mod cases_locks;
#[path = "redis_conformance/cases_lua_libs.rs"]
mod cases_lua_libs;
#[path = "redis_conformance/cases_multi.rs"]
mod cases_multi;
#[path = "redis_conformance/cases_protocol.rs"]
mod cases_protocol;
#[path = "redis_conformance/cases_pubsub.rs"]
mod cases_pubsub;
#[path = "redis_conformance/cases_scripts.rs"]
mod cases_scripts;
#[path = "redis_conformance/cases_scripts_resp3.rs"]
mod cases_scripts_resp3;
#[path = "redis_conformance/cases_sets.rs"]
mod cases_sets;
#[path = "redis_conformance/cases_strings.rs"]
mod cases_strings;
#[path = "redis_conformance/cases_zsets.rs"]
mod cases_zsets;
#[path = "redis_conformance/lock_scripts.rs"]
mod lock_scripts;
#[path = "redis_conformance/servers.rs"]
pub mod servers;
#[path = "redis_conformance/wire.rs"]
mod wire;

use crate::server_process::{self, ServerProcess};
use case::{Entry, Proto, Step, first_difference};
use wire::escape;

type CaseFn = fn() -> Vec<Step>;

macro_rules! cases {
    ($($module:ident :: $name:ident),+ $(,)?) => {
        &[$((stringify!($name), $module::$name)),+]
    };
}

const CASES: &[(&str, CaseFn)] = cases![
    cases_strings::set_and_get,
    cases_strings::set_nx_xx,
    cases_strings::set_get_option,
    cases_strings::set_expiry_options,
    cases_strings::set_bad_expire_times,
    cases_strings::del_and_exists,
    cases_strings::counters,
    cases_strings::get_variants,
    cases_strings::set_shorthands,
    cases_strings::multi_key_strings,
    cases_keys::type_persist_touch,
    cases_keys::rename,
    cases_keys::databases,
    cases_keys::scripts_and_transactions_in_a_database,
    cases_expire::expire_family,
    cases_expire::expire_conditions,
    cases_expire::expire_bad_times,
    cases_expire::expire_in_the_past_deletes,
    cases_expire::expiry_after_a_wait,
    cases_connection::ping_and_echo,
    cases_connection::select,
    cases_connection::client_names,
    cases_connection::unknown_commands,
    cases_connection::introspection,
    cases_connection::quit,
    cases_connection::auth_config_time,
    cases_connection::wait_without_replicas,
    cases_hello::hello_forms,
    cases_hello::hello_errors,
    cases_hello::client_handshake,
    cases_protocol::inline_requests,
    cases_protocol::pipelines,
    cases_protocol::protocol_errors,
    cases_protocol::big_requests,
    cases_scripts::eval_arguments,
    cases_scripts::lua_to_resp,
    cases_scripts::resp_to_lua,
    cases_scripts::redis_pcall,
    cases_scripts::script_errors,
    cases_scripts::script_helpers,
    cases_scripts::shebangs,
    cases_scripts::script_cache,
    cases_scripts_resp3::setresp_arguments,
    cases_scripts_resp3::returned_table_forms,
    cases_scripts_resp3::resp3_calls,
    cases_scripts_resp3::resp3_errors,
    cases_locks::recipe_scripts,
    cases_locks::redis_py_lock,
    cases_locks::expired_lock,
    cases_locks::time_frozen_in_a_script,
    cases_lua_libs::cjson_encode,
    cases_lua_libs::cjson_decode,
    cases_lua_libs::cjson_settings,
    cases_lua_libs::cmsgpack_round_trips,
    cases_lua_libs::struct_formats,
    cases_lua_libs::bit_operations,
    cases_lua_libs::libraries_are_read_only,
    cases_multi::queued_and_executed,
    cases_multi::errors_in_and_out_of_transactions,
    cases_multi::watch_and_other_connections,
    cases_multi::watch_and_expiry,
    cases_multi::scripts_in_transactions,
    cases_zsets::zadd_flags,
    cases_zsets::score_spellings,
    cases_zsets::range_forms,
    cases_zsets::removals_and_pops,
    cases_zsets::wrong_types,
    cases_zsets::zsets_in_transactions,
    cases_zsets::zsets_in_scripts,
    cases_zsets::big_sets,
    cases_zsets::semaphore,
    cases_hashes::hash_set_and_get,
    cases_hashes::hash_delete_and_setnx,
    cases_hashes::hash_incrby,
    cases_hashes::hash_incrbyfloat,
    cases_hashes::hash_arity_and_wrong_type,
    cases_hashes::hashes_in_transactions_and_scripts,
    cases_sets::set_add_and_members,
    cases_sets::set_remove,
    cases_sets::set_arity_and_wrong_type,
    cases_sets::sets_in_transactions_and_scripts,
    cases_pubsub::subscribe_and_publish,
    cases_pubsub::subscribed_mode,
    cases_pubsub::frames_inside_exec,
    cases_pubsub::reset,
    cases_pubsub::client_list_and_info,
    cases_lists::push_pop_and_read,
    cases_lists::lrem_and_lmove,
    cases_lists::blocking_pops,
];

/// Runs a case on both servers at the same time.
fn run_both(
    steps: &[Step],
    proto: Proto,
    real: &ServerProcess,
    sim: &ServerProcess,
) -> (Vec<Entry>, Vec<Entry>) {
    std::thread::scope(|scope| {
        let expected = scope.spawn(|| case::run(steps, real.addr, proto));
        let got = case::run(steps, sim.addr, proto);
        (expected.join().expect("the real server's side"), got)
    })
}

/// Runs of a case before its difference counts. Cases race key deadlines and blocked
/// clients in real time, which a loaded machine can stretch past a case's margins; a
/// difference of behaviour repeats, one of timing does not, and every rerun is printed.
/// (Cases are written to be rerun: each pass runs them all on the same servers.)
const ATTEMPTS: u32 = 3;

/// Runs a case on both servers until they agree or [`ATTEMPTS`] runs are spent.
fn run_agreeing(
    proto: Proto,
    name: &str,
    case: CaseFn,
    real: &ServerProcess,
    sim: &ServerProcess,
) -> (Vec<Entry>, Vec<Entry>) {
    let mut attempt = 1;
    loop {
        let (expected, got) = run_both(&case(), proto, real, sim);
        match first_difference(&expected, &got) {
            Some((i, want, have)) if attempt < ATTEMPTS => {
                println!("{proto:?} {name}: attempt {attempt} differs at reply {i}, run again");
                println!("  {:<12} {}", real.name, show(want));
                println!("  {:<12} {}", sim.name, show(have));
                attempt += 1;
            }
            _ => return (expected, got),
        }
    }
}

fn show(entry: Option<&Entry>) -> String {
    entry.map_or("(nothing)".to_string(), |e| escape(&e.reply))
}

#[test]
fn redis_conformance() {
    let real = servers::start_real().unwrap_or_else(|e| panic!("real Redis: {e}"));
    let sim = servers::start_sim().unwrap_or_else(|e| panic!("locksim serve redis: {e}"));
    // LOCKSIM_REDIS_CONFORMANCE_SHOW=1 prints the exchanges of agreeing cases too.
    let show_all = std::env::var_os("LOCKSIM_REDIS_CONFORMANCE_SHOW").is_some();
    let mut first = None;
    let mut totals = Vec::new();
    for proto in [Proto::Resp2, Proto::Resp3] {
        let mut replies = 0;
        let mut differences = 0;
        for &(name, case) in CASES {
            let (expected, got) = run_agreeing(proto, name, case, &real, &sim);
            replies += expected.len();
            match first_difference(&expected, &got) {
                None => {
                    println!("{proto:?} {name}: ok ({} replies)", expected.len());
                    if show_all {
                        for entry in &expected {
                            println!("    {} => {}", entry.label, escape(&entry.reply));
                        }
                    }
                }
                Some((i, want, have)) => {
                    differences += 1;
                    let step = want.or(have).map_or("", |e| e.label.as_str());
                    let report = format!(
                        "{proto:?} {name}: DIFFERS at reply {i}, {step}\n  {:<12} {}\n  {:<12} {}",
                        real.name,
                        show(want),
                        sim.name,
                        show(have)
                    );
                    println!("{report}");
                    first.get_or_insert(report);
                }
            }
        }
        totals.push((proto, replies, differences));
    }
    for (proto, replies, differences) in &totals {
        println!(
            "{proto:?}: {} cases, {replies} replies, {differences} differences",
            CASES.len()
        );
    }
    let differences: usize = totals.iter().map(|t| t.2).sum();
    if let Some(report) = first {
        panic!("{differences} cases differ; the first:\n{report}");
    }
}
