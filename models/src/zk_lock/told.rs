//! The zk-lock model's steps told in its own words, for a report's paths.

use super::{Action, Event, Phase, State, ZkLockModel};
use crate::check::Narrated;

impl Narrated for ZkLockModel {
    fn narrate(&self, before: &State, action: &Action, after: &State) -> String {
        let node = |seq: u8| {
            before
                .nodes
                .iter()
                .chain(after.nodes.iter())
                .find(|n| n.seq == seq)
                .map(|&n| self.name(n))
                .unwrap_or_else(|| format!("#{seq}"))
        };
        let woken = |skip: u8| {
            let names: Vec<String> = (0..after.clients.len())
                .filter(|&i| {
                    i as u8 != skip
                        && matches!(after.clients[i].event, Some(Event::Watch(_)))
                        && before.clients[i].event.is_none()
                })
                .map(|i| format!("c{i}"))
                .collect();
            if names.is_empty() {
                String::new()
            } else {
                format!("; watches fire for {}", names.join(", "))
            }
        };
        let after_c = |c: u8| after.clients[usize::from(c)];
        match *action {
            Action::Create(c) => {
                let seq = after_c(c).node.unwrap_or(before.next_seq);
                format!("c{c} creates {}{}", node(seq), woken(c))
            }
            Action::CreateLost(c) => {
                let what = match (after_c(c).phase, after_c(c).abandoned_alive) {
                    (Phase::Looking, true) => {
                        "it gives its session up for a new one and looks for its GUID there"
                    }
                    (Phase::Looking, false) => "after_create says it looks for its GUID",
                    _ => "after_create says it creates again",
                };
                format!(
                    "c{c} creates {}, the reply is lost: {what}{}",
                    node(before.next_seq),
                    woken(c)
                )
            }
            Action::List(c) => {
                let listing = self.listing(before).join(", ");
                let verdict = match (before.clients[usize::from(c)].phase, after_c(c).phase) {
                    (Phase::Looking, Phase::Listing) => {
                        format!("finds its node {}", node(after_c(c).node.unwrap_or(0)))
                    }
                    (Phase::Looking, _) => "finds no node of its own".into(),
                    (_, Phase::Holding { .. }) => "decide says acquired".into(),
                    (_, Phase::Exists { pred }) => {
                        format!("decide says watch {}", node(pred))
                    }
                    (_, Phase::Waiting) => "decide says wait: it watches the children".into(),
                    _ => "decide says its node is gone".into(),
                };
                format!("c{c} lists [{listing}]: {verdict}")
            }
            Action::StaleList(c) => format!(
                "c{c} lists on a follower that has not applied its create, without sync first: \
                 finds no node of its own"
            ),
            Action::Exists(c) => {
                let Phase::Exists { pred } = before.clients[usize::from(c)].phase else {
                    return format!("c{c} sends exists out of turn");
                };
                match after_c(c).phase {
                    Phase::Waiting => format!("c{c} exists({}) with a watch: waits", node(pred)),
                    Phase::Holding { .. } => {
                        format!(
                            "c{c} exists({}): gone, takes the lock as its own",
                            node(pred)
                        )
                    }
                    _ => format!("c{c} exists({}): gone, lists again", node(pred)),
                }
            }
            Action::Event(c) => match before.clients[usize::from(c)].event {
                Some(Event::Expired) => {
                    format!("c{c} reads the Expired event: it knows its session is gone")
                }
                Some(Event::Watch(t)) => format!("c{c} reads the {t:?} event: looks again"),
                Some(Event::Disconnected) => match after_c(c).phase {
                    Phase::Holding { .. } => format!(
                        "c{c} reads the Disconnected event, takes it for its predecessor's deletion: holds the lock"
                    ),
                    _ => format!("c{c} reads the Disconnected event: a session event, it waits on"),
                },
                None => format!("c{c} reads an event it never got"),
            },
            Action::Write(c) => {
                let token = before.clients[usize::from(c)].node.unwrap_or(0);
                let verdict = if self.fencing && before.store_max.is_some_and(|m| token < m) {
                    "refused"
                } else {
                    "accepted"
                };
                format!("c{c} writes the resource with token {token}: {verdict}")
            }
            Action::Release(c) => {
                let seq = before.clients[usize::from(c)].node.unwrap_or(0);
                if before.nodes.iter().any(|n| n.seq == seq) {
                    format!("c{c} deletes {}{}", node(seq), woken(c))
                } else {
                    format!("c{c} deletes {}: already gone", node(seq))
                }
            }
            Action::DeleteLost(c) => {
                let seq = before.clients[usize::from(c)].node.unwrap_or(0);
                let then = match after_c(c).phase {
                    Phase::Done => "forgets its node",
                    _ => "will delete it again",
                };
                format!(
                    "c{c} deletes {}, the request is lost before the server applies it: it {then}",
                    node(seq)
                )
            }
            Action::Disconnect(c) => format!(
                "c{c}'s connection drops and comes back within its session: a Disconnected event on its watch"
            ),
            Action::AbandonedExpire(c) => {
                let gone: Vec<String> = before
                    .nodes
                    .iter()
                    .filter(|n| n.owner == c && n.abandoned)
                    .map(|&n| self.name(n))
                    .collect();
                let gone = if gone.is_empty() {
                    String::new()
                } else {
                    format!(", deleting {}", gone.join(", "))
                };
                format!(
                    "the server expires the session c{c} abandoned{gone}{}",
                    woken(c)
                )
            }
            Action::PauseExpire(c) => {
                let gone: Vec<String> = before
                    .nodes
                    .iter()
                    .filter(|n| n.owner == c && !n.abandoned)
                    .map(|&n| self.name(n))
                    .collect();
                let gone = if gone.is_empty() {
                    String::new()
                } else {
                    format!(", deleting {}", gone.join(", "))
                };
                format!(
                    "c{c} pauses past its session timeout: the server expires its session{gone}{}",
                    woken(c)
                )
            }
        }
    }

    fn believers(&self, state: &State) -> Vec<usize> {
        (0..state.clients.len())
            .filter(|&c| state.believes(c))
            .collect()
    }
}
