//! Reply bytes for every command, option and error, against what redis-server 7.0.15
//! (started with its default 16 databases, as the simulator has) answered to the same
//! requests: the tables were produced by sending them to the real server, each session on a
//! fresh connection of an empty server. Time in the simulator is frozen at one reading near
//! the real server's clock, which the TTLs asked here do not notice.

use super::test_support::*;
use super::{Config, Server};
use crate::redis::command;
use crate::redis::role::Role;

/// A request and the reply's bytes.
type Exchange = (&'static [&'static [u8]], &'static [u8]);
/// Bytes in separate reads, the bytes that came back, whether the server closed.
type Reads = (&'static [&'static [u8]], &'static [u8], bool);

/// Generated against redis-server 7.0.15 (16 databases): each session on one connection of an empty server.
const SESSIONS: &[&[Exchange]] = &[
    &[
        (&[b"GET", b"k"], b"$-1\r\n"),
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"GET", b"k"], b"$1\r\nv\r\n"),
        (&[b"SET", b"k", b"v2", b"XX"], b"+OK\r\n"),
        (&[b"GET", b"k"], b"$2\r\nv2\r\n"),
        (&[b"SET", b"k", b"v3", b"NX"], b"$-1\r\n"),
        (&[b"GET", b"k"], b"$2\r\nv2\r\n"),
        (&[b"SET", b"n", b"1", b"nx"], b"+OK\r\n"),
        (&[b"GET", b"n"], b"$1\r\n1\r\n"),
        (&[b"SET", b"m", b"v", b"xx"], b"$-1\r\n"),
        (&[b"GET", b"m"], b"$-1\r\n"),
        (&[b"EXISTS", b"k", b"n", b"m", b"k"], b":3\r\n"),
        (&[b"DEL", b"k", b"n", b"m", b"k"], b":2\r\n"),
        (&[b"DEL", b"k"], b":0\r\n"),
        (&[b"EXISTS", b"k"], b":0\r\n"),
        (&[b"gEt", b"n"], b"$-1\r\n"),
        (&[b"SET", b"", b"empty"], b"+OK\r\n"),
        (&[b"GET", b""], b"$5\r\nempty\r\n"),
        (&[b"SET", b"bin", b"\x00\r\n\xff"], b"+OK\r\n"),
        (&[b"GET", b"bin"], b"$4\r\n\x00\r\n\xff\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v", b"GET"], b"$-1\r\n"),
        (&[b"SET", b"k", b"v2", b"GET"], b"$1\r\nv\r\n"),
        (&[b"SET", b"k", b"v3", b"NX", b"GET"], b"$2\r\nv2\r\n"),
        (&[b"GET", b"k"], b"$2\r\nv2\r\n"),
        (&[b"SET", b"x", b"v", b"XX", b"GET"], b"$-1\r\n"),
        (&[b"GET", b"x"], b"$-1\r\n"),
        (&[b"SET", b"k", b"v4", b"get", b"KEEPTTL", b"Get"], b"$2\r\nv2\r\n"),
        (&[b"SET", b"k", b"v5", b"GET", b"GET"], b"$2\r\nv4\r\n"),
        (&[b"SET", b"k", b"v6", b"nx\x00zz"], b"$-1\r\n"),
        (&[b"SET", b"k", b"v6", b"GET\x00"], b"$2\r\nv5\r\n"),
        (&[b"GET", b"k"], b"$2\r\nv6\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v", b"NX", b"XX"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"XX", b"NX"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"10", b"PX", b"100"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EX"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"PX"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"0"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"-1"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"0"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"PXAT", b"0"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"EXAT", b"-5"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"abc"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"1.5"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b" 1"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"9223372036854776"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"9223372036854775"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"9223372036854775807"], b"-ERR invalid expire time in 'set' command\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"9223372036854775808"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SET", b"k", b"v", b"KEEPTTL", b"EX", b"10"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"10", b"KEEPTTL"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EXAT", b"10", b"PXAT", b"10"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"PXAT", b"10", b"EX", b"1"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"foo"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b""], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"NX", b"NX"], b"+OK\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"10", b"EX", b"20"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":20\r\n"),
        (&[b"SET", b"k", b"v", b"KEEPTTL", b"KEEPTTL"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":20\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"abc", b"foo"], b"-ERR syntax error\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"NX"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SET", b"k", b"v", b"EX", b"abc", b"NX"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"GET", b"k"], b"$1\r\nv\r\n"),
    ],
    &[
        (&[b"SET", b"k", b"v", b"EX", b"100"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":100\r\n"),
        (&[b"SET", b"k", b"w", b"KEEPTTL"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":100\r\n"),
        (&[b"GET", b"k"], b"$1\r\nw\r\n"),
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":-1\r\n"),
        (&[b"PTTL", b"k"], b":-1\r\n"),
        (&[b"SET", b"k", b"v", b"PX", b"100000"], b"+OK\r\n"),
        (&[b"TTL", b"k"], b":100\r\n"),
        (&[b"SET", b"k", b"v", b"PXAT", b"1"], b"+OK\r\n"),
        (&[b"GET", b"k"], b"$-1\r\n"),
        (&[b"EXISTS", b"k"], b":0\r\n"),
        (&[b"TTL", b"k"], b":-2\r\n"),
        (&[b"SET", b"k", b"v", b"EXAT", b"1"], b"+OK\r\n"),
        (&[b"PTTL", b"k"], b":-2\r\n"),
        (&[b"SET", b"k", b"v", b"PXAT", b"9223372036854775807"], b"+OK\r\n"),
        (&[b"EXISTS", b"k"], b":1\r\n"),
        (&[b"SET", b"k", b"v", b"EXAT", b"9223372036854775"], b"+OK\r\n"),
        (&[b"EXISTS", b"k"], b":1\r\n"),
        (&[b"SET", b"e", b"v", b"XX", b"EX", b"10"], b"$-1\r\n"),
        (&[b"EXISTS", b"e"], b":0\r\n"),
    ],
    &[
        (&[b"EXPIRE", b"nokey", b"10"], b":0\r\n"),
        (&[b"SET", b"k", b"v"], b"+OK\r\n"),
        (&[b"EXPIRE", b"k", b"100"], b":1\r\n"),
        (&[b"TTL", b"k"], b":100\r\n"),
        (&[b"EXPIRE", b"k", b"50", b"GT"], b":0\r\n"),
        (&[b"EXPIRE", b"k", b"200", b"gt"], b":1\r\n"),
        (&[b"TTL", b"k"], b":200\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"LT"], b":1\r\n"),
        (&[b"TTL", b"k"], b":10\r\n"),
        (&[b"EXPIRE", b"k", b"20", b"NX"], b":0\r\n"),
        (&[b"EXPIRE", b"k", b"20", b"XX"], b":1\r\n"),
        (&[b"TTL", b"k"], b":20\r\n"),
        (&[b"EXPIRE", b"k", b"30", b"XX", b"GT"], b":1\r\n"),
        (&[b"TTL", b"k"], b":30\r\n"),
        (&[b"SET", b"p", b"v"], b"+OK\r\n"),
        (&[b"EXPIRE", b"p", b"10", b"XX"], b":0\r\n"),
        (&[b"EXPIRE", b"p", b"10", b"GT"], b":0\r\n"),
        (&[b"EXPIRE", b"p", b"10", b"LT"], b":1\r\n"),
        (&[b"TTL", b"p"], b":10\r\n"),
        (&[b"SET", b"p", b"v"], b"+OK\r\n"),
        (&[b"EXPIRE", b"p", b"10", b"NX"], b":1\r\n"),
        (&[b"TTL", b"p"], b":10\r\n"),
        (&[b"PEXPIRE", b"k", b"-1"], b":1\r\n"),
        (&[b"EXISTS", b"k"], b":0\r\n"),
        (&[b"EXPIREAT", b"p", b"1"], b":1\r\n"),
        (&[b"GET", b"p"], b"$-1\r\n"),
        (&[b"SET", b"q", b"v"], b"+OK\r\n"),
        (&[b"EXPIRE", b"q", b"0"], b":1\r\n"),
        (&[b"EXISTS", b"q"], b":0\r\n"),
        (&[b"SET", b"q", b"v"], b"+OK\r\n"),
        (&[b"PEXPIREAT", b"q", b"99999999999999"], b":1\r\n"),
        (&[b"EXISTS", b"q"], b":1\r\n"),
        (&[b"PEXPIRE", b"q", b"100000"], b":1\r\n"),
        (&[b"TTL", b"q"], b":100\r\n"),
        (&[b"EXPIREAT", b"q", b"99999999999"], b":1\r\n"),
        (&[b"EXISTS", b"q"], b":1\r\n"),
        (&[b"PTTL", b"nokey"], b":-2\r\n"),
        (&[b"TTL", b"nokey"], b":-2\r\n"),
        (&[b"SET", b"r", b"v"], b"+OK\r\n"),
        (&[b"PTTL", b"r"], b":-1\r\n"),
        (&[b"TTL", b"r"], b":-1\r\n"),
        (&[b"PEXPIRE", b"nokey", b"-1"], b":0\r\n"),
        (&[b"EXPIRE", b"nokey", b"-1"], b":0\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"NX", b"XX"], b"-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"NX", b"GT"], b"-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"lt", b"nx"], b"-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"GT", b"LT"], b"-ERR GT and LT options at the same time are not compatible\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"foo"], b"-ERR Unsupported option foo\r\n"),
        (&[b"EXPIRE", b"k", b"x", b"foo"], b"-ERR Unsupported option foo\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"foo\nbar\n"], b"-ERR Unsupported option foo bar\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"\r\nfoo"], b"-ERR Unsupported option   foo\r\n"),
        (&[b"EXPIRE", b"k", b"10", b"ab\x00cd"], b"-ERR Unsupported option ab\r\n"),
        (&[b"EXPIRE", b"k", b"x"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EXPIRE", b"k", b""], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"EXPIRE", b"k", b"9223372036854776"], b"-ERR invalid expire time in 'expire' command\r\n"),
        (&[b"EXPIRE", b"k", b"-9223372036854776"], b"-ERR invalid expire time in 'expire' command\r\n"),
        (&[b"EXPIRE", b"k", b"9223372036854775"], b"-ERR invalid expire time in 'expire' command\r\n"),
        (&[b"PEXPIRE", b"k", b"9223372036854775807"], b"-ERR invalid expire time in 'pexpire' command\r\n"),
        (&[b"PEXPIRE", b"nokey", b"-9223372036854775808"], b":0\r\n"),
        (&[b"EXPIREAT", b"r", b"9223372036854775"], b":1\r\n"),
        (&[b"EXISTS", b"r"], b":1\r\n"),
        (&[b"PEXPIREAT", b"r", b"9223372036854775807"], b":1\r\n"),
        (&[b"EXISTS", b"r"], b":1\r\n"),
        (&[b"EXPIREAT", b"r", b"9223372036854776"], b"-ERR invalid expire time in 'expireat' command\r\n"),
        (&[b"PEXPIREAT", b"r", b"-9223372036854775808"], b":1\r\n"),
        (&[b"EXISTS", b"r"], b":0\r\n"),
    ],
    &[
        (&[b"PING"], b"+PONG\r\n"),
        (&[b"PING", b"hi"], b"$2\r\nhi\r\n"),
        (&[b"PING", b"a", b"b"], b"-ERR wrong number of arguments for 'ping' command\r\n"),
        (&[b"ping", b""], b"$0\r\n\r\n"),
        (&[b"ECHO", b"x"], b"$1\r\nx\r\n"),
        (&[b"ECHO", b"\x00\r\n"], b"$3\r\n\x00\r\n\r\n"),
        (&[b"SELECT", b"0"], b"+OK\r\n"),
        (&[b"SELECT", b"15"], b"+OK\r\n"),
        (&[b"SELECT", b"16"], b"-ERR DB index is out of range\r\n"),
        (&[b"SELECT", b"-1"], b"-ERR DB index is out of range\r\n"),
        (&[b"SELECT", b"x"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"SELECT", b"2147483648"], b"-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"),
        (&[b"SELECT", b"-2147483649"], b"-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"),
        (&[b"SELECT", b"2147483647"], b"-ERR DB index is out of range\r\n"),
        (&[b"SELECT", b"00"], b"-ERR value is not an integer or out of range\r\n"),
        (&[b"CLIENT", b"GETNAME"], b"$-1\r\n"),
        (&[b"CLIENT", b"SETNAME", b"foo"], b"+OK\r\n"),
        (&[b"CLIENT", b"GETNAME"], b"$3\r\nfoo\r\n"),
        (&[b"CLIENT", b"SETNAME", b""], b"+OK\r\n"),
        (&[b"CLIENT", b"GETNAME"], b"$-1\r\n"),
        (&[b"CLIENT", b"SETNAME", b"a b"], b"-ERR Client names cannot contain spaces, newlines or special characters.\r\n"),
        (&[b"CLIENT", b"SETNAME", b"caf\xc3\xa9"], b"-ERR Client names cannot contain spaces, newlines or special characters.\r\n"),
        (&[b"CLIENT", b"SETNAME", b"~!"], b"+OK\r\n"),
        (&[b"CLIENT", b"getname"], b"$2\r\n~!\r\n"),
        (&[b"CLIENT", b"SETINFO", b"LIB-NAME", b"redis-py"], b"-ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.\r\n"),
        (&[b"client", b"foo\r\nbar"], b"-ERR unknown subcommand 'foo  bar'. Try CLIENT HELP.\r\n"),
        (&[b"COMMAND", b"DOCS", b"nosuch"], b"*0\r\n"),
        (&[b"COMMAND", b"FOO"], b"-ERR unknown subcommand 'FOO'. Try COMMAND HELP.\r\n"),
        (&[b"command", b"foo", b"bar"], b"-ERR unknown subcommand 'foo'. Try COMMAND HELP.\r\n"),
        (&[b"foo", b"a", b"b"], b"-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n"),
        (&[b"foo"], b"-ERR unknown command 'foo', with args beginning with: \r\n"),
        (&[b"FOO\r\nx", b"a\nb", b"c\x00d"], b"-ERR unknown command 'FOO  x', with args beginning with: 'a b' 'c' \r\n"),
        (&[b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", b"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", b"z"], b"-ERR unknown command 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', with args beginning with: 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy' \r\n"),
        (&[b"f", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b"bbbbbbbbbb", b"c"], b"-ERR unknown command 'f', with args beginning with: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' 'bbbbb' \r\n"),
        (&[b"get\x00", b"k"], b"-ERR unknown command 'get', with args beginning with: 'k' \r\n"),
        (&[b"EVAL2"], b"-ERR unknown command 'EVAL2', with args beginning with: \r\n"),
    ],
    &[
        (&[b"GET"], b"-ERR wrong number of arguments for 'get' command\r\n"),
        (&[b"GET", b"a", b"b"], b"-ERR wrong number of arguments for 'get' command\r\n"),
        (&[b"SET", b"k"], b"-ERR wrong number of arguments for 'set' command\r\n"),
        (&[b"set"], b"-ERR wrong number of arguments for 'set' command\r\n"),
        (&[b"DEL"], b"-ERR wrong number of arguments for 'del' command\r\n"),
        (&[b"EXISTS"], b"-ERR wrong number of arguments for 'exists' command\r\n"),
        (&[b"EXPIRE", b"k"], b"-ERR wrong number of arguments for 'expire' command\r\n"),
        (&[b"PEXPIRE", b"k"], b"-ERR wrong number of arguments for 'pexpire' command\r\n"),
        (&[b"EXPIREAT", b"k"], b"-ERR wrong number of arguments for 'expireat' command\r\n"),
        (&[b"PEXPIREAT", b"k"], b"-ERR wrong number of arguments for 'pexpireat' command\r\n"),
        (&[b"TTL"], b"-ERR wrong number of arguments for 'ttl' command\r\n"),
        (&[b"TTL", b"a", b"b"], b"-ERR wrong number of arguments for 'ttl' command\r\n"),
        (&[b"PTTL"], b"-ERR wrong number of arguments for 'pttl' command\r\n"),
        (&[b"ECHO"], b"-ERR wrong number of arguments for 'echo' command\r\n"),
        (&[b"ECHO", b"a", b"b"], b"-ERR wrong number of arguments for 'echo' command\r\n"),
        (&[b"SELECT"], b"-ERR wrong number of arguments for 'select' command\r\n"),
        (&[b"SELECT", b"0", b"1"], b"-ERR wrong number of arguments for 'select' command\r\n"),
        (&[b"CLIENT"], b"-ERR wrong number of arguments for 'client' command\r\n"),
        (&[b"CLIENT", b"GETNAME", b"x"], b"-ERR wrong number of arguments for 'client|getname' command\r\n"),
        (&[b"CLIENT", b"ID", b"x"], b"-ERR wrong number of arguments for 'client|id' command\r\n"),
        (&[b"CLIENT", b"SETNAME"], b"-ERR wrong number of arguments for 'client|setname' command\r\n"),
        (&[b"CLIENT", b"SETNAME", b"a", b"b"], b"-ERR wrong number of arguments for 'client|setname' command\r\n"),
        (&[b"COMMAND", b"COUNT", b"x"], b"-ERR wrong number of arguments for 'command|count' command\r\n"),
        (&[b"QUIT", b"a", b"b"], b"+OK\r\n"),
    ],
];

/// Generated against redis-server 7.0.15: bytes sent in separate reads, the bytes that came back, whether it closed.
const READS: &[Reads] = &[
    (&[b"*1\r\n$4\r\nPING\r\n"], b"+PONG\r\n", false),
    (&[b"PING\r\n"], b"+PONG\r\n", false),
    (&[b"PING\n"], b"+PONG\r\n", false),
    (&[b"ECHO \"a b\" 'c d'\r\n"], b"-ERR wrong number of arguments for 'echo' command\r\n", false),
    (&[b"\r\n\n   \r\nPING\r\n"], b"+PONG\r\n", false),
    (&[b"*0\r\n*-5\r\nPING\r\n"], b"+PONG\r\n", false),
    (&[b"*1\rX$4\r\nPINGxx"], b"+PONG\r\n", false),
    (&[b"*1\r\n$4\r\nPING\r\n*1\r\n$3\r\nfoo\r\n*x\r\n*1\r\n$4\r\nPING\r\n"], b"+PONG\r\n-ERR unknown command 'foo', with args beginning with: \r\n-ERR Protocol error: invalid multibulk length\r\n", true),
    (&[b"QUIT\r\nPING\r\n"], b"+OK\r\n", true),
    (&[b"PING\r\nhost: x\r\nPING\r\n"], b"", true),
    (&[b"POST / HTTP/1.1\r\n"], b"", true),
    (&[b"PING\r\n", b"Post\r\nPING\r\n"], b"+PONG\r\n", true),
    (&[b"ECHO \"abc\r\n"], b"-ERR Protocol error: unbalanced quotes in request\r\n", true),
    (&[b"*1\r\n\r\n"], b"-ERR Protocol error: expected '$', got ' '\r\n", true),
    (&[b"SET k v\r\nGET k\r\n"], b"+OK\r\n$1\r\nv\r\n", false),
    (&[b"PING\x00\n"], b"", false),
    (&[b"*1\r\n$4\r\nPING"], b"", false),
    (&[b"*1\r\n$4\r\nPI", b"NG\r\n"], b"+PONG\r\n", false),
    (&[b"*2\r\n$4\r\nECHO\r\n$5\r\nab", b"c\r\n\r\n*1\r\n", b"$4\r\nPING\r\n"], b"$5\r\nabc\r\n\r\n+PONG\r\n", false),
    (&[b"LONG65537"], b"-ERR Protocol error: too big inline request\r\n", true),
    (&[b"LONG65536", b"\n"], b"-ERR unknown command 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', with args beginning with: \r\n", false),
    (&[b"*1\r\n$-1\r\n"], b"-ERR Protocol error: invalid bulk length\r\n", true),
    (&[b"GET k\r\n*1\r\n$3\r\nGET\r\n"], b"$-1\r\n-ERR wrong number of arguments for 'get' command\r\n", false),
];

#[test]
fn sessions_reply_byte_for_byte() {
    for (n, session) in SESSIONS.iter().enumerate() {
        let mut c = Client::master();
        for (request, expected) in session.iter() {
            let got = c.run(at(0), request);
            let request: Vec<String> = request.iter().map(|a| text(a)).collect();
            assert_eq!(text(&got), text(expected), "session {n}: {request:?}");
        }
    }
}

/// Stands in for the long inputs the table names instead of spelling out.
fn chunk(c: &[u8]) -> Vec<u8> {
    match c {
        b"LONG65537" => vec![b'x'; 65537],
        b"LONG65536" => vec![b'x'; 65536],
        other => other.to_vec(),
    }
}

#[test]
fn reads_answer_and_close_byte_for_byte() {
    for (chunks, expected, closed) in READS {
        let mut server = Server::new(Config::default());
        let mut conn = server.connect();
        let mut out = Vec::new();
        let mut close = false;
        for c in chunks.iter() {
            let output = server.handle_input(&mut conn, &chunk(c), at(0));
            out.extend(output.bytes);
            close = output.close;
        }
        let shown: Vec<String> = chunks.iter().map(|c| text(&c[..c.len().min(40)])).collect();
        assert_eq!(text(&out), text(expected), "{shown:?}");
        assert_eq!(close, *closed, "{shown:?}");
        assert_eq!(conn.is_closing(), *closed);
    }
}

#[test]
fn nothing_is_read_after_close() {
    let mut server = Server::new(Config::default());
    let mut conn = server.connect();
    assert!(server.handle_input(&mut conn, b"QUIT\r\n", at(0)).close);
    let after = server.handle_input(&mut conn, b"SET k v\r\n", at(0));
    assert!(after.bytes.is_empty() && after.close);
    let mut other = server.connect();
    assert_eq!(
        server.handle_input(&mut other, b"GET k\r\n", at(0)).bytes,
        b"$-1\r\n"
    );
}

#[test]
fn a_query_buffer_past_the_limit_drops_the_connection_unanswered() {
    let mut server = Server::new(Config {
        max_query_buffer: 16,
        ..Config::default()
    });
    let mut conn = server.connect();
    // Whole requests are consumed as they come, so only what waits counts.
    for _ in 0..4 {
        assert_eq!(
            server.handle_input(&mut conn, b"PING\r\n", at(0)).bytes,
            b"+PONG\r\n"
        );
    }
    // As in Redis, arguments already parsed have left the query buffer: what counts is the
    // unparsed bytes and the argument being read (here 10 bytes of a 20-byte value).
    for piece in [
        &b"*3\r\n$3\r\nSET\r\n"[..],
        b"$1\r\nk\r\n",
        b"$20\r\n0123456789",
    ] {
        let waiting = server.handle_input(&mut conn, piece, at(0));
        assert!(waiting.bytes.is_empty() && !waiting.close);
    }
    let over = server.handle_input(&mut conn, b"0123456", at(0));
    assert!(over.bytes.is_empty() && over.close);
    // A read larger than the limit is over it before anything is parsed.
    let mut conn = server.connect();
    let whole = server.handle_input(&mut conn, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", at(0));
    assert!(whole.bytes.is_empty() && whole.close);
}

#[test]
fn client_ids_count_from_the_first_connection() {
    let mut server = Server::new(Config::default());
    let mut a = server.connect();
    let mut b = server.connect();
    assert_eq!(
        server.handle_input(&mut a, b"CLIENT ID\r\n", at(0)).bytes,
        b":2\r\n"
    );
    assert_eq!(
        server.handle_input(&mut b, b"client id\r\n", at(0)).bytes,
        b":3\r\n"
    );
    assert_eq!(a.id(), 2);
    // Names belong to connections.
    server.handle_input(&mut a, b"CLIENT SETNAME alpha\r\n", at(0));
    assert_eq!(a.name(), Some(&b"alpha"[..]));
    assert_eq!(
        server
            .handle_input(&mut b, b"CLIENT GETNAME\r\n", at(0))
            .bytes,
        b"$-1\r\n"
    );
}

#[test]
fn info_keeps_the_lines_clients_read() {
    // Each line below is word for word one of redis-server 7.0.15's (INFO server,
    // INFO replication); the real sections hold more.
    let server = b"# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n\
                   redis_git_dirty:0\r\nredis_mode:standalone\r\narch_bits:64\r\n";
    let master = b"# Replication\r\nrole:master\r\n";
    let body = |parts: &[&[u8]]| {
        let joined = parts.join(&b"\r\n"[..]);
        let mut reply = format!("${}\r\n", joined.len()).into_bytes();
        reply.extend(joined);
        reply.extend_from_slice(b"\r\n");
        reply
    };
    let mut c = Client::master();
    assert_eq!(c.run(at(0), &[b"INFO"]), body(&[server, master]));
    assert_eq!(
        c.run(at(0), &[b"info", b"default"]),
        body(&[server, master])
    );
    assert_eq!(
        c.run(at(0), &[b"INFO", b"everything"]),
        body(&[server, master])
    );
    assert_eq!(c.run(at(0), &[b"INFO", b"SERVER"]), body(&[server]));
    assert_eq!(
        c.run(at(0), &[b"INFO", b"server", b"server"]),
        body(&[server])
    );
    assert_eq!(
        c.run(at(0), &[b"INFO", b"Replication", b"server"]),
        body(&[server, master])
    );
    // Verified: an unknown section is an empty bulk.
    assert_eq!(c.run(at(0), &[b"INFO", b"nosuch"]), b"$0\r\n\r\n");
    let mut replica = Client::new(Role::Replica, Default::default());
    assert_eq!(
        replica.run(at(0), &[b"INFO", b"replication"]),
        body(&[b"# Replication\r\nrole:slave\r\n"])
    );
}

#[test]
fn command_publishes_no_docs_and_counts_its_own() {
    // Divergences, on purpose: Redis 7.0.15 lists its 240 commands and their docs.
    let mut c = Client::master();
    assert_eq!(c.run(at(0), &[b"COMMAND"]), b"*0\r\n");
    assert_eq!(c.run(at(0), &[b"COMMAND", b"DOCS"]), b"*0\r\n");
    assert_eq!(c.run(at(0), &[b"COMMAND", b"DOCS", b"get"]), b"*0\r\n");
    let count = format!(":{}\r\n", command::count()).into_bytes();
    assert_eq!(c.run(at(0), &[b"COMMAND", b"COUNT"]), count);
}
