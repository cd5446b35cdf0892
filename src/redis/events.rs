//! The Redis family's events in the history: what a simulated Redis host records that
//! changes the story (keys its clients' commands changed and whose value they touched, keys
//! that expired, restarts and failovers with the acknowledged writes they lost).

use crate::history::{Op, ServerEvent};
use serde::{Deserialize, Serialize};

/// The family's name, as checkers say they read its events.
pub const FAMILY: &str = "redis";

/// What a simulated Redis host records in the history, one flat object tagged with `op`
/// (`key_expired`, `key_changed`, `restarted`, `failed_over`, `reply_lost`, `output_limit`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RedisEvent {
    /// `key` was deleted because its deadline passed on the server's clock: by the active
    /// expiry cycle, or by a command that found it expired (recorded just before what that
    /// command changed, if anything).
    KeyExpired {
        /// The key, as text (lossy UTF-8).
        key: String,
    },
    /// A client's command changed a key (see [`KeyChange`]).
    KeyChanged(KeyChange),
    /// The server came back from a crash without `lost` of what it had acknowledged: every
    /// key without persistence, the writes of the last unsynced second with AOF everysec.
    Restarted {
        /// How much it lost: keys without persistence, unsynced writes with AOF everysec.
        lost: u64,
    },
    /// The replica took over, without the `lost` writes it had not received.
    FailedOver {
        /// How many of the master's writes it had not received.
        lost: u64,
    },
    /// The server dropped `client`'s connection instead of replying to `op`, which it had
    /// run (a `lose_reply` fault): the client cannot tell whether it took effect.
    ReplyLost {
        /// The client host.
        client: String,
        /// The command, as the fault names it (`set`, `eval`, `blmove`).
        command: String,
    },
    /// The server dropped `client`'s subscriber connection: its unwritten messages reached
    /// Redis's `client-output-buffer-limit` for pub/sub (32 MiB, or 8 MiB for a minute).
    OutputLimit {
        /// The client host whose connection was dropped.
        client: String,
        /// The bytes queued for it and not written.
        unwritten: u64,
    },
}

/// What one command (or script) did to one key: set it, overwrote it, deleted it or changed
/// its deadline. Commands that changed nothing record nothing. Values are the bytes as text
/// (lossy UTF-8): for a lock's key, the owner token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyChange {
    /// The client host that sent the command.
    pub client: String,
    /// Its name as sent, in capitals: SET, DEL, EVALSHA ...
    pub command: String,
    /// The key, as text (lossy UTF-8).
    pub key: String,
    /// What the key held before (None: absent, or expired).
    pub before: Option<String>,
    /// The client whose command wrote `before`, as far as the host saw it written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// What it holds after (None: deleted).
    pub after: Option<String>,
    /// Its time to live after the command, ms by the server's expiry clock (None: deleted,
    /// or no deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// The reply, in short (`OK`, `1`, `nil`, an error's text).
    pub result: String,
}

impl KeyChange {
    /// Whether a timeline can leave it out: the story is a command that touched a value
    /// another client wrote (deleted, overwrote or changed the deadline of someone else's
    /// lock); a client setting, extending or removing its own key, or setting a missing one,
    /// is churn the clients' own events already tell. A timeline tells a list, set, hash or
    /// sorted set again by element, and judges it by whose element it touched: the owner of
    /// a whole queue is only its last pusher.
    pub fn routine(&self) -> bool {
        self.owner
            .as_ref()
            .is_none_or(|owner| *owner == self.client)
    }

    /// The timeline's words: `c1 DEL lock removed c2's "a3f…"`.
    pub fn tell(&self) -> String {
        let Self {
            client,
            command,
            key,
            ..
        } = self;
        let old = |v: &str| match &self.owner {
            Some(owner) if owner == client => format!("its own {v:?}"),
            Some(owner) => format!("{owner}'s {v:?}"),
            None => format!("{v:?}"),
        };
        let ttl = match self.ttl_ms {
            Some(ms) => format!(", expires in {ms} ms"),
            None => String::new(),
        };
        match (&self.before, &self.after) {
            (None, None) => format!("{client} {command} {key} changed nothing"),
            (None, Some(new)) => format!("{client} {command} {key} set to {new:?}{ttl}"),
            (Some(old_value), None) => {
                format!("{client} {command} {key} removed {}", old(old_value))
            }
            (Some(old_value), Some(new)) if old_value == new => {
                let ttl = match self.ttl_ms {
                    Some(ms) => format!("now expires in {ms} ms"),
                    None => "no longer expires".into(),
                };
                format!("{client} {command} {key} kept {}, {ttl}", old(old_value))
            }
            (Some(old_value), Some(new)) => format!(
                "{client} {command} {key} overwrote {} with {new:?}{ttl}",
                old(old_value)
            ),
        }
    }
}

/// A client's change of someone else's value is news, told in the timeline's words; other
/// changes are routine (see [`KeyChange::routine`]), and as timelines leave them out they
/// are not worded (a run records thousands). Expiries, restarts, failovers and lost replies
/// are news.
impl From<RedisEvent> for Op {
    fn from(event: RedisEvent) -> Op {
        Op::Server(match &event {
            RedisEvent::KeyChanged(change) if change.routine() => ServerEvent::routine(&event),
            RedisEvent::KeyChanged(change) => {
                let told = change.tell();
                ServerEvent::new(&event).told(told)
            }
            RedisEvent::ReplyLost { client, command } => {
                let told =
                    format!("drops {client}'s connection instead of replying to its {command}");
                ServerEvent::new(&event).told(told)
            }
            _ => ServerEvent::new(&event),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(
        client: &str,
        before: Option<&str>,
        owner: Option<&str>,
        after: Option<&str>,
    ) -> KeyChange {
        KeyChange {
            client: client.into(),
            command: "DEL".into(),
            key: "lock".into(),
            before: before.map(Into::into),
            owner: owner.map(Into::into),
            after: after.map(Into::into),
            ttl_ms: None,
            result: "1".into(),
        }
    }

    #[test]
    fn removing_another_clients_value_is_news_and_ones_own_is_routine() {
        let theirs = change("c1", Some("t2"), Some("c2"), None);
        assert!(!theirs.routine());
        assert_eq!(theirs.tell(), r#"c1 DEL lock removed c2's "t2""#);
        let own = change("c2", Some("t2"), Some("c2"), None);
        assert!(own.routine());
        assert_eq!(own.tell(), r#"c2 DEL lock removed its own "t2""#);
        let unknown = change("c1", Some("t2"), None, None);
        assert!(unknown.routine());
        assert_eq!(unknown.tell(), r#"c1 DEL lock removed "t2""#);
    }

    #[test]
    fn sets_overwrites_and_deadlines_are_told() {
        let set = KeyChange {
            command: "SET".into(),
            ttl_ms: Some(200),
            result: "OK".into(),
            ..change("c1", None, None, Some("t1"))
        };
        assert!(set.routine());
        assert_eq!(set.tell(), r#"c1 SET lock set to "t1", expires in 200 ms"#);
        let overwrite = KeyChange {
            command: "SET".into(),
            ..change("c1", Some("t2"), Some("c2"), Some("t1"))
        };
        assert!(!overwrite.routine());
        assert_eq!(
            overwrite.tell(),
            r#"c1 SET lock overwrote c2's "t2" with "t1""#
        );
        let extend = KeyChange {
            command: "EVALSHA".into(),
            ttl_ms: Some(190),
            ..change("c1", Some("t1"), Some("c1"), Some("t1"))
        };
        assert!(extend.routine());
        assert_eq!(
            extend.tell(),
            r#"c1 EVALSHA lock kept its own "t1", now expires in 190 ms"#
        );
    }

    #[test]
    fn a_change_reads_back_and_tells_the_timeline() {
        let theirs = change("c1", Some("t2"), Some("c2"), None);
        let op: Op = RedisEvent::KeyChanged(theirs.clone()).into();
        let Op::Server(event) = &op else {
            panic!("a server event: {op:?}")
        };
        assert_eq!(event.op, "key_changed");
        assert!(!event.routine);
        assert_eq!(
            event.told.as_deref(),
            Some(r#"c1 DEL lock removed c2's "t2""#)
        );
        assert_eq!(
            event.read::<RedisEvent>(),
            Some(RedisEvent::KeyChanged(theirs))
        );
        let json = serde_json::to_string(&op).unwrap();
        assert_eq!(
            json,
            r#"{"op":"key_changed","after":null,"before":"t2","client":"c1","command":"DEL","key":"lock","owner":"c2","result":"1"}"#
        );
    }
}
