//! What a case observed, recorded raw and rendered normalised, so that two servers' runs can
//! be compared line by line: zxids become their rank among the zxids the transcript saw,
//! times become relations (ctime no later than mtime, and both within the case's real-time
//! span), session ids become the case's session labels, children become sorted
//! sets (their order is arbitrary on both servers).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{SystemTime, UNIX_EPOCH};

use locksim::zk::proto::{EventType, KeeperState, Stat, WatcherEvent};

/// One piece of an entry's outcome.
#[derive(Debug, Clone)]
pub enum Item {
    Text(String),
    Stat(Stat),
    Data(Vec<u8>),
    Children(BTreeSet<String>),
    Events(Vec<WatcherEvent>),
    /// A session id, shown as `session=` and the label of the session that holds it.
    Session(i64),
}

#[derive(Debug, Clone)]
struct Entry {
    step: String,
    items: Vec<Item>,
}

#[derive(Debug)]
pub struct Transcript {
    entries: Vec<Entry>,
    labels: BTreeMap<i64, String>,
    started_ms: i64,
}

/// Server times may differ from the test's clock by this much and still count as now.
const CLOCK_SLACK_MS: i64 = 2_000;

fn wall_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970");
    i64::try_from(since.as_millis()).expect("ms fit in i64")
}

impl Transcript {
    pub fn new() -> Self {
        Transcript {
            entries: Vec::new(),
            labels: BTreeMap::new(),
            started_ms: wall_ms(),
        }
    }

    /// Names a session id (ephemeral owners and raw session ids render as the label).
    pub fn label(&mut self, session_id: i64, label: &str) {
        self.labels.insert(session_id, label.to_string());
    }

    pub fn push(&mut self, step: impl Into<String>, items: Vec<Item>) {
        self.entries.push(Entry {
            step: step.into(),
            items,
        });
    }

    /// The normalised lines, one per entry.
    pub fn render(&self) -> Vec<String> {
        let zxids: BTreeSet<i64> = self
            .entries
            .iter()
            .flat_map(|e| &e.items)
            .filter_map(|item| match item {
                Item::Stat(s) => Some([s.czxid, s.mzxid, s.pzxid]),
                _ => None,
            })
            .flatten()
            .collect();
        let ranks: BTreeMap<i64, usize> = zxids.into_iter().zip(1..).collect();
        let span = (self.started_ms - CLOCK_SLACK_MS, wall_ms() + CLOCK_SLACK_MS);
        let view = View {
            ranks: &ranks,
            labels: &self.labels,
            span,
        };
        self.entries
            .iter()
            .map(|entry| {
                let items: Vec<String> = entry.items.iter().map(|i| view.item(i)).collect();
                format!("{} => {}", entry.step, items.join(" "))
            })
            .collect()
    }
}

struct View<'a> {
    ranks: &'a BTreeMap<i64, usize>,
    labels: &'a BTreeMap<i64, String>,
    span: (i64, i64),
}

impl View<'_> {
    fn item(&self, item: &Item) -> String {
        match item {
            Item::Text(text) => text.clone(),
            Item::Stat(stat) => self.stat(stat),
            Item::Data(data) => format!("data={:?}", String::from_utf8_lossy(data)),
            Item::Children(children) => {
                let names: Vec<&str> = children.iter().map(String::as_str).collect();
                format!("children=[{}]", names.join(","))
            }
            Item::Events(events) => {
                let events: Vec<String> = events.iter().map(event).collect();
                format!("events=[{}]", events.join(", "))
            }
            Item::Session(id) => format!("session={}", self.session(*id)),
        }
    }

    fn session(&self, id: i64) -> String {
        match (id, self.labels.get(&id)) {
            (0, _) => "0".to_string(),
            (_, Some(label)) => label.clone(),
            (_, None) => "unknown-session".to_string(),
        }
    }

    fn zxid(&self, zxid: i64) -> String {
        format!("z{}", self.ranks[&zxid])
    }

    fn stat(&self, s: &Stat) -> String {
        // Two writes can fall in the same millisecond: only the order is compared.
        let times = if s.ctime <= s.mtime {
            "ctime<=mtime"
        } else {
            "ctime>mtime"
        };
        let (from, to) = self.span;
        let now = |t: i64| (from..=to).contains(&t);
        let when = if now(s.ctime) && now(s.mtime) {
            ""
        } else {
            " times-not-now"
        };
        format!(
            "stat{{czxid={} mzxid={} pzxid={} {times}{when} version={} cversion={} aversion={} owner={} len={} children={}}}",
            self.zxid(s.czxid),
            self.zxid(s.mzxid),
            self.zxid(s.pzxid),
            s.version,
            s.cversion,
            s.aversion,
            self.session(s.ephemeral_owner),
            s.data_length,
            s.num_children,
        )
    }
}

pub fn event(e: &WatcherEvent) -> String {
    match e.event_type {
        EventType::None => format!("{:?}", e.state),
        kind if e.state == KeeperState::SyncConnected => format!("{kind:?} {}", e.path),
        kind => format!("{kind:?} {} in state {:?}", e.path, e.state),
    }
}

/// The first line where two renderings differ: its index and both sides (None past the end).
pub fn first_difference(
    a: &[String],
    b: &[String],
) -> Option<(usize, Option<String>, Option<String>)> {
    (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .map(|i| (i, a.get(i).cloned(), b.get(i).cloned()))
}
