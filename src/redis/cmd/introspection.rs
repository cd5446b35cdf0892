//! INFO, COMMAND, CONFIG GET and TIME: what clients read about the server.

use super::table::{CommandSpec, FAST, NOSCRIPT, STALE, container, spec};
use super::{Ctx, count};
use crate::redis::cstr::is;
use crate::redis::glob;
use crate::redis::resp::Frame;
use crate::redis::role::Role;

/// What clients read about the server.
pub(super) static COMMANDS: &[CommandSpec] = &[
    spec("info", -1, STALE, |ctx, args| info(ctx, args)),
    spec("command", -1, STALE, |_, _| no_commands()).with_subcommands(&[
        spec("command|count", 2, STALE, |_, _| command_count()),
        spec("command|docs", -2, STALE, |_, _| no_docs()),
    ]),
    spec("time", 1, STALE.and(FAST), |ctx, _| time(ctx)),
    container(
        "config",
        -2,
        &[spec("config|get", -3, NOSCRIPT.and(STALE), |_, args| {
            config_get(args)
        })],
    ),
];

/// INFO [section...]: a verbatim text (a bulk string in RESP2) of the `# Server` and
/// `# Replication` sections, each cut down to the lines clients read (the version, the mode,
/// the role). Section names are matched in any case; `default`, `all` and `everything` give both; a section the simulator does not keep
/// (clients, memory, keyspace...) gives nothing, as an unknown one does in Redis.
fn info(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let asked = |section: &str| {
        args.len() == 1
            || args
                .iter()
                .skip(1)
                .any(|a| is(a, section) || is(a, "default") || is(a, "all") || is(a, "everything"))
    };
    let mut sections: Vec<String> = Vec::new();
    if asked("server") {
        sections.push(
            "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n\
             redis_git_dirty:0\r\nredis_mode:standalone\r\narch_bits:64\r\n"
                .to_string(),
        );
    }
    if asked("replication") {
        let role = match ctx.role {
            Role::Master => "master",
            Role::Replica => "slave",
        };
        sections.push(format!("# Replication\r\nrole:{role}\r\n"));
    }
    Frame::Verbatim {
        format: *b"txt",
        text: sections.join("\r\n").into_bytes(),
    }
}

/// COMMAND: Redis lists every command's details; the simulator publishes none, and
/// `redis-cli` then simply offers no hints.
fn no_commands() -> Frame {
    Frame::Array(Vec::new())
}

/// COMMAND DOCS: a map of each command's docs; the simulator has none, and answers as Redis
/// does for names it does not know: an empty map (an empty array in RESP2).
fn no_docs() -> Frame {
    Frame::Map(Vec::new())
}

/// COMMAND COUNT: the commands this server has.
fn command_count() -> Frame {
    Frame::Integer(i64::try_from(count()).unwrap_or(i64::MAX))
}

/// The configuration parameters CONFIG GET knows, with the values the simulated server runs
/// with (Redis 7.0.15's defaults, no persistence): those clients and lock libraries read.
const CONFIG: &[(&str, &str)] = &[
    ("appendfsync", "everysec"),
    ("appendonly", "no"),
    ("busy-reply-threshold", "5000"),
    ("client-query-buffer-limit", "1073741824"),
    ("cluster-enabled", "no"),
    ("databases", "16"),
    ("lua-time-limit", "5000"),
    ("maxclients", "10000"),
    ("maxmemory", "0"),
    ("maxmemory-policy", "noeviction"),
    ("min-replicas-max-lag", "10"),
    ("min-replicas-to-write", "0"),
    ("notify-keyspace-events", ""),
    ("proto-max-bulk-len", "536870912"),
    ("replica-read-only", "yes"),
    ("save", ""),
    ("timeout", "0"),
];

/// CONFIG GET parameter...: a map of the known parameters the arguments name, each once. A
/// glob pattern matches names in any case, in the table's order (Redis's is its dict's); a
/// plain name is looked up in any case and answered under the spelling it was given, as
/// Redis 7.0 does.
fn config_get(args: &[Vec<u8>]) -> Frame {
    // (the name as answered, the parameter's entry)
    let mut found: Vec<(&[u8], &(&str, &str))> = Vec::new();
    for pattern in args.get(2..).unwrap_or_default() {
        let is_glob = pattern.iter().any(|b| matches!(b, b'*' | b'?' | b'['));
        for entry in CONFIG {
            let name = entry.0.as_bytes();
            let given: &[u8] = if is_glob { name } else { pattern };
            let hit = if is_glob {
                glob::matches(pattern, name, true)
            } else {
                name.eq_ignore_ascii_case(pattern)
            };
            if hit && !found.iter().any(|(_, seen)| seen.0 == entry.0) {
                found.push((given, entry));
            }
        }
    }
    let pairs = found.into_iter().map(|(given, (_, value))| {
        (
            Frame::Bulk(given.to_vec()),
            Frame::Bulk(value.as_bytes().to_vec()),
        )
    });
    Frame::Map(pairs.collect())
}

/// TIME: the server's wall clock as seconds and microseconds, two bulk strings.
fn time(ctx: &Ctx<'_>) -> Frame {
    let ms = ctx.wall();
    Frame::Array(vec![
        Frame::Bulk(ms.div_euclid(1000).to_string().into_bytes()),
        Frame::Bulk((ms.rem_euclid(1000) * 1000).to_string().into_bytes()),
    ])
}
