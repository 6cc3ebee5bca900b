//! The sessions this process holds, by id. In `Base` rather than the `App` because a turn
//! spawns sessions too (a subagent child), and a turn sees only the `Base`. The entries are
//! held type-erased (`Any`) so that `base` need not name the session type, whose module takes
//! the `Base`: callers name it (`SessionRef`) and get it back by downcast.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

struct Entry {
    created_at: f64,
    pk: i64,
    session: Arc<dyn Any + Send + Sync>,
}

#[derive(Default)]
pub struct Roster(RwLock<HashMap<String, Entry>>);

impl Roster {
    pub fn get<T: Any + Send + Sync>(&self, id: &str) -> Option<Arc<T>> {
        let map = self.0.read().unwrap_or_else(|e| e.into_inner());
        map.get(id).and_then(|e| e.session.clone().downcast().ok())
    }

    /// Every session, oldest first (creation time, then row).
    pub fn all<T: Any + Send + Sync>(&self) -> Vec<Arc<T>> {
        let map = self.0.read().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<&Entry> = map.values().collect();
        all.sort_by(|a, b| a.created_at.total_cmp(&b.created_at).then(a.pk.cmp(&b.pk)));
        all.into_iter().filter_map(|e| e.session.clone().downcast().ok()).collect()
    }

    pub fn insert<T: Any + Send + Sync>(&self, id: &str, created_at: f64, pk: i64, session: Arc<T>) {
        let entry = Entry { created_at, pk, session };
        self.0.write().unwrap_or_else(|e| e.into_inner()).insert(id.to_string(), entry);
    }

    /// Drops every session (store reset).
    pub fn drain<T: Any + Send + Sync>(&self) -> Vec<Arc<T>> {
        let mut map = self.0.write().unwrap_or_else(|e| e.into_inner());
        map.drain().filter_map(|(_, e)| e.session.downcast().ok()).collect()
    }
}
