//! The workspace registry of the 2026-08 dialect: workspaces over existing directories in a
//! durable display order, each with its manually ordered sessions, and the host-wide archive
//! set. The rules are upstream's (`dsh-workspace` at b150a551b8): a new workspace goes first,
//! a session attached at create goes first in its workspace, moves are DOM-`insertBefore`-like
//! and a move to where an item already is changes nothing (no write, no frame).
//!
//! The whole registry is small; it is kept in memory and written whole, in one transaction,
//! after each change (`Store::save_registry`).

use crate::log::store::{err, Store, StoreError, StoreResult};
use rusqlite::params;

/// One workspace row (upstream's `WorkspaceView` less the filtering of unknown sessions).
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    pub id: String,
    /// Canonical directory path.
    pub path: String,
    pub title: String,
    /// Accounted sessions, in manual order.
    pub session_ids: Vec<String>,
    /// ISO-8601.
    pub created_at: String,
    /// ISO-8601, the last mutation.
    pub updated_at: String,
}

/// Workspaces in display order, and the archive set in archive order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registry {
    pub workspaces: Vec<Workspace>,
    pub archived: Vec<String>,
}

/// Why a registry change was refused (each is one of upstream's business codes).
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// `workspace-not-found`, naming the missing id.
    NotFound(String),
    /// `workspace-name-conflict`, naming the title.
    NameConflict(String),
    /// `workspace-move-invalid`, with upstream's sentence.
    MoveInvalid(String),
}

/// DOM `insertBefore` on a list of ids: `id` moved before `before` (to the end without one).
/// `None` when that is where it already is.
fn insert_before(ids: &[String], id: &str, before: Option<&str>) -> Option<Vec<String>> {
    if before == Some(id) {
        return None;
    }
    let mut without: Vec<String> = ids.iter().filter(|i| *i != id).cloned().collect();
    let at = match before {
        Some(b) => without.iter().position(|i| i == b)?,
        None => without.len(),
    };
    without.insert(at, id.to_string());
    (without != ids).then_some(without)
}

impl Registry {
    fn index(&self, id: &str) -> Result<usize, Refusal> {
        self.workspaces.iter().position(|w| w.id == id).ok_or_else(|| Refusal::NotFound(id.to_string()))
    }

    /// The workspace over `path` (canonical), or a new one titled by its basename, first in the
    /// order. `true`: created.
    pub fn create(&mut self, path: &str, now: &str) -> (Workspace, bool) {
        if let Some(w) = self.workspaces.iter().find(|w| w.path == path) {
            return (w.clone(), false);
        }
        let title = std::path::Path::new(path)
            .file_name()
            .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
        let w = Workspace {
            id: uuid::Uuid::new_v4().to_string(),
            path: path.to_string(),
            title,
            session_ids: Vec::new(),
            created_at: now.to_string(),
            updated_at: now.to_string(),
        };
        self.workspaces.insert(0, w.clone());
        (w, true)
    }

    pub fn get(&self, id: &str) -> Option<&Workspace> {
        self.workspaces.iter().find(|w| w.id == id)
    }

    /// Renames (`title` already trimmed); `false`: the title was already this one.
    pub fn rename(&mut self, id: &str, title: &str, now: &str) -> Result<(Workspace, bool), Refusal> {
        let at = self.index(id)?;
        if self.workspaces[at].title == title {
            return Ok((self.workspaces[at].clone(), false));
        }
        if self.workspaces.iter().any(|w| w.id != id && w.title == title) {
            return Err(Refusal::NameConflict(title.to_string()));
        }
        let w = &mut self.workspaces[at];
        w.title = title.to_string();
        w.updated_at = now.to_string();
        Ok((w.clone(), true))
    }

    /// Drops the registration only: the directory and the sessions stay.
    pub fn delete(&mut self, id: &str) -> Result<(), Refusal> {
        let at = self.index(id)?;
        self.workspaces.remove(at);
        Ok(())
    }

    /// Moves a workspace in the display order; the whole order, and whether it changed.
    pub fn insert_before(&mut self, id: &str, before: Option<&str>) -> Result<(Vec<String>, bool), Refusal> {
        self.index(id)?;
        if let Some(b) = before {
            self.index(b)?;
        }
        let ids: Vec<String> = self.workspaces.iter().map(|w| w.id.clone()).collect();
        let Some(order) = insert_before(&ids, id, before) else { return Ok((ids, false)) };
        self.workspaces.sort_by_key(|w| order.iter().position(|i| *i == w.id));
        Ok((order, true))
    }

    /// Moves an accounted session within its workspace; whether it changed.
    pub fn insert_session_before(
        &mut self,
        id: &str,
        session: &str,
        before: Option<&str>,
        now: &str,
    ) -> Result<(Workspace, bool), Refusal> {
        let at = self.index(id)?;
        let w = &mut self.workspaces[at];
        if !w.session_ids.iter().any(|s| s == session) {
            return Err(Refusal::MoveInvalid(format!(
                "cannot move session '{session}' in workspace '{}': the session is not accounted",
                w.path
            )));
        }
        if let Some(b) = before.filter(|b| !w.session_ids.iter().any(|s| s == b)) {
            return Err(Refusal::MoveInvalid(format!(
                "cannot move session '{session}' before '{b}' in workspace '{}': the anchor session is not accounted",
                w.path
            )));
        }
        let Some(ids) = insert_before(&w.session_ids, session, before) else { return Ok((w.clone(), false)) };
        w.session_ids = ids;
        w.updated_at = now.to_string();
        Ok((w.clone(), true))
    }

    /// Accounts a new session first in the workspace (`session.create {workspaceId}`).
    pub fn attach(&mut self, id: &str, session: &str, now: &str) -> Result<Workspace, Refusal> {
        let at = self.index(id)?;
        let w = &mut self.workspaces[at];
        if !w.session_ids.iter().any(|s| s == session) {
            w.session_ids.insert(0, session.to_string());
            w.updated_at = now.to_string();
        }
        Ok(w.clone())
    }

    /// Adds to the archive set; `false`: already archived.
    pub fn archive(&mut self, session: &str) -> bool {
        if self.archived.iter().any(|s| s == session) {
            return false;
        }
        self.archived.push(session.to_string());
        true
    }
}

/// `ms` since the epoch as ISO-8601 UTC with milliseconds (JavaScript's `toISOString`).
pub fn iso8601(ms: f64) -> String {
    let ms = ms.max(0.0) as i64;
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

impl Store {
    /// The registry as last saved.
    pub fn load_registry(&self) -> StoreResult<Registry> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT id, path, title, session_ids, created_at, updated_at FROM workspaces ORDER BY position")
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    Workspace {
                        id: r.get(0)?,
                        path: r.get(1)?,
                        title: r.get(2)?,
                        session_ids: Vec::new(),
                        created_at: r.get(4)?,
                        updated_at: r.get(5)?,
                    },
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(err)?;
        let mut workspaces = Vec::new();
        for row in rows {
            let (mut w, ids) = row.map_err(err)?;
            w.session_ids = serde_json::from_str(&ids).map_err(StoreError::CorruptRow)?;
            workspaces.push(w);
        }
        let mut stmt = conn.prepare("SELECT session_id FROM archived_sessions ORDER BY position").map_err(err)?;
        let archived = stmt.query_map([], |r| r.get(0)).map_err(err)?.collect::<Result<_, _>>().map_err(err)?;
        Ok(Registry { workspaces, archived })
    }

    /// Replaces the saved registry with `r`, in one transaction.
    pub fn save_registry(&self, r: &Registry) -> StoreResult<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM workspaces", []).map_err(err)?;
        tx.execute("DELETE FROM archived_sessions", []).map_err(err)?;
        for (i, w) in r.workspaces.iter().enumerate() {
            let ids = serde_json::to_string(&w.session_ids).map_err(StoreError::Encode)?;
            tx.execute(
                "INSERT INTO workspaces (id, position, path, title, session_ids, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![w.id, i as i64, w.path, w.title, ids, w.created_at, w.updated_at],
            )
            .map_err(err)?;
        }
        for (i, s) in r.archived.iter().enumerate() {
            tx.execute("INSERT INTO archived_sessions (position, session_id) VALUES (?1, ?2)", params![i as i64, s])
                .map_err(err)?;
        }
        tx.commit().map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(r: &Registry) -> Vec<&str> {
        r.workspaces.iter().map(|w| w.title.as_str()).collect()
    }

    #[test]
    fn workspaces_are_created_first_and_moved_like_insert_before() {
        let mut r = Registry::default();
        let (a, created) = r.create("/p/a", "t0");
        assert!(created);
        assert_eq!((a.title.as_str(), r.create("/p/a", "t1").1), ("a", false), "the same path resolves");
        let (b, _) = r.create("/p/b", "t0");
        let (c, _) = r.create("/q/c", "t0");
        assert_eq!(ids(&r), ["c", "b", "a"]);
        assert!(r.insert_before(&c.id, None).unwrap().1);
        assert_eq!(ids(&r), ["b", "a", "c"]);
        assert_eq!(r.insert_before(&c.id, Some(&b.id)).unwrap().0, [c.id.clone(), b.id.clone(), a.id.clone()]);
        assert!(!r.insert_before(&b.id, Some(&a.id)).unwrap().1, "already before it");
        assert!(!r.insert_before(&b.id, Some(&b.id)).unwrap().1);
        assert_eq!(r.insert_before(&b.id, Some("nope")), Err(Refusal::NotFound("nope".into())));
        assert_eq!(r.rename(&a.id, "c", "t2"), Err(Refusal::NameConflict("c".into())));
        assert!(!r.rename(&a.id, "a", "t2").unwrap().1, "same title: no change");
        r.delete(&b.id).unwrap();
        assert_eq!(r.delete(&b.id), Err(Refusal::NotFound(b.id.clone())));
    }

    #[test]
    fn sessions_attach_first_and_move_only_when_accounted() {
        let mut r = Registry::default();
        let (w, _) = r.create("/p/a", "t0");
        r.attach(&w.id, "s1", "t1").unwrap();
        let w2 = r.attach(&w.id, "s2", "t2").unwrap();
        assert_eq!(w2.session_ids, ["s2", "s1"]);
        let (moved, changed) = r.insert_session_before(&w.id, "s2", None, "t3").unwrap();
        assert_eq!(
            (moved.session_ids.clone(), changed, moved.updated_at.as_str()),
            (vec!["s1".into(), "s2".into()], true, "t3")
        );
        assert!(!r.insert_session_before(&w.id, "s1", Some("s2"), "t4").unwrap().1);
        assert!(matches!(r.insert_session_before(&w.id, "s9", None, "t4"), Err(Refusal::MoveInvalid(_))));
        assert!(matches!(r.insert_session_before(&w.id, "s1", Some("s9"), "t4"), Err(Refusal::MoveInvalid(_))));
        assert!(r.archive("s1") && !r.archive("s1"));
    }

    #[test]
    fn times_are_written_as_javascript_writes_them() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_796_100_000_123.0), "2026-12-01T04:40:00.123Z");
        assert_eq!(iso8601(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn the_registry_is_saved_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).unwrap();
        assert_eq!(store.load_registry().unwrap(), Registry::default());
        let mut r = Registry::default();
        let (a, _) = r.create("/p/a", "t0");
        r.create("/p/b", "t0");
        r.attach(&a.id, "s1", "t1").unwrap();
        r.archive("s1");
        store.save_registry(&r).unwrap();
        assert_eq!(store.load_registry().unwrap(), r);
    }
}
