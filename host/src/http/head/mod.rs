//! The 2026-08 methods beyond the seed's verbs, spoken with `--wire 2026-08` only (the seed
//! host answers them as any unknown method: 404 `not found`): `session.search` (`search`),
//! `session.models` and `session.selectModel` (`models`), the `workspace.*` registry and
//! `session.create {workspaceId}` (`workspaces`), the `subagent.*` catalog and continuation
//! (`subagents`). Names, payloads and error codes are
//! upstream's at b150a551b8.
//!
//! Their refusals carry upstream's own codes (`workspace-not-found`, `model-unavailable`, …),
//! which the wire crate's closed `ErrorCode` set reads as `internal`; so this module writes
//! its answers itself ([`Refused`]), in the same `server-response` envelope. For the same
//! reason it answers the session verbs both dialects speak ([`VERBS`], `http::verbs`) in the
//! 2026-08 dialect: with upstream's `title-invalid`, `fork-unavailable` and
//! `queue-item-not-found` where the seed answers `bad-request`.

mod answer;
mod models;
mod search;
mod subagents;
mod workspaces;
mod zone;

use answer::{Answer, Refused};

use crate::app::App;
use crate::http::attachments;
use crate::http::check::payload;
use crate::http::rpc;
use crate::http::verbs::{self, Refusal};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

/// The methods this module answers.
pub const METHODS: &[&str] = &[
    "session.search",
    "session.models",
    "session.selectModel",
    "workspace.list",
    "workspace.create",
    "workspace.rename",
    "workspace.delete",
    "workspace.insertBefore",
    "workspace.insertSessionBefore",
    "workspace.archiveSession",
    "subagent.list",
    "subagent.history",
    "subagent.prompt",
    "subagent.interrupt",
];

/// The session verbs of `http::verbs`, and the prompt and attachment methods whose refusals
/// have upstream codes of their own (`attachment-error`, `invalid-time-zone`), answered here
/// in the 2026-08 dialect (by `http::api` in the seed's).
pub const VERBS: &[&str] = &[
    agent_session_wire::SESSION_RENAME,
    agent_session_wire::SESSION_FORK,
    agent_session_wire::SESSION_UPDATE_QUEUE,
    agent_session_wire::SESSION_PROMPT,
    agent_session_wire::SESSION_ATTACHMENT,
];

/// Whether this module answers `method` with payload-carrying envelope `v` on this host: its
/// methods, the session verbs and `session.create` naming a workspace, in the 2026-08 dialect.
pub fn claims(app: &App, method: &str, v: &Value) -> bool {
    app.options.wire.is_upstream()
        && (METHODS.contains(&method)
            || VERBS.contains(&method)
            || (method == agent_session_wire::SESSION_CREATE
                && v.get("payload").is_some_and(|p| p.get("workspaceId").is_some())))
}

/// `POST /api/<method>` for a claimed method: the envelope checked, the method answered.
pub async fn call(app: &Arc<App>, method: &str, v: &Value) -> Response {
    let rpc_id = rpc::rpc_id_of(v);
    let result = match rpc::request_payload(v, method) {
        Ok(p) => dispatch(app, method, &rpc_id, &p).await,
        Err(e) => Err(e.into()),
    };
    let result = match result {
        Ok(value) => json!({ "ok": true, "value": value }),
        Err(Refused(error)) => json!({ "ok": false, "error": error }),
    };
    let body = json!({ "type": "server-response", "rpcId": rpc_id, "result": result });
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn dispatch(app: &Arc<App>, method: &str, rpc_id: &str, p: &Value) -> Answer {
    match method {
        m if m.starts_with("subagent.") => subagents::dispatch(app, method, rpc_id, p).await,
        "session.search" => search::search(app, p),
        "session.models" => models::models(app, p).await,
        "session.selectModel" => models::select(app, p).await,
        agent_session_wire::SESSION_CREATE => workspaces::create_session(app, p),
        agent_session_wire::SESSION_RENAME => {
            let p: agent_session_wire::RenamePayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            Ok(verbs::rename(app, &s, &p.title).await?)
        }
        agent_session_wire::SESSION_FORK => {
            let p: agent_session_wire::ForkPayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            Ok(verbs::fork(app, &s, p.at_seq).await?)
        }
        agent_session_wire::SESSION_UPDATE_QUEUE => {
            let p: agent_session_wire::UpdateQueuePayload = payload(method, p)?;
            // As upstream: a non-text edit is refused before anything is looked up.
            verbs::text_only_edit(&p.action.value())?;
            // As upstream: a session with no live agent holds no pending item.
            let Ok(s) = app.session(&p.session_id) else {
                return Err(Refusal::queue_item_not_found(&p.item_id).into());
            };
            Ok(verbs::update_queue(app, &s, &p.item_id, &p.action.value()).await?)
        }
        agent_session_wire::SESSION_PROMPT => {
            let mut p: agent_session_wire::PromptPayload = payload(method, p)?;
            let zone = zone::client_time_zone(p.client_time_zone.take())?;
            Ok(attachments::prompt(app, rpc_id, p, zone).await?)
        }
        agent_session_wire::SESSION_ATTACHMENT => {
            let p: agent_session_wire::AttachmentPayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            Ok(attachments::read(app, &s, &p.attachment_id)?)
        }
        _ => workspaces::dispatch(app, method, p),
    }
}
