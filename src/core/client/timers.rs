//! The host client's one timer table: every deadline the client keeps, keyed by what it is
//! for, so setting one replaces the previous deadline of the same key and a deadline nobody
//! wants any more is cancelled instead of firing into a check. `poll_timeout` is its earliest.

use crate::core::time::Instant;

/// Deadlines by key: one per unary call in flight, per generation, per session retry, the
/// connection's and the retention sweep. Tens at a time, so a vector is the whole structure.
#[derive(Debug)]
pub struct TimerTable<K> {
    entries: Vec<(K, Instant)>,
}

impl<K> Default for TimerTable<K> {
    fn default() -> Self {
        TimerTable { entries: Vec::new() }
    }
}

impl<K: PartialEq> TimerTable<K> {
    /// Sets `key`'s deadline (replacing the one it had).
    pub fn set(&mut self, key: K, at: Instant) {
        match self.entries.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.1 = at,
            None => self.entries.push((key, at)),
        }
    }

    /// Sets `key`'s deadline, or cancels it with `None`.
    pub fn set_or_cancel(&mut self, key: K, at: Option<Instant>) {
        match at {
            Some(at) => self.set(key, at),
            None => self.cancel(&key),
        }
    }

    /// Cancels `key`'s deadline, if it has one.
    pub fn cancel(&mut self, key: &K) {
        self.cancel_where(&|k| k == key);
    }

    /// Cancels every deadline whose key `which` picks (one `retain` for every caller: each
    /// instance of it is code in the module).
    pub fn cancel_where(&mut self, which: &dyn Fn(&K) -> bool) {
        self.entries.retain(|e| !which(&e.0));
    }

    /// The earliest deadline.
    pub fn next(&self) -> Option<Instant> {
        self.entries.iter().map(|e| e.1).reduce(Instant::min)
    }

    /// Removes and returns the keys due at `now`, in the order they were set.
    pub fn take_due(&mut self, now: Instant) -> Vec<K> {
        let mut due = Vec::new();
        let mut i = 0;
        while i < self.entries.len() {
            if self.entries[i].1 <= now {
                due.push(self.entries.remove(i).0);
            } else {
                i += 1;
            }
        }
        due
    }

    /// Cancels everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many deadlines are set (tests and diagnostics).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no deadline is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_a_key_replaces_its_deadline_and_cancelled_keys_never_fire() {
        let mut t = TimerTable::default();
        t.set("a", Instant::from_ms(10.0));
        t.set("b", Instant::from_ms(5.0));
        t.set("a", Instant::from_ms(3.0));
        assert_eq!(t.len(), 2);
        assert_eq!(t.next(), Some(Instant::from_ms(3.0)));
        t.cancel(&"a");
        assert_eq!(t.next(), Some(Instant::from_ms(5.0)));
        assert_eq!(t.take_due(Instant::from_ms(4.0)), Vec::<&str>::new());
        assert_eq!(t.take_due(Instant::from_ms(5.0)), vec!["b"]);
        assert!(t.is_empty());
        assert_eq!(t.next(), None);
    }
}
