//! The command table: every family's rows (`cmd`, each file declaring its own beside its
//! handlers, with Redis 7.0's names, arities and flags), and the lookup `processCommand` does
//! before running one.
//!
//! This and [`crate::redis::server::Server::call`] are the seam for scripting: a script's
//! `redis.call` looks the command up here, checks the arity and the flags (NOSCRIPT, WRITE
//! on a replica or in a read-only script) with its own error texts, then calls the server.

pub use crate::redis::cmd::table::{CommandSpec, Flags, Keys};
use crate::redis::cmd::{self, TABLE};
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// What the table says about a request.
#[derive(Debug)]
pub enum Lookup {
    /// The command's (or the subcommand's) entry.
    Found(&'static CommandSpec),
    /// No such command.
    UnknownCommand,
    /// A container (CLIENT, COMMAND) given a subcommand it does not have.
    UnknownSubcommand,
}

/// `lookupCommand`: the command named by `args[0]` (any case, all bytes), or for a container
/// given more than its name, its subcommand named by `args[1]`.
pub fn lookup(args: &[Vec<u8>]) -> Lookup {
    let Some(base) = args.first().and_then(|name| by_name(name)) else {
        return Lookup::UnknownCommand;
    };
    match args.get(1) {
        Some(sub) if !base.subcommands.is_empty() => match base
            .subcommands
            .iter()
            .find(|spec| spec.name().as_bytes().eq_ignore_ascii_case(sub))
        {
            Some(spec) => Lookup::Found(spec),
            None => Lookup::UnknownSubcommand,
        },
        _ => Lookup::Found(base),
    }
}

/// The longest name a command has, and more.
const NAME_MAX: usize = 32;

/// The table's commands by name: every request and every `redis.call` looks its command up.
/// Only looked up, never walked, so the map's order cannot show.
static BY_NAME: LazyLock<FxHashMap<&'static [u8], &'static CommandSpec>> = LazyLock::new(|| {
    let rows = TABLE.iter().flat_map(|rows| rows.iter());
    rows.map(|spec| (spec.name().as_bytes(), spec)).collect()
});

/// The command `name` names, in any case.
fn by_name(name: &[u8]) -> Option<&'static CommandSpec> {
    let mut lower = [0; NAME_MAX];
    let lower = lower.get_mut(..name.len())?;
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    BY_NAME.get(&*lower).copied()
}

/// How many commands the table holds (subcommands not counted), for COMMAND COUNT.
pub fn count() -> usize {
    cmd::count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::resp::Args;

    fn args(list: &[&str]) -> Args {
        list.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    fn found(list: &[&str]) -> &'static CommandSpec {
        match lookup(&args(list)) {
            Lookup::Found(spec) => spec,
            other => panic!("{list:?}: {other:?}"),
        }
    }

    #[test]
    fn every_name_fits_the_lookups_buffer_and_is_found_by_it() {
        for spec in TABLE.iter().flat_map(|rows| rows.iter()) {
            assert!(spec.name().len() <= NAME_MAX, "{}", spec.name());
            assert_eq!(
                found(&[spec.name().to_uppercase().as_str()]).fullname,
                spec.fullname
            );
        }
    }

    #[test]
    fn names_in_any_case_subcommands_by_second_argument() {
        assert_eq!(found(&["gEt", "k"]).fullname, "get");
        assert_eq!(
            found(&["client", "SetName", "x"]).fullname,
            "client|setname"
        );
        assert_eq!(found(&["CLIENT"]).fullname, "client");
        assert_eq!(found(&["command"]).fullname, "command");
        // Real Redis finds a name in its command dict by a hash of all its bytes and a C
        // string compare, so "get\0" is unknown unless, under the hash seed a process draws
        // at start, it falls in "get"'s bucket: then it is GET (2 of 150 starts of 7.0.15).
        // The common answer is pinned here; the conformance case leaves it out.
        assert!(matches!(lookup(&args(&["get\0"])), Lookup::UnknownCommand));
        assert!(matches!(lookup(&args(&["foo"])), Lookup::UnknownCommand));
        assert!(matches!(lookup(&[]), Lookup::UnknownCommand));
        assert!(matches!(
            lookup(&args(&["client", "setinfo"])),
            Lookup::UnknownSubcommand
        ));
        // A command without subcommands ignores what follows its name.
        assert_eq!(found(&["ping", "client"]).fullname, "ping");
    }

    #[test]
    fn arity() {
        let get = found(&["get"]);
        assert!(!get.arity_ok(1) && get.arity_ok(2) && !get.arity_ok(3));
        let set = found(&["set"]);
        assert!(!set.arity_ok(2) && set.arity_ok(3) && set.arity_ok(9));
        assert!(found(&["ping"]).arity_ok(1));
    }

    #[test]
    fn flags_scripts_and_replicas_act_on() {
        for write in ["set", "del", "expire", "pexpire", "expireat", "pexpireat"] {
            assert!(found(&[write]).flags.contains(Flags::WRITE), "{write}");
        }
        for read in ["get", "exists", "ttl", "pttl", "ping", "echo", "info"] {
            assert!(!found(&[read]).flags.contains(Flags::WRITE), "{read}");
        }
        assert!(
            found(&["get"])
                .flags
                .contains(Flags::READONLY.and(Flags::FAST))
        );
        assert!(found(&["set"]).flags.contains(Flags::DENYOOM));
        assert!(found(&["quit"]).flags.contains(Flags::NOSCRIPT));
        assert!(found(&["client", "id"]).flags.contains(Flags::NOSCRIPT));
        assert!(!found(&["ping"]).flags.contains(Flags::NOSCRIPT));
        assert!(found(&["info"]).flags.contains(Flags::STALE));
        for scripting in [
            "eval", "evalsha", "script", "multi", "exec", "discard", "watch", "unwatch",
        ] {
            assert!(
                found(&[scripting]).flags.contains(Flags::NOSCRIPT),
                "{scripting}"
            );
        }
        assert_eq!(count(), 116);
    }

    #[test]
    fn no_name_is_in_two_rows() {
        let mut names: Vec<&str> = TABLE
            .iter()
            .flat_map(|rows| rows.iter())
            .map(|spec| spec.fullname)
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
    }

    #[test]
    fn keys_by_position() {
        let keys = |list: &[&str]| {
            let args = args(list);
            found(list)
                .keys(&args)
                .into_iter()
                .cloned()
                .collect::<Args>()
        };
        assert_eq!(keys(&["SET", "k", "v", "PX", "5"]), args(&["k"]));
        assert_eq!(keys(&["del", "a", "b"]), args(&["a", "b"]));
        assert_eq!(keys(&["PEXPIREAT", "k", "7"]), args(&["k"]));
        assert_eq!(keys(&["RENAME", "a", "b"]), args(&["a", "b"]));
        assert_eq!(keys(&["MSET", "a", "1", "b", "2"]), args(&["a", "b"]));
        assert!(keys(&["EVALSHA", "abc", "1", "k"]).is_empty());
        assert!(keys(&["ping"]).is_empty());
        assert!(keys(&["client", "id"]).is_empty());
    }
}
