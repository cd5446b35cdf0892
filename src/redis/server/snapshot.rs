//! Snapshots: the keyspace as an RDB file would hold it, and a restart that loads one; the
//! commands that rebuild it (an AOF rewrite). What survives a crash (nothing, a snapshot, an
//! AOF) is the simulation's choice; an AOF is replayed through [`Server::replicate`], as
//! Redis loads one by its replication rules. And a look at single keys as stored, for a
//! driver that watches what commands change.

use super::Server;
use crate::redis::clock::Now;
use crate::redis::resp::Args;
use crate::redis::role::Role;
use crate::redis::value::Value;

/// A key as a snapshot holds it: the deadline in unix ms, as an RDB file keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The database it is in.
    pub db: usize,
    /// The key.
    pub key: Vec<u8>,
    /// Its value (of locksim's own types: two dumps compare whole, with `==`).
    pub(crate) value: Value,
    /// Its deadline, unix ms; None: it never expires.
    pub expires_at_ms: Option<i64>,
}

impl Server {
    /// A key of database `db` as stored, expired or not, and its deadline on the server's
    /// expiry clock ([`Server::expiry_clock`]). Unlike a command's lookup it expires nothing.
    pub(crate) fn peek(&self, db: usize, key: &[u8]) -> Option<(&Value, Option<i64>)> {
        let ks = self.dbs.get(db)?;
        Some((ks.get(key)?, ks.expire_of(key)))
    }

    /// Every key as stored, database by database and in order, with its database and its
    /// deadline as [`Server::peek`] gives it.
    pub(crate) fn stored(&self) -> impl Iterator<Item = (usize, &[u8], &Value, Option<i64>)> {
        self.dbs.iter().enumerate().flat_map(|(db, ks)| {
            ks.iter()
                .map(move |(key, value, when)| (db, key, value, when))
        })
    }

    /// Every key, in order, with its deadline in unix ms: what a snapshot (RDB) would hold.
    pub fn dump(&self, now: Now) -> Vec<Entry> {
        let clock = self.config.expiry_clock;
        self.stored()
            .map(|(db, key, value, when)| Entry {
                db,
                key: key.to_vec(),
                value: value.clone(),
                expires_at_ms: when.map(|t| clock.to_wall(t, now)),
            })
            .collect()
    }

    /// Replaces the keyspace with a snapshot, as a restart loads its RDB file: a master
    /// skips the keys whose deadline has passed, a replica keeps them for its master's DEL.
    pub(crate) fn load(&mut self, entries: Vec<Entry>, now: Now) {
        let clock = self.config.expiry_clock;
        self.dbs.iter_mut().for_each(|ks| ks.flush());
        for entry in entries {
            let past = entry.expires_at_ms.is_some_and(|when| when < now.wall_ms);
            if past && self.config.role == Role::Master {
                continue;
            }
            let ks = self.db_mut(entry.db);
            ks.insert(&entry.key, entry.value, false);
            if let Some(when) = entry.expires_at_ms {
                ks.set_expire(&entry.key, clock.from_wall(when, now));
            }
        }
    }
}

/// The commands that rebuild `entries` on an empty server, as an AOF rewrite writes them: a
/// SELECT where the database changes, one command per key (SET with its PXAT for a string;
/// RPUSH, HSET, SADD or ZADD with every element, then PEXPIREAT, for an aggregate), and a
/// SELECT 0 at the end if the last key was elsewhere, so the stream that follows starts
/// where a new server's does.
pub(crate) fn rewrite(entries: &[Entry]) -> Vec<Args> {
    let mut ops = Vec::new();
    let mut db = 0;
    let select = |db: usize| vec![b"SELECT".to_vec(), db.to_string().into_bytes()];
    for entry in entries {
        if entry.db != db {
            db = entry.db;
            ops.push(select(db));
        }
        let key = entry.key.clone();
        let deadline = entry.expires_at_ms.map(|at| at.to_string().into_bytes());
        let op: Args = match &entry.value {
            Value::String(s) => {
                let mut set = vec![b"SET".to_vec(), key, s.clone()];
                if let Some(at) = deadline {
                    set.extend([b"PXAT".to_vec(), at]);
                }
                ops.push(set);
                continue;
            }
            Value::List(l) => [b"RPUSH".to_vec(), key.clone()]
                .into_iter()
                .chain(l.iter().map(<[u8]>::to_vec))
                .collect(),
            Value::Hash(h) => [b"HSET".to_vec(), key.clone()]
                .into_iter()
                .chain(h.iter().flat_map(|(f, v)| [f.to_vec(), v.to_vec()]))
                .collect(),
            Value::Set(s) => [b"SADD".to_vec(), key.clone()]
                .into_iter()
                .chain(s.iter().map(<[u8]>::to_vec))
                .collect(),
            Value::ZSet(z) => [b"ZADD".to_vec(), key.clone()]
                .into_iter()
                .chain(
                    z.iter()
                        .flat_map(|(m, score)| [score.to_string().into_bytes(), m.to_vec()]),
                )
                .collect(),
        };
        ops.push(op);
        if let Some(at) = deadline {
            ops.push(vec![b"PEXPIREAT".to_vec(), key, at]);
        }
    }
    if db != 0 {
        ops.push(select(0));
    }
    ops
}
