//! An ordered map that stays cheap at both ends of scale: the ready queues of the policies and
//! the engine's deadlines. Up to a few dozen entries it is a sorted vector (a binary search and
//! a short move per change, no allocation once it has grown); past [`TREE_FROM`] entries it
//! becomes a B-tree (Bayer and McCreight, "Organization and maintenance of large ordered
//! indices", Acta Informatica 1(3), 1972), O(log n) per change, and goes back to the vector
//! below [`VECTOR_BELOW`] (the gap keeps a size that hovers around one bound from converting
//! at every change). Both forms hold the same entries in the same order: only the cost
//! differs.

use std::collections::BTreeMap;
use std::ops::{Bound, RangeBounds};

/// Entries from which the map is a B-tree: a sorted vector's insertion moves half of it.
pub const TREE_FROM: usize = 64;
/// Entries below which a B-tree goes back to a sorted vector.
pub const VECTOR_BELOW: usize = 16;

/// Keys in order, each with a value.
#[derive(Clone, Debug)]
pub struct Ordered<K, V> {
    /// The entries, by key, while they are few.
    small: Vec<(K, V)>,
    /// The entries once they were many (`small` is then empty).
    large: Option<BTreeMap<K, V>>,
}

impl<K, V> Default for Ordered<K, V> {
    fn default() -> Self {
        Ordered {
            small: Vec::new(),
            large: None,
        }
    }
}

impl<K: Ord + Copy, V: Copy> Ordered<K, V> {
    pub fn len(&self) -> usize {
        self.large.as_ref().map_or(self.small.len(), BTreeMap::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the entries are kept in a B-tree (for tests of the conversions).
    pub fn is_tree(&self) -> bool {
        self.large.is_some()
    }

    /// Adds `key` with `value`, or replaces the value of `key`; returns whether it is new.
    pub fn insert(&mut self, key: K, value: V) -> bool {
        if let Some(tree) = &mut self.large {
            return tree.insert(key, value).is_none();
        }
        match self.small.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(at) => {
                self.small[at].1 = value;
                false
            }
            Err(at) => {
                self.small.insert(at, (key, value));
                if self.small.len() >= TREE_FROM {
                    self.large = Some(self.small.drain(..).collect());
                }
                true
            }
        }
    }

    /// Removes `key`; returns whether it was there.
    pub fn remove(&mut self, key: &K) -> bool {
        let Some(tree) = &mut self.large else {
            let found = self.small.binary_search_by(|(k, _)| k.cmp(key));
            return found.map(|at| self.small.remove(at)).is_ok();
        };
        let removed = tree.remove(key).is_some();
        if tree.len() < VECTOR_BELOW {
            self.small.extend(tree.iter().map(|(k, v)| (*k, *v)));
            self.large = None;
        }
        removed
    }

    pub fn clear(&mut self) {
        self.small.clear();
        self.large = None;
    }

    /// The entry of the smallest key.
    pub fn first(&self) -> Option<(K, V)> {
        match &self.large {
            Some(tree) => tree.first_key_value().map(|(k, v)| (*k, *v)),
            None => self.small.first().copied(),
        }
    }

    /// Removes and returns the entry of the smallest key.
    pub fn pop_first(&mut self) -> Option<(K, V)> {
        let first = self.first()?;
        self.remove(&first.0);
        Some(first)
    }

    /// Every entry, by key.
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.range(..)
    }

    /// The entries whose key is in `range`, by key.
    pub fn range<R: RangeBounds<K>>(&self, range: R) -> impl Iterator<Item = (K, V)> + '_ {
        let (from, to) = match self.large {
            Some(_) => (0, 0),
            None => self.span(&range),
        };
        let tree = (self.large.as_ref()).map(|tree| tree.range(range).map(|(k, v)| (*k, *v)));
        (self.small[from..to].iter().copied()).chain(tree.into_iter().flatten())
    }

    /// Where the keys of the vector within `range` start and end.
    fn span<R: RangeBounds<K>>(&self, range: &R) -> (usize, usize) {
        let small = &self.small;
        let from = match range.start_bound() {
            Bound::Included(k) => small.partition_point(|(key, _)| key < k),
            Bound::Excluded(k) => small.partition_point(|(key, _)| key <= k),
            Bound::Unbounded => 0,
        };
        let to = match range.end_bound() {
            Bound::Included(k) => small.partition_point(|(key, _)| key <= k),
            Bound::Excluded(k) => small.partition_point(|(key, _)| key < k),
            Bound::Unbounded => small.len(),
        };
        (from, to.max(from))
    }
}

#[cfg(test)]
mod tests;
