//! Who and when: the identifiers every part of the server passes around, and the clocks'
//! reading an input arrives with.

/// Identifies one client connection (the driver assigns them).
pub type ConnId = u64;

/// A server's id in the ensemble (`myid`); the top byte of the session ids it creates.
pub type ServerId = u8;

/// The server's clocks at the moment of an input: `mono_ms` drives session expiry,
/// `wall_ms` (ms since the Unix epoch) fills Stat.ctime/mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    pub mono_ms: u64,
    pub wall_ms: i64,
}

/// Where a request came in: its server, connection and xid. Its reply is sent there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub server: ServerId,
    pub conn: ConnId,
    pub xid: i32,
}
