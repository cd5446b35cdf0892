//! Tests of scripting against a fake host.
//!
//! - `pinned`: command sequences whose every reply was recorded from redis-server 7.0.15 (Debian
//!   7.0.15-1~deb12u10) and must come back byte for byte;
//! - `bounds`, `isolation`, `host`: what a real server cannot show the same way (its clock
//!   moves) or what is the simulation's own (its bounds);
//! - `adversarial`: scripts that would end the process or starve the next script;
//! - `libs`: Redis's `cjson`, `cmsgpack`, `struct` and `bit`: replies pinned from the reference
//!   server, and the memory, depth and stack bounds they keep;
//! - `fuzz`: no input panics, and replies survive the trip through Lua;
//! - `resp3`: `redis.setresp` and the RESP3 conversions both ways, in both protocols.

mod adversarial;
mod bounds;
mod fake;
mod fuzz;
mod host;
mod isolation;
mod libs;
mod pinned;
mod resp3;

use fake::FakeRedis;

use crate::redis::resp::Frame;
use crate::redis::script::Scripts;

/// One command and the reply Redis sent for it, on the wire.
type Step = (&'static [&'static [u8]], &'static [u8]);

/// RESP2 bytes of a reply, to compare with what the real server sent.
fn wire(frame: &Frame) -> Vec<u8> {
    let line = |prefix: &str, body: &[u8]| [prefix.as_bytes(), body, b"\r\n"].concat();
    match frame {
        Frame::Simple(text) => line("+", text),
        Frame::Error(text) => line("-", text),
        Frame::Integer(n) => line(":", n.to_string().as_bytes()),
        Frame::Bulk(bytes) => [
            line("$", bytes.len().to_string().as_bytes()),
            line("", bytes),
        ]
        .concat(),
        Frame::Null => b"$-1\r\n".to_vec(),
        Frame::NullArray => b"*-1\r\n".to_vec(),
        Frame::Array(items) => {
            let mut out = line("*", items.len().to_string().as_bytes());
            for item in items {
                out.extend(wire(item));
            }
            out
        }
        resp3 => wire(&resp3.clone().into_resp2()),
    }
}

/// `EVAL body numkeys keys... args...`.
fn run(
    scripts: &mut Scripts,
    host: &mut FakeRedis,
    body: &str,
    keys: &[&str],
    args: &[&str],
) -> Frame {
    let mut command = vec![
        body.as_bytes().to_vec(),
        keys.len().to_string().into_bytes(),
    ];
    command.extend(keys.iter().chain(args).map(|arg| arg.as_bytes().to_vec()));
    scripts.eval(host, &command)
}

fn sha(body: &str) -> String {
    super::sha1_hex(body.as_bytes())
}

/// Runs a command as the server core would dispatch it.
fn execute(scripts: &mut Scripts, host: &mut FakeRedis, command: &[Vec<u8>]) -> Frame {
    match command[0].to_ascii_uppercase().as_slice() {
        b"EVAL" => scripts.eval(host, &command[1..]),
        b"EVALSHA" => scripts.evalsha(host, &command[1..]),
        b"SCRIPT" => scripts.script(&command[1..]),
        _ => host.dispatch(command),
    }
}

/// Runs each case on a fresh server and lists every reply that differs from the pinned one.
fn check(cases: &[&[Step]]) {
    let mut failures = Vec::new();
    for (number, case) in cases.iter().enumerate() {
        let mut scripts = Scripts::new();
        let mut host = FakeRedis::default();
        for (command, expected) in case.iter() {
            let command: Vec<Vec<u8>> = command.iter().map(|arg| arg.to_vec()).collect();
            let reply = wire(&execute(&mut scripts, &mut host, &command));
            if reply != *expected {
                failures.push(format!(
                    "case {number}: {}\n   expected {}\n   got      {}",
                    command
                        .iter()
                        .map(|arg| arg.escape_ascii().to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                    expected.escape_ascii(),
                    reply.escape_ascii()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lock_scripts_of_real_clients() {
    check(pinned::CLIENTS);
}

#[test]
fn lua_to_resp_and_back() {
    check(pinned::CONVERSIONS);
}

#[test]
fn errors_and_their_words() {
    check(pinned::ERRORS);
}

#[test]
fn sandbox_and_globals() {
    check(pinned::SANDBOX);
}

#[test]
fn eval_evalsha_and_script() {
    check(pinned::ADMIN);
}

/// How many times `prefix` repeats at the start of `bytes`, and what follows.
pub(super) fn nesting(bytes: &[u8], prefix: &[u8]) -> (usize, Vec<u8>) {
    let mut rest = bytes;
    let mut count = 0;
    while let Some(tail) = rest.strip_prefix(prefix) {
        rest = tail;
        count += 1;
    }
    (count, rest[..rest.len().min(100)].to_vec())
}
