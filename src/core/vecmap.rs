//! A small map kept as a vector of pairs, in insertion order.
//!
//! Why: the client's registries (resident sessions, stashed frames, per-session listeners
//! and exports, in-flight calls) hold a handful of entries. A `BTreeMap` or `HashMap` per
//! key/value type cost several KB of wasm each in insert/remove/rebalance code; a linear
//! scan over a few entries costs next to nothing and iterates in a deterministic order.
//! Not for collections that grow with the conversation (nodes, tool calls): those keep
//! hashed or ordered maps.

use std::borrow::Borrow;

/// A map for a handful of entries: a vector of pairs scanned linearly (see the module docs).
#[derive(Debug, Clone)]
pub struct VecMap<K, V> {
    pairs: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { pairs: Vec::new() }
    }
}

impl<K: PartialEq, V> VecMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    fn position<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        self.pairs.iter().position(|(k, _)| k.borrow() == key)
    }

    /// The value for `key`.
    pub fn get<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|i| &self.pairs[i].1)
    }

    /// The value for `key`, to change.
    pub fn get_mut<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|i| &mut self.pairs[i].1)
    }

    /// Whether `key` has an entry.
    pub fn contains_key<Q: PartialEq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.position(key).is_some()
    }

    /// Inserts or replaces; returns the previous value.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.pairs[i].1, value)),
            None => {
                self.pairs.push((key, value));
                None
            }
        }
    }

    /// Removes the entry, keeping the others in order.
    pub fn remove<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|i| self.pairs.remove(i).1)
    }

    /// The value for `key`, inserted from `make` when absent. The key is only converted
    /// to an owned one when it is inserted.
    pub fn get_or_insert_with<Q>(&mut self, key: &Q, make: impl FnOnce() -> V) -> &mut V
    where
        K: Borrow<Q>,
        Q: PartialEq + ToOwned<Owned = K> + ?Sized,
    {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.pairs.push((key.to_owned(), make()));
                self.pairs.len() - 1
            }
        };
        &mut self.pairs[i].1
    }

    /// Keeps the entries `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.pairs.retain_mut(|(k, v)| keep(k, v));
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.pairs.clear();
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.pairs.iter().map(|(k, _)| k)
    }

    /// The values, in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.pairs.iter().map(|(_, v)| v)
    }

    /// The values to change, in insertion order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.pairs.iter_mut().map(|(_, v)| v)
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.pairs.iter().map(|(k, v)| (k, v))
    }

    /// The entries with values to change, in insertion order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.pairs.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Takes every entry out, in insertion order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (K, V)> {
        self.pairs.drain(..)
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.pairs.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_replaced_and_removed_in_insertion_order() {
        let mut m: VecMap<String, u32> = VecMap::new();
        assert_eq!(m.insert("b".into(), 1), None);
        assert_eq!(m.insert("a".into(), 2), None);
        assert_eq!(m.insert("b".into(), 3), Some(1), "replaced in place");
        *m.get_or_insert_with("c", || 0) += 5;
        *m.get_or_insert_with("a", || 0) += 1;
        assert_eq!(m.keys().map(String::as_str).collect::<Vec<_>>(), ["b", "a", "c"]);
        assert_eq!((m.get("a"), m.get("c"), m.get("z")), (Some(&3), Some(&5), None));
        assert_eq!(m.remove("b"), Some(3));
        assert!(!m.contains_key("b") && m.len() == 2);
        m.retain(|k, _| k != "a");
        assert_eq!(m.drain().collect::<Vec<_>>(), [("c".to_string(), 5)]);
        assert!(m.is_empty());
    }
}
