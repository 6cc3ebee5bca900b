//! The generic projection store (CONTRACT Extensions 1): per key `{value, seq}`, higher seq
//! wins. A key never seen reads as absent (capability absent).

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub value: Rc<Value>,
    pub seq: i64,
}

#[derive(Debug, Default, Clone)]
pub struct ProjectionStore {
    rows: BTreeMap<String, Row>,
    /// Bumped whenever any row changes; the snapshot's `projections` object follows it.
    pub rev: u64,
}

impl ProjectionStore {
    pub fn get(&self, key: &str) -> Option<&Row> {
        self.rows.get(key)
    }
    pub fn rows(&self) -> impl Iterator<Item = (&String, &Row)> {
        self.rows.iter()
    }
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// A `session/projection` frame. Returns whether the store changed.
    pub fn apply_frame(&mut self, key: &str, value: Value, seq: i64, rev: u64) -> bool {
        if self.rows.get(key).is_some_and(|r| r.seq >= seq) {
            return false;
        }
        self.rows.insert(key.to_string(), Row { value: Rc::new(value), seq });
        self.rev = rev;
        true
    }

    /// A tail page's baseline: values as of `as_of_seq`. A stored row newer than the
    /// baseline survives it (a frame that overtook the page); every other row is replaced,
    /// and rows the baseline lacks are deleted.
    pub fn apply_baseline(&mut self, as_of_seq: i64, values: &Map<String, Value>, rev: u64) -> bool {
        let mut changed = false;
        self.rows.retain(|key, row| {
            let keep = row.seq > as_of_seq || values.contains_key(key);
            changed |= !keep;
            keep
        });
        for (key, value) in values {
            match self.rows.get(key) {
                Some(row) if row.seq > as_of_seq => {}
                Some(row) if *row.value == *value => {
                    // Same value: keep the Rc (identity) and adopt the baseline's version.
                    let value = Rc::clone(&row.value);
                    self.rows.insert(key.clone(), Row { value, seq: as_of_seq });
                }
                _ => {
                    self.rows.insert(key.clone(), Row { value: Rc::new(value.clone()), seq: as_of_seq });
                    changed = true;
                }
            }
        }
        if changed {
            self.rev = rev;
        }
        changed
    }

    /// `session/subscribed.lastSeq`: rows newer than the host's log were lost by a restart.
    pub fn truncate_after(&mut self, last_seq: i64, rev: u64) -> bool {
        let before = self.rows.len();
        self.rows.retain(|_, row| row.seq <= last_seq);
        let changed = self.rows.len() != before;
        if changed {
            self.rev = rev;
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_higher_seq_frame_wins_and_a_replayed_frame_is_a_no_op() {
        let mut s = ProjectionStore::default();
        assert!(s.apply_frame("plan", json!({"active": true}), 5, 1));
        assert!(!s.apply_frame("plan", json!({"active": true}), 5, 2), "replay");
        assert!(!s.apply_frame("plan", json!({"active": false}), 4, 3), "older");
        assert_eq!(*s.get("plan").unwrap().value, json!({"active": true}));
        assert!(s.apply_frame("plan", json!({"active": false}), 6, 4));
        assert_eq!(s.rev, 4);
    }

    #[test]
    fn a_stale_baseline_never_overwrites_a_newer_row() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", json!({"active": true}), 10, 1);
        s.apply_frame("other", json!(1), 3, 2);
        // Baseline as of seq 8: lacks "other" (deleted) and has an older "plan".
        assert!(s.apply_baseline(8, &map(json!({"plan": {"active": false}})), 3));
        assert_eq!(*s.get("plan").unwrap().value, json!({"active": true}));
        assert!(s.get("other").is_none());
    }

    #[test]
    fn a_baseline_replaces_older_rows_and_keeps_identity_of_equal_values() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", json!({"active": true}), 2, 1);
        let before = Rc::clone(&s.get("plan").unwrap().value);
        assert!(!s.apply_baseline(9, &map(json!({"plan": {"active": true}})), 2));
        assert!(Rc::ptr_eq(&before, &s.get("plan").unwrap().value));
        assert_eq!(s.get("plan").unwrap().seq, 9);
    }

    #[test]
    fn a_host_restart_drops_rows_newer_than_its_log() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", json!({"active": true}), 12, 1);
        s.apply_frame("mode", json!("ask"), 3, 2);
        assert!(s.truncate_after(5, 3));
        assert!(s.get("plan").is_none());
        assert!(s.get("mode").is_some());
    }
}
