//! Redis's numbers as text. Decimal integers (util.c `string2ll`): the one syntax that bulk
//! lengths, multibulk counts and integer arguments share; stricter than `str::parse`: no `+`,
//! no leading zeros, no `-0`, no spaces, fewer than 21 bytes. Doubles: read as C's `strtod`
//! reads them (hex, `inf`, leading spaces ...), with Redis's `string2d` checks on top for a
//! whole argument, and written as `printf("%.17g")` writes them (`addReplyDouble`).

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

/// What C's `strtod` reads from the start of `s`: the value, how many bytes it took (0 when
/// nothing reads as a number, the value then 0) and whether it set ERANGE (a finite
/// spelling too large for a double, or a nonzero one too small, rounded to zero). glibc's
/// grammar: leading spaces, a sign, then `inf` / `infinity` / `nan` / `nan(chars)` in any
/// case, a hex float (`0x1.8p3`), or a decimal with an optional exponent.
pub fn strtod(s: &[u8]) -> (f64, usize, bool) {
    let start = s.iter().take_while(|b| is_c_space(**b)).count();
    let mut at = start;
    let negative = match s.get(at) {
        Some(b'-') => {
            at += 1;
            true
        }
        Some(b'+') => {
            at += 1;
            false
        }
        _ => false,
    };
    let signed = |x: f64| if negative { -x } else { x };
    let rest = s.get(at..).unwrap_or_default();
    if let Some((x, len)) = named(rest) {
        return (signed(x), at + len, false);
    }
    let hex = rest.len() > 2
        && rest[0] == b'0'
        && (rest[1] | 0x20) == b'x'
        && hex_digits(&rest[2..]).0 > 0;
    let (x, len, erange) = if hex {
        let (x, len, erange) = hex_float(&rest[2..]);
        (x, len + 2, erange)
    } else {
        decimal(rest)
    };
    if len == 0 {
        return (0.0, 0, false);
    }
    (signed(x), at + len, erange)
}

/// `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `inf`, `infinity`, `nan` or `nan(chars)` at the start of `s`: its value and length.
fn named(s: &[u8]) -> Option<(f64, usize)> {
    let starts = |word: &[u8]| s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        Some((f64::INFINITY, 8))
    } else if starts(b"inf") {
        Some((f64::INFINITY, 3))
    } else if starts(b"nan") {
        let chars = s[3..]
            .iter()
            .skip(1)
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let closed = s.get(3) == Some(&b'(') && s.get(4 + chars) == Some(&b')');
        Some((f64::NAN, if closed { 5 + chars } else { 3 }))
    } else {
        None
    }
}

/// The digits (and one point) of a hex mantissa: how many hex digits, and the length.
fn hex_digits(s: &[u8]) -> (usize, usize) {
    let (mut digits, mut len, mut point) = (0, 0, false);
    for &b in s {
        if b.is_ascii_hexdigit() {
            digits += 1;
        } else if b == b'.' && !point {
            point = true;
        } else {
            break;
        }
        len += 1;
    }
    (digits, len)
}

/// An exponent (`e12`, `p-3` ...) at the start of `s` with `marker`: its value, saturated,
/// and its length; none when no digit follows.
fn exponent(s: &[u8], marker: u8) -> Option<(i64, usize)> {
    if s.first().map(|b| b | 0x20) != Some(marker) {
        return None;
    }
    let (negative, sign_len) = match s.get(1) {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits = s[1 + sign_len..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .collect::<Vec<_>>();
    if digits.is_empty() {
        return None;
    }
    let value = digits.iter().fold(0i64, |v, d| {
        v.saturating_mul(10).saturating_add(i64::from(**d - b'0'))
    });
    Some((
        if negative { -value } else { value },
        1 + sign_len + digits.len(),
    ))
}

/// A decimal's value (correctly rounded, as glibc rounds), its length, and ERANGE.
fn decimal(s: &[u8]) -> (f64, usize, bool) {
    let int = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut len = int;
    let mut frac = 0;
    if s.get(len) == Some(&b'.') {
        frac = s[len + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if int + frac > 0 {
            len += 1 + frac;
        }
    }
    if int + frac == 0 {
        return (0.0, 0, false);
    }
    let exp = exponent(&s[len..], b'e');
    let mantissa = &s[..len];
    let mut text = String::from_utf8_lossy(mantissa).into_owned();
    if text.starts_with('.') {
        text.insert(0, '0');
    }
    if let Some((e, elen)) = exp {
        text.push_str(&format!("e{}", e.clamp(-100_000, 100_000)));
        len += elen;
    }
    let x: f64 = text.parse().unwrap_or(0.0);
    let nonzero = mantissa.iter().any(|b| (b'1'..=b'9').contains(b));
    (x, len, x.is_infinite() || (nonzero && x == 0.0))
}

/// A hex float after its `0x`: the value, its length, and ERANGE.
fn hex_float(s: &[u8]) -> (f64, usize, bool) {
    let (_, mut len) = hex_digits(s);
    // The significant bits, at most 60, with a sticky bit for any nonzero digit dropped.
    let (mut mantissa, mut sticky, mut shift, mut point) = (0u64, false, 0i64, false);
    for &b in &s[..len] {
        if b == b'.' {
            point = true;
            continue;
        }
        let d = u64::from(char::from(b).to_digit(16).unwrap_or(0));
        if mantissa >> 56 == 0 {
            mantissa = mantissa << 4 | d;
            if point {
                shift -= 4;
            }
        } else {
            sticky |= d != 0;
            if !point {
                shift += 4;
            }
        }
    }
    if let Some((e, elen)) = exponent(&s[len..], b'p') {
        shift = shift.saturating_add(e);
        len += elen;
    }
    if mantissa == 0 {
        return (0.0, len, false);
    }
    // Round to 53 bits, half to even, the sticky bit breaking ties.
    let bits = 64 - i64::from(mantissa.leading_zeros());
    if bits > 53 {
        let drop = (bits - 53) as u32;
        let rest = mantissa & ((1 << drop) - 1);
        let half = 1 << (drop - 1);
        mantissa >>= drop;
        shift += i64::from(drop);
        if rest > half || (rest == half && (sticky || mantissa & 1 == 1)) {
            mantissa += 1;
        }
    }
    let mut x = mantissa as f64;
    let mut e = shift.clamp(-5000, 5000);
    while e > 0 {
        let step = e.min(1000);
        x *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = e.max(-1000);
        x *= 2f64.powi(step as i32);
        e -= step;
    }
    (x, len, x.is_infinite() || x == 0.0)
}

/// Redis's `string2d` (`getDoubleFromObject`): the whole argument as a double. Refused: the
/// empty string, a leading space, anything left over (a NUL included), a value out of range
/// (overflowing, or underflowing to zero) and NaN.
pub fn string2d(s: &[u8]) -> Option<f64> {
    let (x, len, erange) = strtod(s);
    let out_of_range = erange && (x.is_infinite() || x == 0.0);
    let refused = s.is_empty() || is_c_space(s[0]) || len != s.len() || out_of_range;
    (!refused && !x.is_nan()).then_some(x)
}

/// A double as `printf("%.17g")` writes it, with `inf` and `-inf` as Redis spells them
/// (`addReplyDouble`): 17 significant digits, trailing zeros dropped, an exponent below
/// 1e-4 and from 1e17 on.
pub fn format_double(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let scientific = format!("{x:.16e}");
    let (mantissa, exp) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if x < 0.0 { "-" } else { "" };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..17).contains(&exp) {
        let (int, frac) = if exp >= 0 {
            let point = exp as usize + 1;
            (digits[..point].to_owned(), digits[point..].to_owned())
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            ("0".to_owned(), format!("{zeros}{digits}"))
        };
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    } else {
        let frac = digits[1..].trim_end_matches('0');
        let point = if frac.is_empty() { "" } else { "." };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!(
            "{sign}{}{point}{frac}e{exp_sign}{:02}",
            &digits[..1],
            exp.unsigned_abs()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

#[cfg(test)]
mod double_tests {
    //! Pinned against glibc's strtod and printf, and redis-server 7.0.15's ZADD.

    use super::*;

    #[test]
    fn strtod_reads_a_prefix_as_glibc_does() {
        for (text, value, len) in [
            (&b"1.5"[..], 1.5, 3),
            (b"  -2e3x", -2000.0, 6),
            (b"+.5", 0.5, 3),
            (b"5.", 5.0, 2),
            (b".", 0.0, 0),
            (b"", 0.0, 0),
            (b"1e", 1.0, 1),
            (b"1e+", 1.0, 1),
            (b"1e-2", 0.01, 4),
            (b"0x10", 16.0, 4),
            (b"0x1.8p1", 3.0, 7),
            (b"0x", 0.0, 1),
            (b"0xg", 0.0, 1),
            (b"-InF", f64::NEG_INFINITY, 4),
            (b"infinityx", f64::INFINITY, 8),
            (b"infinit", f64::INFINITY, 3),
            (b"1\x002", 1.0, 1),
            (b"(1", 0.0, 0),
        ] {
            let (x, n, _) = strtod(text);
            assert_eq!((x, n), (value, len), "{:?}", String::from_utf8_lossy(text));
        }
        assert!(strtod(b"nan").0.is_nan());
        assert_eq!(strtod(b"nan(abc)x").1, 8);
        assert_eq!(strtod(b"nan(ab").1, 3);
        assert_eq!(strtod(b"1e400"), (f64::INFINITY, 5, true));
        assert_eq!(strtod(b"1e-400"), (0.0, 6, true));
        assert_eq!(strtod(b"0e-400"), (0.0, 6, false));
        assert_eq!(strtod(b"0x1p-1074"), (5e-324, 9, false));
        assert_eq!(strtod(b"0x1fffffffffffff8p0").0, 2f64.powi(57) - 8.0);
        assert!((strtod(b"-0").0).is_sign_negative());
    }

    #[test]
    fn string2d_takes_whole_arguments_only() {
        for (text, value) in [
            (&b"1.1"[..], 1.1),
            (b"-0", -0.0),
            (b"1e308", 1e308),
            (b"inf", f64::INFINITY),
            (b"-infinity", f64::NEG_INFINITY),
            (b"0x10", 16.0),
            (b"3e-324", 5e-324),
            (b"+1", 1.0),
        ] {
            assert_eq!(
                string2d(text),
                Some(value),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        for bad in [
            &b""[..],
            b" 1",
            b"1 ",
            b"1e",
            b"nan",
            b"-nan",
            b"1e400",
            b"1e-400",
            b"1\x00",
            b"abc",
        ] {
            assert_eq!(string2d(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn format_double_matches_printf() {
        for (x, text) in [
            (1.5, "1.5"),
            (1.1, "1.1000000000000001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.1, "0.10000000000000001"),
            (1e308, "1e+308"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (1e-5, "1.0000000000000001e-05"),
            (0.0001, "0.0001"),
            (-7.0, "-7"),
            (5e-324, "4.9406564584124654e-324"),
        ] {
            assert_eq!(format_double(x), text, "{x:e}");
        }
    }
}
