//! A map from string keys, O(1) per operation, for the registries a host can grow (the live
//! session list, the stash of frames for sessions not resident yet).
//!
//! Why not [`super::vecmap::VecMap`]: its linear scan made 100k distinct session ids from a
//! host quadratic (75 s). Why not `std`'s `HashMap`: it and its `RandomState` cost KBs of
//! wasm. Open addressing with linear probing; the hash is keyed (`seed`) so a host cannot
//! aim its ids at one probe run without knowing the client's seed.

/// Invariant: `slots` is empty or a power of two at most half full; a key is in the probe
/// run starting at its hash's slot, with no free slot before it.
#[derive(Debug, Clone)]
pub struct StrIndex<V> {
    slots: Vec<Option<(Box<str>, V)>>,
    len: usize,
    seed: u64,
}

impl<V> Default for StrIndex<V> {
    fn default() -> Self {
        StrIndex::with_seed(0)
    }
}

impl<V> StrIndex<V> {
    pub fn with_seed(seed: u64) -> Self {
        StrIndex { slots: Vec::new(), len: 0, seed }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        while let Some((k, _)) = &self.slots[i] {
            if &**k == key {
                break;
            }
            i = (i + 1) & mask;
        }
        i
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        if self.slots.is_empty() {
            return None;
        }
        self.slots[self.slot(key)].as_ref().map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        if self.slots.is_empty() {
            return None;
        }
        let i = self.slot(key);
        self.slots[i].as_mut().map(|(_, v)| v)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Inserts or replaces; returns the previous value.
    pub fn insert(&mut self, key: &str, value: V) -> Option<V> {
        if (self.len + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(16);
            let old = std::mem::replace(&mut self.slots, Vec::with_capacity(cap));
            self.slots.resize_with(cap, || None);
            for (k, v) in old.into_iter().flatten() {
                let at = self.slot(&k);
                self.slots[at] = Some((k, v));
            }
        }
        let at = self.slot(key);
        match &mut self.slots[at] {
            Some((_, v)) => Some(std::mem::replace(v, value)),
            free => {
                *free = Some((key.into(), value));
                self.len += 1;
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<V> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut hole = self.slot(key);
        let (_, value) = self.slots[hole].take()?;
        self.len -= 1;
        // Backward shift: move later members of the run into the hole when their home slot
        // does not lie (cyclically) between the hole and where they are.
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let Some((k, _)) = &self.slots[i] else { break };
            let home = self.home(k);
            let stays = if hole <= i { hole < home && home <= i } else { hole < home || home <= i };
            if !stays {
                self.slots[hole] = self.slots[i].take();
                hole = i;
            }
        }
        Some(value)
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::StrIndex;

    #[test]
    fn keys_are_found_replaced_removed_and_the_runs_stay_whole() {
        let mut t = StrIndex::with_seed(7);
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
        t.clear();
        assert!(t.is_empty() && !t.contains("id-1"));
    }
}
