//! What of a Redis server survives a crash: nothing, or an append-only file synced before
//! every reply or every second. Sans-IO: the host hands it each command it propagates and
//! calls [`Durability::fsync`] when [`Durability::fsync_every_ms`] says.

use crate::redis::clock::Now;
use crate::redis::resp::Args;
use crate::redis::server::{self, Config, Server};

/// What survives a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Nothing: the server restarts empty.
    None,
    /// An append-only file synced every `fsync_every_ms` (Redis: every second): the writes
    /// acknowledged since the last sync are lost.
    AofEverysec {
        /// How often the file is synced, ms.
        fsync_every_ms: u64,
    },
    /// An append-only file synced before every reply: no acknowledged write is lost.
    AofAlways,
}

/// The append-only file of one server.
#[derive(Debug)]
pub(crate) struct Durability {
    persistence: Persistence,
    /// The file as synced to disk.
    aof: Vec<Args>,
    /// Appended but not yet synced (AOF everysec).
    unsynced: Vec<Args>,
}

impl Durability {
    pub(crate) fn new(persistence: Persistence) -> Durability {
        Durability {
            persistence,
            aof: Vec::new(),
            unsynced: Vec::new(),
        }
    }

    /// How often the file is to be synced; None when every append is synced or there is no
    /// file.
    pub(crate) fn fsync_every_ms(&self) -> Option<u64> {
        match self.persistence {
            Persistence::AofEverysec { fsync_every_ms } => Some(fsync_every_ms),
            _ => None,
        }
    }

    /// What a command propagated, appended to the file.
    pub(crate) fn append(&mut self, ops: &[Args]) {
        match self.persistence {
            Persistence::None => {}
            Persistence::AofEverysec { .. } => self.unsynced.extend(ops.iter().cloned()),
            Persistence::AofAlways => self.aof.extend(ops.iter().cloned()),
        }
    }

    /// Syncs what was appended since the last sync.
    pub(crate) fn fsync(&mut self) {
        let synced = std::mem::take(&mut self.unsynced);
        self.aof.extend(synced);
    }

    /// After a crash of `crashed`: a server of `config` rebuilt from the file, and how many
    /// acknowledged writes were lost.
    pub(crate) fn recover(&mut self, crashed: &Server, config: Config, now: Now) -> (Server, u64) {
        let lost = match self.persistence {
            Persistence::None => crashed.dump(now).len() as u64,
            Persistence::AofEverysec { .. } => self.unsynced.len() as u64,
            Persistence::AofAlways => 0,
        };
        self.unsynced.clear();
        let mut server = Server::new(config);
        let mut link = server.connect();
        for op in &self.aof {
            server.replicate(&mut link, op, now);
        }
        (server, lost)
    }

    /// A promoted replica's data set becomes the file, as a rewrite makes it.
    pub(crate) fn rewrite(&mut self, server: &Server, now: Now) {
        self.unsynced.clear();
        self.aof = server::rewrite(&server.dump(now));
    }
}
