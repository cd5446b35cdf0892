//! A list: Redis's quicklist, as a deque of elements.

use std::collections::VecDeque;

/// The elements of a list key, head first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List {
    items: VecDeque<Vec<u8>>,
}

impl List {
    /// How many elements it holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether it holds none (Redis then deletes the key).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Its elements, head first.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.items.iter().map(Vec::as_slice)
    }

    /// Adds an element at the head (LPUSH).
    pub fn push_front(&mut self, item: Vec<u8>) {
        self.items.push_front(item);
    }

    /// Adds an element at the tail (RPUSH).
    pub fn push_back(&mut self, item: Vec<u8>) {
        self.items.push_back(item);
    }

    /// Takes the head element (LPOP).
    pub fn pop_front(&mut self) -> Option<Vec<u8>> {
        self.items.pop_front()
    }

    /// Takes the tail element (RPOP).
    pub fn pop_back(&mut self) -> Option<Vec<u8>> {
        self.items.pop_back()
    }
}

impl List {
    /// The element at `index` (from the tail when negative), as LINDEX reads it.
    pub fn get(&self, index: i64) -> Option<&[u8]> {
        let len = i64::try_from(self.items.len()).ok()?;
        let at = if index < 0 { len + index } else { index };
        let at = usize::try_from(at).ok()?;
        self.items.get(at).map(Vec::as_slice)
    }

    /// LRANGE's elements from `start` to `stop` inclusive, negative indexes from the tail,
    /// clamped as `addListRangeReply` clamps them.
    pub fn range(&self, start: i64, stop: i64) -> impl Iterator<Item = &[u8]> {
        let len = i64::try_from(self.items.len()).unwrap_or(i64::MAX);
        let start = if start < 0 {
            (len + start).max(0)
        } else {
            start
        };
        let stop = if stop < 0 {
            len + stop
        } else {
            stop.min(len - 1)
        };
        let (skip, take) = if start > stop || start >= len {
            (0, 0)
        } else {
            (start, stop - start + 1)
        };
        let skip = usize::try_from(skip).unwrap_or(0);
        let take = usize::try_from(take).unwrap_or(0);
        self.items.iter().skip(skip).take(take).map(Vec::as_slice)
    }

    /// LREM: removes up to `count` elements equal to `item` from the head (count > 0), from
    /// the tail (count < 0), or all of them (0); how many it removed.
    pub fn remove(&mut self, count: i64, item: &[u8]) -> usize {
        let limit = if count == 0 {
            usize::MAX
        } else {
            usize::try_from(count.unsigned_abs()).unwrap_or(usize::MAX)
        };
        let mut removed = 0;
        if count >= 0 {
            let mut i = 0;
            while i < self.items.len() && removed < limit {
                if self.items[i] == item {
                    self.items.remove(i);
                    removed += 1;
                } else {
                    i += 1;
                }
            }
        } else {
            let mut i = self.items.len();
            while i > 0 && removed < limit {
                i -= 1;
                if self.items[i] == item {
                    self.items.remove(i);
                    removed += 1;
                }
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::List;

    fn list(items: &[&str]) -> List {
        let mut list = List::default();
        for item in items {
            list.push_back(item.as_bytes().to_vec());
        }
        list
    }

    fn range(list: &List, start: i64, stop: i64) -> Vec<String> {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        list.range(start, stop).map(text).collect()
    }

    #[test]
    fn indexes_and_ranges_count_from_either_end() {
        let l = list(&["a", "b", "c"]);
        assert_eq!(l.get(0), Some(&b"a"[..]));
        assert_eq!(l.get(-1), Some(&b"c"[..]));
        assert_eq!(l.get(3), None);
        assert_eq!(l.get(-4), None);
        assert_eq!(range(&l, 0, -1), ["a", "b", "c"]);
        assert_eq!(range(&l, -100, 1), ["a", "b"]);
        assert_eq!(range(&l, 1, 100), ["b", "c"]);
        assert!(range(&l, 2, 1).is_empty());
        assert!(range(&l, 3, 5).is_empty());
        assert!(range(&l, 0, -4).is_empty());
        assert!(range(&l, i64::MIN, i64::MIN).is_empty());
        assert_eq!(range(&l, i64::MIN, i64::MAX), ["a", "b", "c"]);
    }

    #[test]
    fn remove_from_the_head_the_tail_or_everywhere() {
        let mut l = list(&["x", "a", "x", "b", "x"]);
        assert_eq!(l.remove(1, b"x"), 1);
        assert_eq!(range(&l, 0, -1), ["a", "x", "b", "x"]);
        assert_eq!(l.remove(-1, b"x"), 1);
        assert_eq!(range(&l, 0, -1), ["a", "x", "b"]);
        assert_eq!(l.remove(0, b"x"), 1);
        assert_eq!(l.remove(0, b"x"), 0);
        assert_eq!(range(&l, 0, -1), ["a", "b"]);
    }
}
