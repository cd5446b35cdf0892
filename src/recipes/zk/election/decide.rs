//! The pure decisions of the ZooKeeper recipes doc's leader election: candidates create
//! EPHEMERAL_SEQUENTIAL `n_` nodes under one directory; the lowest leads; every other
//! candidate watches the largest candidate below its own, so a leader's exit wakes exactly
//! its successor. The flawed variant is a switch of these decisions.

/// Which election the candidates run: the recipe, or a variant named for its flaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The recipes-doc election: watch the largest lower candidate.
    Recipe,
    /// Every candidate watches the lowest node (the leader's), so each leader's exit wakes
    /// them all (Z12's herd).
    Herd,
    /// After ConnectionLoss on its create, gives its session up for a new one (as Curator
    /// does when it takes a long disconnection for an expiry: it closes its handle without
    /// telling the server) and looks there, without `sync`, for a node carrying the GUID it
    /// kept (protected mode), taking the first it finds for its own (Z14, CURATOR-498): the
    /// old session's node, which the server deletes when that session expires, and then the
    /// candidate behind it leads too.
    StaleNode,
    /// `StaleNode` with CURATOR-498's fix: a node found by the GUID is mine only if my
    /// session owns it (its `ephemeralOwner`); and, as the recipe, `sync` before the lookup.
    StaleNodeChecked,
}

/// Whether a candidate of `flavor` gives its session up after a create that ended in
/// ConnectionLoss, to stand again in a new one with the same GUID.
pub fn abandons_session(flavor: Flavor) -> bool {
    matches!(flavor, Flavor::StaleNode | Flavor::StaleNodeChecked)
}

/// Whether a candidate of `flavor` brings its server up to date before it looks for its
/// GUID: all but `StaleNode`, as Curator's protected mode never did.
pub fn syncs_before_lookup(flavor: Flavor) -> bool {
    flavor != Flavor::StaleNode
}

/// Whether a node carrying my GUID must be owned by my session to be mine: all but
/// `StaleNode`. The recipe makes a new GUID for every candidacy, so only its own session's
/// node can carry it; the check costs it nothing (the stat comes with the lookup).
pub fn checks_owner(flavor: Flavor) -> bool {
    flavor != Flavor::StaleNode
}

use crate::zk;

/// The candidate nodes' name prefix (after the GUID).
pub const PREFIX: &str = "n_";

/// The sequence number ZooKeeper appended to a candidate node's name: `%010d` of a signed
/// 32-bit counter after the last `n_` (a GUID's hex digits never contain one). A negative
/// number, after the counter wraps, keeps its sign.
pub fn seq(name: &str) -> Option<i64> {
    let (_, suffix) = name.rsplit_once(PREFIX)?;
    let digits = suffix.strip_prefix('-').unwrap_or(suffix);
    if suffix.len() < 10 || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    suffix.parse::<i32>().ok().map(i64::from)
}

/// The candidates in `children`, in the order the election ranks them, lowest first: by
/// parsed sequence number in serial order, never by name (GUID prefixes differ between
/// sessions) and never as plain integers (past the counter's wrap the newest number is the
/// smallest). The one place the election orders candidates.
pub fn ballot(children: &[String]) -> Vec<(i64, &str)> {
    let mut ranked: Vec<(i64, &str)> = children
        .iter()
        .filter_map(|c| seq(c).map(|s| (s, c.as_str())))
        .collect();
    zk::seq::sort_serial(&mut ranked);
    ranked
}

/// What a candidate does after listing the election directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// My node is the lowest: I lead.
    Lead,
    /// Watch this candidate's node with `exists`, and list again when it fires.
    Watch(String),
    /// My node is not in the listing (its session ended): stand again with a new session.
    NodeGone,
}

/// What the candidate owning `my_node` does, running an election of `flavor`.
pub fn decide(flavor: Flavor, my_node: &str, children: &[String]) -> Decision {
    let ranked = ballot(children);
    match ranked.iter().position(|(_, name)| *name == my_node) {
        None => Decision::NodeGone,
        Some(0) => Decision::Lead,
        Some(i) => {
            let watched = match flavor {
                Flavor::Herd => ranked[0].1,
                _ => ranked[i - 1].1,
            };
            Decision::Watch(watched.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_the_stale_node_flaws_give_their_session_up_and_only_the_unfixed_one_skips_the_checks() {
        let all = [
            Flavor::Recipe,
            Flavor::Herd,
            Flavor::StaleNode,
            Flavor::StaleNodeChecked,
        ];
        let abandon: Vec<bool> = all.iter().map(|&f| abandons_session(f)).collect();
        assert_eq!(abandon, [false, false, true, true]);
        for f in all {
            let careful = f != Flavor::StaleNode;
            assert_eq!(
                (syncs_before_lookup(f), checks_owner(f)),
                (careful, careful)
            );
        }
    }

    #[test]
    fn the_ballot_keeps_its_order_past_the_counter_wrap() {
        let kids = names(&["c-n_-2147483648", "a-n_2147483646", "b-n_2147483647"]);
        let order: Vec<&str> = ballot(&kids).into_iter().map(|(_, n)| n).collect();
        assert_eq!(
            order,
            ["a-n_2147483646", "b-n_2147483647", "c-n_-2147483648"]
        );
        assert_eq!(
            decide(Flavor::Recipe, "c-n_-2147483648", &kids),
            Decision::Watch("b-n_2147483647".into())
        );
    }

    #[test]
    fn parses_the_suffix_after_the_prefix_with_or_without_a_guid_and_after_a_wrap() {
        assert_eq!(seq("n_0000000007"), Some(7));
        assert_eq!(seq("_c_00ab-n_2147483647"), Some(2_147_483_647));
        assert_eq!(seq("_c_00ab-n_-2147483648"), Some(-2_147_483_648));
        assert_eq!(seq("n_-000000005"), Some(-5));
        assert_eq!(seq("n_000007"), None, "too short for %010d");
        assert_eq!(seq("n_00000x0007"), None);
        assert_eq!(seq("lock-0000000007"), None, "not a candidate");
        assert_eq!(seq("n_-"), None);
    }

    #[test]
    fn the_lowest_leads_and_the_others_watch_the_largest_lower_candidate() {
        let kids = names(&[
            "_c_b-n_0000000012",
            "_c_a-n_0000000010",
            "_c_z-n_0000000011",
            "other",
        ]);
        let d = |me| decide(Flavor::Recipe, me, &kids);
        assert_eq!(d("_c_a-n_0000000010"), Decision::Lead);
        assert_eq!(
            d("_c_z-n_0000000011"),
            Decision::Watch("_c_a-n_0000000010".into())
        );
        assert_eq!(
            d("_c_b-n_0000000012"),
            Decision::Watch("_c_z-n_0000000011".into()),
            "not the leader"
        );
        assert_eq!(d("_c_q-n_0000000001"), Decision::NodeGone);
    }

    #[test]
    fn name_order_is_not_ballot_order() {
        let kids = names(&["_c_z-n_0000000003", "_c_a-n_0000000012"]);
        assert_eq!(
            decide(Flavor::Recipe, "_c_z-n_0000000003", &kids),
            Decision::Lead
        );
        assert_eq!(
            ballot(&kids),
            [(3, "_c_z-n_0000000003"), (12, "_c_a-n_0000000012")]
        );
    }

    #[test]
    fn the_herd_flaw_watches_the_lowest_node_whatever_its_place() {
        let kids = names(&["n_0000000001", "n_0000000002", "n_0000000003"]);
        let lowest = Decision::Watch("n_0000000001".into());
        assert_eq!(decide(Flavor::Herd, "n_0000000002", &kids), lowest);
        assert_eq!(decide(Flavor::Herd, "n_0000000003", &kids), lowest);
        assert_eq!(decide(Flavor::Herd, "n_0000000001", &kids), Decision::Lead);
    }
}
