//! The 2026-08 session verbs over the one SQLite log: `session.rename`,
//! `session.updateQueue` and `session.fork` (upstream's names and shapes at b150a551b8; spoken in both dialects).
//!
//! Their own refusals ([`Refusal::Verb`]) are written per dialect: the seed answers
//! `bad-request` with its own message; `--wire 2026-08` (through `http::head`, which writes
//! codes outside the wire crate's closed set) answers upstream's code, message and details:
//! `title-invalid {sessionId}`, `fork-unavailable {sessionId}`, `queue-item-not-found {itemId}`.
//! Upstream's `agent-busy` on these verbs fences session-backed subagents only; this host
//! does not fence its subagent children (`http::head::subagents`) here yet, so it never
//! answers it.

use crate::agent::publish_queue;
use crate::app::App;
use crate::http::check::payload;
use crate::http::rpc::{custom_issue, internal, invalid_payload};
use crate::log::session::{NewEvent, Session, SessionRef};
use crate::log::store::SessionUpdate;
use crate::providers::registry::Provider;
use agent_session_wire::{self as wire, RpcResult};
use agent_session_wire::{RpcError, SessionEvent};
use serde_json::{json, Value};
use std::sync::Arc;

/// Why a verb refused.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The same in both dialects (a failure of the host, an unknown session, a bad payload).
    Rpc(RpcError),
    /// The verb's own refusal: `bad-request` with `seed` in the seed dialect; `code` with
    /// `upstream` and `details` in the 2026-08 dialect.
    Verb { code: &'static str, seed: String, upstream: String, details: Value },
}

impl Refusal {
    /// The seed dialect's answer.
    pub fn seed(self) -> RpcError {
        match self {
            Refusal::Rpc(e) => e,
            Refusal::Verb { seed, .. } => RpcError::bad_request(seed, vec![]),
        }
    }

    /// Upstream's `attachment-error {reason}` (its message `upstream`), `seed` in the seed
    /// dialect: a refused image, or an edit that is not text.
    pub fn attachment(reason: &str, seed: impl Into<String>, upstream: &str) -> Refusal {
        Refusal::Verb {
            code: "attachment-error",
            seed: seed.into(),
            upstream: upstream.to_string(),
            details: json!({ "reason": reason }),
        }
    }

    /// Upstream's answer when the queue holds no item `item_id` (it took it, or it never was).
    pub fn queue_item_not_found(item_id: &str) -> Refusal {
        Refusal::Verb {
            code: "queue-item-not-found",
            seed: format!("queue item {item_id:?} not found"),
            upstream: "queued item is no longer pending".to_string(),
            details: json!({ "itemId": item_id }),
        }
    }
}

impl From<RpcError> for Refusal {
    fn from(e: RpcError) -> Refusal {
        Refusal::Rpc(e)
    }
}

/// Upstream's title budget, in UTF-8 bytes.
pub const MAX_TITLE_BYTES: usize = 80;

/// Upstream's normalization: control and directional characters dropped, whitespace runs
/// collapsed to one space, trimmed, cut at [`MAX_TITLE_BYTES`] on a character boundary.
pub fn normalize_title(input: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in input.chars() {
        let invisible = matches!(c, '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}');
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c.is_control() || invisible {
            continue;
        }
        if std::mem::take(&mut space) {
            out.push(' ');
        }
        if out.len() + c.len_utf8() > MAX_TITLE_BYTES {
            break;
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out
}

/// `session.rename {sessionId, title}` → `{title, seq}`: a user-sourced `session/title` event.
pub async fn rename(app: &App, s: &Session, title: &str) -> Result<Value, Refusal> {
    let title = normalize_title(title);
    if title.is_empty() {
        return Err(Refusal::Verb {
            code: "title-invalid",
            seed: "session title is empty after normalization".to_string(),
            upstream: "session title must contain visible characters".to_string(),
            details: json!({ "sessionId": s.id }),
        });
    }
    let mut log = s.log.lock().await;
    let data = json!({ "title": title, "source": { "kind": "user" } });
    let ev = s
        .append_locked(app, &mut log, NewEvent::new("session/title", data), &[SessionUpdate::Title(title.clone())])
        .map_err(internal)?;
    drop(log);
    if let Some(t) = s.title() {
        app.hub.mux(app.hub.out(&t.frame(&s.id)));
    }
    Ok(json!({ "title": title, "seq": ev.seq }))
}

/// Upstream's rule for an edit: text content only (`attachment-error {reason:
/// 'QUEUE_EDIT_NON_TEXT'}`), checked before the item is looked up.
#[allow(clippy::result_large_err)] // a refusal is made once per refused request, never in a loop
pub fn text_only_edit(action: &Value) -> Result<(), Refusal> {
    let blocks = action.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if action.get("kind").and_then(Value::as_str) == Some("edit")
        && blocks.iter().any(|b| b.get("type").and_then(Value::as_str) != Some("text"))
    {
        let words = "queue edits accept text content only";
        return Err(Refusal::attachment("QUEUE_EDIT_NON_TEXT", words, words));
    }
    Ok(())
}

/// `session.updateQueue {sessionId, itemId, action}`: edit, remove or steer one queued prompt;
/// the next `session/queue` frame is the result.
pub async fn update_queue(app: &App, s: &Session, item_id: &str, action: &Value) -> Result<Value, Refusal> {
    text_only_edit(action)?;
    let mut ctl = s.ctl.lock().await;
    let Some(at) = ctl.queue.iter().position(|p| p.id == item_id) else {
        return Err(Refusal::queue_item_not_found(item_id));
    };
    match action.get("kind").and_then(Value::as_str) {
        Some("edit") => {
            let content = match action.get("content") {
                Some(Value::Array(c))
                    if !c.is_empty() && c.iter().all(|b| b.get("type").is_some_and(Value::is_string)) =>
                {
                    c.clone()
                }
                _ => {
                    return Err(RpcError::bad_request("edit needs content: a non-empty array of blocks", vec![]).into())
                }
            };
            ctl.queue[at].content = content;
        }
        Some("remove") => {
            ctl.queue.remove(at);
        }
        // As upstream: only a running turn takes steering.
        Some("steer") if !ctl.running => {
            return Err(Refusal::Verb {
                code: "steer-unavailable",
                seed: "no running turn to steer".into(),
                upstream: "current turn no longer accepts steering".into(),
                details: json!({ "itemId": item_id }),
            });
        }
        Some("steer") => {
            // The prompt goes next and ends the running turn, as a `steer` prompt does.
            let p = ctl.queue.remove(at).expect("found above");
            ctl.queue.push_front(p);
            if let Some(tx) = &ctl.interrupt {
                tx.send_replace(true);
            }
        }
        _ => return Err(RpcError::bad_request("action.kind must be 'edit', 'remove' or 'steer'", vec![]).into()),
    }
    publish_queue(app, s, &ctl.queue);
    Ok(json!({ "accepted": true }))
}

/// Where a fork cuts `events` (upstream's rule): after the `turn/end` of the turn holding
/// `at_seq` (the last completed turn without it), extended through standalone events up to
/// the next `turn/start`. `None`: no such completed turn.
pub fn fork_cut(events: &[SessionEvent], at_seq: Option<u64>) -> Option<usize> {
    let last = events.last().map_or(-1, |e| e.seq as i64);
    let anchored = at_seq.and_then(|at| events.iter().find(|e| e.kind == "turn/end" && e.seq >= at));
    let boundary = match anchored {
        Some(b) => b,
        None if at_seq.is_none_or(|at| at as i64 > last) => events.iter().rev().find(|e| e.kind == "turn/end")?,
        None => return None,
    };
    let mut cut = boundary.seq as usize + 1;
    while cut < events.len() && events[cut].kind != "turn/start" {
        cut += 1;
    }
    Some(cut)
}

/// `session.fork {sessionId, atSeq?}` → `{sessionId}`: a child whose log is the parent's up to
/// the cut, then `session/end-seed`; it shares the parent's cwd, provider and images.
pub async fn fork(app: &App, s: &SessionRef, at_seq: Option<u64>) -> Result<Value, Refusal> {
    let upper = s.log.lock().await.last_seq;
    let (events, start) = app.store.page(s.pk, upper, u32::MAX, u32::MAX).map_err(internal)?;
    debug_assert_eq!(start, 0);
    let Some(cut) = fork_cut(&events, at_seq) else {
        let none = format!("session {:?} has no completed turn to fork from", s.id);
        // Upstream names the anchor when it lies in the log (its turn is still open).
        let upstream = match at_seq.filter(|at| events.last().is_some_and(|e| *at <= e.seq)) {
            Some(at) => format!("session \"{}\" has not completed the turn containing event {at}", s.id),
            None => format!("session \"{}\" has no completed turn to fork from", s.id),
        };
        return Err(Refusal::Verb {
            code: "fork-unavailable",
            seed: none,
            upstream,
            details: json!({ "sessionId": s.id }),
        });
    };
    let child = app.create_child(s).map_err(internal)?;
    let seed = &events[..cut];
    child.seed_events(app, seed).await.map_err(internal)?;
    app.store.copy_attachments(s.pk, child.pk).map_err(internal)?;
    let title = s.title().map(|t| t.title);
    let mut log = child.log.lock().await;
    let updates: Vec<SessionUpdate> = title.into_iter().map(SessionUpdate::Title).collect();
    child.append_locked(app, &mut log, NewEvent::new("session/end-seed", json!({})), &updates).map_err(internal)?;
    drop(log);
    if let Some(t) = child.title() {
        app.hub.mux(app.hub.out(&t.frame(&child.id)));
    }
    Ok(json!({ "sessionId": child.id }))
}

/// `session.create` (an all-optional payload, `{}` when missing): a session for `cwd` and the
/// `provider` asked for. Here because `http::head`'s `session.create {workspaceId}` makes one
/// too.
pub fn create(app: &Arc<App>, p: &Value) -> RpcResult<Value> {
    let method = wire::SESSION_CREATE;
    let p: wire::CreatePayload = payload(method, p)?;
    let issue = |m: &str| invalid_payload(method, vec![custom_issue(vec![json!("provider")], m)]);
    let asked = Provider::parse(p.provider.as_deref()).map_err(|e| issue(&e.to_string()))?;
    let provider = app.agent.session_provider(asked).map_err(|m| issue(&m))?;
    let s = app.create_session(p.cwd, provider.map(|p| p.name().to_string())).map_err(internal)?;
    serde_json::to_value(wire::CreateValue { session_id: s.id.clone() }).map_err(internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_normalized_as_upstream_does() {
        assert_eq!(normalize_title("  Hello \t\n  plan\u{7}\u{200B} "), "Hello plan");
        assert_eq!(normalize_title("\u{1b}\u{0}   "), "");
        let long = "é".repeat(60);
        let t = normalize_title(&long);
        assert_eq!((t.len(), t.chars().count()), (80, 40), "cut on a character boundary at 80 bytes");
    }

    #[test]
    fn a_fork_cuts_after_the_completed_turn_holding_its_anchor() {
        let kinds =
            ["user/message", "turn/start", "assistant/message", "turn/end", "session/title", "turn/start", "turn/end"];
        let events: Vec<SessionEvent> =
            kinds.iter().enumerate().map(|(i, k)| SessionEvent::new(*k, i as u64, 1.0, json!({}))).collect();
        assert_eq!(fork_cut(&events, Some(2)), Some(5), "through the title, up to the next turn/start");
        assert_eq!(fork_cut(&events, None), Some(7));
        assert_eq!(fork_cut(&events, Some(99)), Some(7), "past the end: the last completed turn");
        assert_eq!(fork_cut(&events[..3], Some(1)), None, "the anchor's turn has not completed");
    }
}
