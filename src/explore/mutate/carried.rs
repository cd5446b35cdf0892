//! A plan carried onto another seed: its lost replies follow the client, not the member.
//!
//! On a ZooKeeper ensemble a client tries the members in an order its seed shuffles
//! (`Seeds::try_order`), each new session at the next. A lost reply names the member that
//! answered, and on another seed the client's session most likely goes elsewhere, so a loss
//! armed there never strikes. Carried over, it names the member at the same place in the
//! client's order on the new seed: the one the client's session of the same number reaches.
//!
//! An aimed loss goes further (`everywhere`): armed at every member, it strikes the client's
//! next request of its kind wherever the client's session is by then; the others stay armed
//! for its later requests of the kind at their members.

use crate::sim::fault::Fault;
use crate::sim::gene::Gene;
use crate::sim::seed::Seeds;
use crate::sim::swarm::SwarmConfig;

/// `gene` of a run on seed `from`, for a run on seed `to`: a lost reply at an ensemble member
/// moved to the member at the same place in its client's order; anything else as it is.
pub(crate) fn carried(cfg: &SwarmConfig, gene: Gene, from: u64, to: u64) -> Gene {
    let Fault::LoseReply { node, op, client } = &gene.fault else {
        return gene;
    };
    let members = members(cfg);
    if from == to || members.len() < 2 {
        return gene;
    }
    let before = Seeds::new(from).try_order(client, members.clone());
    let Some(place) = before.iter().position(|m| m == node) else {
        return gene;
    };
    let node = Seeds::new(to).try_order(client, members).swap_remove(place);
    let fault = Fault::LoseReply {
        node,
        op: op.clone(),
        client: client.clone(),
    };
    Gene { fault, ..gene }
}

/// An aimed loss of a run on seed `from`, for a run on seed `to`: on an ensemble, the lost
/// reply `carried` over and the same at each other member, in that order (a plan kept to
/// the profile's count of lost replies keeps the first: `gene::conform`). Wherever the
/// client's session goes on the new seed, its next request of the kind loses its reply, while
/// a loss at one member struck only when the session was there (`zk-lock-stale-session` on
/// three servers: 28 % of aimed losses struck; aims found 102 per 1,000 runs, against 58).
pub(crate) fn everywhere(cfg: &SwarmConfig, gene: Gene, from: u64, to: u64) -> Vec<Gene> {
    let first = carried(cfg, gene, from, to);
    let Fault::LoseReply { node, op, client } = &first.fault else {
        return vec![first];
    };
    let others = members(cfg).into_iter().filter(|m| m != node);
    let at = |node| Gene {
        fault: Fault::LoseReply {
            node,
            op: op.clone(),
            client: client.clone(),
        },
        ..first.clone()
    };
    let others: Vec<Gene> = others.map(at).collect();
    std::iter::once(first).chain(others).collect()
}

/// The ensemble's members by name; empty for servers that serve alone.
fn members(cfg: &SwarmConfig) -> Vec<String> {
    cfg.servers
        .iter()
        .filter(|s| s.ensemble_member)
        .map(|s| s.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::swarm::{SwarmServer, test_config};

    fn ensemble(members: &[&str]) -> SwarmConfig {
        let member = |name: &&str| SwarmServer {
            name: name.to_string(),
            reply_ops: vec!["create"],
            lose_ops: vec!["create"],
            fails_over: false,
            stalls_apply: false,
            ensemble_member: members.len() > 1,
        };
        SwarmConfig {
            servers: members.iter().map(member).collect(),
            ..test_config()
        }
    }

    fn lost(node: &str, client: &str) -> Gene {
        let fault = Fault::LoseReply {
            node: node.into(),
            op: "create".into(),
            client: client.into(),
        };
        Gene::at(40, fault)
    }

    fn node(gene: &Gene) -> &str {
        match &gene.fault {
            Fault::LoseReply { node, .. } => node,
            other => panic!("not a lost reply: {other:?}"),
        }
    }

    #[test]
    fn a_lost_reply_goes_where_the_clients_session_of_the_same_number_goes() {
        let cfg = ensemble(&["zk1", "zk2", "zk3"]);
        let members = || vec!["zk1".to_string(), "zk2".into(), "zk3".into()];
        let mut moved = 0;
        for (from, to) in (0..40).map(|s| (s, s + 1000)) {
            for place in 0..3 {
                let at = |seed: u64| Seeds::new(seed).try_order("c2", members())[place].clone();
                let gene = carried(&cfg, lost(&at(from), "c2"), from, to);
                assert_eq!(node(&gene), at(to), "seeds {from} → {to}, place {place}");
                assert_eq!(gene.at_ms, 40);
                moved += usize::from(at(from) != at(to));
            }
        }
        assert!(
            moved > 40,
            "the orders differ across seeds: {moved} of 120 moved"
        );
    }

    #[test]
    fn an_aimed_loss_is_armed_at_every_member_its_clients_own_first() {
        let cfg = ensemble(&["zk1", "zk2", "zk3"]);
        for (from, to) in (0..20).map(|s| (s, s + 1000)) {
            let gene = lost("zk2", "c3");
            let armed = everywhere(&cfg, gene.clone(), from, to);
            let nodes: Vec<&str> = armed.iter().map(node).collect();
            assert_eq!(nodes[0], node(&carried(&cfg, gene, from, to)));
            let mut sorted = nodes.clone();
            sorted.sort();
            assert_eq!(sorted, ["zk1", "zk2", "zk3"], "seeds {from} → {to}");
            assert!(armed.iter().all(|g| g.at_ms == 40 && g.undo_ms.is_none()));
        }
        let alone = ensemble(&["zk1"]);
        assert_eq!(
            everywhere(&alone, lost("zk1", "c1"), 1, 2),
            [lost("zk1", "c1")]
        );
        let crash = Gene::at(10, Fault::Crash { node: "zk2".into() });
        assert_eq!(everywhere(&cfg, crash.clone(), 1, 2), [crash]);
    }

    #[test]
    fn one_server_a_same_seed_and_other_faults_stay_as_they_are() {
        let alone = ensemble(&["zk1"]);
        assert_eq!(carried(&alone, lost("zk1", "c1"), 1, 2), lost("zk1", "c1"));
        let cfg = ensemble(&["zk1", "zk2", "zk3"]);
        for seed in 0..20 {
            assert_eq!(
                carried(&cfg, lost("zk3", "c1"), seed, seed),
                lost("zk3", "c1")
            );
        }
        let crash = Gene::at(10, Fault::Crash { node: "zk2".into() });
        assert_eq!(carried(&cfg, crash.clone(), 1, 2), crash);
    }
}
