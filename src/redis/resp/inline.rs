//! Inline commands (what telnet and `redis-cli` in a pipe send): one line split into
//! arguments by Redis's `sdssplitargs` (sds.c), quoting rules included.

/// Splits one inline line as `sdssplitargs` does; `None` for unbalanced quotes or a closing
/// quote followed by something other than a space.
///
/// Blanks between arguments are C's `isspace` (space, \t, \n, \v, \f, \r) but only space,
/// \t, \n, \r end an unquoted argument. `"..."` understands `\xHH`, `\n`, `\r`, `\t`, `\b`,
/// `\a` and `\<any>`; `'...'` only `\'`. Quotes may start mid-argument (`a"b c"` is `ab c`).
/// The line ends at its end or at a NUL, as the C string it is.
pub(super) fn split_args(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    // The C string's terminator (and anything past a NUL) reads as 0.
    let at = |i: usize| match line.get(i) {
        Some(&b) => b,
        None => 0,
    };
    let mut args = Vec::new();
    let mut p = 0;
    loop {
        while at(p) != 0 && is_c_space(at(p)) {
            p += 1;
        }
        if at(p) == 0 {
            return Some(args);
        }
        let mut current = Vec::new();
        let mut in_double = false;
        let mut in_single = false;
        loop {
            let c = at(p);
            if in_double {
                if c == b'\\' && at(p + 1) == b'x' && is_hex(at(p + 2)) && is_hex(at(p + 3)) {
                    current.push(hex_value(at(p + 2)) * 16 + hex_value(at(p + 3)));
                    p += 3;
                } else if c == b'\\' && at(p + 1) != 0 {
                    p += 1;
                    current.push(match at(p) {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 0x08,
                        b'a' => 0x07,
                        other => other,
                    });
                } else if c == b'"' {
                    if at(p + 1) != 0 && !is_c_space(at(p + 1)) {
                        return None;
                    }
                    p += 1;
                    break;
                } else if c == 0 {
                    return None;
                } else {
                    current.push(c);
                }
            } else if in_single {
                if c == b'\\' && at(p + 1) == b'\'' {
                    p += 1;
                    current.push(b'\'');
                } else if c == b'\'' {
                    if at(p + 1) != 0 && !is_c_space(at(p + 1)) {
                        return None;
                    }
                    p += 1;
                    break;
                } else if c == 0 {
                    return None;
                } else {
                    current.push(c);
                }
            } else {
                match c {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => {
                        if c != 0 {
                            p += 1;
                        }
                        break;
                    }
                    b'"' => in_double = true,
                    b'\'' => in_single = true,
                    other => current.push(other),
                }
            }
            p += 1;
        }
        args.push(current);
    }
}

/// C's `isspace` in the C locale.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    //! Cases checked against redis-server 7.0.15 (ECHO / unknown-command replies show the split).

    use super::split_args;

    fn split(line: &[u8]) -> Option<Vec<Vec<u8>>> {
        split_args(line)
    }

    fn args(list: &[&[u8]]) -> Option<Vec<Vec<u8>>> {
        Some(list.iter().map(|a| a.to_vec()).collect())
    }

    #[test]
    fn blanks_separate() {
        assert_eq!(split(b""), args(&[]));
        assert_eq!(split(b"  \t "), args(&[]));
        assert_eq!(split(b"GET k"), args(&[b"GET", b"k"]));
        assert_eq!(split(b"  SET\tk   v  "), args(&[b"SET", b"k", b"v"]));
        // \v and \f are blanks between arguments but not ends of one.
        assert_eq!(split(b"\x0bA\x0bB \x0cC"), args(&[b"A\x0bB", b"C"]));
        // A lone \r inside the line ends an argument.
        assert_eq!(split(b"a\rb"), args(&[b"a", b"b"]));
    }

    #[test]
    fn double_quotes_and_escapes() {
        assert_eq!(split(br#""a b" c"#), args(&[b"a b", b"c"]));
        assert_eq!(split(br#""\x41\x4a\x4A" "\xZZ""#), args(&[b"AJJ", b"xZZ"]));
        assert_eq!(
            split(br#""\n\r\t\b\a\q\"\\""#),
            args(&[b"\n\r\t\x08\x07q\"\\"])
        );
        assert_eq!(split(br#""""#), args(&[b""]));
        assert_eq!(split(br#"a"b c""#), args(&[b"ab c"]));
        // A backslash at the very end escapes nothing; the quote stays open.
        assert_eq!(split(br#""abc\"#), None);
    }

    #[test]
    fn single_quotes() {
        assert_eq!(split(br"'a \n b' c"), args(&[br"a \n b", b"c"]));
        assert_eq!(split(br"'it\'s'"), args(&[b"it's"]));
        assert_eq!(split(br"''"), args(&[b""]));
    }

    #[test]
    fn unbalanced_or_glued_quotes() {
        assert_eq!(split(br#"ECHO "abc"#), None);
        assert_eq!(split(br#"ECHO "abc"d"#), None);
        assert_eq!(split(br"ECHO 'x'y"), None);
        assert_eq!(split(br"ECHO 'x"), None);
        // Followed by a blank, or by the end, a closing quote is fine.
        assert_eq!(split(b"\"x\"\x0by"), args(&[b"x", b"y"]));
    }

    #[test]
    fn a_nul_ends_the_line() {
        assert_eq!(split(b"a b\0c d"), args(&[b"a", b"b"]));
        assert_eq!(split(b"\"a\0b\""), None);
    }
}
