//! A case is a list of steps on numbered connections (each opened on first use). Run against
//! one server it gives a transcript: one entry per reply (or per closing checked), with the
//! reply's exact bytes. Two servers' transcripts are compared entry by entry.
//!
//! Every case runs twice: in RESP2, and in RESP3 with `HELLO 3` sent first on each
//! connection it opens (that reply is checked, not recorded).

use super::wire::{Conn, escape};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry::{Occupied, Vacant};
use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How far two PTTL replies may be apart. Both servers run a case at the same time, on two
/// threads, so the same PTTL reaches them a little apart.
pub const PTTL_SLACK_MS: i64 = 25;
/// How far two TTL replies may be apart: the same slack, rounded to seconds either way.
pub const TTL_SLACK_S: i64 = 1;

/// How two servers' replies to a step must agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// Byte for byte.
    Exact,
    /// Integer replies within this much of each other when both are 0 or more (a remaining
    /// time, read at slightly different moments); anything else byte for byte.
    Within(i64),
    /// Only the reply's type, its first byte: for replies that differ by design (see
    /// `cases_connection::introspection`) or by history (CLIENT ID counts connections).
    Kind,
    /// Byte for byte, but for the client id in HELLO's map (it counts connections).
    HelloId,
    /// An array or set of bulk strings, integers or nulls, its elements in any order: for
    /// replies that Redis gives in its hash tables' random order (SMEMBERS of a set that is
    /// not all integers).
    Unordered,
}

/// The protocol a pass speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    Resp2,
    /// `HELLO 3` first on each connection.
    Resp3,
}

enum Action {
    /// Writes the request and reads this many replies.
    Send {
        request: Vec<u8>,
        replies: usize,
    },
    /// A multibulk request whose arguments may be time templates (see [`expand`]).
    Command(Vec<Vec<u8>>),
    /// Checks that the server has closed the connection.
    Closed,
    Sleep(Duration),
}

pub struct Step {
    conn: usize,
    action: Action,
    compare: Compare,
    label: String,
}

impl Step {
    /// The same step on connection `conn` (0 unless told).
    pub fn on(mut self, conn: usize) -> Step {
        self.conn = conn;
        self
    }

    /// Compares an integer reply with some slack: see [`Compare::Within`].
    pub fn within(mut self, slack: i64) -> Step {
        self.compare = Compare::Within(slack);
        self
    }

    /// Compares only the reply's type.
    pub fn kind_only(mut self) -> Step {
        self.compare = Compare::Kind;
        self
    }

    /// Compares a HELLO reply but for its client id.
    pub fn hello_id(mut self) -> Step {
        self.compare = Compare::HelloId;
        self
    }

    /// Compares an aggregate's elements in any order: see [`Compare::Unordered`].
    pub fn unordered(mut self) -> Step {
        self.compare = Compare::Unordered;
        self
    }

    /// Shown as `label` in the transcript (for long scripts).
    pub fn named(mut self, label: String) -> Step {
        self.label = label;
        self
    }
}

fn step(action: Action, label: String) -> Step {
    Step {
        conn: 0,
        action,
        compare: Compare::Exact,
        label,
    }
}

/// A command sent as a multibulk request. An argument `{ms+N}`, `{ms-N}`, `{s+N}` or `{s-N}`
/// is the unix time in ms (or s) when it is sent, plus or minus N.
pub fn cmd(args: &[&str]) -> Step {
    let label = args.iter().map(|a| shown(a.as_bytes())).collect::<Vec<_>>();
    let args = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    step(Action::Command(args), label.join(" "))
}

/// A PTTL with its slack.
pub fn pttl(key: &str) -> Step {
    cmd(&["PTTL", key]).within(PTTL_SLACK_MS)
}

/// A TTL with its slack.
pub fn ttl(key: &str) -> Step {
    cmd(&["TTL", key]).within(TTL_SLACK_S)
}

/// `EVALSHA` of `body`'s SHA1 with `rest` (numkeys, keys, args), as clients send a script
/// they loaded.
pub fn evalsha(body: &str, rest: &[&str]) -> Step {
    let sha = sha1_smol::Sha1::from(body).digest().to_string();
    let mut args = vec!["EVALSHA", &sha];
    args.extend_from_slice(rest);
    let label = format!(
        "EVALSHA sha1({}) {}",
        shown(body.as_bytes()),
        rest.join(" ")
    );
    cmd(&args).named(label)
}

/// Raw bytes (inline requests, broken ones, several at once), and how many replies follow.
pub fn raw(bytes: &[u8], replies: usize) -> Step {
    let request = bytes.to_vec();
    step(
        Action::Send { request, replies },
        format!("raw {}", cut(escape(bytes))),
    )
}

/// Reads this many more replies, sending nothing: what another connection's command sent
/// this one (pub/sub messages), or the rest of a command that answers several times.
pub fn pending(replies: usize) -> Step {
    let request = Vec::new();
    step(Action::Send { request, replies }, "(pending)".to_string())
}

/// The server must have closed the connection.
pub fn closed() -> Step {
    step(Action::Closed, "(closed by the server?)".to_string())
}

pub fn sleep(ms: u64) -> Step {
    step(Action::Sleep(Duration::from_millis(ms)), String::new())
}

/// An argument as the transcript shows it: plain words as they are, anything else escaped,
/// long ones cut.
fn shown(arg: &[u8]) -> String {
    let plain = !arg.is_empty()
        && arg
            .iter()
            .all(|b| b.is_ascii_graphic() && *b != b'"' && *b != b'\\');
    if plain {
        cut(String::from_utf8_lossy(arg).into_owned())
    } else {
        cut(escape(arg))
    }
}

/// `text` cut to its first 60 characters.
fn cut(text: String) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
}

/// A time template's value now, or the argument as it is.
fn expand(arg: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(arg);
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return arg.to_vec();
    };
    let Some((unit, sign, offset)) = ["ms+", "ms-", "s+", "s-"].iter().find_map(|p| {
        let rest = inner.strip_prefix(p)?;
        let offset: i64 = rest.parse().ok()?;
        Some((&p[..p.len() - 1], &p[p.len() - 1..], offset))
    }) else {
        return arg.to_vec();
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970");
    let now = match unit {
        "ms" => now.as_millis() as i64,
        _ => now.as_secs() as i64,
    };
    let value = if sign == "+" {
        now + offset
    } else {
        now - offset
    };
    value.to_string().into_bytes()
}

fn multibulk(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        let arg = expand(arg);
        out.extend(format!("${}\r\n", arg.len()).into_bytes());
        out.extend(arg);
        out.extend(b"\r\n");
    }
    out
}

/// One reply (or closing) a step observed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub label: String,
    pub reply: Vec<u8>,
    compare: Compare,
}

/// A new connection, switched to RESP3 for that pass (what else HELLO answered, as the
/// error).
fn open(addr: SocketAddr, proto: Proto) -> Result<Conn, Vec<u8>> {
    let mut conn = Conn::open(addr)?;
    if proto == Proto::Resp3 {
        conn.send(&multibulk(&[b"HELLO".to_vec(), b"3".to_vec()]));
        let reply = conn.reply();
        if !reply.starts_with(b"%7\r\n") {
            return Err(format!("(HELLO 3 answered {})", escape(&reply)).into_bytes());
        }
    }
    Ok(conn)
}

/// Runs `steps` against the server at `addr`, in `proto`.
pub fn run(steps: &[Step], addr: SocketAddr, proto: Proto) -> Vec<Entry> {
    let mut conns: BTreeMap<usize, Conn> = BTreeMap::new();
    let mut entries = Vec::new();
    for step in steps {
        let label = match step.conn {
            0 => step.label.clone(),
            n => format!("[conn {n}] {}", step.label),
        };
        let mut entry = |reply| {
            entries.push(Entry {
                label: label.clone(),
                reply,
                compare: step.compare,
            })
        };
        if let Action::Sleep(time) = step.action {
            std::thread::sleep(time);
            continue;
        }
        let conn = match conns.entry(step.conn) {
            Occupied(open) => open.into_mut(),
            Vacant(new) => match open(addr, proto) {
                Ok(conn) => new.insert(conn),
                Err(why) => {
                    entry(why);
                    continue;
                }
            },
        };
        match &step.action {
            Action::Sleep(_) => {} // slept above
            Action::Command(args) => {
                conn.send(&multibulk(args));
                entry(conn.reply());
            }
            Action::Send { request, replies } => {
                conn.send(request);
                for _ in 0..*replies {
                    entry(conn.reply());
                }
            }
            Action::Closed => entry(conn.closed()),
        }
    }
    entries
}

/// Whether two servers' entries for the same step agree.
fn agree(a: &Entry, b: &Entry) -> bool {
    if a.label != b.label {
        return false;
    }
    match a.compare {
        Compare::Exact => a.reply == b.reply,
        Compare::Kind => a.reply.first() == b.reply.first(),
        Compare::HelloId => without_id(&a.reply) == without_id(&b.reply),
        Compare::Unordered => match (sorted(&a.reply), sorted(&b.reply)) {
            (Some(x), Some(y)) => x == y,
            _ => a.reply == b.reply,
        },
        Compare::Within(slack) => match (integer(&a.reply), integer(&b.reply)) {
            (Some(x), Some(y)) if x >= 0 && y >= 0 => (x - y).abs() <= slack,
            _ => a.reply == b.reply,
        },
    }
}

/// A HELLO reply with its client id as `?`.
fn without_id(reply: &[u8]) -> Vec<u8> {
    let key = b"$2\r\nid\r\n:";
    let Some(at) = reply.windows(key.len()).position(|w| w == key) else {
        return reply.to_vec();
    };
    let start = at + key.len();
    let digits = reply[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    [&reply[..start], b"?", &reply[start + digits..]].concat()
}

/// An array or set reply of flat elements (bulk strings, integers, nulls) as its header and
/// its elements sorted; None for anything else.
fn sorted(reply: &[u8]) -> Option<(u8, usize, Vec<&[u8]>)> {
    let (&kind, rest) = reply.split_first()?;
    if kind != b'*' && kind != b'~' {
        return None;
    }
    let (count, mut rest) = line(rest)?;
    let count: usize = std::str::from_utf8(count).ok()?.parse().ok()?;
    let mut elements = Vec::with_capacity(count);
    for _ in 0..count {
        let start = rest;
        let (&element_kind, after) = rest.split_first()?;
        let (text, after) = line(after)?;
        rest = match element_kind {
            b':' | b'_' => after,
            b'$' => {
                let len: usize = std::str::from_utf8(text).ok()?.parse().ok()?;
                after.get(len + 2..)?
            }
            _ => return None,
        };
        elements.push(&start[..start.len() - rest.len()]);
    }
    if !rest.is_empty() {
        return None;
    }
    elements.sort_unstable();
    Some((kind, count, elements))
}

/// The text up to the first CRLF, and what follows it.
fn line(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = bytes.windows(2).position(|w| w == b"\r\n")?;
    Some((&bytes[..end], &bytes[end + 2..]))
}

/// The value of an integer reply.
fn integer(reply: &[u8]) -> Option<i64> {
    std::str::from_utf8(reply.strip_prefix(b":")?.strip_suffix(b"\r\n")?)
        .ok()?
        .parse()
        .ok()
}

/// The first entry where the transcripts disagree: its index and both sides (None past the
/// end of one).
pub fn first_difference<'a>(
    a: &'a [Entry],
    b: &'a [Entry],
) -> Option<(usize, Option<&'a Entry>, Option<&'a Entry>)> {
    (0..a.len().max(b.len()))
        .find(|&i| match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => !agree(x, y),
            _ => true,
        })
        .map(|i| (i, a.get(i), b.get(i)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(reply: &[u8], compare: Compare) -> Entry {
        Entry {
            label: "SMEMBERS k".to_string(),
            reply: reply.to_vec(),
            compare,
        }
    }

    #[test]
    fn unordered_replies_agree_in_any_order_and_only_then() {
        let agree_unordered = |a: &[u8], b: &[u8]| {
            agree(&entry(a, Compare::Unordered), &entry(b, Compare::Unordered))
        };
        assert!(agree_unordered(
            b"*3\r\n$1\r\nc\r\n$1\r\na\r\n$2\r\nbb\r\n",
            b"*3\r\n$2\r\nbb\r\n$1\r\nc\r\n$1\r\na\r\n"
        ));
        assert!(agree_unordered(b"~2\r\n:1\r\n_\r\n", b"~2\r\n_\r\n:1\r\n"));
        // Another element, another count, another kind of aggregate, a trailing byte.
        assert!(!agree_unordered(
            b"*2\r\n$1\r\na\r\n$1\r\nb\r\n",
            b"*2\r\n$1\r\na\r\n$1\r\nc\r\n"
        ));
        assert!(!agree_unordered(
            b"*1\r\n$1\r\na\r\n",
            b"*2\r\n$1\r\na\r\n$1\r\na\r\n"
        ));
        assert!(!agree_unordered(b"*1\r\n$1\r\na\r\n", b"~1\r\n$1\r\na\r\n"));
        assert!(!agree_unordered(
            b"*1\r\n$1\r\na\r\nx",
            b"*1\r\n$1\r\na\r\n"
        ));
        // Anything else byte for byte.
        assert!(agree_unordered(b"-ERR x\r\n", b"-ERR x\r\n"));
        assert!(!agree_unordered(b"-ERR x\r\n", b"-ERR y\r\n"));
    }
}
