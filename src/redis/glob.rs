//! Redis's glob-style patterns (`stringmatchlen` in util.c), for KEYS, SCAN's MATCH and the
//! pattern subscriptions: `*`, `?`, `[abc]`, `[^a-z]`, `\` escapes, byte-wise.
//!
//! A port of 7.0.15's matcher with the recursion bound Redis added later (a match nested
//! more than 1000 stars deep fails), so no pattern can exhaust the stack. As in C, a read
//! past the pattern's end sees the NUL terminator (`at`).

/// How deep the matcher may recurse (one level per `*`), as Redis's later fix bounds it.
const MAX_NESTING: usize = 1000;

/// Whether `string` matches `pattern`; `nocase` folds ASCII case.
pub fn matches(pattern: &[u8], string: &[u8], nocase: bool) -> bool {
    let mut skip_longer = false;
    match_at(pattern, string, nocase, &mut skip_longer, 0)
}

/// The byte at `i`, or the C string's terminating NUL past the end.
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn fold(c: u8, nocase: bool) -> u8 {
    if nocase { c.to_ascii_lowercase() } else { c }
}

fn match_at(
    pattern: &[u8],
    string: &[u8],
    nocase: bool,
    skip_longer: &mut bool,
    nesting: usize,
) -> bool {
    if nesting > MAX_NESTING {
        return false;
    }
    let (mut p, mut s) = (0usize, 0usize);
    while p < pattern.len() && s < string.len() {
        match at(pattern, p) {
            b'*' => {
                while p < pattern.len() && at(pattern, p + 1) == b'*' {
                    p += 1;
                }
                if pattern.len() - p == 1 {
                    return true;
                }
                while s < string.len() {
                    let rest = pattern.get(p + 1..).unwrap_or_default();
                    let tail = string.get(s..).unwrap_or_default();
                    if match_at(rest, tail, nocase, skip_longer, nesting + 1) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    s += 1;
                }
                *skip_longer = true;
                return false;
            }
            b'?' => s += 1,
            b'[' => {
                p += 1;
                let not = at(pattern, p) == b'^';
                if not {
                    p += 1;
                }
                let c = at(string, s);
                let mut matched = false;
                loop {
                    let left = pattern.len().saturating_sub(p);
                    if at(pattern, p) == b'\\' && left >= 2 {
                        p += 1;
                        if at(pattern, p) == c {
                            matched = true;
                        }
                    } else if at(pattern, p) == b']' {
                        break;
                    } else if left == 0 {
                        p -= 1;
                        break;
                    } else if left >= 3 && at(pattern, p + 1) == b'-' {
                        let (mut start, mut end) = (at(pattern, p), at(pattern, p + 2));
                        if start > end {
                            std::mem::swap(&mut start, &mut end);
                        }
                        let (start, end, c) =
                            (fold(start, nocase), fold(end, nocase), fold(c, nocase));
                        p += 2;
                        if (start..=end).contains(&c) {
                            matched = true;
                        }
                    } else if fold(at(pattern, p), nocase) == fold(c, nocase) {
                        matched = true;
                    }
                    p += 1;
                }
                if matched == not {
                    return false;
                }
                s += 1;
            }
            other => {
                let mut literal = other;
                if other == b'\\' && pattern.len() - p >= 2 {
                    p += 1;
                    literal = at(pattern, p);
                }
                if fold(literal, nocase) != fold(at(string, s), nocase) {
                    return false;
                }
                s += 1;
            }
        }
        p += 1;
        if s == string.len() {
            while at(pattern, p) == b'*' && p < pattern.len() {
                p += 1;
            }
            break;
        }
    }
    p >= pattern.len() && s == string.len()
}

#[cfg(test)]
mod tests {
    use super::matches;

    fn m(pattern: &str, string: &str) -> bool {
        matches(pattern.as_bytes(), string.as_bytes(), false)
    }

    #[test]
    fn stars_and_question_marks() {
        // As in Redis, where `KEYS *` leaves out a key named "": the loop never starts.
        assert!(!m("*", ""));
        assert!(m("*", "anything"));
        assert!(m("lock:*", "lock:a"));
        assert!(!m("lock:*", "lease:a"));
        assert!(m("h?llo", "hello"));
        assert!(!m("h?llo", "hllo"));
        assert!(m("a*b*c", "aXXbYYc"));
        assert!(!m("a*b*c", "aXXbYY"));
        assert!(m("a**", "a"));
        assert!(!m("", "a"));
        assert!(m("", ""));
    }

    #[test]
    fn classes_ranges_and_escapes() {
        assert!(m("h[ae]llo", "hallo"));
        assert!(!m("h[ae]llo", "hillo"));
        assert!(m("h[^e]llo", "hallo"));
        assert!(!m("h[^e]llo", "hello"));
        assert!(m("h[a-b]llo", "hbllo"));
        assert!(m("h[b-a]llo", "hallo"));
        assert!(m(r"h\*llo", "h*llo"));
        assert!(!m(r"h\*llo", "hello"));
        assert!(m(r"[\]]", "]"));
        // An unclosed class ends at the pattern's end.
        assert!(m("[abc", "a"));
        assert!(!m("[abc", "d"));
        assert!(matches(b"HELLO", b"hello", true));
        assert!(matches(b"[A-C]x", b"bX", true));
    }

    #[test]
    fn deep_and_pathological_patterns_end() {
        let deep = "*a".repeat(5000);
        assert!(!m(&deep, &"a".repeat(100)));
        let slow = format!("{}b", "a*".repeat(30));
        assert!(!m(&slow, &"a".repeat(60)));
    }
}
