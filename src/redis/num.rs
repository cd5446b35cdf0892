//! Redis's decimal integers (util.c `string2ll`): the one syntax that bulk lengths, multibulk
//! counts and integer arguments share. Stricter than `str::parse`: no `+`, no leading zeros,
//! no `-0`, no spaces, fewer than 21 bytes.

/// `Some(n)` only for the canonical decimal spelling of an i64, as Redis accepts it.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    // LONG_STR_SIZE: 21 bytes can hold no valid number Redis would read.
    if s.is_empty() || s.len() >= 21 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (negative, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let (first, rest) = digits.split_first()?;
    if !(b'1'..=b'9').contains(first) {
        return None;
    }
    let mut v = u64::from(first - b'0');
    for d in rest {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if negative {
        i64::try_from(-i128::from(v)).ok()
    } else {
        i64::try_from(v).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_i64;

    #[test]
    fn canonical_forms_only() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"42"), Some(42));
        assert_eq!(parse_i64(b"-7"), Some(-7));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-",
            b"-0",
            b"00",
            b"01",
            b"+1",
            b" 1",
            b"1 ",
            b"1x",
            b"0x10",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"18446744073709551616",
            b"000000000000000000001",
        ] {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
