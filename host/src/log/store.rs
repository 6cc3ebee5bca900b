//! Durable session log in SQLite.
//!
//! WAL journal with `synchronous=NORMAL`: a commit is a `write()` into the WAL file, so it
//! survives `kill -9` of the host (the OS page cache still holds it); only an OS crash or
//! power loss can drop the last commits. That is the failure model of a local dev host, and
//! it keeps appends cheap enough to stream chunks one transaction each.
//!
//! Events are keyed by `(sid, seq)` (a clustered WITHOUT ROWID table), and message-kind rows
//! carry a partial index so a history page finds its message boundary by walking at most
//! `maxMessages` index entries, whatever the log length.

use crate::log::lineage::{Lineage, Mode, Subagent};
use agent_session_wire::interaction::{PROJ_CAPABILITIES, PROJ_MODE};
use agent_session_wire::{is_message_kind, Frame, SessionEvent, TitleFrame};
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

#[derive(Debug)]
pub enum StoreError {
    Sqlite(rusqlite::Error),
    /// An event that does not serialize.
    Encode(serde_json::Error),
    /// A stored event row that does not parse.
    CorruptRow(serde_json::Error),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "store: {e}"),
            StoreError::Encode(e) => write!(f, "store: {e}"),
            StoreError::CorruptRow(e) => write!(f, "store: corrupt event row: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

pub type StoreResult<T> = Result<T, StoreError>;

pub(super) fn err(e: rusqlite::Error) -> StoreError {
    StoreError::Sqlite(e)
}

pub struct Store {
    conn: Mutex<Connection>,
}

/// A session row plus what the runtime rebuilds from its log at startup.
pub struct LoadedSession {
    pub pk: i64,
    pub id: String,
    pub cwd: Option<String>,
    pub provider: Option<String>,
    pub created_at: f64,
    /// From the last `session/title` event (its seq and time travel in `session/title` frames).
    pub title: Option<TitleState>,
    pub plan_pending: Option<bool>,
    pub last_seq: i64,
    pub last_time: Option<f64>,
    /// Data of the last event of each of these kinds, if any.
    pub last_plan_mode: Option<Value>,
    pub last_turn_start: Option<(i64, Value)>,
    pub last_turn_end_seq: Option<i64>,
    pub last_request_header: Option<Value>,
    /// Extension projections of a provider session (`projections` table).
    pub projections: std::collections::BTreeMap<String, Value>,
    /// A child's parent (and subagent identity), from the `lineage` table.
    pub lineage: Option<Lineage>,
}

/// The latest accepted title and its `session/title` event: what a `session/title` frame says.
#[derive(Debug, Clone, PartialEq)]
pub struct TitleState {
    pub title: String,
    pub event_seq: u64,
    pub updated_at: f64,
}

impl TitleState {
    pub fn frame(&self, session_id: &str) -> Frame {
        Frame::Title(TitleFrame {
            session_id: session_id.to_string(),
            title: self.title.clone(),
            event_seq: self.event_seq,
            updated_at: self.updated_at,
        })
    }
}

/// One stored image (`id` is `sha256:<hex>` of `data`).
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub id: String,
    pub media_type: String,
    pub width: u64,
    pub height: u64,
    pub name: Option<String>,
    pub data: Vec<u8>,
}

/// Session-row changes committed in the same transaction as an event.
pub enum SessionUpdate {
    Title(String),
    PlanPending(Option<bool>),
    /// Upserts one projection value of the session.
    Projection(String, Value),
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    cwd TEXT,
    provider TEXT,
    created_at REAL NOT NULL,
    title TEXT,
    plan_pending INTEGER
);
CREATE TABLE IF NOT EXISTS agent_threads (
    sid INTEGER PRIMARY KEY,
    thread TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS queues (
    sid INTEGER PRIMARY KEY,
    items TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    sid INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    is_msg INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (sid, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_msg ON events (sid, seq) WHERE is_msg = 1;
CREATE INDEX IF NOT EXISTS events_kind ON events (sid, kind, seq);
CREATE TABLE IF NOT EXISTS attachments (
    sid INTEGER NOT NULL,
    id TEXT NOT NULL,
    media_type TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    name TEXT,
    data BLOB NOT NULL,
    PRIMARY KEY (sid, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS projections (
    sid INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (sid, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    session_ids TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS archived_sessions (
    position INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS lineage (
    sid INTEGER PRIMARY KEY,
    parent_id TEXT NOT NULL,
    origin TEXT,
    mode TEXT,
    label TEXT
);
CREATE TABLE IF NOT EXISTS model_selections (
    sid INTEGER PRIMARY KEY,
    selection TEXT NOT NULL
);
";

impl Store {
    pub fn open(path: &Path) -> StoreResult<Store> {
        let conn = Connection::open(path).map_err(err)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        Ok(Store { conn: Mutex::new(conn) })
    }

    /// A poisoned lock only means another request panicked mid-call; SQLite's own
    /// transactions keep the data consistent, so the connection stays usable.
    pub(super) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn create_session(
        &self,
        id: &str,
        cwd: Option<&str>,
        provider: Option<&str>,
        created_at: f64,
    ) -> StoreResult<i64> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO sessions (id, cwd, provider, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, cwd, provider, created_at],
        )
        .map_err(err)?;
        Ok(conn.last_insert_rowid())
    }

    pub fn load_sessions(&self) -> StoreResult<Vec<LoadedSession>> {
        let conn = self.conn();
        let mut rows = {
            let mut stmt = conn
                .prepare(
                    "SELECT pk, id, cwd, provider, created_at, plan_pending
                     FROM sessions ORDER BY created_at, pk",
                )
                .map_err(err)?;
            let mapped = stmt
                .query_map([], |r| {
                    Ok(LoadedSession {
                        pk: r.get(0)?,
                        id: r.get(1)?,
                        cwd: r.get(2)?,
                        provider: r.get(3)?,
                        created_at: r.get(4)?,
                        title: None,
                        plan_pending: r.get::<_, Option<i64>>(5)?.map(|v| v != 0),
                        last_seq: -1,
                        last_time: None,
                        last_plan_mode: None,
                        last_turn_start: None,
                        last_turn_end_seq: None,
                        last_request_header: None,
                        projections: Default::default(),
                        lineage: None,
                    })
                })
                .map_err(err)?;
            mapped.collect::<Result<Vec<_>, _>>().map_err(err)?
        };
        for s in &mut rows {
            if let Some((seq, body)) = last_of(&conn, s.pk, None)? {
                s.last_seq = seq;
                s.last_time = serde_json::from_str::<SessionEvent>(&body).ok().map(|e| e.time);
            }
            s.title = last_of(&conn, s.pk, Some("session/title"))?.and_then(|(_, b)| title_of(&b));
            s.last_plan_mode = last_of(&conn, s.pk, Some("plan/mode"))?.and_then(|(_, b)| data_of(&b));
            s.last_turn_start =
                last_of(&conn, s.pk, Some("turn/start"))?.and_then(|(seq, b)| data_of(&b).map(|d| (seq, d)));
            s.last_turn_end_seq = last_of(&conn, s.pk, Some("turn/end"))?.map(|(seq, _)| seq);
            s.last_request_header = last_of(&conn, s.pk, Some("request/header"))?.and_then(|(_, b)| data_of(&b));
            s.projections = projections_of(&conn, s.pk)?;
            s.lineage = lineage_of(&conn, s.pk)?;
        }
        Ok(rows)
    }

    /// Appends one event (and any session-row changes) in one transaction.
    pub fn append(&self, pk: i64, event: &SessionEvent, updates: &[SessionUpdate]) -> StoreResult<()> {
        let body = serde_json::to_string(event).map_err(StoreError::Encode)?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        tx.execute(
            "INSERT INTO events (sid, seq, kind, is_msg, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![pk, event.seq as i64, event.kind, is_message_kind(&event.kind) as i64, body],
        )
        .map_err(err)?;
        for u in updates {
            apply_update(&tx, pk, u)?;
        }
        tx.commit().map_err(err)
    }

    /// Bulk append in a single transaction (seeding for load checks).
    pub fn append_many(&self, pk: i64, events: &[SessionEvent]) -> StoreResult<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        {
            let mut stmt = tx
                .prepare("INSERT INTO events (sid, seq, kind, is_msg, body) VALUES (?1, ?2, ?3, ?4, ?5)")
                .map_err(err)?;
            for event in events {
                let body = serde_json::to_string(event).map_err(StoreError::Encode)?;
                stmt.execute(params![pk, event.seq as i64, event.kind, is_message_kind(&event.kind) as i64, body])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// The agent thread a session's conversation lives in (a real agent's own id for it).
    pub fn agent_thread(&self, pk: i64) -> StoreResult<Option<String>> {
        let conn = self.conn();
        let thread = conn
            .prepare_cached("SELECT thread FROM agent_threads WHERE sid = ?1")
            .map_err(err)?
            .query_row(params![pk], |r| r.get(0))
            .optional()
            .map_err(err)?;
        Ok(thread)
    }

    /// Records the session's agent thread (replacing an earlier one).
    pub fn set_agent_thread(&self, pk: i64, thread: &str) -> StoreResult<()> {
        let conn = self.conn();
        conn.prepare_cached("INSERT INTO agent_threads (sid, thread) VALUES (?1, ?2) ON CONFLICT(sid) DO UPDATE SET thread = excluded.thread")
            .map_err(err)?
            .execute(params![pk, thread])
            .map_err(err)?;
        Ok(())
    }

    /// The prompts a session's queue held when it was last written (a JSON array), if any.
    pub fn queue(&self, pk: i64) -> StoreResult<Option<String>> {
        let conn = self.conn();
        let items = conn
            .prepare_cached("SELECT items FROM queues WHERE sid = ?1")
            .map_err(err)?
            .query_row(params![pk], |r| r.get(0))
            .optional()
            .map_err(err)?;
        Ok(items)
    }

    /// Records a session's whole queue (`None`: empty), so an accepted prompt that waits for
    /// a turn outlives a host restart.
    pub fn set_queue(&self, pk: i64, items: Option<&str>) -> StoreResult<()> {
        let conn = self.conn();
        match items {
            Some(items) => conn
                .prepare_cached("INSERT INTO queues (sid, items) VALUES (?1, ?2) ON CONFLICT(sid) DO UPDATE SET items = excluded.items")
                .map_err(err)?
                .execute(params![pk, items]),
            None => conn.prepare_cached("DELETE FROM queues WHERE sid = ?1").map_err(err)?.execute(params![pk]),
        }
        .map_err(err)?;
        Ok(())
    }

    /// The model a session was last switched to (`session.selectModel`), if any.
    pub fn model_selection(&self, pk: i64) -> StoreResult<Option<Value>> {
        let conn = self.conn();
        let text: Option<String> = conn
            .prepare_cached("SELECT selection FROM model_selections WHERE sid = ?1")
            .map_err(err)?
            .query_row(params![pk], |r| r.get(0))
            .optional()
            .map_err(err)?;
        text.map(|t| serde_json::from_str(&t).map_err(StoreError::CorruptRow)).transpose()
    }

    /// Records a session's model selection (replacing an earlier one).
    pub fn set_model_selection(&self, pk: i64, selection: &Value) -> StoreResult<()> {
        self.conn()
            .prepare_cached("INSERT INTO model_selections (sid, selection) VALUES (?1, ?2) ON CONFLICT(sid) DO UPDATE SET selection = excluded.selection")
            .map_err(err)?
            .execute(params![pk, selection.to_string()])
            .map_err(err)?;
        Ok(())
    }

    pub fn update_session(&self, pk: i64, update: &SessionUpdate) -> StoreResult<()> {
        let conn = self.conn();
        apply_update(&conn, pk, update)
    }

    /// One history page ending at `upper` (inclusive): it starts at the `max_messages`-th
    /// message counted back from `upper` (or at 0), and holds at most `max_events` events.
    /// Returns the events and the page's first seq.
    pub fn page(
        &self,
        pk: i64,
        upper: i64,
        max_messages: u32,
        max_events: u32,
    ) -> StoreResult<(Vec<SessionEvent>, i64)> {
        if upper < 0 {
            return Ok((Vec::new(), 0));
        }
        let conn = self.conn();
        let boundary: Option<i64> = conn
            .prepare_cached(
                "SELECT seq FROM events WHERE sid = ?1 AND is_msg = 1 AND seq <= ?2
                 ORDER BY seq DESC LIMIT 1 OFFSET ?3",
            )
            .map_err(err)?
            .query_row(params![pk, upper, max_messages.saturating_sub(1) as i64], |r| r.get(0))
            .optional()
            .map_err(err)?;
        let start = boundary.unwrap_or(0).max(upper - max_events as i64 + 1).max(0);
        let mut stmt = conn
            .prepare_cached("SELECT body FROM events WHERE sid = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq")
            .map_err(err)?;
        let bodies = stmt.query_map(params![pk, start, upper], |r| r.get::<_, String>(0)).map_err(err)?;
        let mut events = Vec::new();
        for body in bodies {
            let body = body.map_err(err)?;
            let event: SessionEvent = serde_json::from_str(&body).map_err(StoreError::CorruptRow)?;
            events.push(event);
        }
        Ok((events, start))
    }

    /// Keeps one image of session `pk` (the same bytes twice are one row).
    /// Whether the log of `pk` holds a prompt sent under envelope rpcId `rpc_id` (its
    /// `user/message` or `steering/message` names it in `source.rpcId`): what makes
    /// `session.prompt` idempotent across a restart.
    pub fn has_prompt(&self, pk: i64, rpc_id: &str) -> StoreResult<bool> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT 1 FROM events WHERE sid = ?1 AND kind IN ('user/message', 'steering/message') \
                 AND json_extract(body, '$.data.source.rpcId') = ?2 LIMIT 1",
            )
            .map_err(err)?;
        stmt.exists(rusqlite::params![pk, rpc_id]).map_err(err)
    }

    pub fn put_attachment(&self, pk: i64, a: &Image) -> StoreResult<()> {
        self.conn()
            .execute(
                "INSERT OR IGNORE INTO attachments (sid, id, media_type, width, height, name, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![pk, a.id, a.media_type, a.width as i64, a.height as i64, a.name, a.data],
            )
            .map_err(err)?;
        Ok(())
    }

    /// One image of session `pk`, if that session holds it.
    pub fn attachment(&self, pk: i64, id: &str) -> StoreResult<Option<Image>> {
        self.conn()
            .prepare_cached("SELECT media_type, width, height, name, data FROM attachments WHERE sid = ?1 AND id = ?2")
            .map_err(err)?
            .query_row(params![pk, id], |r| {
                Ok(Image {
                    id: id.to_string(),
                    media_type: r.get(0)?,
                    width: r.get::<_, i64>(1)? as u64,
                    height: r.get::<_, i64>(2)? as u64,
                    name: r.get(3)?,
                    data: r.get(4)?,
                })
            })
            .optional()
            .map_err(err)
    }

    /// A fork's child may read its parent's images.
    pub fn copy_attachments(&self, from: i64, to: i64) -> StoreResult<()> {
        self.conn()
            .execute(
                "INSERT OR IGNORE INTO attachments (sid, id, media_type, width, height, name, data)
                 SELECT ?2, id, media_type, width, height, name, data FROM attachments WHERE sid = ?1",
                params![from, to],
            )
            .map_err(err)?;
        Ok(())
    }

    /// A child session's row and its lineage, in one transaction: a restart never finds a
    /// child without its parent.
    pub fn create_child_session(
        &self,
        id: &str,
        cwd: Option<&str>,
        provider: Option<&str>,
        created_at: f64,
        lineage: &Lineage,
    ) -> StoreResult<i64> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        tx.execute(
            "INSERT INTO sessions (id, cwd, provider, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, cwd, provider, created_at],
        )
        .map_err(err)?;
        let pk = tx.last_insert_rowid();
        let sub = lineage.subagent.as_ref();
        tx.execute(
            "INSERT INTO lineage (sid, parent_id, origin, mode, label) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                pk,
                lineage.parent_id,
                sub.map(|_| "subagent"),
                sub.map(|s| s.mode.name()),
                sub.and_then(|s| s.label.as_deref())
            ],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(pk)
    }

    /// Fault injection: the host "loses its log". With `keep_sessions` only the events go
    /// (and the per-session state they imply).
    pub fn reset(&self, keep_sessions: bool) -> StoreResult<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM events", []).map_err(err)?;
        tx.execute("DELETE FROM attachments", []).map_err(err)?;
        tx.execute("DELETE FROM queues", []).map_err(err)?;
        if keep_sessions {
            // A provider session keeps what it is (capabilities) and the mode it is in.
            tx.execute("DELETE FROM projections WHERE key NOT IN (?1, ?2)", params![PROJ_CAPABILITIES, PROJ_MODE])
                .map_err(err)?;
            tx.execute("UPDATE sessions SET title = NULL, plan_pending = NULL", []).map_err(err)?;
        } else {
            tx.execute("DELETE FROM sessions", []).map_err(err)?;
            tx.execute("DELETE FROM agent_threads", []).map_err(err)?;
            tx.execute("DELETE FROM projections", []).map_err(err)?;
            tx.execute("DELETE FROM model_selections", []).map_err(err)?;
            tx.execute("DELETE FROM lineage", []).map_err(err)?;
        }
        tx.commit().map_err(err)
    }
}

fn apply_update(conn: &Connection, pk: i64, u: &SessionUpdate) -> StoreResult<()> {
    match u {
        SessionUpdate::Title(t) => conn.execute("UPDATE sessions SET title = ?1 WHERE pk = ?2", params![t, pk]),
        SessionUpdate::PlanPending(p) => {
            conn.execute("UPDATE sessions SET plan_pending = ?1 WHERE pk = ?2", params![p.map(|b| b as i64), pk])
        }
        SessionUpdate::Projection(key, value) => conn.execute(
            "INSERT INTO projections (sid, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT (sid, key) DO UPDATE SET value = excluded.value",
            params![pk, key, value.to_string()],
        ),
    }
    .map(|_| ())
    .map_err(err)
}

/// The last event of a session (optionally of one kind), via the primary key or kind index.
fn last_of(conn: &Connection, pk: i64, kind: Option<&str>) -> StoreResult<Option<(i64, String)>> {
    let row = match kind {
        None => conn
            .query_row("SELECT seq, body FROM events WHERE sid = ?1 ORDER BY seq DESC LIMIT 1", params![pk], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional(),
        Some(k) => conn
            .query_row(
                "SELECT seq, body FROM events WHERE sid = ?1 AND kind = ?2 ORDER BY seq DESC LIMIT 1",
                params![pk, k],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional(),
    };
    row.map_err(err)
}

fn projections_of(conn: &Connection, pk: i64) -> StoreResult<std::collections::BTreeMap<String, Value>> {
    let mut stmt = conn.prepare("SELECT key, value FROM projections WHERE sid = ?1").map_err(err)?;
    let rows = stmt.query_map(params![pk], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(err)?;
    let mut out = std::collections::BTreeMap::new();
    for row in rows {
        let (key, value) = row.map_err(err)?;
        if let Ok(v) = serde_json::from_str(&value) {
            out.insert(key, v);
        }
    }
    Ok(out)
}

fn title_of(body: &str) -> Option<TitleState> {
    let e = serde_json::from_str::<SessionEvent>(body).ok()?;
    let title = e.data.value().get("title")?.as_str()?.to_string();
    Some(TitleState { title, event_seq: e.seq, updated_at: e.time })
}

fn data_of(body: &str) -> Option<Value> {
    serde_json::from_str::<SessionEvent>(body).ok().map(|e| e.data.value())
}

/// The stored lineage of session `pk`, if it is a child.
fn lineage_of(conn: &rusqlite::Connection, pk: i64) -> StoreResult<Option<Lineage>> {
    let row = conn
        .query_row("SELECT parent_id, origin, mode, label FROM lineage WHERE sid = ?1", [pk], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, Option<String>>(2)?, r.get(3)?))
        })
        .optional()
        .map_err(err)?;
    Ok(row.map(|(parent_id, origin, mode, label)| {
        let subagent = origin
            .filter(|o| o == "subagent")
            .map(|_| Subagent { mode: mode.as_deref().and_then(Mode::parse).unwrap_or(Mode::OneShot), label });
        Lineage { parent_id, subagent }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, kind: &str) -> SessionEvent {
        SessionEvent::new(kind, seq, 1.0, json!({}))
    }

    #[test]
    fn boundary_query_uses_the_partial_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).unwrap();
        let conn = store.conn();
        let plan: Vec<String> = conn
            .prepare(
                "EXPLAIN QUERY PLAN SELECT seq FROM events WHERE sid = 1 AND is_msg = 1 AND seq <= 5
                 ORDER BY seq DESC LIMIT 1 OFFSET 3",
            )
            .unwrap()
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert!(plan.iter().any(|p| p.contains("events_msg")), "{plan:?}");
    }

    #[test]
    fn pages_start_on_the_nth_message_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).unwrap();
        let pk = store.create_session("s", None, None, 0.0).unwrap();
        let kinds = ["turn/start", "user/message", "assistant/chunk", "assistant/message", "turn/end"];
        let events: Vec<_> = (0..10).map(|i| ev(i, kinds[i as usize % 5])).collect();
        store.append_many(pk, &events).unwrap();
        // messages at 1, 3, 6, 8
        let (page, start) = store.page(pk, 9, 2, 1000).unwrap();
        assert_eq!((start, page.len()), (6, 4));
        let (page, start) = store.page(pk, 5, 2, 1000).unwrap();
        assert_eq!((start, page.len()), (1, 5));
        let (_, start) = store.page(pk, 9, 50, 1000).unwrap();
        assert_eq!(start, 0);
        let (page, start) = store.page(pk, 9, 50, 3).unwrap();
        assert_eq!((start, page.len()), (7, 3));
    }
}
