//! Shared host state: the `Base` (store, stream hub, interactions, faults, the options that
//! shape behaviour: plan service present or not, chunk pacing, downlink carriers), the session
//! registry, the 2026-08 workspace registry and the stream tickets. The top layer (routes, streams) takes the `App`.

use crate::agent::turns::Runtime;
use crate::faults::Faults;
use crate::log::base::Base;
pub use crate::log::base::Options;
use crate::log::hub::Hub;
use crate::log::interact::Interactions;
use crate::log::registry::Registry;
use crate::log::session::{now_ms, AppendError, LogState, ProviderState, Session, SessionRef};
use crate::log::store::{SessionUpdate, Store, StoreError};
use crate::tickets::Tickets;
use agent_session_wire::{Frame, RpcError, SessionAddedFrame};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Why the host could not open its sessions at startup.
#[derive(Debug)]
pub enum OpenError {
    Store(StoreError),
    /// Closing a turn a previous process left open (or its stale prompts) failed.
    Append(AppendError),
    /// A session's stored queue could not be read back.
    Queue(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Store(e) => write!(f, "{e}"),
            OpenError::Append(e) => write!(f, "{e}"),
            OpenError::Queue(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OpenError {}

pub struct App {
    /// What plays each turn (`--agent`).
    pub agent: Arc<dyn Runtime>,
    /// Shared with turn driver tasks; `app.store`, `app.hub`, … read through `Deref`.
    pub base: Arc<Base>,
    pub tickets: Tickets,
    /// The 2026-08 workspace registry, as last saved (changed by `http::head` only).
    pub registry: Mutex<Registry>,
}

impl std::ops::Deref for App {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

impl App {
    pub fn new(store: Store, options: Options, faults: bool, agent: Arc<dyn Runtime>) -> Result<App, OpenError> {
        let mut dangling = Vec::new();
        let sessions = crate::log::roster::Roster::default();
        for l in store.load_sessions().map_err(OpenError::Store)? {
            let open_turn = match (&l.last_turn_start, l.last_turn_end_seq) {
                (Some((start, data)), end) if end.is_none_or(|e| e < *start) => {
                    data.get("turn").and_then(|t| t.as_u64())
                }
                _ => None,
            };
            let s = Arc::new(Session::from_loaded(l));
            if let Some(turn) = open_turn {
                dangling.push((s.clone(), turn));
            }
            sessions.insert(&s.id.clone(), s.created_at, s.pk, s);
        }
        let registry = Mutex::new(store.load_registry().map_err(OpenError::Store)?);
        let tickets = Tickets::new(options.ticket_ttl);
        let base = Base {
            store,
            hub: Hub::new(options.wire),
            interactions: Interactions::default(),
            faults: faults.then(Faults::default),
            options,
            sessions,
        };
        let app = App { agent, base: Arc::new(base), tickets, registry };
        for s in app.sessions() {
            let mut log = s.log.try_lock().map_err(|e| OpenError::Append(AppendError::Locked(e)))?;
            crate::agent::provider::drop_stale_prompts(&app, &s, &mut log).map_err(OpenError::Append)?;
        }
        crate::agent::close_dangling_turns(&app, &dangling).map_err(OpenError::Append)?;
        for s in app.sessions() {
            let mut ctl = s.ctl.try_lock().map_err(|e| OpenError::Queue(e.to_string()))?;
            crate::agent::turns::restore_queue(&app, &s, &mut ctl).map_err(OpenError::Queue)?;
        }
        Ok(app)
    }

    pub fn session(&self, id: &str) -> Result<SessionRef, RpcError> {
        self.base.sessions.get(id).ok_or_else(|| RpcError::session_not_found(id))
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> Vec<SessionRef> {
        self.base.sessions.all()
    }

    pub fn create_session(&self, cwd: Option<String>, provider: Option<String>) -> Result<SessionRef, StoreError> {
        let id = format!("session-{}", uuid::Uuid::new_v4());
        let created_at = now_ms();
        let pk = self.store.create_session(&id, cwd.as_deref(), provider.as_deref(), created_at)?;
        let mut log = LogState::empty();
        let profile = crate::providers::registry::Provider::parse(provider.as_deref()).ok().flatten();
        if let Some((state, projections)) = profile.and_then(|p| ProviderState::new(p, &id, false)) {
            for (key, value) in &projections {
                self.store.update_session(pk, &SessionUpdate::Projection(key.clone(), value.clone()))?;
            }
            log.projections = projections;
            log.provider = Some(state);
        }
        let announce: Vec<(String, Value)> = log.projections.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let session = Arc::new(Session::new(id.clone(), pk, cwd, provider, created_at, log, created_at));
        self.base.sessions.insert(&session.id, session.created_at, session.pk, session.clone());
        let added = SessionAddedFrame {
            session_id: id,
            cwd: session.cwd.clone(),
            updated_at: Some(created_at),
            ..Default::default()
        };
        self.hub.host(self.hub.out(&Frame::SessionAdded(added)));
        for (key, value) in announce {
            crate::agent::provider::publish(self, &session, &key, value, -1);
        }
        Ok(session)
    }

    /// A fork's child: the parent's cwd and provider, its parent stored, announced with its
    /// `parentSessionId`.
    pub fn create_child(&self, parent: &Session) -> Result<SessionRef, StoreError> {
        crate::log::children::create_child(&self.base, parent, None)
    }

    /// Drops sessions from the registry (store reset).
    pub fn forget_sessions(&self) -> Vec<SessionRef> {
        self.base.sessions.drain()
    }
}
