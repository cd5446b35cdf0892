//! The pure decisions of the ZooKeeper lock recipes, shared by the async driver and the
//! stateright models: given my node and a listing of the lock directory, what next?

/// What a contender does after listing the lock directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// My node has the lowest sequence number: I hold the lock.
    Acquired,
    /// Watch this node (the next lower one, or for a herd the directory) and look again
    /// when it changes.
    WatchPredecessor(String),
    /// My node is not in the listing (its session ended): start over with a new session.
    NodeGone,
}

/// The sequence number ZooKeeper appended: `%010d` of a signed 32-bit counter. That is the
/// last 10 characters, except for a negative number of ten digits (after the counter wraps),
/// which takes 11. The recipes' prefixes end in '-', so such a name ends in "--" + 10 digits;
/// a single '-' before 10 digits is the prefix's separator, not a sign.
pub fn parse_seq(name: &str) -> Option<i64> {
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

/// Children that look like lock nodes, sorted by parsed sequence number (never by name:
/// prefixes differ between sessions, so name order is not queue order).
pub fn queue(children: &[String]) -> Vec<(i64, &str)> {
    let mut q: Vec<(i64, &str)> = children
        .iter()
        .filter_map(|c| parse_seq(c).map(|s| (s, c.as_str())))
        .collect();
    q.sort();
    q
}

/// The recipes-doc decision: lowest node holds the lock; everyone else watches the node
/// just below its own, so one release wakes exactly one waiter.
pub fn decide(my_node: &str, children: &[String]) -> Decision {
    let q = queue(children);
    match q.iter().position(|(_, name)| *name == my_node) {
        None => Decision::NodeGone,
        Some(0) => Decision::Acquired,
        Some(i) => Decision::WatchPredecessor(q[i - 1].1.to_string()),
    }
}

/// After a lost create reply: my node, if the create was applied, is the child that
/// carries my GUID.
pub fn find_own<'a>(children: &'a [String], guid: &str) -> Option<&'a str> {
    children
        .iter()
        .map(String::as_str)
        .find(|c| c.starts_with(guid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_positive_and_wrapped_suffixes() {
        assert_eq!(parse_seq("lock-0000000007"), Some(7));
        assert_eq!(parse_seq("_c_ab-lock-2147483647"), Some(2_147_483_647));
        assert_eq!(parse_seq("lock--2147483648"), Some(-2_147_483_648));
        assert_eq!(parse_seq("lock--000000005"), Some(-5));
        assert_eq!(parse_seq("lock"), None);
        assert_eq!(parse_seq("lock-00000x0007"), None);
    }

    #[test]
    fn lowest_acquires_others_watch_next_lower_not_the_lowest() {
        let kids = names(&[
            "b-lock-0000000012",
            "a-lock-0000000010",
            "z-lock-0000000011",
        ]);
        assert_eq!(decide("a-lock-0000000010", &kids), Decision::Acquired);
        assert_eq!(
            decide("b-lock-0000000012", &kids),
            Decision::WatchPredecessor("z-lock-0000000011".into())
        );
        assert_eq!(decide("q-lock-0000000001", &kids), Decision::NodeGone);
    }

    #[test]
    fn name_order_is_not_queue_order() {
        // Sorting by full name would make "a-...12" the owner (ZOOKEEPER-2931).
        let kids = names(&["z-lock-0000000003", "a-lock-0000000012"]);
        assert_eq!(decide("z-lock-0000000003", &kids), Decision::Acquired);
    }

    #[test]
    fn gaps_and_shared_counters_do_not_matter() {
        let kids = names(&["read-0000000001", "write-0000000004", "x-lock-0000000009"]);
        assert_eq!(
            decide("x-lock-0000000009", &kids),
            Decision::WatchPredecessor("write-0000000004".into())
        );
    }

    #[test]
    fn finds_own_node_by_guid() {
        let kids = names(&["_c_11-lock-0000000001", "_c_22-lock-0000000002"]);
        assert_eq!(find_own(&kids, "_c_22"), Some("_c_22-lock-0000000002"));
        assert_eq!(find_own(&kids, "_c_33"), None);
    }
}
