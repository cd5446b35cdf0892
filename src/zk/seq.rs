//! ZooKeeper's sequence suffixes, as recipes and checkers read them: the number a sequential
//! create appended to a name, and the order of such numbers.
//!
//! The counter is a signed 32-bit integer (the parent's cversion) and wraps past 2³¹−1 to
//! −2³¹ (Z6). Ordering the numbers as plain integers then puts the newest node first; recipes
//! order them by serial-number arithmetic (RFC 1982) instead, which is right as long as every
//! number compared lies within 2³¹ of the others: the live nodes of one directory always do.

use std::cmp::Ordering;

/// The sequence number ZooKeeper appended: `%010d` of a signed 32-bit counter. That is the
/// last 10 characters, except for a negative number of ten digits (after the counter wraps),
/// which takes 11. The recipes' prefixes end in '-', so such a name ends in "--" + 10 digits;
/// a single '-' before 10 digits is the prefix's separator, not a sign.
pub fn parse(name: &str) -> Option<i64> {
    let digits = |s: &str| s.len() == 10 && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(head) = name.len().checked_sub(12) {
        let tail = &name[head..];
        if tail.starts_with("--") && digits(&tail[2..]) {
            let v: i64 = tail[1..].parse().ok()?;
            return (v >= i64::from(i32::MIN)).then_some(v);
        }
    }
    let tail = name.get(name.len().checked_sub(10)?..)?;
    match tail.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b.is_ascii_digit()) => tail.parse().ok(),
        _ if digits(tail) => tail.parse().ok(),
        _ => None,
    }
}

/// How far `seq` lies after `base` on the 32-bit circle: negative when it lies before.
fn offset(base: i64, seq: i64) -> i64 {
    i64::from((seq as i32).wrapping_sub(base as i32))
}

/// Serial-number order of two sequence numbers: `a` before `b` when `b` lies less than 2³¹
/// after it, so 2147483647 comes before −2147483648.
pub fn serial_cmp(a: i64, b: i64) -> Ordering {
    offset(b, a).cmp(&0)
}

/// Sorts `line` (sequence number first) into serial order. Keys are offsets from the first
/// entry, a total order whenever the numbers span less than 2³¹.
pub fn sort_serial<T: Ord>(line: &mut [(i64, T)]) {
    let Some(&(base, _)) = line.first() else {
        return;
    };
    line.sort_by(|(a, x), (b, y)| offset(base, *a).cmp(&offset(base, *b)).then(x.cmp(y)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_positive_and_wrapped_suffixes() {
        assert_eq!(parse("lock-0000000007"), Some(7));
        assert_eq!(parse("_c_ab-lock-2147483647"), Some(2_147_483_647));
        assert_eq!(parse("lock--2147483648"), Some(-2_147_483_648));
        assert_eq!(parse("lock--000000005"), Some(-5));
        assert_eq!(parse("lock"), None);
        assert_eq!(parse("lock-00000x0007"), None);
    }

    #[test]
    fn serial_order_carries_on_past_the_wrap() {
        assert_eq!(serial_cmp(1, 2), Ordering::Less);
        assert_eq!(serial_cmp(7, 7), Ordering::Equal);
        assert_eq!(serial_cmp(2_147_483_647, -2_147_483_648), Ordering::Less);
        assert_eq!(serial_cmp(-2_147_483_647, 2_147_483_646), Ordering::Greater);
        assert!(
            2_147_483_647 > -2_147_483_648,
            "plain order gets it backwards"
        );
    }

    #[test]
    fn a_line_across_the_wrap_sorts_oldest_first_from_any_starting_entry() {
        let oldest_first = [2_147_483_646, 2_147_483_647, -2_147_483_648, -2_147_483_647];
        for rotation in 0..oldest_first.len() {
            let mut line: Vec<(i64, usize)> = oldest_first
                .iter()
                .enumerate()
                .map(|(i, &s)| (s, i))
                .collect();
            line.rotate_left(rotation);
            line.reverse();
            sort_serial(&mut line);
            let order: Vec<usize> = line.iter().map(|&(_, i)| i).collect();
            assert_eq!(order, [0, 1, 2, 3], "rotation {rotation}");
        }
    }
}
