//! A map from string keys, O(1) per operation, for the registries a host can grow (the live
//! session list, the stash of frames for sessions not resident yet).
//!
//! Why not [`super::vecmap::VecMap`]: its linear scan made 100k distinct session ids from a
//! host quadratic (75 s). Why not `std`'s `HashMap`: it and its `RandomState` cost KBs of
//! wasm. Open addressing with linear probing; the hash is keyed (`seed`) so a host cannot
//! aim its ids at one probe run without knowing the client's seed.
//!
//! The probing, growth and removal are in the non-generic [`StrIndex`] (a set of keys, each
//! with a dense index); [`StrMap`] keeps its values in a vector by that index, so every value
//! type adds only a few lines of wasm.

/// Invariant: `slots` is empty or a power of two at most half full; a nonzero slot holds 1 +
/// an index into `keys`, in the probe run starting at that key's hash's slot, with no free
/// slot before it; every key has one slot.
#[derive(Debug, Clone, Default)]
pub struct StrIndex {
    slots: Vec<u32>,
    keys: Vec<Box<str>>,
    seed: u64,
}

impl StrIndex {
    /// An empty index whose hash is keyed by `seed` (`default()` keys it with 0).
    pub fn with_seed(seed: u64) -> Self {
        StrIndex { slots: Vec::new(), keys: Vec::new(), seed }
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn home(&self, key: &str) -> usize {
        // FNV-1a from a keyed basis, then a multiply whose high bits pick the slot.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ self.seed;
        for b in key.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let bits = self.slots.len().trailing_zeros();
        (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    /// The slot holding `key`, or the free slot where it belongs (`slots` not empty).
    fn slot(&self, key: &str) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while let Some(n) = self.slots[i].checked_sub(1) {
            if &*self.keys[n as usize] == key {
                break;
            }
            i = (i + 1) & mask;
        }
        i
    }

    /// The dense index of `key`, if present.
    pub fn find(&self, key: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        self.slots[self.slot(key)].checked_sub(1).map(|n| n as usize)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The dense index of `key`, added (as the last index) when absent; `true` when added.
    pub fn add(&mut self, key: &str) -> (usize, bool) {
        if (self.keys.len() + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(16);
            self.slots.clear();
            self.slots.resize(cap, 0);
            for n in 0..self.keys.len() {
                let at = self.slot(&self.keys[n]);
                self.slots[at] = n as u32 + 1;
            }
        }
        let at = self.slot(key);
        if let Some(n) = self.slots[at].checked_sub(1) {
            return (n as usize, false);
        }
        self.keys.push(key.into());
        self.slots[at] = self.keys.len() as u32;
        (self.keys.len() - 1, true)
    }

    /// Removes `key`, returning the dense index it had: the last key takes that index (as
    /// `Vec::swap_remove` moves a value).
    pub fn remove(&mut self, key: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut hole = self.slot(key);
        let gone = self.slots[hole].checked_sub(1)? as usize;
        self.slots[hole] = 0;
        // Backward shift: move later members of the run into the hole when their home slot
        // does not lie (cyclically) between the hole and where they are.
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let Some(n) = self.slots[i].checked_sub(1) else { break };
            let home = self.home(&self.keys[n as usize]);
            let stays = if hole <= i { hole < home && home <= i } else { hole < home || home <= i };
            if !stays {
                self.slots[hole] = self.slots[i];
                self.slots[i] = 0;
                hole = i;
            }
        }
        let last = self.keys.len() - 1;
        if gone != last {
            let at = self.slot(&self.keys[last]);
            self.slots[at] = gone as u32 + 1;
        }
        self.keys.swap_remove(gone);
        Some(gone)
    }

    /// Removes every key (the slots go too: the next add sizes them afresh).
    pub fn clear(&mut self) {
        self.slots.clear();
        self.keys.clear();
    }
}

/// A [`StrIndex`] with a value per key. Invariant: `values[n]` belongs to the key of dense
/// index `n`, and `values.len() == index.len()`.
#[derive(Debug, Clone)]
pub struct StrMap<V> {
    index: StrIndex,
    values: Vec<V>,
}

impl<V> Default for StrMap<V> {
    fn default() -> Self {
        StrMap { index: StrIndex::default(), values: Vec::new() }
    }
}

impl<V> StrMap<V> {
    /// An empty map whose hash is keyed by `seed`.
    pub fn with_seed(seed: u64) -> Self {
        StrMap { index: StrIndex::with_seed(seed), values: Vec::new() }
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.index.contains(key)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.index.find(key).map(|n| &self.values[n])
    }

    /// The value of `key`, if present, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.index.find(key).map(|n| &mut self.values[n])
    }

    /// The value of `key`, made by `new` when absent.
    pub fn get_or_insert_with(&mut self, key: &str, new: impl FnOnce() -> V) -> &mut V {
        let (n, added) = self.index.add(key);
        if added {
            self.values.push(new());
        }
        &mut self.values[n]
    }

    /// Inserts or replaces; returns the previous value.
    pub fn insert(&mut self, key: &str, value: V) -> Option<V> {
        let (n, added) = self.index.add(key);
        if added {
            self.values.push(value);
            return None;
        }
        Some(std::mem::replace(&mut self.values[n], value))
    }

    /// Removes `key`, returning its value (the last value takes its index).
    pub fn remove(&mut self, key: &str) -> Option<V> {
        self.index.remove(key).map(|n| self.values.swap_remove(n))
    }

    /// Removes every key and value.
    pub fn clear(&mut self) {
        self.index.clear();
        self.values.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{StrIndex, StrMap};

    #[test]
    fn keys_are_found_replaced_removed_and_the_runs_stay_whole() {
        let mut t = StrMap::with_seed(7);
        assert_eq!(t.get("x"), None);
        assert_eq!(t.remove("x"), None);
        for i in 0..5000 {
            assert_eq!(t.insert(&format!("id-{i}"), i), None);
        }
        assert_eq!(t.insert("id-7", 70_000), Some(7));
        for i in (0..5000).step_by(3) {
            assert_eq!(t.remove(&format!("id-{i}")), Some(if i == 7 { 70_000 } else { i }));
        }
        for i in 0..5000 {
            let want = (i % 3 != 0).then_some(if i == 7 { 70_000 } else { i });
            assert_eq!(t.get(&format!("id-{i}")).copied(), want, "id-{i}");
        }
        assert_eq!(t.len(), 5000 - 1667);
        *t.get_mut("id-1").unwrap() += 1;
        assert_eq!(t.get("id-1"), Some(&2));
        *t.get_or_insert_with("id-1", || 0) += 1;
        assert_eq!(*t.get_or_insert_with("new", || 5), 5);
        assert_eq!((t.get("id-1"), t.len()), (Some(&3), 5000 - 1666));
        t.clear();
        assert!(t.is_empty() && !t.contains("id-1"));
    }

    #[test]
    fn a_key_set_hands_out_dense_indexes_and_a_removal_moves_the_last_one() {
        let mut s = StrIndex::default();
        assert_eq!((s.add("a"), s.add("b"), s.add("c"), s.add("b")), ((0, true), (1, true), (2, true), (1, false)));
        assert_eq!(s.remove("a"), Some(0));
        assert_eq!((s.find("c"), s.find("b"), s.find("a"), s.len()), (Some(0), Some(1), None, 2));
        assert_eq!((s.remove("b"), s.remove("b"), s.find("c")), (Some(1), None, Some(0)));
    }
}
