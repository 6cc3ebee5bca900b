//! Where a session comes from, kept in SQLite (`lineage`, one row per child) so a restart keeps
//! it: a fork's parent, and for a subagent (2026-08 dialect) its durable identity too: upstream
//! lists `origin: 'subagent'` children by `parentSessionId` and reads their `mode` and `label`
//! from the child's `subagent/descriptor`, so the catalog must outlive the process.

use crate::log::store::{err, Store, StoreResult};
use rusqlite::{params, OptionalExtension};

/// A subagent's lifecycle mode, as upstream's descriptor names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One run whose result returns to the parent's tool call; never prompted again.
    OneShot,
    /// A conversation `subagent.prompt` continues.
    Continuable,
}

impl Mode {
    /// Upstream's word (`one-shot`, `continuable`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::OneShot => "one-shot",
            Mode::Continuable => "continuable",
        }
    }

    /// The mode upstream's word names.
    pub fn parse(word: &str) -> Option<Mode> {
        match word {
            "one-shot" => Some(Mode::OneShot),
            "continuable" => Some(Mode::Continuable),
            _ => None,
        }
    }
}

/// A subagent child's identity: what `subagent.list` answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent {
    pub mode: Mode,
    /// The delegation's short description (required upstream for a continuable child).
    pub label: Option<String>,
}

/// A child session's parent, and its subagent identity when a subagent spawned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    pub parent_id: String,
    /// `None`: a fork's child (an ordinary session).
    pub subagent: Option<Subagent>,
}

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS lineage (
    sid INTEGER PRIMARY KEY,
    parent_id TEXT NOT NULL,
    origin TEXT,
    mode TEXT,
    label TEXT
);
";

impl Store {
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
}

/// The stored lineage of session `pk`, if it is a child.
pub(super) fn lineage_of(conn: &rusqlite::Connection, pk: i64) -> StoreResult<Option<Lineage>> {
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
