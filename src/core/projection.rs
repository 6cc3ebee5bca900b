//! The generic projection store (CONTRACT Extensions 1): per key `{value, seq}`, higher seq
//! wins. A key never seen reads as absent (capability absent).
//!
//! Ties: a value may change without a logged event (a plan selection), so two rows can carry
//! the same seq. The stream is ordered, so a frame at an equal seq replaces the stored row;
//! a baseline at an equal seq replaces only rows that did not come live on the current
//! connection (a live row at the tie may be newer than the page, and if the page was the
//! newer one, the frame that made it so is still on its way).

use crate::core::wire::Json;
use std::rc::Rc;

/// One key's projection: its value and the seq it was computed at.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The value, raw (shared with the snapshot's export).
    pub value: Rc<Json>,
    /// The seq of the log it reflects; the higher seq wins.
    pub seq: i64,
    /// Came from a frame on the current connection (decides ties with a baseline).
    pub live: bool,
}

/// A session's projections by key, higher seq winning (see the module docs for ties).
#[derive(Debug, Default, Clone)]
pub struct ProjectionStore {
    /// Sorted by key, one row per key. A sorted `Vec` rather than a `BTreeMap` (KBs of
    /// wasm per key/value type): a session carries a handful of projections.
    rows: Vec<(String, Row)>,
    /// Bumped whenever any row changes; the snapshot's `projections` object follows it.
    pub rev: u64,
}

impl ProjectionStore {
    /// Forgets every row (a released session); `rev` is the new revision.
    pub fn clear(&mut self, rev: u64) {
        self.rows = Vec::new();
        self.rev = rev;
    }
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.rows.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }
    /// Inserts or replaces the row of `key`.
    fn put(&mut self, key: &str, row: Row) {
        match self.find(key) {
            Ok(i) => self.rows[i].1 = row,
            Err(i) => self.rows.insert(i, (key.to_string(), row)),
        }
    }
    /// The row of `key`, if one was seen.
    pub fn get(&self, key: &str) -> Option<&Row> {
        self.find(key).ok().map(|i| &self.rows[i].1)
    }
    /// The rows in key order.
    pub fn rows(&self) -> impl Iterator<Item = (&String, &Row)> {
        self.rows.iter().map(|(k, r)| (k, r))
    }
    /// The number of keys held.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// A `session/projection` frame. Returns whether the store changed.
    pub fn apply_frame(&mut self, key: &str, value: Json, seq: i64, rev: u64) -> bool {
        match self.find(key).ok().map(|i| &mut self.rows[i].1) {
            Some(r) if r.seq > seq => false,
            Some(r) if *r.value == value => {
                // A replay or an unchanged value: keep the identity, adopt the version.
                r.seq = seq;
                r.live = true;
                false
            }
            _ => {
                self.put(key, Row { value: Rc::new(value), seq, live: true });
                self.rev = rev;
                true
            }
        }
    }

    /// The connection ended: no row is live any more, so a baseline may settle ties.
    pub fn connection_lost(&mut self) {
        for (_, row) in self.rows.iter_mut() {
            row.live = false;
        }
    }

    /// A tail page's baseline: values as of `as_of_seq`. A stored row newer than the
    /// baseline survives it (a frame that overtook the page); every other row is replaced,
    /// and rows the baseline lacks are deleted.
    pub fn apply_baseline(&mut self, as_of_seq: i64, values: &[(String, Json)], rev: u64) -> bool {
        let survives = |row: &Row| row.seq > as_of_seq || (row.seq == as_of_seq && row.live);
        let mut changed = self
            .drop_rows(&|key, row| !(survives(row) || values.binary_search_by(|(k, _)| k.as_str().cmp(key)).is_ok()));
        for (key, value) in values {
            match self.get(key) {
                Some(row) if survives(row) => {}
                Some(row) if *row.value == *value => {
                    // Same value: keep the Rc (identity) and adopt the baseline's version.
                    let value = Rc::clone(&row.value);
                    self.put(key, Row { value, seq: as_of_seq, live: false });
                }
                _ => {
                    let row = Row { value: Rc::new(value.clone()), seq: as_of_seq, live: false };
                    self.put(key, row);
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
        let changed = self.drop_rows(&|_, row| row.seq > last_seq);
        if changed {
            self.rev = rev;
        }
        changed
    }

    /// Drops the rows `gone` picks; whether any went. One `retain` for every removal.
    fn drop_rows(&mut self, gone: &dyn Fn(&str, &Row) -> bool) -> bool {
        let before = self.rows.len();
        self.rows.retain(|(key, row)| !gone(key, row));
        self.rows.len() != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn map(v: Value) -> Vec<(String, Json)> {
        v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), Json::from_value(v))).collect()
    }
    fn j(v: Value) -> Json {
        Json::from_value(&v)
    }

    #[test]
    fn a_higher_seq_frame_wins_and_a_replayed_frame_is_a_no_op() {
        let mut s = ProjectionStore::default();
        assert!(s.apply_frame("plan", j(json!({"active": true})), 5, 1));
        assert!(!s.apply_frame("plan", j(json!({"active": true})), 5, 2), "replay");
        assert!(!s.apply_frame("plan", j(json!({"active": false})), 4, 3), "older");
        assert_eq!(*s.get("plan").unwrap().value, j(json!({"active": true})));
        assert!(s.apply_frame("plan", j(json!({"active": false})), 6, 4));
        assert_eq!(s.rev, 4);
    }

    #[test]
    fn a_stale_baseline_never_overwrites_a_newer_row() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", j(json!({"active": true})), 10, 1);
        s.apply_frame("other", j(json!(1)), 3, 2);
        // Baseline as of seq 8: lacks "other" (deleted) and has an older "plan".
        assert!(s.apply_baseline(8, &map(json!({"plan": {"active": false}})), 3));
        assert_eq!(*s.get("plan").unwrap().value, j(json!({"active": true})));
        assert!(s.get("other").is_none());
    }

    #[test]
    fn a_baseline_replaces_older_rows_and_keeps_identity_of_equal_values() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", j(json!({"active": true})), 2, 1);
        let before = Rc::clone(&s.get("plan").unwrap().value);
        assert!(!s.apply_baseline(9, &map(json!({"plan": {"active": true}})), 2));
        assert!(Rc::ptr_eq(&before, &s.get("plan").unwrap().value));
        assert_eq!(s.get("plan").unwrap().seq, 9);
    }

    #[test]
    fn a_second_value_at_the_same_seq_replaces_the_first() {
        // Two plan selections with no event logged between them share a seq.
        let mut s = ProjectionStore::default();
        assert!(s.apply_frame("plan", j(json!({"active": false, "pending": true})), 7, 1));
        assert!(s.apply_frame("plan", j(json!({"active": false})), 7, 2));
        assert_eq!(*s.get("plan").unwrap().value, j(json!({"active": false})));
    }

    #[test]
    fn a_baseline_at_the_same_seq_loses_to_a_live_row_but_settles_an_old_one() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", j(json!({"active": false, "pending": true})), 7, 1);
        // A page produced before the selection, delivered after its frame.
        assert!(!s.apply_baseline(7, &map(json!({"plan": {"active": false}})), 2));
        assert_eq!(*s.get("plan").unwrap().value, j(json!({"active": false, "pending": true})));
        // After a reconnect the frame that would correct a stale row may be lost: the
        // resync's page settles the tie.
        s.connection_lost();
        assert!(s.apply_baseline(7, &map(json!({"plan": {"active": false}})), 3));
        assert_eq!(*s.get("plan").unwrap().value, j(json!({"active": false})));
    }

    #[test]
    fn a_host_restart_drops_rows_newer_than_its_log() {
        let mut s = ProjectionStore::default();
        s.apply_frame("plan", j(json!({"active": true})), 12, 1);
        s.apply_frame("mode", j(json!("ask")), 3, 2);
        assert!(s.truncate_after(5, 3));
        assert!(s.get("plan").is_none());
        assert!(s.get("mode").is_some());
    }
}
