//! A shared list, set, hash or sorted set told element by element: which element a command
//! took or changed, and which client put it there. The host records a change of such a key as
//! its whole value before and after, and whose command last wrote the whole value; a queue's
//! story is in its items, so a timeline asks here instead. Everything is read back from the
//! history's earlier `key_changed` events of the same host and key (diffing each `before`
//! against `after`): nothing more is recorded, so no history and no digest changes.
//!
//! Values are read as the host renders them (`list[a, b]`, `set{a}`, `hash{f=v}`,
//! `zset{m=1}`). A render stops after 16 elements: for a longer list only what the head
//! shows is told, and for a longer set, hash or sorted set nothing is (its words stay the
//! host's). An element whose text holds `, ` reads as two.

use crate::history::{Event, Op};
use crate::redis::events::{KeyChange, RedisEvent};
use std::collections::BTreeMap;

/// At most this many elements are named on one line; the rest are counted.
const NAMED: usize = 3;

/// How a timeline tells each `key_changed` of a list, set, hash or sorted set in `events`,
/// by its index: `Some(words)` when the command removed or overwrote an element another
/// client put there, `None` (routine) when it touched only its own, unknown ones or none.
/// Changes it cannot tell by element (a string key, a long unordered value) are left out,
/// to be told in the host's words.
pub(crate) fn retell(events: &[Event]) -> BTreeMap<usize, Option<String>> {
    let mut keys: BTreeMap<(&str, String), Vec<Item>> = BTreeMap::new();
    let mut told = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        let Op::Server(event) = &e.op else {
            continue;
        };
        match event.read::<RedisEvent>() {
            Some(RedisEvent::KeyChanged(change)) => {
                let id = (e.node.as_str(), change.key.clone());
                let known = keys.remove(&id).unwrap_or_default();
                let (words, now) = tell(&change, known);
                if let Some(words) = words {
                    told.insert(i, words);
                }
                keys.insert(id, now);
            }
            Some(RedisEvent::KeyExpired { key }) => {
                keys.remove(&(e.node.as_str(), key));
            }
            _ => {}
        }
    }
    told
}

/// One element as a story knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    /// A list's element, a set's or sorted set's member, a hash's field.
    name: String,
    /// A hash field's value, a member's score.
    value: Option<String>,
    /// The client that put it there (for a field or a score, that set it last).
    by: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    List,
    Set,
    Hash,
    ZSet,
}

/// A value as the host rendered it: its type, its elements, and whether it was cut short.
struct Rendered {
    of: Type,
    items: Vec<(String, Option<String>)>,
    cut: bool,
}

/// Reads a render back; None for a string (or what does not read as an aggregate).
fn parse(value: &str) -> Option<Rendered> {
    let (of, body) = [
        (Type::List, "list[", ']'),
        (Type::Set, "set{", '}'),
        (Type::Hash, "hash{", '}'),
        (Type::ZSet, "zset{", '}'),
    ]
    .into_iter()
    .find_map(|(of, open, close)| Some((of, value.strip_prefix(open)?.strip_suffix(close)?)))?;
    let mut pieces: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(", ").collect()
    };
    let cut = pieces
        .last()
        .is_some_and(|last| last.starts_with("… (") && last.ends_with(" in all)"));
    if cut {
        pieces.pop();
    }
    let items = pieces
        .into_iter()
        .map(|piece| match of {
            Type::List | Type::Set => (piece.to_string(), None),
            Type::Hash => split(piece.split_once('=')),
            Type::ZSet => split(piece.rsplit_once('=')),
        })
        .collect();
    Some(Rendered { of, items, cut })
}

fn split(pair: Option<(&str, &str)>) -> (String, Option<String>) {
    let (name, value) = pair.unwrap_or_default();
    (name.to_string(), Some(value.to_string()))
}

/// What one command did to elements someone had put there.
struct Touched {
    item: Item,
    /// The value it left (a field overwritten); None: the element is gone.
    now: Option<String>,
}

/// How `change` is told (outer None: not by element), and the key's elements after it.
fn tell(change: &KeyChange, known: Vec<Item>) -> (Option<Option<String>>, Vec<Item>) {
    let before = change.before.as_deref().and_then(parse);
    let after = change.after.as_deref().and_then(parse);
    let Some(of) = before.as_ref().or(after.as_ref()).map(|r| r.of) else {
        return (None, Vec::new());
    };
    let empty = || Rendered {
        of,
        items: Vec::new(),
        cut: false,
    };
    let (before, after) = (before.unwrap_or_else(empty), after.unwrap_or_else(empty));
    let client = &change.client;
    let before = owned(&known, &before);
    let (touched, now) = match of {
        Type::List => list_diff(&before, &after, client),
        _ => keyed_diff(&before, &after, client),
    };
    if (of != Type::List && (before.cut || after.cut)) || before.of != after.of {
        return (None, now);
    }
    let news = touched
        .iter()
        .any(|t| t.item.by.as_ref().is_some_and(|by| by != client));
    let words = news.then(|| words(change, of, touched));
    (Some(words), now)
}

/// A render with each element's client, where the story knows it.
struct Owned {
    of: Type,
    items: Vec<Item>,
    cut: bool,
}

/// `rendered` with each element's client taken from `known`: a list's by their order (the
/// longest common run), the others by name, a field or score only while it still holds the
/// value it was set to.
fn owned(known: &[Item], rendered: &Rendered) -> Owned {
    let items: Vec<Item> = rendered
        .items
        .iter()
        .map(|(name, value)| Item {
            name: name.clone(),
            value: value.clone(),
            by: None,
        })
        .collect();
    let items = match rendered.of {
        Type::List => {
            let mut items = items;
            for (k, r) in common(known, &items) {
                items[r].by = known[k].by.clone();
            }
            items
        }
        _ => items
            .into_iter()
            .map(|item| Item {
                by: known
                    .iter()
                    .find(|k| k.name == item.name && k.value == item.value)
                    .and_then(|k| k.by.clone()),
                ..item
            })
            .collect(),
    };
    Owned {
        of: rendered.of,
        items,
        cut: rendered.cut,
    }
}

/// The pairs of indices (in `a`, in `b`) of a longest common subsequence of names.
fn common(a: &[Item], b: &[Item]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut longest = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            longest[i][j] = if a[i].name == b[j].name {
                longest[i + 1][j + 1] + 1
            } else {
                longest[i + 1][j].max(longest[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i].name == b[j].name {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if longest[i + 1][j] >= longest[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

/// A list's change: the elements gone (by order), and the list after with each element's
/// client (a new one is `client`'s). Past a cut render, an element that only came into view
/// is nobody's known, and one that only went out of view is not gone.
fn list_diff(before: &Owned, after: &Rendered, client: &str) -> (Vec<Touched>, Vec<Item>) {
    let mut now: Vec<Item> = after
        .items
        .iter()
        .map(|(name, _)| Item {
            name: name.clone(),
            value: None,
            by: Some(client.to_string()),
        })
        .collect();
    let pairs = common(&before.items, &now);
    let (last_before, last_after) = pairs.last().map_or((0, 0), |&(b, a)| (b + 1, a + 1));
    if before.cut {
        for item in &mut now[last_after..] {
            item.by = None;
        }
    }
    for &(b, a) in &pairs {
        now[a].by = before.items[b].by.clone();
    }
    let kept: Vec<usize> = pairs.iter().map(|&(b, _)| b).collect();
    let out_of_view = |b: usize| after.cut && b >= last_before;
    let gone = before
        .items
        .iter()
        .enumerate()
        .filter(|&(b, _)| !kept.contains(&b) && !out_of_view(b))
        .map(|(_, item)| Touched {
            item: item.clone(),
            now: None,
        })
        .collect();
    (gone, now)
}

/// A set's, hash's or sorted set's change: the elements gone or given another value, and
/// the value after with each element's client.
fn keyed_diff(before: &Owned, after: &Rendered, client: &str) -> (Vec<Touched>, Vec<Item>) {
    let now: Vec<Item> = after
        .items
        .iter()
        .map(|(name, value)| {
            let same = before
                .items
                .iter()
                .find(|b| b.name == *name && b.value == *value);
            Item {
                name: name.clone(),
                value: value.clone(),
                by: match same {
                    Some(b) => b.by.clone(),
                    None if before.cut => None,
                    None => Some(client.to_string()),
                },
            }
        })
        .collect();
    let touched = before
        .items
        .iter()
        .filter_map(|b| {
            match now.iter().find(|a| a.name == b.name) {
                None => Some(None),
                Some(a) if a.value != b.value => Some(Some(a.value.clone().unwrap_or_default())),
                Some(_) => None,
            }
            .map(|now| Touched {
                item: b.clone(),
                now,
            })
        })
        .collect();
    (touched, now)
}

/// `c2 LPOP q took "p1-3" (pushed by p1)`: what went and what was overwritten, another
/// client's elements first, at most [`NAMED`] of them named.
fn words(change: &KeyChange, of: Type, mut touched: Vec<Touched>) -> String {
    let client = &change.client;
    touched.sort_by_key(|t| t.item.by.as_ref().is_none_or(|by| by == client));
    let more = touched.len().saturating_sub(NAMED);
    touched.truncate(NAMED);
    let (gone, overwritten): (Vec<Touched>, Vec<Touched>) =
        touched.into_iter().partition(|t| t.now.is_none());
    let phrase = |t: &Touched| element(of, client, t);
    let mut parts = Vec::new();
    if !gone.is_empty() {
        let taken = ["POP", "MOVE"].iter().any(|c| change.command.contains(c));
        let verb = if taken { "took" } else { "removed" };
        let named: Vec<String> = gone.iter().map(phrase).collect();
        parts.push(format!("{verb} {}", named.join(", ")));
    }
    if !overwritten.is_empty() {
        let named: Vec<String> = overwritten.iter().map(phrase).collect();
        parts.push(format!("overwrote {}", named.join(", ")));
    }
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{client} {} {} {}{more}",
        change.command,
        change.key,
        parts.join(" and ")
    )
}

/// One element and whose it was: `"p1-3" (pushed by p1)`, `field f ("v1", set by c1) with
/// "v2"`.
fn element(of: Type, client: &str, t: &Touched) -> String {
    let Item { name, value, by } = &t.item;
    let put = match of {
        Type::List => "pushed",
        Type::Set => "added",
        Type::Hash | Type::ZSet => "set",
    };
    let whose = match by {
        Some(by) if by == client => Some("its own".to_string()),
        Some(by) => Some(format!("{put} by {by}")),
        None => None,
    };
    let with = |now: &Option<String>| match now {
        Some(now) if of == Type::Hash => format!(" with {now:?}"),
        Some(now) => format!(" with {now}"),
        None => String::new(),
    };
    match (of, value) {
        (Type::Hash, Some(value)) => {
            let was = whose.map_or(format!("{value:?}"), |w| format!("{value:?}, {w}"));
            format!("field {name} ({was}){}", with(&t.now))
        }
        (Type::ZSet, Some(score)) if t.now.is_some() => {
            let was = whose.map_or(score.clone(), |w| format!("{score}, {w}"));
            format!("{name:?}'s score ({was}){}", with(&t.now))
        }
        _ => match whose {
            Some(whose) => format!("{name:?} ({whose})"),
            None => format!("{name:?}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_history::event;
    use crate::history::Kind;

    fn changed(client: &str, command: &str, key: &str, before: &str, after: &str) -> Event {
        let value = |v: &str| (!v.is_empty()).then(|| v.to_string());
        let change = KeyChange {
            client: client.into(),
            command: command.into(),
            key: key.into(),
            before: value(before),
            owner: None,
            after: value(after),
            ttl_ms: None,
            result: "1".into(),
        };
        event(
            0,
            "redis1",
            Kind::Info,
            RedisEvent::KeyChanged(change).into(),
        )
    }

    fn told(events: &[Event]) -> Vec<(usize, Option<String>)> {
        retell(events).into_iter().collect()
    }

    #[test]
    fn a_pop_takes_the_element_its_pusher_put_there() {
        let events = [
            changed("p1", "RPUSH", "q", "", "list[p1-1]"),
            changed("p2", "RPUSH", "q", "list[p1-1]", "list[p1-1, p2-1]"),
            changed("c1", "LPOP", "q", "list[p1-1, p2-1]", "list[p2-1]"),
            changed("p2", "LPOP", "q", "list[p2-1]", ""),
        ];
        assert_eq!(
            told(&events),
            [
                (0, None),
                (1, None),
                (2, Some(r#"c1 LPOP q took "p1-1" (pushed by p1)"#.into())),
                (3, None),
            ]
        );
    }

    /// Only the lines a timeline shows, by index.
    fn news(events: &[Event]) -> Vec<(usize, String)> {
        let told = retell(events).into_iter();
        told.filter_map(|(i, words)| Some((i, words?))).collect()
    }

    #[test]
    fn a_long_list_is_told_by_what_its_head_shows() {
        let shown = |from: usize, len: usize| {
            let items: Vec<String> = (from..from + 16).map(|i| format!("e{i}")).collect();
            format!("list[{}, … ({len} in all)]", items.join(", "))
        };
        let pushed = shown(2, 19).replace("e2, ", "x, e2, ").replace(", e17", "");
        let removed = shown(2, 18).replace("e2, ", "x, e2, ").replace(", e16", "");
        let events = [
            changed("p1", "RPUSH", "q", "", &shown(0, 20)),
            changed("c1", "LPOP", "q", &shown(0, 20), &shown(1, 19)),
            // e16 comes into view: whose it is is not known (not c1's, who popped).
            changed("c1", "LPOP", "q", &shown(1, 19), &shown(2, 18)),
            // e17 goes out of view, not away: no news.
            changed("c1", "LPUSH", "q", &shown(2, 18), &pushed),
            // So c2's removal of e16 is no news either.
            changed("c2", "LREM", "q", &pushed, &removed),
        ];
        assert_eq!(
            news(&events),
            [
                (1, r#"c1 LPOP q took "e0" (pushed by p1)"#.into()),
                (2, r#"c1 LPOP q took "e1" (pushed by p1)"#.into()),
            ]
        );
    }

    #[test]
    fn set_members_hash_fields_and_scores_are_told_with_who_put_them_there() {
        let events = [
            changed("c1", "SADD", "s", "", "set{m7}"),
            changed("c2", "SADD", "s", "set{m7}", "set{m1, m7}"),
            changed("c3", "SREM", "s", "set{m1, m7}", "set{m1}"),
            changed("c3", "SPOP", "s", "set{m1}", ""),
            changed("c1", "HSET", "h", "", "hash{f=v1, g=w}"),
            changed("c2", "HSET", "h", "hash{f=v1, g=w}", "hash{f=v1, g=w2}"),
            changed("c3", "HSET", "h", "hash{f=v1, g=w2}", "hash{f=v3, g=w2}"),
            changed("c1", "EVAL", "h", "hash{f=v3, g=w2}", "hash{g=w2}"),
            changed("c2", "HDEL", "h", "hash{g=w2}", ""),
            changed("c1", "ZADD", "z", "", "zset{a=1, b=2}"),
            changed("c2", "ZADD", "z", "zset{a=1, b=2}", "zset{b=2, a=3}"),
            changed("c2", "ZPOPMIN", "z", "zset{b=2, a=3}", "zset{a=3}"),
        ];
        assert_eq!(
            news(&events),
            [
                (2, r#"c3 SREM s removed "m7" (added by c1)"#.into()),
                (3, r#"c3 SPOP s took "m1" (added by c2)"#.into()),
                (
                    5,
                    r#"c2 HSET h overwrote field g ("w", set by c1) with "w2""#.into()
                ),
                (
                    6,
                    r#"c3 HSET h overwrote field f ("v1", set by c1) with "v3""#.into()
                ),
                (7, r#"c1 EVAL h removed field f ("v3", set by c3)"#.into()),
                (
                    10,
                    r#"c2 ZADD z overwrote "a"'s score (1, set by c1) with 3"#.into()
                ),
                (11, r#"c2 ZPOPMIN z took "b" (set by c1)"#.into()),
            ]
        );
    }

    #[test]
    fn a_line_names_another_clients_elements_first_and_counts_the_rest() {
        let events = [
            changed("c2", "RPUSH", "q", "", "list[a, b, c]"),
            changed("c1", "RPUSH", "q", "list[a, b, c]", "list[a, b, c, d]"),
            changed("c2", "DEL", "q", "list[a, b, c, d]", ""),
        ];
        let line =
            r#"c2 DEL q removed "d" (pushed by c1), "a" (its own), "b" (its own) and 1 more"#;
        assert_eq!(news(&events), [(2, line.into())]);
    }

    #[test]
    fn strings_expiries_and_other_hosts_are_left_to_the_hosts_words() {
        let mut on_redis2 = changed("c2", "LPOP", "q", "list[a]", "");
        on_redis2.node = "redis2".into();
        let expired = RedisEvent::KeyExpired { key: "q".into() };
        let events = [
            changed("c1", "SET", "k", "", "v"),
            changed("c2", "DEL", "k", "v", ""),
            changed("c1", "RPUSH", "q", "", "list[a]"),
            on_redis2,
            event(0, "redis1", Kind::Info, expired.into()),
            changed("c2", "RPUSH", "q", "", "list[a]"),
            changed("c3", "LPOP", "q", "list[a]", ""),
        ];
        assert_eq!(
            told(&events),
            [
                (2, None),
                (3, None),
                (5, None),
                (6, Some(r#"c3 LPOP q took "a" (pushed by c2)"#.into())),
            ]
        );
    }
}
