//! The sessions this process holds, by id. In `Base` rather than the `App` because a turn
//! spawns sessions too (a subagent child), and a turn sees only the `Base`.

use crate::log::session::SessionRef;
use std::collections::HashMap;
use std::sync::RwLock;

#[derive(Default)]
pub struct Roster(RwLock<HashMap<String, SessionRef>>);

impl Roster {
    pub fn get(&self, id: &str) -> Option<SessionRef> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    /// Every session, oldest first.
    pub fn all(&self) -> Vec<SessionRef> {
        let mut all: Vec<_> = self.0.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        all.sort_by(|a, b| a.created_at.total_cmp(&b.created_at).then(a.pk.cmp(&b.pk)));
        all
    }

    pub fn insert(&self, s: SessionRef) {
        self.0.write().unwrap_or_else(|e| e.into_inner()).insert(s.id.clone(), s);
    }

    /// Drops every session (store reset).
    pub fn drain(&self) -> Vec<SessionRef> {
        self.0.write().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, s)| s).collect()
    }
}
