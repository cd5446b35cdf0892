//! A plan carried onto another seed: its lost replies follow the client, not the member.
//!
//! On a ZooKeeper ensemble a client tries the members in an order its seed shuffles
//! (`Seeds::try_order`), each new session at the next. A lost reply names the member that
//! answered, and on another seed the client's session most likely goes elsewhere, so a loss
//! armed there never strikes. Carried over, it names the member at the same place in the
//! client's order on the new seed: the one the client's session of the same number reaches.

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
    let members: Vec<String> = cfg
        .servers
        .iter()
        .filter(|s| s.ensemble_member)
        .map(|s| s.name.clone())
        .collect();
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
