//! `subagent.list`, `subagent.history`, `subagent.prompt` and `subagent.interrupt`: the
//! catalog of a parent's `origin: 'subagent'` children (stored, `crate::log::lineage`) and
//! the continuation of a continuable one, with upstream's payloads, values and codes:
//! - an address that is not a direct child of that parent in that mode is `subagent-not-found
//!   {parentSessionId, childSessionId}` (history, prompt);
//! - `subagent.prompt` to a parent this host does not hold is `subagent-parent-unavailable
//!   {parentSessionId}`; the prompt is a new scripted turn in the child (queued behind a running
//!   one), and `messageId` is its inbox id (the `session/queue` item's id);
//! - `subagent.interrupt` never consults the catalog: a live child of another parent is
//!   `subagent-unauthorized {childSessionId}`; an absent, idle or one-shot target is accepted
//!   as a no-op; it returns without waiting for the turn to end, and keeps the queue.

use super::answer::{Answer, Refused};
use crate::app::App;
use crate::http::check::payload;
use crate::http::history;
use crate::http::rpc::internal;
use crate::log::lineage::Mode;
use crate::log::session::{Prompt, SessionRef};
use agent_session_wire::PromptMode;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Address {
    parent_session_id: String,
    #[serde(default)]
    child_session_id: String,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    content: Vec<Value>,
    #[serde(default)]
    client_time_zone: Option<String>,
}

/// The parent's direct subagent children, oldest first (upstream: `createdAt`, then id).
fn children(app: &App, parent: &str) -> Vec<SessionRef> {
    let mut all: Vec<SessionRef> =
        app.sessions().into_iter().filter(|s| s.subagent().is_some() && s.parent_id() == Some(parent)).collect();
    all.sort_by(|a, b| a.created_at.total_cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    all
}

fn entry(app: &App, s: &SessionRef) -> Value {
    let identity = s.subagent().expect("a subagent child");
    let has_children = app.sessions().iter().any(|c| c.subagent().is_some() && c.parent_id() == Some(&s.id));
    let mut e = json!({ "kind": "child", "id": s.id, "mode": identity.mode.name(),
        "activity": if s.is_running() { "running" } else { "inactive" }, "hasChildren": has_children });
    if let Some(label) = &identity.label {
        e["label"] = json!(label);
    }
    e
}

/// Upstream's `catalogChild`: the child, when it is a direct child of the parent in `mode`.
fn catalog_child(app: &App, a: &Address, mode: &str) -> Result<SessionRef, Refused> {
    children(app, &a.parent_session_id)
        .into_iter()
        .find(|c| c.id == a.child_session_id && c.subagent().is_some_and(|s| s.mode.name() == mode))
        .ok_or_else(|| {
            Refused::new(
                "subagent-not-found",
                format!(
                    "session \"{}\" is not a {mode} direct child of \"{}\"",
                    a.child_session_id, a.parent_session_id
                ),
                json!({ "parentSessionId": a.parent_session_id, "childSessionId": a.child_session_id }),
            )
        })
}

pub async fn dispatch(app: &Arc<App>, method: &str, rpc_id: &str, p: &Value) -> Answer {
    let a: Address = payload(method, p)?;
    match method {
        "subagent.list" => {
            let entries: Vec<Value> = children(app, &a.parent_session_id).iter().map(|c| entry(app, c)).collect();
            Ok(json!({ "entries": entries, "parentAvailable": app.session(&a.parent_session_id).is_ok() }))
        }
        "subagent.history" => {
            let child = catalog_child(app, &a, &a.mode)?;
            let mut page = p.clone();
            if let Some(o) = page.as_object_mut() {
                o.retain(|k, _| k == "beforeSeq" || k == "maxMessages");
                o.insert("sessionId".into(), json!(child.id));
            }
            let page: agent_session_wire::HistoryPayload = payload(agent_session_wire::SESSION_HISTORY, &page)?;
            let value = history::page(app, &child, &page).await?;
            Ok(serde_json::to_value(value).map_err(internal)?)
        }
        "subagent.prompt" => {
            let zone = super::zone::client_time_zone(a.client_time_zone.clone())?;
            if app.session(&a.parent_session_id).is_err() {
                return Err(Refused::new(
                    "subagent-parent-unavailable",
                    format!("parent session \"{}\" is not live", a.parent_session_id),
                    json!({ "parentSessionId": a.parent_session_id }),
                ));
            }
            let child = catalog_child(app, &a, Mode::Continuable.name())?;
            let prompt = Prompt { client_time_zone: zone, ..Prompt::new(a.content, rpc_id.to_string()) };
            let message_id = prompt.id.clone();
            crate::agent::prompt(&app.base, &app.agent, &child, PromptMode::Queue, prompt).await?;
            Ok(json!({ "messageId": message_id }))
        }
        "subagent.interrupt" => {
            if let Ok(child) = app.session(&a.child_session_id) {
                if child.subagent().is_some() && child.parent_id() != Some(a.parent_session_id.as_str()) {
                    return Err(Refused::new(
                        "subagent-unauthorized",
                        "subagent does not belong to this parent",
                        json!({ "childSessionId": a.child_session_id }),
                    ));
                }
                if child.subagent().is_some_and(|s| s.mode == Mode::Continuable) {
                    let app = app.clone();
                    tokio::spawn(async move { crate::agent::cancel(&app, &child).await });
                }
            }
            Ok(json!({ "accepted": true }))
        }
        _ => Err(internal(format!("no handler for {method}")).into()),
    }
}
