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
