//! In-memory state of one session and the only path that writes its log: seq assignment,
//! commit, then broadcast, all under the session's log lock so frames leave in seq order.
//!
//! Modules: `plan_state` (the plan-mode selection, pending until a turn start commits it) and
//! `provider_state` (a provider session's adapter and the prompts its running turn waits on).

mod plan_state;
mod provider_state;

pub use plan_state::PlanState;
pub use provider_state::ProviderState;

use crate::log::base::Base;
use crate::log::lineage::{Lineage, Subagent};
pub use crate::log::store::TitleState;
use crate::log::store::{LoadedSession, SessionUpdate, StoreError};
use crate::providers::registry::Provider;
use agent_session_wire::interaction::{PROJ_CAPABILITIES, PROJ_MODE};
use agent_session_wire::{EventFrame, Frame, Json, SessionEvent, SessionStatusFrame};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{watch, Mutex};

pub fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as f64).unwrap_or(0.0)
}

/// State that changes only together with the log (guarded by the log lock).
pub struct LogState {
    pub last_seq: i64,
    pub title: Option<TitleState>,
    pub plan: PlanState,
    pub turn: u64,
    /// The last logged `request/header` data: a new one is logged only when it changes.
    pub last_header: Option<Value>,
    /// Extension 2 projection values (provider sessions), persisted.
    pub projections: BTreeMap<String, Value>,
    /// The provider profile's adapter and waiting prompts (provider sessions only).
    pub provider: Option<ProviderState>,
}

impl LogState {
    /// The state of an empty log.
    pub fn empty() -> LogState {
        LogState {
            last_seq: -1,
            title: None,
            plan: PlanState::default(),
            turn: 0,
            last_header: None,
            projections: BTreeMap::new(),
            provider: None,
        }
    }
}

/// A prompt waiting for (or starting) a turn.
pub struct Prompt {
    pub content: Vec<Value>,
    pub rpc_id: String,
    /// The message id a queue item is addressed by (`session.updateQueue`).
    pub id: String,
    /// The 2026-08 host: the browser's time zone, as the prompt's `clientTimeZone` gave it.
    pub client_time_zone: Option<String>,
}

impl Prompt {
    pub fn new(content: Vec<Value>, rpc_id: String) -> Prompt {
        Prompt { content, rpc_id, id: uuid::Uuid::new_v4().to_string(), client_time_zone: None }
    }

    /// The user message's `source`: the request's `rpcId`, and the browser's zone where the
    /// prompt carried one (upstream: "request identity and optional browser zone ride the
    /// exact durable user message").
    pub fn source(&self) -> Value {
        let mut source = json!({ "kind": "user", "rpcId": self.rpc_id });
        if let Some(zone) = &self.client_time_zone {
            source["clientTimeZone"] = json!(zone);
        }
        source
    }
}

/// The agent's run control: one driver task per running session.
#[derive(Default)]
pub struct Control {
    pub running: bool,
    pub queue: VecDeque<Prompt>,
    /// Set to `true` to interrupt the running turn.
    pub interrupt: Option<watch::Sender<bool>>,
    /// The 2026-08 host: a cancelled turn leaves the queue for the next prompt.
    pub hold_queue: bool,
    /// The envelope rpcIds of the prompts accepted by this process (queued ones included):
    /// a repeat is answered as the first was and logs nothing (the log answers after a restart).
    pub accepted: std::collections::HashSet<String>,
}

pub struct Session {
    pub id: String,
    pub pk: i64,
    pub cwd: Option<String>,
    pub provider: Option<String>,
    /// The scripted agent's provider profile (`None`: the default agent).
    pub profile: Option<Provider>,
    pub created_at: f64,
    pub log: Mutex<LogState>,
    pub ctl: Mutex<Control>,
    /// Mirrors of log state readable without the lock (list, mux open). The title mirror is
    /// written before `last_seq`, so a reader that sees a seq also sees the title up to it.
    pub last_seq: AtomicI64,
    title: std::sync::Mutex<Option<TitleState>>,
    updated_at: AtomicU64,
    /// Open waits on the user (questions, approvals, user-input prompts) of the running turn.
    waiting: AtomicUsize,
    pub running: watch::Sender<bool>,
    /// Set when the store was reset under it: appends fail from then on.
    pub removed: AtomicBool,
    /// The session this one was forked or spawned from, and its subagent identity (stored in
    /// the `lineage` table; set once, at creation or load).
    pub lineage: std::sync::OnceLock<Lineage>,
}

#[derive(Debug)]
pub enum AppendError {
    Removed,
    Store(StoreError),
    /// The log lock was held where it must be free (startup).
    Locked(tokio::sync::TryLockError),
    /// Data for the event (or its frame) that does not serialize or fit its shape.
    Encode(serde_json::Error),
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::Removed => write!(f, "session was removed"),
            AppendError::Store(e) => write!(f, "{e}"),
            AppendError::Locked(e) => write!(f, "{e}"),
            AppendError::Encode(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AppendError {}

/// One event to append; `seq` and `time` are assigned by the log.
pub struct NewEvent {
    pub kind: Cow<'static, str>,
    pub data: Data,
    pub source_event_seqs: Option<Vec<u64>>,
    pub surface_op: Option<&'static str>,
}

/// A new event's data as the host has it.
pub enum Data {
    /// Built by the host.
    Tree(Value),
    /// JSON text relayed as it came (an agent's output): never rebuilt as a tree, which
    /// refuses some of what the wire's reader accepts.
    Text(Json),
}

/// Deepest nesting an event's data keeps (the data itself is level 1). The client's
/// history-page reader refuses a whole page nested 128 deep, and a page holds an event's data
/// 6 levels down (the 2026-08 dialect nests a message's content up to 3 more).
pub const MAX_DATA_DEPTH: usize = 100;

/// What stands in the log for a value nested deeper than [`MAX_DATA_DEPTH`].
pub const DEEP_VALUE_MARKER: &str = "[dropped by agent-session-host: nested deeper than 100]";

/// Values dropped for their depth since start-up (every drop is also reported on stderr).
pub static DEEP_VALUES_DROPPED: AtomicU64 = AtomicU64::new(0);

/// `data` within [`MAX_DATA_DEPTH`]: deeper values are replaced by the marker, and counted.
fn bound_depth(session: &str, kind: &str, data: Json) -> Json {
    let Some((bounded, dropped)) = data.bounded(MAX_DATA_DEPTH, DEEP_VALUE_MARKER) else { return data };
    let total = DEEP_VALUES_DROPPED.fetch_add(dropped as u64, Ordering::Relaxed) + dropped as u64;
    eprintln!(
        "agent-session-host: {session}: {kind} event: {dropped} value(s) nested deeper than {MAX_DATA_DEPTH} dropped ({total} since start)"
    );
    bounded
}

impl NewEvent {
    pub fn new(kind: &'static str, data: Value) -> Self {
        NewEvent { kind: Cow::Borrowed(kind), data: Data::Tree(data), source_event_seqs: None, surface_op: None }
    }
    /// An event whose data is text relayed as it came (an agent's output).
    pub fn relayed(kind: String, data: Json) -> Self {
        NewEvent { kind: Cow::Owned(kind), data: Data::Text(data), source_event_seqs: None, surface_op: None }
    }
    /// Messages are appended to the conversation surface (as the origin marks them).
    pub fn message(kind: &'static str, data: Value) -> Self {
        NewEvent { surface_op: Some("append"), ..NewEvent::new(kind, data) }
    }
}

impl Session {
    pub fn new(
        id: String,
        pk: i64,
        cwd: Option<String>,
        provider: Option<String>,
        created_at: f64,
        log: LogState,
        updated_at: f64,
    ) -> Session {
        let profile = Provider::parse(provider.as_deref()).ok().flatten();
        Session {
            id,
            pk,
            cwd,
            provider,
            profile,
            created_at,
            last_seq: AtomicI64::new(log.last_seq),
            title: std::sync::Mutex::new(log.title.clone()),
            waiting: AtomicUsize::new(0),
            log: Mutex::new(log),
            ctl: Mutex::new(Control::default()),
            updated_at: AtomicU64::new(updated_at.to_bits()),
            running: watch::channel(false).0,
            removed: AtomicBool::new(false),
            lineage: std::sync::OnceLock::new(),
        }
    }

    /// Rebuilds a session from its stored row and log tail.
    pub fn from_loaded(l: LoadedSession) -> Session {
        let plan_active =
            l.last_plan_mode.as_ref().and_then(|d| d.get("active")).and_then(Value::as_bool).unwrap_or(false);
        let turn = l.last_turn_start.as_ref().and_then(|(_, d)| d.get("turn")).and_then(Value::as_u64).unwrap_or(0);
        let provider = Provider::parse(l.provider.as_deref())
            .ok()
            .flatten()
            .and_then(|p| ProviderState::new(p, &l.id, plan_active))
            .map(|(state, _)| state);
        let log = LogState {
            last_seq: l.last_seq,
            title: l.title,
            plan: PlanState::restore(plan_active, l.plan_pending),
            turn,
            last_header: l.last_request_header,
            projections: l.projections,
            provider,
        };
        let updated = l.last_time.unwrap_or(l.created_at).max(l.created_at);
        let lineage = l.lineage;
        let s = Session::new(l.id, l.pk, l.cwd, l.provider, l.created_at, log, updated);
        if let Some(lineage) = lineage {
            let _ = s.lineage.set(lineage);
        }
        s
    }

    /// The session this one was forked or spawned from.
    pub fn parent_id(&self) -> Option<&str> {
        self.lineage.get().map(|l| l.parent_id.as_str())
    }

    /// Its subagent identity, when a subagent spawned it.
    pub fn subagent(&self) -> Option<&Subagent> {
        self.lineage.get().and_then(|l| l.subagent.as_ref())
    }

    pub fn updated_at(&self) -> f64 {
        f64::from_bits(self.updated_at.load(Ordering::Relaxed))
    }

    pub fn is_running(&self) -> bool {
        *self.running.borrow()
    }

    pub fn is_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst) > 0
    }

    /// The latest title (mirror; see `title`).
    pub fn title(&self) -> Option<TitleState> {
        self.title.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_title(&self, log: &mut LogState, t: Option<TitleState>) {
        *self.title.lock().unwrap_or_else(|e| e.into_inner()) = t.clone();
        log.title = t;
    }

    /// `host/session-status`: `running` as given (the caller knows the turn's edge), with
    /// whether the turn waits on the user and the log's last activity.
    pub fn publish_status(&self, app: &Base, running: bool) {
        let frame = Frame::SessionStatus(SessionStatusFrame {
            session_id: self.id.clone(),
            running,
            waiting: Some(running && self.is_waiting()),
            updated_at: Some(self.updated_at()),
        });
        app.hub.host(app.hub.out(&frame));
    }

    /// Commits `ev` (with `updates` in the same transaction), then broadcasts it on the mux.
    /// The caller holds the log lock, so seqs stay contiguous and frames leave in order.
    pub fn append_locked(
        &self,
        app: &Base,
        log: &mut LogState,
        ev: NewEvent,
        updates: &[SessionUpdate],
    ) -> Result<SessionEvent, AppendError> {
        if self.removed.load(Ordering::SeqCst) {
            return Err(AppendError::Removed);
        }
        let seq = (log.last_seq + 1) as u64;
        let time = now_ms();
        let data = match ev.data {
            Data::Tree(v) => Json::from_value(&v),
            Data::Text(j) => j,
        };
        let data = bound_depth(&self.id, &ev.kind, data);
        // Every member is written here; the update keeps a member added for the client alone
        // (absent from what this host writes) a one-place change in `wire/src/event.rs`.
        #[allow(clippy::needless_update)]
        let event = SessionEvent {
            kind: ev.kind.to_string(),
            seq,
            time,
            data: data.into(),
            source_event_seqs: ev.source_event_seqs.map(|v| v.into_iter().map(|s| s as f64).collect()),
            surface_op: ev.surface_op.map(|s| Value::String(s.to_string()).into()),
            ..SessionEvent::default()
        };
        app.store.append(self.pk, &event, updates).map_err(AppendError::Store)?;
        for u in updates {
            if let SessionUpdate::Title(t) = u {
                self.set_title(log, Some(TitleState { title: t.clone(), event_seq: seq, updated_at: time }));
            }
        }
        log.last_seq = seq as i64;
        self.last_seq.store(seq as i64, Ordering::SeqCst);
        self.updated_at.store(time.to_bits(), Ordering::Relaxed);
        let frame = Frame::Event(EventFrame { session_id: self.id.clone(), event: event.clone(), view: None });
        if !app.faults.as_ref().is_some_and(|f| f.take_skip_mux_event()) {
            app.hub.mux(app.hub.out(&frame));
        }
        Ok(event)
    }

    /// Appends one event under a short-lived log lock.
    pub async fn append(&self, app: &Base, ev: NewEvent) -> Result<SessionEvent, AppendError> {
        let mut log = self.log.lock().await;
        self.append_locked(app, &mut log, ev, &[])
    }

    /// Bulk append for load checks: one transaction, no broadcast.
    pub async fn seed_silent(
        &self,
        app: &Base,
        make: impl Fn(u64) -> (&'static str, Value),
        count: u64,
    ) -> Result<i64, AppendError> {
        let mut log = self.log.lock().await;
        if self.removed.load(Ordering::SeqCst) {
            return Err(AppendError::Removed);
        }
        let first = (log.last_seq + 1) as u64;
        let time = now_ms();
        let events: Vec<SessionEvent> = (first..first + count)
            .map(|seq| {
                let (kind, data) = make(seq);
                SessionEvent::new(kind, seq, time, data)
            })
            .collect();
        app.store.append_many(self.pk, &events).map_err(AppendError::Store)?;
        log.last_seq = (first + count) as i64 - 1;
        self.last_seq.store(log.last_seq, Ordering::SeqCst);
        self.updated_at.store(time.to_bits(), Ordering::Relaxed);
        Ok(log.last_seq)
    }

    /// A fork's seed: the parent's events, committed in one transaction and broadcast in order.
    pub async fn seed_events(&self, app: &Base, events: &[SessionEvent]) -> Result<(), AppendError> {
        let mut log = self.log.lock().await;
        if self.removed.load(Ordering::SeqCst) || log.last_seq != -1 {
            return Err(AppendError::Removed);
        }
        app.store.append_many(self.pk, events).map_err(AppendError::Store)?;
        let Some(last) = events.last() else { return Ok(()) };
        log.last_seq = last.seq as i64;
        log.turn = events.iter().filter(|e| e.kind == "turn/start").count() as u64;
        self.last_seq.store(log.last_seq, Ordering::SeqCst);
        self.updated_at.store(now_ms().to_bits(), Ordering::Relaxed);
        for event in events {
            let frame = Frame::Event(EventFrame { session_id: self.id.clone(), event: event.clone(), view: None });
            app.hub.mux(app.hub.out(&frame));
        }
        Ok(())
    }

    /// Forgets the log (store reset keeping sessions).
    pub fn clear_log(&self, log: &mut LogState) {
        let kept: BTreeMap<String, Value> = std::mem::take(&mut log.projections)
            .into_iter()
            .filter(|(k, _)| k == PROJ_CAPABILITIES || k == PROJ_MODE)
            .collect();
        let provider = log.provider.take().map(|mut p| {
            p.waiters.clear();
            p
        });
        *log = LogState { projections: kept, provider, ..LogState::empty() };
        self.set_title(log, None);
        self.last_seq.store(-1, Ordering::SeqCst);
    }
}

pub type SessionRef = Arc<Session>;

/// Marks the running turn as waiting on the user while alive; the first wait and the last
/// one's end each announce a `host/session-status`.
pub struct Waiting<'a> {
    app: &'a Base,
    s: &'a Session,
}

impl<'a> Waiting<'a> {
    pub fn start(app: &'a Base, s: &'a Session) -> Waiting<'a> {
        if s.waiting.fetch_add(1, Ordering::SeqCst) == 0 {
            s.publish_status(app, true);
        }
        Waiting { app, s }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.s.waiting.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.s.publish_status(self.app, true);
        }
    }
}
