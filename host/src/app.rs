//! Shared host state: the `Base` (store, stream hub, interactions, faults, the options that
//! shape behaviour: plan service present or not, chunk pacing, downlink carriers), the session
//! roster, the 2026-08 workspace registry and the stream tickets. The top layer (routes,
//! streams) takes the `App`. The roster is the `App`'s, shared with the `Base`'s spawner
//! (`Spawn`, here), through which a turn, which sees only the `Base`, starts a subagent child.

use crate::agent::turns::Runtime;
use crate::faults::Faults;
pub use crate::log::base::Options;
use crate::log::base::{Base, Spawner, Spawning};
use crate::log::hub::Hub;
use crate::log::interact::Interactions;
use crate::log::lineage::Subagent;
use crate::log::registry::Registry;
use crate::log::roster::Roster;
use crate::log::session::{now_ms, AppendError, LogState, NewEvent, Prompt, ProviderState, Session, SessionRef};
use crate::log::store::{SessionUpdate, Store, StoreError};
use crate::tickets::Tickets;
use agent_session_wire::{Frame, PromptMode, RpcError, SessionAddedFrame};
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
    /// The sessions this process holds (shared with the `Base`'s spawner).
    sessions: Arc<Roster>,
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
        let sessions = Arc::new(Roster::default());
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
            sessions.insert(s);
        }
        let registry = Mutex::new(store.load_registry().map_err(OpenError::Store)?);
        let tickets = Tickets::new(options.ticket_ttl);
        let base = Base {
            store,
            hub: Hub::new(options.wire),
            interactions: Interactions::default(),
            faults: faults.then(Faults::default),
            options,
            spawner: Arc::new(Spawn { sessions: sessions.clone(), agent: agent.clone() }),
        };
        let app = App { agent, base: Arc::new(base), tickets, sessions, registry };
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
        self.sessions.get(id).ok_or_else(|| RpcError::session_not_found(id))
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> Vec<SessionRef> {
        self.sessions.all()
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
        self.sessions.insert(session.clone());
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
        crate::log::children::create_child(&self.base, &self.sessions, parent, None)
    }

    /// Drops sessions from the roster (store reset).
    pub fn forget_sessions(&self) -> Vec<SessionRef> {
        self.sessions.drain()
    }
}

/// The `Base`'s spawner: the `App`'s roster and the runtime that plays every turn (`--agent`),
/// so a child's turn is played as its parent's is.
struct Spawn {
    sessions: Arc<Roster>,
    agent: Arc<dyn Runtime>,
}

impl Spawner for Spawn {
    fn spawn<'a>(
        &'a self,
        base: &'a Arc<Base>,
        parent: &'a str,
        subagent: Subagent,
        descriptor: Value,
        content: Vec<Value>,
        rpc_id: String,
    ) -> Spawning<'a, Result<String, String>> {
        Box::pin(async move {
            let parent = self.sessions.get(parent).ok_or_else(|| AppendError::Removed.to_string())?;
            let child = crate::log::children::create_child(base, &self.sessions, &parent, Some(subagent))
                .map_err(|e| e.to_string())?;
            child.append(base, NewEvent::new("subagent/descriptor", descriptor)).await.map_err(|e| e.to_string())?;
            let prompt = Prompt::new(content, rpc_id);
            crate::agent::prompt(base, &self.agent, &child, PromptMode::Queue, prompt).await.map_err(|e| e.message)?;
            Ok(child.id.clone())
        })
    }

    fn answer<'a>(&'a self, base: &'a Base, child: &'a str) -> Spawning<'a, Option<String>> {
        Box::pin(async move {
            let child = self.sessions.get(child)?;
            let _ = child.running.subscribe().wait_for(|r| !*r).await;
            crate::log::children::final_text(base, &child)
        })
    }

    fn cancel<'a>(&'a self, base: &'a Base, child: &'a str) -> Spawning<'a, ()> {
        Box::pin(async move {
            if let Some(child) = self.sessions.get(child) {
                crate::agent::cancel(base, &child).await;
            }
        })
    }
}
