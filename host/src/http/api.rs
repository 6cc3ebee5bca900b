//! Unary endpoints: `POST /api/<method>` and `POST /api/respond`.
//!
//! Carrier errors are plain text, as the origin's (404 unknown method, 400 body not JSON, 413
//! too large);
//! everything else is HTTP 200: a `server-response` envelope echoing the rpcId, or for
//! `/api/respond` the bare receipt.

use crate::agent::{self, provider};
use crate::app::App;
use crate::dialect;
use crate::http::check::payload;
use crate::http::head;
use crate::http::history;
use crate::http::rpc::{self, internal, invalid_payload};
use crate::http::verbs::Refusal;
use crate::log::plan;
use crate::tickets::STREAM_TICKET;
use agent_session_wire::interaction::{AnswerPayload, SESSION_ANSWER};
use agent_session_wire::{
    self as wire, ClientResponse, HostDescription, ListPayload, ListValue, PromptPayload, Receipt, ReceiptReason,
    RpcError, RpcResult, SessionRef, SessionSummary, SetPlanModePayload,
};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;

pub type BodyResult = Result<Bytes, axum::extract::rejection::BytesRejection>;

fn to_value<T: serde::Serialize>(v: T) -> RpcResult<Value> {
    serde_json::to_value(v).map_err(internal)
}

pub async fn call(State(app): State<Arc<App>>, Path(method): Path<String>, body: BodyResult) -> Response {
    let body = match rpc::body(body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    // Like the origin: the body must be JSON before the method is looked up.
    let Ok(v) = serde_json::from_slice::<Value>(&body) else { return rpc::not_json() };
    if head::claims(&app, &method, &v) {
        return head::call(&app, &method, &v).await;
    }
    if !wire::METHODS.contains(&method.as_str()) && method != SESSION_ANSWER {
        return rpc::not_found();
    }
    // The 2026-08 host has no plan RPCs: its plan state is the `plan` projection.
    if app.options.wire.is_upstream() && (method == wire::SESSION_PLAN_MODE || method == wire::SESSION_SET_PLAN_MODE) {
        return rpc::not_found();
    }
    let rpc_id = rpc::rpc_id_of(&v);
    let result = match rpc::request_payload(&v, &method) {
        Ok(payload) if method == wire::SESSION_HISTORY => history(&app, &payload).await,
        Ok(payload) => dispatch(&app, &method, &rpc_id, &payload).await.map(wire::Json::from),
        Err(e) => Err(e),
    };
    rpc::respond_json(&rpc_id, result)
}

/// `session.history`, written without a `Value` tree: the page carries its events as the store
/// holds them, and a tree refuses some of what an agent may write (a lone surrogate escape, a
/// number past `f64`), which failed the whole page.
async fn history(app: &Arc<App>, p: &Value) -> RpcResult<wire::Json> {
    let p: wire::HistoryPayload = payload(wire::SESSION_HISTORY, p)?;
    let s = app.session(&p.session_id)?;
    wire::Json::try_from_serialize(&history::page(app, &s, &p).await?).map_err(internal)
}

/// `describe`, `list` and `create` take an all-optional payload: a missing one reads as `{}`.
fn optional_payload(p: &Value) -> Value {
    if p.is_null() {
        json!({})
    } else {
        p.clone()
    }
}

/// The seed's methods (and the 2026-08 verbs both dialects speak, answered here with the
/// seed's errors; `http::head` answers them in the 2026-08 dialect).
async fn dispatch(app: &Arc<App>, method: &str, rpc_id: &str, p: &Value) -> RpcResult<Value> {
    match method {
        wire::HOST_DESCRIBE => {
            let _: Value = payload(method, &optional_payload(p))?;
            let (provider, model) = app.agent.describe();
            // The 2026-08 description adds `home` and `canOpenPath` (this host hands no path
            // to a desktop); a client tells the generations apart by them.
            let upstream = app.options.wire.is_upstream();
            to_value(HostDescription {
                version: env!("CARGO_PKG_VERSION").to_string(),
                cwd: std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
                provider: Some(provider),
                model: Some(model),
                attached_sessions: app.sessions().len() as u64,
                home: upstream.then(|| std::env::var("HOME").unwrap_or_default()),
                can_open_path: upstream.then_some(false),
            })
        }
        wire::SESSION_LIST => {
            let _: ListPayload = payload(method, &optional_payload(p))?;
            // Newest first; `sessions()` is in creation order, so reversing it before the
            // stable sort makes sessions updated in the same millisecond list newest first too.
            let mut items: Vec<SessionSummary> = app
                .sessions()
                .iter()
                .rev()
                .map(|s| {
                    let title = s.title().map(|t| t.title);
                    let mut item = SessionSummary {
                        session_id: s.id.clone(),
                        updated_at: s.updated_at(),
                        running: s.is_running(),
                        parent_session_id: s.parent_id().map(str::to_owned),
                        cwd: s.cwd.clone(),
                        origin: s.subagent().is_some().then(|| crate::log::children::ORIGIN_SUBAGENT.into()),
                        title: None,
                        waiting: Some(s.is_running() && s.is_waiting()),
                        projections: None,
                    };
                    // The 2026-08 host lists the title only in the projection block.
                    match app.options.wire.is_upstream() {
                        true => item.projections = Some(dialect::summary_projections(title)),
                        false => item.title = title,
                    }
                    item
                })
                .collect();
            items.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
            to_value(ListValue { items })
        }
        wire::SESSION_CREATE => crate::http::verbs::create(app, &optional_payload(p)),
        wire::SESSION_PROMPT => {
            let p: PromptPayload = payload(method, p)?;
            // The seed's schema has no `clientTimeZone`: none is kept.
            crate::http::attachments::prompt(app, rpc_id, p, None).await.map_err(Refusal::seed)
        }
        wire::SESSION_CANCEL => {
            let p: SessionRef = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            agent::cancel(app, &s).await;
            Ok(json!({ "accepted": true }))
        }
        wire::SESSION_PLAN_MODE => {
            let p: SessionRef = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            if !app.options.plan_mode {
                return Ok(Value::Null);
            }
            let state = s.log.lock().await.plan.state();
            Ok(plan::value(state))
        }
        wire::SESSION_SET_PLAN_MODE => {
            let p: SetPlanModePayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            if !app.options.plan_mode {
                return Ok(Value::Null);
            }
            Ok(plan::value(plan::select(app, &s, p.active).await.map_err(internal)?))
        }
        wire::SESSION_RENAME => {
            let p: wire::RenamePayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            crate::http::verbs::rename(app, &s, &p.title).await.map_err(Refusal::seed)
        }
        wire::SESSION_FORK => {
            let p: wire::ForkPayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            crate::http::verbs::fork(app, &s, p.at_seq).await.map_err(Refusal::seed)
        }
        wire::SESSION_UPDATE_QUEUE => {
            let p: wire::UpdateQueuePayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            crate::http::verbs::update_queue(app, &s, &p.item_id, &p.action.value()).await.map_err(Refusal::seed)
        }
        wire::SESSION_ATTACHMENT => {
            let p: wire::AttachmentPayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            crate::http::attachments::read(app, &s, &p.attachment_id).map_err(Refusal::seed)
        }
        SESSION_ANSWER => {
            let p: AnswerPayload = payload(method, p)?;
            let s = app.session(&p.session_id)?;
            to_value(provider::answer(app, &s, p).await.map_err(internal)?)
        }
        _ => Err(internal(format!("no handler for {method}"))),
    }
}

/// `POST /api/respond`: a client-response answering a question/approval frame's rpcId. Like
/// the origin, the answer is the bare receipt (no envelope): `bad-response` for JSON that is
/// not a valid client-response, 400 for a body that is not JSON at all.
pub async fn respond(State(app): State<Arc<App>>, body: BodyResult) -> Response {
    let body = match rpc::body(body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(v) = serde_json::from_slice::<Value>(&body) else { return rpc::not_json() };
    let receipt =
        match rpc::check_envelope(&v, "client-response").and_then(|()| payload::<ClientResponse>("respond", &v)) {
            Err(_) => Receipt::refused(ReceiptReason::BadResponse),
            Ok(response) => match app.interactions.answer(&response.rpc_id, response.result) {
                Ok(()) => Receipt::accepted(),
                Err(reason) => Receipt::refused(reason),
            },
        };
    Json(receipt).into_response()
}

/// `POST /api/stream.ticket` (payload `{}`): `{ticket, expiresInMs}`.
pub async fn stream_ticket(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(v) = serde_json::from_slice::<Value>(&body) else { return rpc::not_json() };
    let rpc_id = rpc::rpc_id_of(&v);
    let result = rpc::check_envelope(&v, "client-request").and_then(|()| {
        match v.get("method").and_then(Value::as_str) {
            Some(STREAM_TICKET) => {}
            other => {
                return Err(RpcError::bad_request(
                    format!("method {:?} does not match path {STREAM_TICKET:?}", other.unwrap_or_default()),
                    vec![],
                ))
            }
        }
        match v.get("payload") {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(_) => return Err(invalid_payload(STREAM_TICKET, vec![rpc::issue(vec![], "expected object")])),
        }
        let ticket = app.tickets.mint().map_err(rpc::internal)?;
        Ok(json!({ "ticket": ticket, "expiresInMs": app.tickets.ttl().as_millis() as u64 }))
    });
    rpc::respond(&rpc_id, result)
}
