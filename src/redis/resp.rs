//! RESP2 values as Redis 7 sends and receives them.

/// One RESP2 value. Strings are bytes: Redis keys, values and even error texts are binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// `+OK\r\n`
    Simple(Vec<u8>),
    /// `-ERR ...\r\n`
    Error(Vec<u8>),
    /// `:42\r\n`
    Integer(i64),
    /// `$3\r\nfoo\r\n`
    Bulk(Vec<u8>),
    /// `$-1\r\n`: the null bulk string (a missing key, Lua's false or nil).
    Null,
    /// `*2\r\n...`
    Array(Vec<Frame>),
    /// `*-1\r\n`
    NullArray,
}
