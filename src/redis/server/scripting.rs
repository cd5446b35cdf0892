//! EVAL, EVALSHA and SCRIPT: the server lends itself to its `Scripts` as the `ScriptHost`
//! a script's `redis.call` reaches, with the clock frozen at the script's start, and
//! propagates what the script changed as one MULTI/EXEC (Redis 7.0 replicates scripts by
//! their effects).

use super::Server;
use crate::redis::clock::Now;
use crate::redis::cmd::table::{CommandSpec, Keys, NOSCRIPT, Proc, STALE, by};
use crate::redis::command::{self, Flags, Lookup};
use crate::redis::conn::Conn;
use crate::redis::replies;
use crate::redis::resp::Args;
use crate::redis::resp::{Frame, Protocol};
use crate::redis::role::Role;
use crate::redis::script::{self, ScriptHost, Scripts};

/// EVAL, EVALSHA and SCRIPT.
pub(crate) static COMMANDS: &[CommandSpec] = &[
    by(
        "eval",
        -3,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Server(Server::eval),
    ),
    by(
        "evalsha",
        -3,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Server(Server::evalsha),
    ),
    by(
        "script",
        -2,
        NOSCRIPT,
        Keys::None,
        Proc::Server(Server::script),
    ),
];

/// The server as a running script sees it.
struct Host<'a> {
    server: &'a mut Server,
    now: Now,
    ops: Vec<Args>,
}

impl ScriptHost for Host<'_> {
    fn command(&self, argv: &[Vec<u8>]) -> Option<script::CommandSpec> {
        match command::lookup(argv) {
            Lookup::Found(spec) => Some(script::CommandSpec {
                arity: spec.arity,
                noscript: spec.flags.contains(Flags::NOSCRIPT),
                write: spec.flags.contains(Flags::WRITE),
            }),
            Lookup::UnknownCommand | Lookup::UnknownSubcommand => None,
        }
    }

    fn call(&mut self, args: &[Vec<u8>], proto: Protocol) -> Frame {
        let spec = match command::lookup(args) {
            Lookup::Found(spec) => spec,
            Lookup::UnknownCommand => return replies::unknown_command(args),
            Lookup::UnknownSubcommand => {
                let name = args.first().map_or(&[][..], Vec::as_slice);
                let sub = args.get(1).map_or(&[][..], Vec::as_slice);
                return replies::unknown_subcommand(name, sub);
            }
        };
        if self.server.config.role == Role::Replica && spec.flags.contains(Flags::WRITE) {
            return replies::readonly();
        }
        // Redis's Lua client speaks what the script chose with `redis.setresp`.
        self.server.script_client.proto = proto;
        self.server.call(spec, args, self.now, &mut self.ops)
    }
}

impl Server {
    /// EVAL script numkeys key... arg...
    fn eval(&mut self, conn: &mut Conn, args: &[Vec<u8>], now: Now, ops: &mut Vec<Args>) -> Frame {
        self.run_script(conn.db, args, now, ops, |scripts, host, rest| {
            scripts.eval(host, rest)
        })
    }

    /// EVALSHA sha1 numkeys key... arg...
    fn evalsha(
        &mut self,
        conn: &mut Conn,
        args: &[Vec<u8>],
        now: Now,
        ops: &mut Vec<Args>,
    ) -> Frame {
        self.run_script(conn.db, args, now, ops, |scripts, host, rest| {
            scripts.evalsha(host, rest)
        })
    }

    /// SCRIPT LOAD | EXISTS | FLUSH ...
    fn script(
        &mut self,
        conn: &mut Conn,
        args: &[Vec<u8>],
        now: Now,
        ops: &mut Vec<Args>,
    ) -> Frame {
        self.run_script(conn.db, args, now, ops, |scripts, _, rest| {
            scripts.script(rest)
        })
    }

    /// Runs a scripting command (`args` include its name) and appends what it changed to
    /// `ops`, unwrapped: the server wraps a script's effects, or an EXEC's, once (Redis 7.0
    /// replicates scripts by their effects). The script's commands run in database `db`, its
    /// caller's (`scriptPrepareForRun`); a SELECT in the script stays in the script.
    fn run_script(
        &mut self,
        db: usize,
        args: &[Vec<u8>],
        now: Now,
        ops: &mut Vec<Args>,
        run: impl FnOnce(&mut Scripts, &mut Host<'_>, &[Vec<u8>]) -> Frame,
    ) -> Frame {
        self.script_client.db = db;
        let mut scripts = self.scripts.take().unwrap_or_default();
        let rest = args.get(1..).unwrap_or_default();
        let mut host = Host {
            server: self,
            now,
            ops: Vec::new(),
        };
        let reply = run(&mut scripts, &mut host, rest);
        ops.extend(host.ops);
        self.scripts = Some(scripts);
        reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::server::{Config, Outcome};

    const NOW: Now = Now {
        wall_ms: 1_700_000_000_000,
        mono_ms: 5_000,
    };

    fn run(server: &mut Server, args: &[&str]) -> Outcome {
        let mut conn = server.connect();
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        server.handle(&mut conn, &args, NOW)
    }

    const RELEASE: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    #[test]
    fn the_compare_and_delete_script_deletes_only_its_own_lock_and_propagates_its_effect() {
        let mut server = Server::new(Config::default());
        run(&mut server, &["SET", "lock", "mine", "PX", "1000"]);
        let theirs = run(&mut server, &["EVAL", RELEASE, "1", "lock", "theirs"]);
        assert_eq!(theirs.reply, Some(Frame::Integer(0)));
        assert!(theirs.propagate.is_empty());
        let mine = run(&mut server, &["EVAL", RELEASE, "1", "lock", "mine"]);
        assert_eq!(mine.reply, Some(Frame::Integer(1)));
        assert_eq!(mine.propagate, [vec![b"del".to_vec(), b"lock".to_vec()]]);
        let gone = run(&mut server, &["GET", "lock"]);
        assert_eq!(gone.reply, Some(Frame::Null));
    }

    #[test]
    fn evalsha_finds_what_eval_cached_and_a_new_server_has_nothing() {
        let mut server = Server::new(Config::default());
        let loaded = run(&mut server, &["SCRIPT", "LOAD", "return 7"]);
        let Some(Frame::Bulk(sha)) = loaded.reply else {
            panic!("{loaded:?}")
        };
        let sha = String::from_utf8(sha).unwrap();
        let ran = run(&mut server, &["EVALSHA", &sha, "0"]);
        assert_eq!(ran.reply, Some(Frame::Integer(7)));
        let restarted = run(&mut Server::new(Config::default()), &["EVALSHA", &sha, "0"]);
        assert_eq!(
            restarted.reply,
            Some(Frame::Error(
                b"NOSCRIPT No matching script. Please use EVAL.".to_vec()
            ))
        );
    }

    /// As redis-server 7.0.15 answers: a container's subcommand is looked up with its own
    /// arity and flags (CLIENT ID is NOSCRIPT, though CLIENT itself is not), an unknown one
    /// is an unknown command.
    #[test]
    fn a_script_calls_subcommands_by_their_own_table_entry() {
        let mut server = Server::new(Config::default());
        for (body, reply) in [
            (
                "return redis.pcall('client', 'id')",
                Frame::Error(b"ERR This Redis command is not allowed from script".to_vec()),
            ),
            (
                "return redis.pcall('client', 'nosuch')",
                Frame::Error(b"ERR Unknown Redis command called from script".to_vec()),
            ),
            (
                "return redis.pcall('client', 'setname')",
                Frame::Error(
                    b"ERR Wrong number of args calling Redis command from script".to_vec(),
                ),
            ),
            (
                "return redis.pcall('command', 'count')",
                replies::count(command::count()),
            ),
            (
                "return redis.acl_check_cmd('client', 'id')",
                Frame::Integer(1),
            ),
        ] {
            assert_eq!(
                run(&mut server, &["EVAL", body, "0"]).reply,
                Some(reply),
                "{body}"
            );
        }
        let unknown = run(
            &mut server,
            &[
                "EVAL",
                "return redis.acl_check_cmd('client', 'nosuch')",
                "0",
            ],
        );
        let Some(Frame::Error(text)) = unknown.reply else {
            panic!("{unknown:?}")
        };
        assert!(text.starts_with(b"ERR Invalid command passed to redis.acl_check_cmd()"));
    }

    #[test]
    fn a_script_on_a_replica_cannot_write() {
        let mut server = Server::new(Config {
            role: Role::Replica,
            ..Config::default()
        });
        let ran = run(
            &mut server,
            &["EVAL", "return redis.pcall('set', 'k', 'v')", "0"],
        );
        assert_eq!(
            ran.reply,
            Some(Frame::Error(
                b"READONLY You can't write against a read only replica.".to_vec()
            ))
        );
    }
}
