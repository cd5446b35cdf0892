//! HINCRBYFLOAT's arithmetic as Redis 7.0 does it on x86-64: C's `long double`, the x87
//! 80-bit format (a 64-bit mantissa), read with `strtold` (util.c `string2ld`), added with
//! round-to-nearest-even, and printed with `%.17Lf`, trailing zeros cut (`ld2string`'s
//! LD_STR_HUMAN). A `f64` would print 0.1 as 0.10000000000000001 where Redis prints 0.1, so
//! the three steps are done exactly here, on big integers.

use std::cmp::Ordering;

/// The smallest exponent of the last mantissa bit (that of the smallest subnormal, 2^-16445).
const MIN_EXP: i64 = -16445;
/// The largest exponent of the last mantissa bit of a finite value.
const MAX_EXP: i64 = 16320;
/// `MAX_LONG_DOUBLE_CHARS`: `string2ld` refuses a text this long or longer.
const MAX_CHARS: usize = 5 * 1024;

/// A value `strtold` can read: finite, or an infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LongDouble {
    /// (-1)^neg × mant × 2^exp.
    Finite { neg: bool, mant: u64, exp: i64 },
    /// An infinity (`inf`, `infinity`, any case), of this sign.
    Infinite { neg: bool },
}

/// `string2ld`: the value of `s`, or None for what Redis refuses: an empty or too long
/// text, leading spaces or anything `strtold` leaves unread, a NaN, and a value out of
/// range (to infinity or to zero).
pub(super) fn parse(s: &[u8]) -> Option<LongDouble> {
    if s.is_empty() || s.len() >= MAX_CHARS {
        return None;
    }
    let (neg, body) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    if body.eq_ignore_ascii_case(b"inf") || body.eq_ignore_ascii_case(b"infinity") {
        return Some(LongDouble::Infinite { neg });
    }
    let hex = body.len() > 2 && body[0] == b'0' && (body[1] | 0x20) == b'x';
    let (digits, exp) = if hex {
        number(&body[2..], 16, b'p')?
    } else {
        number(body, 10, b'e')?
    };
    if digits.is_zero() {
        return Some(LongDouble::Finite {
            neg,
            mant: 0,
            exp: 0,
        });
    }
    let value = if hex {
        round(neg, digits, exp, false)
    } else {
        decimal(neg, digits, exp)
    };
    match value {
        Some(LongDouble::Finite { mant: 0, .. }) | None => None,
        finite => finite,
    }
}

/// Digits in `radix` with an optional point and an optional exponent after `marker` (a
/// power of 10 for decimal, of 2 for hex): the digits as an integer and the exponent that
/// scales it (the point counted in). None if anything else is there.
fn number(s: &[u8], radix: u32, marker: u8) -> Option<(Big, i64)> {
    let mut digits = Big::default();
    let (mut seen, mut point, mut scale) = (false, false, 0i64);
    let mut rest = s;
    while let Some((&c, tail)) = rest.split_first() {
        if c == b'.' && !point {
            point = true;
        } else if let Some(d) = (c as char).to_digit(radix) {
            digits.mul_add(radix, d);
            seen = true;
            if point {
                scale -= if radix == 16 { 4 } else { 1 };
            }
        } else {
            break;
        }
        rest = tail;
    }
    if !seen {
        return None;
    }
    let mut exp = 0i64;
    if let Some((&c, tail)) = rest.split_first() {
        if c | 0x20 != marker {
            return None;
        }
        let (neg, exp_digits) = match tail.split_first() {
            Some((b'-', t)) => (true, t),
            Some((b'+', t)) => (false, t),
            _ => (false, tail),
        };
        if exp_digits.is_empty() || !exp_digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        for d in exp_digits {
            // Far past any value's range either way; the digits alone are < 5 KiB.
            exp = (exp * 10 + i64::from(d - b'0')).min(1_000_000);
        }
        if neg {
            exp = -exp;
        }
    }
    Some((digits, exp + scale))
}

/// `digits` × 10^exp, rounded to the nearest long double (None past the largest).
fn decimal(neg: bool, digits: Big, exp: i64) -> Option<LongDouble> {
    let magnitude = i64::try_from(digits.decimal_len()).unwrap_or(i64::MAX) + exp;
    if magnitude > 4940 {
        return None;
    }
    if magnitude < -4960 {
        return Some(LongDouble::Finite {
            neg,
            mant: 0,
            exp: 0,
        });
    }
    let ten = |n: i64| {
        let mut p = Big::from(1);
        for _ in 0..n {
            p.mul_add(10, 0);
        }
        p
    };
    if exp >= 0 {
        let mut n = digits;
        n.mul(&ten(exp));
        return round(neg, n, 0, false);
    }
    // digits / 10^-exp, to 66 bits or more and whether anything was left over.
    let divisor = ten(-exp);
    let shift = (divisor.bits() + 66).saturating_sub(digits.bits());
    let (quotient, rest) = digits.shl(shift).div_rem(&divisor);
    let shift = i64::try_from(shift).unwrap_or(i64::MAX);
    round(neg, quotient, -shift, !rest.is_zero())
}

/// (-1)^neg × (n + a sliver if `sticky`) × 2^exp to the nearest long double, ties to even,
/// subnormals included; None past the largest finite one.
fn round(neg: bool, n: Big, exp: i64, sticky: bool) -> Option<LongDouble> {
    let bits = i64::try_from(n.bits()).unwrap_or(i64::MAX);
    let shift = (bits - 64).max(MIN_EXP - exp);
    // The shift keeps the last bit's exponent at MIN_EXP or above.
    let (mant, mut exp) = if shift <= 0 {
        (
            n.shl(usize::try_from(-shift).unwrap_or(0)).low_u64(),
            exp + shift,
        )
    } else {
        let s = usize::try_from(shift).unwrap_or(usize::MAX);
        let kept = n.shr(s).low_u64();
        let up = n.bit(s - 1) && (sticky || n.any_below(s - 1) || kept & 1 == 1);
        match (up, kept.checked_add(1)) {
            (false, _) => (kept, exp + shift),
            (true, Some(bumped)) => (bumped, exp + shift),
            (true, None) => (1 << 63, exp + shift + 1),
        }
    };
    if mant == 0 {
        exp = 0;
    }
    if exp > MAX_EXP {
        return None;
    }
    Some(LongDouble::Finite { neg, mant, exp })
}

/// `a + b` as the x87 adds them: None for a result that is infinite (or NaN).
pub(super) fn add(a: LongDouble, b: LongDouble) -> Option<LongDouble> {
    let (
        LongDouble::Finite {
            neg: an,
            mant: am,
            exp: ae,
        },
        LongDouble::Finite {
            neg: bn,
            mant: bm,
            exp: be,
        },
    ) = (a, b)
    else {
        return None;
    };
    let base = ae.min(be);
    let at = |m: u64, e: i64| Big::from(m).shl(usize::try_from(e - base).unwrap_or(0));
    let (x, y) = (at(am, ae), at(bm, be));
    if x.is_zero() && y.is_zero() {
        // -0 + -0 is -0; any other sum of zeros +0.
        return Some(LongDouble::Finite {
            neg: an && bn,
            mant: 0,
            exp: 0,
        });
    }
    if an == bn {
        let mut sum = x;
        sum.add(&y);
        return round(an, sum, base, false);
    }
    match x.cmp(&y) {
        Ordering::Equal => Some(LongDouble::Finite {
            neg: false,
            mant: 0,
            exp: 0,
        }),
        Ordering::Greater => round(an, x.sub(&y), base, false),
        Ordering::Less => round(bn, y.sub(&x), base, false),
    }
}

/// `ld2string(..., LD_STR_HUMAN)` of the finite value (-1)^neg × mant × 2^exp: `%.17Lf`, trailing zeros and a bare
/// point cut, `-0` as `0`.
pub(super) fn human(neg: bool, mant: u64, exp: i64) -> Vec<u8> {
    // round(|value| × 10^17), ties to even.
    let mut scaled = Big::from(mant);
    scaled.mul(&Big::from(100_000_000_000_000_000));
    let units = if exp >= 0 {
        scaled.shl(usize::try_from(exp).unwrap_or(0))
    } else {
        let s = usize::try_from(-exp).unwrap_or(usize::MAX);
        let kept = scaled.shr(s);
        let half = scaled.bit(s - 1);
        let up = half && (scaled.any_below(s - 1) || kept.bit(0));
        let mut kept = kept;
        if up {
            kept.add(&Big::from(1));
        }
        kept
    };
    let mut digits = units.to_decimal();
    while digits.len() < 18 {
        digits.insert(0, b'0');
    }
    let point = digits.len() - 17;
    let mut text = if neg { b"-".to_vec() } else { Vec::new() };
    text.extend_from_slice(&digits[..point]);
    let fraction = &digits[point..];
    let kept = fraction
        .iter()
        .rposition(|&d| d != b'0')
        .map_or(0, |i| i + 1);
    if kept > 0 {
        text.push(b'.');
        text.extend_from_slice(&fraction[..kept]);
    }
    if text == b"-0" {
        text = b"0".to_vec();
    }
    text
}

/// An unsigned big integer, 32-bit limbs, least significant first, no high zero limbs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Big(Vec<u32>);

impl From<u64> for Big {
    fn from(n: u64) -> Big {
        let mut b = Big(vec![n as u32, (n >> 32) as u32]);
        b.trim();
        b
    }
}

impl Big {
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bits(&self) -> usize {
        self.0
            .last()
            .map_or(0, |top| 32 * self.0.len() - top.leading_zeros() as usize)
    }

    fn bit(&self, i: usize) -> bool {
        self.0
            .get(i / 32)
            .is_some_and(|limb| limb >> (i % 32) & 1 == 1)
    }

    /// Whether any bit below `i` is set.
    fn any_below(&self, i: usize) -> bool {
        let (whole, part) = (i / 32, i % 32);
        self.0.iter().take(whole).any(|&l| l != 0)
            || self
                .0
                .get(whole)
                .is_some_and(|&l| part > 0 && l & ((1u32 << part) - 1) != 0)
    }

    fn low_u64(&self) -> u64 {
        let limb = |i: usize| u64::from(self.0.get(i).copied().unwrap_or(0));
        limb(0) | limb(1) << 32
    }

    /// self = self × m + a.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn mul(&mut self, other: &Big) {
        let mut out = vec![0u32; self.0.len() + other.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.0.iter().enumerate() {
                let v = u64::from(out[i + j]) + u64::from(a) * u64::from(b) + carry;
                out[i + j] = v as u32;
                carry = v >> 32;
            }
            let mut k = i + other.0.len();
            while carry > 0 {
                let v = u64::from(out[k]) + carry;
                out[k] = v as u32;
                carry = v >> 32;
                k += 1;
            }
        }
        self.0 = out;
        self.trim();
    }

    fn add(&mut self, other: &Big) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut carry = 0u64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = u64::from(*limb) + u64::from(other.0.get(i).copied().unwrap_or(0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// self − other, for self ≥ other.
    fn sub(&self, other: &Big) -> Big {
        let mut out = self.0.clone();
        let mut borrow = 0i64;
        for (i, limb) in out.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(v < 0);
            *limb = v.rem_euclid(1 << 32) as u32;
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn shl(&self, n: usize) -> Big {
        if self.is_zero() {
            return Big::default();
        }
        let (whole, part) = (n / 32, n % 32);
        let mut out = vec![0u32; whole];
        let mut carry = 0u32;
        for &limb in &self.0 {
            if part == 0 {
                out.push(limb);
            } else {
                out.push(limb << part | carry);
                carry = limb >> (32 - part);
            }
        }
        if carry > 0 {
            out.push(carry);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn shr(&self, n: usize) -> Big {
        let (whole, part) = (n / 32, n % 32);
        let limbs = self.0.get(whole..).unwrap_or_default();
        let out = (0..limbs.len())
            .map(|i| {
                let high = limbs.get(i + 1).copied().unwrap_or(0);
                if part == 0 {
                    limbs[i]
                } else {
                    limbs[i] >> part | high << (32 - part)
                }
            })
            .collect();
        let mut b = Big(out);
        b.trim();
        b
    }

    /// Quotient and remainder, by shifts and subtractions: the quotients asked for here
    /// are short.
    fn div_rem(&self, divisor: &Big) -> (Big, Big) {
        let mut rest = self.clone();
        let mut quotient = Big::default();
        let top = self.bits().saturating_sub(divisor.bits());
        for i in (0..=top).rev() {
            let shifted = divisor.shl(i);
            if rest.cmp(&shifted) != Ordering::Less {
                rest = rest.sub(&shifted);
                quotient.add(&Big::from(1).shl(i));
            }
        }
        (quotient, rest)
    }

    fn decimal_len(&self) -> usize {
        self.to_decimal().len()
    }

    fn to_decimal(&self) -> Vec<u8> {
        if self.is_zero() {
            return b"0".to_vec();
        }
        let mut chunks = Vec::new();
        let mut n = self.0.clone();
        while !n.is_empty() {
            let mut rem = 0u64;
            for limb in n.iter_mut().rev() {
                let v = rem << 32 | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            while n.last() == Some(&0) {
                n.pop();
            }
            chunks.push(rem);
        }
        let mut text = String::new();
        for (i, chunk) in chunks.iter().rev().enumerate() {
            if i == 0 {
                text.push_str(&chunk.to_string());
            } else {
                text.push_str(&format!("{chunk:09}"));
            }
        }
        text.into_bytes()
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}
