//! A child session: a fork's (`session.fork`) or a subagent's (the scripted agent's
//! `subagent` tool). It takes its parent's cwd and provider, its lineage is stored with its row,
//! the roster holds it, and `host/session-added` announces it with its `parentSessionId` (and,
//! for a subagent, upstream's `origin: 'subagent'`, a member the wire crate's frame type does
//! not carry). Also what a one-shot subagent child answers its parent with (`final_text`).

use crate::log::base::Base;
use crate::log::lineage::{Lineage, Subagent};
use crate::log::roster::Roster;
use crate::log::session::{now_ms, LogState, Session, SessionRef};
use crate::log::store::StoreError;
use agent_session_wire::{Frame, SessionAddedFrame};
use serde_json::Value;
use std::sync::Arc;

pub fn create_child(
    app: &Base,
    roster: &Roster,
    parent: &Session,
    subagent: Option<Subagent>,
) -> Result<SessionRef, StoreError> {
    let id = format!("session-{}", uuid::Uuid::new_v4());
    let created_at = now_ms();
    let lineage = Lineage { parent_id: parent.id.clone(), subagent };
    let pk =
        app.store.create_child_session(&id, parent.cwd.as_deref(), parent.provider.as_deref(), created_at, &lineage)?;
    let session = Arc::new(Session::new(
        id.clone(),
        pk,
        parent.cwd.clone(),
        parent.provider.clone(),
        created_at,
        LogState::empty(),
        created_at,
    ));
    let origin = lineage.subagent.is_some();
    let _ = session.lineage.set(lineage);
    roster.insert(session.clone());
    let added = SessionAddedFrame {
        session_id: id,
        parent_session_id: Some(parent.id.clone()),
        cwd: session.cwd.clone(),
        origin: origin.then(|| ORIGIN_SUBAGENT.into()),
        updated_at: Some(created_at),
    };
    app.hub.host(app.hub.out(&Frame::SessionAdded(added)));
    Ok(session)
}

/// The `origin` of a child a turn spawned, in the live list and its `host/session-added`.
pub const ORIGIN_SUBAGENT: &str = "subagent";

/// The text of the child's last assistant message (upstream's one-shot `output`).
pub fn final_text(app: &Base, child: &Session) -> Option<String> {
    let upper = child.last_seq.load(std::sync::atomic::Ordering::SeqCst);
    let (events, _) = app.store.page(child.pk, upper, 1, u32::MAX).ok()?;
    let message = events.iter().rev().find(|e| e.kind == "assistant/message")?;
    let content = message.data_value()["content"].clone();
    let text: Vec<String> =
        content.as_array()?.iter().filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned)).collect();
    Some(text.join(""))
}
