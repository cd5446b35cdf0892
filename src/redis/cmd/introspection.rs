//! INFO and COMMAND: what clients read about the server.

use super::Ctx;
use crate::redis::command;
use crate::redis::cstr::is;
use crate::redis::resp::Frame;
use crate::redis::server::Role;

/// INFO [section...]: a verbatim text (a bulk string in RESP2) of the `# Server` and
/// `# Replication` sections, each cut down to the lines clients read (the version, the mode,
/// the role). Section names are matched in any case; `default`, `all` and `everything` give both; a section the simulator does not keep
/// (clients, memory, keyspace...) gives nothing, as an unknown one does in Redis.
pub(super) fn info(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
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
pub(super) fn no_commands() -> Frame {
    Frame::Array(Vec::new())
}

/// COMMAND DOCS: a map of each command's docs; the simulator has none, and answers as Redis
/// does for names it does not know: an empty map (an empty array in RESP2).
pub(super) fn no_docs() -> Frame {
    Frame::Map(Vec::new())
}

/// COMMAND COUNT: the commands this server has.
pub(super) fn command_count() -> Frame {
    Frame::Integer(i64::try_from(command::count()).unwrap_or(i64::MAX))
}
