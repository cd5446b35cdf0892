//! Whether a server is a master or a replica: what the commands and the server check before
//! a write, and how a lookup treats an expired key.

/// A master, or a read-only replica of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// Expires keys, propagates its writes.
    #[default]
    Master,
    /// Refuses client writes, applies its master's stream, never expires a key itself
    /// (reads see a key past its deadline as missing, by the replica's own clock).
    Replica,
}
