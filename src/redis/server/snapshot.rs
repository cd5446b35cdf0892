//! Snapshots: the keyspace as an RDB file would hold it, and a restart that loads one.
//! What survives a crash (nothing, a snapshot, an AOF) is the simulation's choice; an AOF is
//! replayed through [`Server::replicate`], as Redis loads one by its replication rules.
//! And a look at single keys as stored, for a driver that watches what commands change.

use super::{Role, Server};
use crate::redis::clock::Now;

/// A key as a snapshot holds it: the deadline in unix ms, as an RDB file keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key.
    pub key: Vec<u8>,
    /// Its value (strings are the only type).
    pub value: Vec<u8>,
    /// Its deadline, unix ms; None: it never expires.
    pub expires_at_ms: Option<i64>,
}

impl Server {
    /// A key as stored, expired or not, and its deadline on the server's expiry clock
    /// ([`Server::expiry_clock`]). Unlike a command's lookup it expires nothing.
    pub fn peek(&self, key: &[u8]) -> Option<(&[u8], Option<i64>)> {
        let value = self.keyspace.get(key)?;
        Some((value, self.keyspace.expire_of(key)))
    }

    /// Every key as stored, in order, with its deadline as [`Server::peek`] gives it.
    pub fn stored(&self) -> impl Iterator<Item = (&[u8], &[u8], Option<i64>)> {
        self.keyspace.iter()
    }

    /// Every key, in order, with its deadline in unix ms: what a snapshot (RDB) would hold.
    pub fn dump(&self, now: Now) -> Vec<Entry> {
        let clock = self.config.expiry_clock;
        self.keyspace
            .iter()
            .map(|(key, value, when)| Entry {
                key: key.to_vec(),
                value: value.to_vec(),
                expires_at_ms: when.map(|t| clock.to_wall(t, now)),
            })
            .collect()
    }

    /// Replaces the keyspace with a snapshot, as a restart loads its RDB file: a master
    /// skips the keys whose deadline has passed, a replica keeps them for its master's DEL.
    pub fn load(&mut self, entries: Vec<Entry>, now: Now) {
        let clock = self.config.expiry_clock;
        self.keyspace.flush();
        for entry in entries {
            if let Some(when) = entry.expires_at_ms {
                if self.config.role == Role::Master && when < now.wall_ms {
                    continue;
                }
                self.keyspace.set(&entry.key, &entry.value, false);
                self.keyspace
                    .set_expire(&entry.key, clock.from_wall(when, now));
            } else {
                self.keyspace.set(&entry.key, &entry.value, false);
            }
        }
    }
}
