//! A tiny Redis for the scripting tests: strings and hashes with expiry on a frozen clock, and
//! the handful of commands the cases and the clients' lock scripts use, replying as Redis 7.0.

use std::collections::BTreeMap;

use crate::redis::resp::{Frame, Protocol};
use crate::redis::script::{CommandSpec, ScriptHost};

#[derive(Debug, Clone)]
enum Stored {
    Text(Vec<u8>),
    Hash(BTreeMap<Vec<u8>, Vec<u8>>),
}

#[derive(Debug, Default)]
pub(super) struct FakeRedis {
    /// The frozen clock, in ms.
    pub(super) now: u64,
    keys: BTreeMap<Vec<u8>, (Stored, Option<u64>)>,
    /// Every command a script ran, in order.
    pub(super) calls: Vec<Vec<Vec<u8>>>,
}

/// name, arity, noscript, write (Redis 7.0's command table).
const COMMANDS: [(&str, i32, bool, bool); 16] = [
    ("get", 2, false, false),
    ("set", -3, false, true),
    ("del", -2, false, true),
    ("exists", -2, false, false),
    ("pexpire", -3, false, true),
    ("pttl", 2, false, false),
    ("incr", 2, false, true),
    ("hset", -4, false, true),
    ("hexists", 3, false, false),
    ("hincrby", 4, false, true),
    ("publish", 3, false, true),
    ("ping", -1, false, false),
    ("echo", 2, false, false),
    ("type", 2, false, false),
    ("multi", 1, true, false),
    ("eval", -3, true, true),
];

fn error(text: &str) -> Frame {
    Frame::Error(text.as_bytes().to_vec())
}

fn ok() -> Frame {
    Frame::Simple(b"OK".to_vec())
}

const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
const NOT_INTEGER: &str = "ERR value is not an integer or out of range";

fn integer(arg: &[u8]) -> Option<i64> {
    std::str::from_utf8(arg).ok()?.parse().ok()
}

impl FakeRedis {
    fn live(&mut self, key: &[u8]) -> Option<&mut (Stored, Option<u64>)> {
        let now = self.now;
        if self
            .keys
            .get(key)
            .is_some_and(|(_, expiry)| expiry.is_some_and(|at| now > at))
        {
            self.keys.remove(key);
        }
        self.keys.get_mut(key)
    }

    fn hash(&mut self, key: &[u8]) -> Result<&mut BTreeMap<Vec<u8>, Vec<u8>>, Frame> {
        if self.live(key).is_none() {
            self.keys
                .insert(key.to_vec(), (Stored::Hash(BTreeMap::new()), None));
        }
        match self.live(key) {
            Some((Stored::Hash(hash), _)) => Ok(hash),
            _ => Err(error(WRONGTYPE)),
        }
    }

    fn set(&mut self, args: &[Vec<u8>]) -> Frame {
        let (mut nx, mut xx, mut ttl) = (false, false, None);
        let mut options = args[3..].iter();
        while let Some(option) = options.next() {
            match option.to_ascii_lowercase().as_slice() {
                b"nx" => nx = true,
                b"xx" => xx = true,
                unit @ (b"px" | b"ex") => {
                    let Some(amount) = options.next() else {
                        return error("ERR syntax error");
                    };
                    let Some(amount) = integer(amount) else {
                        return error(NOT_INTEGER);
                    };
                    if amount <= 0 {
                        return error("ERR invalid expire time in 'set' command");
                    }
                    ttl = Some(if unit == b"px" { amount } else { amount * 1000 });
                }
                _ => return error("ERR syntax error"),
            }
        }
        let exists = self.live(&args[1]).is_some();
        if (nx && exists) || (xx && !exists) {
            return Frame::Null;
        }
        let expiry = ttl.map(|ms| self.now + ms as u64);
        self.keys
            .insert(args[1].clone(), (Stored::Text(args[2].clone()), expiry));
        ok()
    }

    fn count(&mut self, keys: &[Vec<u8>], delete: bool) -> Frame {
        let mut n = 0;
        for key in keys {
            if self.live(key).is_some() {
                n += 1;
                if delete {
                    self.keys.remove(key);
                }
            }
        }
        Frame::Integer(n)
    }

    /// Runs a command; what scripts run goes through [`ScriptHost::call`], which records it.
    pub(super) fn dispatch(&mut self, args: &[Vec<u8>]) -> Frame {
        let name = args[0].to_ascii_lowercase();
        let now = self.now;
        match name.as_slice() {
            b"get" => match self.live(&args[1]) {
                None => Frame::Null,
                Some((Stored::Text(value), _)) => Frame::Bulk(value.clone()),
                Some(_) => error(WRONGTYPE),
            },
            b"set" => self.set(args),
            b"del" => self.count(&args[1..], true),
            b"exists" => self.count(&args[1..], false),
            b"pexpire" => {
                let Some(ms) = integer(&args[2]) else {
                    return error(NOT_INTEGER);
                };
                match self.live(&args[1]) {
                    None => Frame::Integer(0),
                    Some(_) if ms <= 0 => {
                        self.keys.remove(&args[1]);
                        Frame::Integer(1)
                    }
                    Some((_, expiry)) => {
                        *expiry = Some(now.saturating_add_signed(ms));
                        Frame::Integer(1)
                    }
                }
            }
            b"pttl" => match self.live(&args[1]) {
                None => Frame::Integer(-2),
                Some((_, None)) => Frame::Integer(-1),
                Some((_, Some(at))) => Frame::Integer((*at - now) as i64),
            },
            b"incr" => {
                let current = match self.live(&args[1]) {
                    None => 0,
                    Some((Stored::Text(value), _)) => match integer(value) {
                        Some(n) => n,
                        None => return error(NOT_INTEGER),
                    },
                    Some(_) => return error(WRONGTYPE),
                };
                let expiry = self.live(&args[1]).and_then(|(_, expiry)| *expiry);
                let next = current + 1;
                self.keys.insert(
                    args[1].clone(),
                    (Stored::Text(next.to_string().into_bytes()), expiry),
                );
                Frame::Integer(next)
            }
            b"hset" => match self.hash(&args[1]) {
                Ok(hash) => {
                    let mut added = 0;
                    for pair in args[2..].chunks(2) {
                        added += i64::from(hash.insert(pair[0].clone(), pair[1].clone()).is_none());
                    }
                    Frame::Integer(added)
                }
                Err(reply) => reply,
            },
            b"hexists" => match self.live(&args[1]) {
                None => Frame::Integer(0),
                Some((Stored::Hash(hash), _)) => {
                    Frame::Integer(i64::from(hash.contains_key(&args[2])))
                }
                Some(_) => error(WRONGTYPE),
            },
            b"hincrby" => {
                let Some(by) = integer(&args[3]) else {
                    return error(NOT_INTEGER);
                };
                match self.hash(&args[1]) {
                    Ok(hash) => {
                        let field = hash.entry(args[2].clone()).or_insert_with(|| b"0".to_vec());
                        let next = integer(field).unwrap_or(0) + by;
                        *field = next.to_string().into_bytes();
                        Frame::Integer(next)
                    }
                    Err(reply) => reply,
                }
            }
            b"publish" => Frame::Integer(0),
            b"ping" => match args {
                [_] => Frame::Simple(b"PONG".to_vec()),
                [_, message] => Frame::Bulk(message.clone()),
                _ => error("ERR wrong number of arguments for 'ping' command"),
            },
            b"echo" => Frame::Bulk(args[1].clone()),
            b"type" => Frame::Simple(
                match self.live(&args[1]) {
                    None => b"none".as_slice(),
                    Some((Stored::Text(_), _)) => b"string",
                    Some((Stored::Hash(_), _)) => b"hash",
                }
                .to_vec(),
            ),
            _ => error("ERR the fake Redis does not run this command"),
        }
    }
}

impl ScriptHost for FakeRedis {
    fn command(&self, argv: &[Vec<u8>]) -> Option<CommandSpec> {
        let name = argv[0].to_ascii_lowercase();
        COMMANDS
            .iter()
            .find(|(known, ..)| known.as_bytes() == name)
            .map(|&(_, arity, noscript, write)| CommandSpec {
                arity,
                noscript,
                write,
            })
    }

    fn call(&mut self, args: &[Vec<u8>], _: Protocol) -> Frame {
        self.calls.push(args.to_vec());
        self.dispatch(args)
    }
}
