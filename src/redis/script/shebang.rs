//! The `#!lua flags=…` first line Redis 7.0 reads from an EVAL script (`evalExtractShebangFlags`).
//!
//! Only `no-writes` changes what the simulation does (write commands then fail); `allow-oom`,
//! `allow-stale`, `no-cluster` and `allow-cross-slot-keys` are accepted, as Redis accepts them,
//! and have nothing to act on here (no memory limit, replication state or cluster in this module).

/// What a script's first line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Shebang {
    /// Bytes of the shebang line, left out of the compiled body (its newline stays, so line
    /// numbers do not move).
    pub(super) len: usize,
    /// `flags=no-writes`: the script may not call write commands.
    pub(super) read_only: bool,
}

const FLAGS: [&[u8]; 5] = [
    b"no-writes",
    b"allow-oom",
    b"allow-stale",
    b"no-cluster",
    b"allow-cross-slot-keys",
];

/// Reads the shebang, if the body starts with `#!`. The error is Redis's message.
pub(super) fn parse(body: &[u8]) -> Result<Shebang, Vec<u8>> {
    if !body.starts_with(b"#!") {
        return Ok(Shebang::default());
    }
    // Redis looks for the newline with `strchr`: a NUL before it ends the search.
    let len = match body.iter().position(|&b| b == b'\n' || b == 0) {
        Some(end) if body[end] == b'\n' => end,
        _ => return Err(b"Invalid script shebang".to_vec()),
    };
    let parts =
        split_args(&body[..len]).ok_or_else(|| b"Invalid engine in script shebang".to_vec())?;
    let engine = parts.first().map_or(&[][..], Vec::as_slice);
    if engine != b"#!lua" {
        return Err([b"Unexpected engine in script shebang: ".as_slice(), engine].concat());
    }
    let mut read_only = false;
    for part in &parts[1..] {
        let Some(flags) = part.strip_prefix(b"flags=") else {
            return Err([b"Unknown lua shebang option: ".as_slice(), part].concat());
        };
        if flags.is_empty() {
            continue;
        }
        for flag in flags.split(|&b| b == b',') {
            if !FLAGS.contains(&flag) {
                return Err([b"Unexpected flag in script shebang: ".as_slice(), flag].concat());
            }
            read_only |= flag == b"no-writes";
        }
    }
    Ok(Shebang { len, read_only })
}

/// `sdssplitargs`: words separated by blanks, with "double quotes" (C escapes and `\xHH`) and
/// 'single quotes' (only `\'`); `None` for an unterminated quote or a closing quote followed by
/// something other than a blank.
fn split_args(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let at = |i: usize| line.get(i).copied().unwrap_or(0);
    let mut parts = Vec::new();
    let mut i = 0;
    loop {
        while i < line.len() && is_space(line[i]) {
            i += 1;
        }
        if i >= line.len() {
            return Some(parts);
        }
        let mut word = Vec::new();
        let (mut double, mut single) = (false, false);
        loop {
            let c = at(i);
            if double {
                if c == b'\\'
                    && at(i + 1) == b'x'
                    && let (Some(high), Some(low)) = (hex(at(i + 2)), hex(at(i + 3)))
                {
                    word.push(high * 16 + low);
                    i += 4;
                    continue;
                }
                if c == b'\\' && at(i + 1) != 0 {
                    word.push(match at(i + 1) {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 0x08,
                        b'a' => 0x07,
                        other => other,
                    });
                    i += 2;
                    continue;
                }
                if c == b'"' {
                    if at(i + 1) != 0 && !is_space(at(i + 1)) {
                        return None;
                    }
                    i += 1;
                    break;
                }
                if c == 0 {
                    return None;
                }
                word.push(c);
            } else if single {
                if c == b'\\' && at(i + 1) == b'\'' {
                    word.push(b'\'');
                    i += 2;
                    continue;
                }
                if c == b'\'' {
                    if at(i + 1) != 0 && !is_space(at(i + 1)) {
                        return None;
                    }
                    i += 1;
                    break;
                }
                if c == 0 {
                    return None;
                }
                word.push(c);
            } else {
                match c {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => {
                        i += 1;
                        break;
                    }
                    b'"' => double = true,
                    b'\'' => single = true,
                    other => word.push(other),
                }
            }
            i += 1;
        }
        parts.push(word);
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_sdssplitargs() {
        let words = |line: &[u8]| split_args(line).map(|parts| parts.join(&b'|'));
        assert_eq!(words(b"#!lua flags=a,b"), Some(b"#!lua|flags=a,b".to_vec()));
        assert_eq!(words(b"  x\t y\r"), Some(b"x|y".to_vec()));
        assert_eq!(
            words(br#""a b" 'c\'d' "\x41\n""#),
            Some(b"a b|c'd|A\n".to_vec())
        );
        assert_eq!(words(b"ab\"cd\"ef"), None);
        assert_eq!(words(b"\"open"), None);
        assert_eq!(words(b"x\"y z\""), Some(b"xy z".to_vec()));
    }

    #[test]
    fn flags() {
        let parsed = parse(b"#!lua flags=no-writes,allow-oom\nreturn 1").unwrap();
        assert_eq!(
            parsed,
            Shebang {
                len: 31,
                read_only: true
            }
        );
        assert_eq!(parse(b"return 1"), Ok(Shebang::default()));
        assert_eq!(
            parse(b"#!lua\0\nx"),
            Err(b"Invalid script shebang".to_vec())
        );
    }
}
