//! Redis's glob-style matching (`stringmatchlen` in util.c, 7.0.15): `*`, `?`, `[...]` with
//! `^` negation and `a-z` ranges, `\` escapes. PSUBSCRIBE and PUBSUB CHANNELS match with it
//! (and KEYS and SCAN's MATCH will).
//!
//! A port, quirks included: bytes compare as C's signed `char` in ranges, a pattern read past
//! its end sees the NUL that ends every sds string, an unclosed `[` ends at the pattern's
//! end, and once a `*` found no match for the rest of the pattern anywhere, the earlier
//! stars give up too (the fix for CVE-2022-36021), so the time stays polynomial. Like
//! Redis it recurses once per `*` of the pattern.

/// Whether `string` matches `pattern`, case-sensitively (`stringmatchlen(.., nocase=0)`).
pub fn matches(pattern: &[u8], string: &[u8]) -> bool {
    let mut skip_longer = false;
    match_from(pattern, string, &mut skip_longer)
}

/// The byte at `i`, or the NUL after the end, as C reads an sds string.
fn at(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// A byte as C's signed `char` compares in a range.
fn signed(b: u8) -> i32 {
    i32::from(b as i8)
}

/// `stringmatchlen_impl`.
fn match_from(mut pattern: &[u8], mut string: &[u8], skip_longer: &mut bool) -> bool {
    while !pattern.is_empty() && !string.is_empty() {
        match pattern[0] {
            b'*' => {
                while pattern.len() > 1 && pattern[1] == b'*' {
                    pattern = &pattern[1..];
                }
                if pattern.len() == 1 {
                    return true;
                }
                while !string.is_empty() {
                    if match_from(&pattern[1..], string, skip_longer) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    string = &string[1..];
                }
                *skip_longer = true;
                return false;
            }
            b'?' => string = &string[1..],
            b'[' => {
                if !bracket(&mut pattern, string[0]) {
                    return false;
                }
                string = &string[1..];
                // `pattern` stands on the closing `]` (or the last byte of an unclosed
                // set), which the step below moves past.
            }
            first => {
                let mut literal = first;
                if first == b'\\' && pattern.len() >= 2 {
                    pattern = &pattern[1..];
                    literal = pattern[0];
                }
                if literal != string[0] {
                    return false;
                }
                string = &string[1..];
            }
        }
        pattern = &pattern[1..];
        if string.is_empty() {
            while at(pattern, 0) == b'*' {
                pattern = &pattern[1..];
            }
            break;
        }
    }
    pattern.is_empty() && string.is_empty()
}

/// A `[...]` set at the start of `pattern` against the byte `c`: whether it matches,
/// leaving `pattern` on the set's last byte.
fn bracket(pattern: &mut &[u8], c: u8) -> bool {
    // Past the `[` (the pattern holds at least it, so this leaves a slice, maybe empty).
    let whole = *pattern;
    let mut i = 1;
    let not = at(whole, i) == b'^';
    if not {
        i += 1;
    }
    let mut matched = false;
    loop {
        let rest = whole.len().saturating_sub(i);
        if at(whole, i) == b'\\' && rest >= 2 {
            i += 1;
            if at(whole, i) == c {
                matched = true;
            }
        } else if at(whole, i) == b']' {
            break;
        } else if rest == 0 {
            // Unclosed: back onto the last byte, which the caller steps over.
            i -= 1;
            break;
        } else if rest >= 3 && at(whole, i + 1) == b'-' {
            let (mut start, mut end) = (signed(at(whole, i)), signed(at(whole, i + 2)));
            if start > end {
                std::mem::swap(&mut start, &mut end);
            }
            i += 2;
            if (start..=end).contains(&signed(c)) {
                matched = true;
            }
        } else if at(whole, i) == c {
            matched = true;
        }
        i += 1;
    }
    *pattern = &whole[i.min(whole.len())..];
    matched != not
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_questions_and_literals() {
        // Nothing matches the empty string but the empty pattern (PSUBSCRIBE * misses
        // PUBLISH "" in Redis too).
        assert!(!matches(b"*", b""));
        assert!(matches(b"*", b"anything"));
        assert!(matches(b"h?llo", b"hello"));
        assert!(!matches(b"h?llo", b"hllo"));
        assert!(matches(b"h*llo", b"heeeello"));
        assert!(matches(b"h*llo", b"hllo"));
        assert!(!matches(b"h*llo", b"hlla"));
        assert!(matches(b"news.*", b"news.art"));
        assert!(!matches(b"news.*", b"new"));
        assert!(matches(b"a**b", b"axxb"));
        assert!(matches(b"ab*", b"ab"));
        assert!(!matches(b"", b"a"));
        assert!(matches(b"", b""));
        assert!(!matches(b"abc", b"ABC"));
    }

    #[test]
    fn sets_ranges_and_escapes() {
        assert!(matches(b"h[ae]llo", b"hallo"));
        assert!(!matches(b"h[ae]llo", b"hillo"));
        assert!(matches(b"h[^e]llo", b"hallo"));
        assert!(!matches(b"h[^e]llo", b"hello"));
        assert!(matches(b"h[a-b]llo", b"hbllo"));
        assert!(matches(b"h[b-a]llo", b"hallo"));
        assert!(!matches(b"h[a-b]llo", b"hcllo"));
        assert!(matches(b"\\*", b"*"));
        assert!(!matches(b"\\*", b"a"));
        assert!(matches(b"[\\]]", b"]"));
        // An unclosed set ends with the pattern.
        assert!(matches(b"a[bc", b"ab"));
        assert!(matches(b"a[bc", b"ac"));
        assert!(!matches(b"a[bc", b"ad"));
        // A trailing backslash is a literal one.
        assert!(matches(b"a\\", b"a\\"));
    }

    #[test]
    fn ranges_compare_bytes_as_signed_chars() {
        // 0xff is -1 as a C char: inside [\x80-a] (from -128 to 97).
        assert!(matches(b"[\x80-a]", b"\xff"));
        assert!(matches(b"[\x80-a]", b"5"));
        assert!(!matches(b"[\x80-a]", b"z"));
    }

    #[test]
    fn many_stars_give_up_early() {
        let pattern = [
            b"a".to_vec(),
            b"*".to_vec(),
            b"a*".repeat(30),
            b"b".to_vec(),
        ]
        .concat();
        assert!(!matches(&pattern, &b"a".repeat(200)));
    }
}
