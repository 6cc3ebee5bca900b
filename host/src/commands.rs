//! `POST /api/commands/execute` and `/api/commands/list` as today's upstream host takes them
//! (`--wire 2026-08` only): `{args: {agentId, line, images}}` / `{args: {agentId}}`. `/plan`
//! and `/plan off` are plan selections; a line this host does not know answers `{ok: true}`
//! with no value, as upstream does.

use crate::api::BodyResult;
use crate::app::App;
use crate::rpc::{self, internal};
use crate::{dialect, plan};
use agent_session_wire::RpcResult;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

const EXECUTE: &str = "commands/execute";
const LIST: &str = "commands/list";

/// `POST /api/commands/execute`.
pub async fn execute(State(app): State<Arc<App>>, body: BodyResult) -> Response {
    unary(&app, body, EXECUTE).await
}

/// `POST /api/commands/list`: `[{name, description}]`, `plan` only when the plan service is on.
pub async fn list(State(app): State<Arc<App>>, body: BodyResult) -> Response {
    unary(&app, body, LIST).await
}

async fn unary(app: &App, body: BodyResult, path: &str) -> Response {
    let body = match rpc::body(body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(v) = serde_json::from_slice::<Value>(&body) else { return rpc::not_json() };
    if !dialect::is_upstream() {
        return rpc::not_found();
    }
    let rpc_id = rpc::rpc_id_of(&v);
    let result = match rpc::request_payload(&v, path) {
        Err(e) => Err(e),
        Ok(payload) if path == EXECUTE => run(app, &payload).await,
        Ok(payload) => commands(app, &payload).map(Some),
    };
    match result {
        // A void result omits `value`, as upstream writes it.
        Ok(None) => {
            let body = json!({ "type": "server-response", "rpcId": rpc_id, "result": { "ok": true } }).to_string();
            ([(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Ok(Some(value)) => rpc::respond(&rpc_id, Ok(value)),
        Err(e) => rpc::respond(&rpc_id, Err(e)),
    }
}

/// The `args` object of a remote command payload, as upstream requires it.
fn args(payload: &Value) -> RpcResult<&Value> {
    match payload.as_object() {
        Some(p) if p.len() == 1 && p.get("args").is_some_and(Value::is_object) => Ok(&p["args"]),
        _ => Err(internal("Remote payload must contain exactly one plain-object args field")),
    }
}

fn commands(app: &App, payload: &Value) -> RpcResult<Value> {
    let agent_id = args(payload)?.get("agentId").and_then(Value::as_str).unwrap_or_default();
    app.session(agent_id)?;
    let mut list = vec![json!({ "name": "compact", "description": "Compact older conversation history" })];
    if app.options.plan_mode {
        list.push(json!({ "name": "plan", "description": "Plan before acting: /plan, /plan off" }));
    }
    Ok(Value::Array(list))
}

async fn run(app: &App, payload: &Value) -> RpcResult<Option<Value>> {
    let args = args(payload)?;
    let agent_id = args.get("agentId").and_then(Value::as_str).unwrap_or_default();
    let session = app.session(agent_id)?;
    let line = args.get("line").and_then(Value::as_str).unwrap_or_default().trim();
    let active = match line {
        "/plan" | "/plan on" => true,
        "/plan off" => false,
        _ => return Ok(None),
    };
    if !app.options.plan_mode {
        return Ok(None); // the plan command is not mounted: unknown, like upstream's minimal preset
    }
    plan::select(app, &session, active).await.map_err(internal)?;
    let command_id = format!("cmd-{}", uuid::Uuid::new_v4());
    Ok(Some(
        json!({ "commandId": command_id, "result": { "kind": "success", "text": dialect::plan_command_text(active) } }),
    ))
}
