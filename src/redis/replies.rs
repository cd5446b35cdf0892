//! Redis's wording: the shared replies and the error texts of the supported commands, built
//! the way networking.c builds them, so that they match byte for byte.

use crate::redis::cstr::cstr;
use crate::redis::resp::Frame;

/// `+OK`
pub fn ok() -> Frame {
    Frame::Simple(b"OK".to_vec())
}

/// `addReplyError`: `-ERR <msg>`, unless the text brings its own code (`-READONLY ...`).
pub fn error(msg: &[u8]) -> Frame {
    match msg.strip_prefix(b"-") {
        Some(coded) => Frame::Error(coded.to_vec()),
        None => Frame::Error([&b"ERR "[..], msg].concat()),
    }
}

/// `addReplyErrorFormat`: CR and LF trimmed from both ends, the rest turned into spaces,
/// since a formatted text may carry user bytes.
pub fn error_format(msg: &[u8]) -> Frame {
    let is_crlf = |b: &u8| *b == b'\r' || *b == b'\n';
    let start = msg.iter().position(|b| !is_crlf(b)).unwrap_or(msg.len());
    let end = msg
        .iter()
        .rposition(|b| !is_crlf(b))
        .map_or(start, |i| i + 1);
    error(&spaced(msg.get(start..end).unwrap_or_default()))
}

/// CR and LF as spaces (`sdsmapchars(s, "\r\n", "  ", 2)`).
fn spaced(text: &[u8]) -> Vec<u8> {
    text.iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}

/// `addReplyLongLong` of a count or a length (HLEN, SCARD, how many were added...).
pub fn count(n: usize) -> Frame {
    Frame::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `shared.syntaxerr`
pub fn syntax_error() -> Frame {
    error(b"syntax error")
}

/// What `getLongLongFromObjectOrReply` says to anything `string2ll` refuses.
pub fn not_an_integer() -> Frame {
    error(b"value is not an integer or out of range")
}

/// `shared.wrongtypeerr`: a command of one type met a key holding another.
pub fn wrong_type() -> Frame {
    error(b"-WRONGTYPE Operation against a key holding the wrong kind of value")
}

/// What AUTH and HELLO AUTH answer for a user other than `default` (the one user the
/// simulated server has, without a password).
pub fn wrong_pass() -> Frame {
    error(b"-WRONGPASS invalid username-password pair or user is disabled.")
}

/// `addReplyErrorExpireTime`
pub fn invalid_expire_time(fullname: &str) -> Frame {
    error_format(format!("invalid expire time in '{fullname}' command").as_bytes())
}

/// `addReplyErrorArity`, also what `processCommand` says for a count outside the arity.
pub fn wrong_arity(fullname: &str) -> Frame {
    error_format(format!("wrong number of arguments for '{fullname}' command").as_bytes())
}

/// `shared.roslaveerr`: a write sent to a read-only replica.
pub fn readonly() -> Frame {
    error(b"-READONLY You can't write against a read only replica.")
}

/// `commandCheckExistence` for a name that is no command: the name and then arguments, each
/// cut at 128 bytes, for as long as fewer than 128 bytes of arguments were printed.
pub fn unknown_command(args: &[Vec<u8>]) -> Frame {
    let mut printed: Vec<u8> = Vec::new();
    for arg in args.iter().skip(1) {
        if printed.len() >= 128 {
            break;
        }
        let room = 128 - printed.len();
        printed.push(b'\'');
        printed.extend(cstr(arg).iter().take(room));
        printed.extend_from_slice(b"' ");
    }
    let name = args.first().map_or(&[][..], |a| cstr(a));
    let mut msg = b"unknown command '".to_vec();
    msg.extend(name.iter().take(128));
    msg.extend_from_slice(b"', with args beginning with: ");
    msg.extend(printed);
    error(&spaced(&msg))
}

/// `commandCheckExistence` for a container command (CLIENT, COMMAND) whose subcommand is
/// unknown: the subcommand cut at 128 bytes, the container in capitals.
pub fn unknown_subcommand(container: &[u8], sub: &[u8]) -> Frame {
    let mut msg = b"unknown subcommand '".to_vec();
    msg.extend(cstr(sub).iter().take(128));
    msg.extend_from_slice(b"'. Try ");
    msg.extend(cstr(container).to_ascii_uppercase());
    msg.extend_from_slice(b" HELP.");
    error(&spaced(&msg))
}

#[cfg(test)]
mod tests {
    //! Texts checked against redis-server 7.0.15.

    use super::*;

    fn text(frame: Frame) -> Vec<u8> {
        match frame {
            Frame::Error(e) => e,
            other => panic!("not an error: {other:?}"),
        }
    }

    fn args(list: &[&[u8]]) -> Vec<Vec<u8>> {
        list.iter().map(|a| a.to_vec()).collect()
    }

    #[test]
    fn error_codes() {
        assert_eq!(text(error(b"syntax error")), b"ERR syntax error");
        assert_eq!(
            text(readonly()),
            b"READONLY You can't write against a read only replica."
        );
        assert_eq!(text(error(b"")), b"ERR ");
    }

    #[test]
    fn formatted_errors_trim_and_map_crlf() {
        assert_eq!(
            text(error_format(b"Unsupported option foo\nbar\n")),
            b"ERR Unsupported option foo bar"
        );
        assert_eq!(
            text(error_format(b"Unsupported option \r\nfoo")),
            b"ERR Unsupported option   foo"
        );
        assert_eq!(text(error_format(b"\r\n")), b"ERR ");
    }

    #[test]
    fn unknown_command_text() {
        assert_eq!(
            text(unknown_command(&args(&[b"foo", b"a", b"b"]))),
            b"ERR unknown command 'foo', with args beginning with: 'a' 'b' "
        );
        assert_eq!(
            text(unknown_command(&args(&[b"foo"]))),
            b"ERR unknown command 'foo', with args beginning with: "
        );
        assert_eq!(
            text(unknown_command(&args(&[b"foo\r\nx", b"a\nb", b"c\0d"]))),
            b"ERR unknown command 'foo  x', with args beginning with: 'a b' 'c' "
        );
        let long = unknown_command(&args(&[&[b'x'; 200], &[b'y'; 200], b"z"]));
        let expected = [
            &b"ERR unknown command '"[..],
            &[b'x'; 128],
            b"', with args beginning with: '",
            &[b'y'; 128],
            b"' ",
        ]
        .concat();
        assert_eq!(text(long), expected);
        // Arguments keep coming while fewer than 128 bytes were printed; the last one is
        // cut to what is left.
        let many = unknown_command(&args(&[b"f", &[b'a'; 120], b"bbbbbbbbbb", b"c"]));
        let expected = [
            &b"ERR unknown command 'f', with args beginning with: '"[..],
            &[b'a'; 120],
            b"' 'bbbbb' ",
        ]
        .concat();
        assert_eq!(text(many), expected);
    }

    #[test]
    fn unknown_subcommand_text() {
        assert_eq!(
            text(unknown_subcommand(b"client", b"SETINFO")),
            b"ERR unknown subcommand 'SETINFO'. Try CLIENT HELP."
        );
        assert_eq!(
            text(unknown_subcommand(b"Client", b"foo\r\nbar")),
            b"ERR unknown subcommand 'foo  bar'. Try CLIENT HELP."
        );
    }
}
