//! The sessions this process holds, by id. Owned by the `App` (in an `Arc` it shares with its
//! spawner, through which a turn starts a subagent child), above `session` so it holds the
//! session type itself; `children` adds a child to it.

use crate::log::session::SessionRef;
use std::collections::HashMap;
use std::sync::RwLock;

/// Every session by id; a session stays until a store reset drops them all.
#[derive(Default)]
pub struct Roster(RwLock<HashMap<String, SessionRef>>);

impl Roster {
    pub fn get(&self, id: &str) -> Option<SessionRef> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    /// Every session, oldest first (creation time, then row).
    pub fn all(&self) -> Vec<SessionRef> {
        let mut all: Vec<SessionRef> = self.0.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        all.sort_by(|a, b| a.created_at.total_cmp(&b.created_at).then(a.pk.cmp(&b.pk)));
        all
    }

    pub fn insert(&self, session: SessionRef) {
        self.0.write().unwrap_or_else(|e| e.into_inner()).insert(session.id.clone(), session);
    }

    /// Drops every session (store reset).
    pub fn drain(&self) -> Vec<SessionRef> {
        self.0.write().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, s)| s).collect()
    }
}
