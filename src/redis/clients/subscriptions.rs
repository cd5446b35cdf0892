//! Who listens to what (Redis's `server.pubsub_channels` and `server.pubsub_patterns`, and
//! each client's own lists): a pure registry keyed by client id. Subscribers of a channel
//! or a pattern are kept in the order they subscribed, as Redis's lists keep them, and a
//! client's channels in the order it subscribed to them; the channels and patterns
//! themselves are sorted (Redis walks them in hash order, which no client can rely on).

use crate::redis::glob;
use crate::redis::resp::Frame;
use std::collections::BTreeMap;

/// Every subscription on the server.
#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    channels: BTreeMap<Vec<u8>, Vec<u64>>,
    patterns: BTreeMap<Vec<u8>, Vec<u64>>,
    by_client: BTreeMap<u64, Own>,
}

/// One client's subscriptions, in the order it made them.
#[derive(Debug, Default)]
struct Own {
    channels: Vec<Vec<u8>>,
    patterns: Vec<Vec<u8>>,
}

/// Channels or patterns: the two registries work alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Channel,
    Pattern,
}

impl Subscriptions {
    /// `client` subscribes to `name`; false if it already had.
    pub fn subscribe(&mut self, kind: Kind, client: u64, name: &[u8]) -> bool {
        let registry = match kind {
            Kind::Channel => &mut self.channels,
            Kind::Pattern => &mut self.patterns,
        };
        let own = self.by_client.entry(client).or_default();
        let list = match kind {
            Kind::Channel => &mut own.channels,
            Kind::Pattern => &mut own.patterns,
        };
        if list.iter().any(|n| n == name) {
            return false;
        }
        list.push(name.to_vec());
        registry.entry(name.to_vec()).or_default().push(client);
        true
    }

    /// `client` unsubscribes from `name`; false if it was not subscribed.
    pub fn unsubscribe(&mut self, kind: Kind, client: u64, name: &[u8]) -> bool {
        let registry = match kind {
            Kind::Channel => &mut self.channels,
            Kind::Pattern => &mut self.patterns,
        };
        let Some(own) = self.by_client.get_mut(&client) else {
            return false;
        };
        let list = match kind {
            Kind::Channel => &mut own.channels,
            Kind::Pattern => &mut own.patterns,
        };
        let Some(at) = list.iter().position(|n| n == name) else {
            return false;
        };
        list.remove(at);
        if own.channels.is_empty() && own.patterns.is_empty() {
            self.by_client.remove(&client);
        }
        if let Some(subscribers) = registry.get_mut(name) {
            subscribers.retain(|&c| c != client);
            if subscribers.is_empty() {
                registry.remove(name);
            }
        }
        true
    }

    /// What `client` is subscribed to, in the order it subscribed.
    pub fn of(&self, kind: Kind, client: u64) -> Vec<Vec<u8>> {
        self.by_client
            .get(&client)
            .map(|own| match kind {
                Kind::Channel => own.channels.clone(),
                Kind::Pattern => own.patterns.clone(),
            })
            .unwrap_or_default()
    }

    /// How many channels and patterns `client` listens to: above 0 it is in pub/sub mode.
    pub fn count(&self, client: u64) -> usize {
        self.by_client
            .get(&client)
            .map_or(0, |own| own.channels.len() + own.patterns.len())
    }

    /// How many channels (or patterns) `client` listens to, as CLIENT LIST's `sub` and
    /// `psub` count them.
    pub fn count_of(&self, kind: Kind, client: u64) -> usize {
        self.by_client.get(&client).map_or(0, |own| match kind {
            Kind::Channel => own.channels.len(),
            Kind::Pattern => own.patterns.len(),
        })
    }

    /// Drops everything `client` listens to (it left, or RESET), without telling it.
    pub fn forget(&mut self, client: u64) {
        for kind in [Kind::Channel, Kind::Pattern] {
            for name in self.of(kind, client) {
                self.unsubscribe(kind, client, &name);
            }
        }
    }

    /// `pubsubPublishMessage`: the messages PUBLISH sends, to the channel's subscribers
    /// first, then to the subscribers of each pattern that matches it.
    pub fn publish(&self, channel: &[u8], message: &[u8]) -> Vec<(u64, Frame)> {
        let bulk = |b: &[u8]| Frame::Bulk(b.to_vec());
        let mut out = Vec::new();
        for &client in self.channels.get(channel).into_iter().flatten() {
            let push = vec![bulk(b"message"), bulk(channel), bulk(message)];
            out.push((client, Frame::Push(push)));
        }
        for (pattern, clients) in &self.patterns {
            if !glob::matches(pattern, channel, false) {
                continue;
            }
            for &client in clients {
                let push = vec![
                    bulk(b"pmessage"),
                    bulk(pattern),
                    bulk(channel),
                    bulk(message),
                ];
                out.push((client, Frame::Push(push)));
            }
        }
        out
    }

    /// PUBSUB CHANNELS: the channels with a subscriber, those matching `pattern` if given.
    pub fn channels(&self, pattern: Option<&[u8]>) -> Vec<Vec<u8>> {
        self.channels
            .keys()
            .filter(|channel| pattern.is_none_or(|p| glob::matches(p, channel, false)))
            .cloned()
            .collect()
    }

    /// PUBSUB NUMSUB: how many clients listen to `channel` (patterns not counted).
    pub fn numsub(&self, channel: &[u8]) -> usize {
        self.channels.get(channel).map_or(0, Vec::len)
    }

    /// PUBSUB NUMPAT: how many patterns someone listens to.
    pub fn numpat(&self) -> usize {
        self.patterns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribers_in_order_channels_before_patterns() {
        let mut subs = Subscriptions::default();
        assert!(subs.subscribe(Kind::Channel, 3, b"ch"));
        assert!(!subs.subscribe(Kind::Channel, 3, b"ch"));
        assert!(subs.subscribe(Kind::Pattern, 2, b"c*"));
        assert!(subs.subscribe(Kind::Channel, 2, b"ch"));
        let to: Vec<u64> = subs.publish(b"ch", b"m").iter().map(|d| d.0).collect();
        assert_eq!(to, vec![3, 2, 2]);
        assert!(subs.publish(b"other", b"m").is_empty());
        assert_eq!(subs.count(2), 2);
        assert_eq!(subs.numsub(b"ch"), 2);
        assert_eq!(subs.numpat(), 1);
        subs.forget(2);
        assert_eq!(subs.count(2), 0);
        assert_eq!(subs.numpat(), 0);
        assert_eq!(subs.channels(None), vec![b"ch".to_vec()]);
        assert!(subs.unsubscribe(Kind::Channel, 3, b"ch"));
        assert!(!subs.unsubscribe(Kind::Channel, 3, b"ch"));
        assert!(subs.channels(None).is_empty());
        assert!(subs.by_client.is_empty());
    }
}
