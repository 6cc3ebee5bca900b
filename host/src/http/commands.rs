//! `POST /api/commands/execute` and `/api/commands/list` as the 2026-08 host takes them
//! (`--wire 2026-08` only): `{args: {agentId, line, images}}` / `{args: {agentId}}`. `/plan`
//! and `/plan off` are plan selections (committed at once while no turn runs, as upstream
//! does), `/feedback <text>` takes arguments; each run is logged as `command/run` …
//! `command/done`. A line this host does not know answers `{ok: true}` with no value, as
//! upstream does.

use crate::app::App;
use crate::dialect;
use crate::http::api::BodyResult;
use crate::http::rpc::{self, internal};
use crate::log::plan;
use crate::log::session::NewEvent;
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
    if !app.options.wire.is_upstream() {
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
    let mut list = vec![
        json!({ "name": "compact", "description": "Compact older conversation history" }),
        json!({ "name": "feedback", "description": "record feedback about this session", "input": { "hint": "<text>" } }),
    ];
    if app.options.plan_mode {
        list.push(json!({ "name": "plan", "description": "Enter or leave plan mode", "input": { "hint": "[off]" } }));
    }
    Ok(Value::Array(list))
}

/// A command line this host runs: `/plan`, `/plan off`, `/feedback <text>`, `/compact`.
enum Line<'a> {
    Plan(bool),
    Feedback(&'a str),
    Compact,
}

fn parse_line(line: &str) -> Option<(&str, &str, Line<'_>)> {
    let rest = line.trim().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).map_or((rest, ""), |(n, a)| (n, a.trim()));
    let parsed = match (name, args) {
        ("plan", "" | "on") => Line::Plan(true),
        ("plan", "off") => Line::Plan(false),
        ("feedback", text) if !text.is_empty() => Line::Feedback(text),
        ("compact", "") => Line::Compact,
        _ => return None,
    };
    Some((name, args, parsed))
}

/// Runs one line as upstream does: `command/run` is logged, the handler runs (its state
/// changes reach the streams first), `command/done` is logged, then the answer is sent.
async fn run(app: &App, payload: &Value) -> RpcResult<Option<Value>> {
    let args = args(payload)?;
    let agent_id = args.get("agentId").and_then(Value::as_str).unwrap_or_default();
    let session = app.session(agent_id)?;
    let line = args.get("line").and_then(Value::as_str).unwrap_or_default();
    let Some((name, arg_text, parsed)) = parse_line(line) else { return Ok(None) };
    if matches!(parsed, Line::Plan(_)) && !app.options.plan_mode {
        return Ok(None); // the plan command is not mounted: unknown, like upstream's minimal preset
    }
    let command_id = format!("cmd-{}", uuid::Uuid::new_v4());
    let run = json!({ "commandId": command_id, "name": name, "args": arg_text, "source": { "kind": "user" } });
    session.append(app, NewEvent::new("command/run", run)).await.map_err(internal)?;
    let text = match parsed {
        Line::Plan(active) => {
            plan::select(app, &session, active).await.map_err(internal)?;
            plan::commit_if_idle(app, &session).await.map_err(internal)?;
            dialect::plan_command_text(active).to_string()
        }
        Line::Feedback(text) => format!("Thanks for the feedback ({} bytes).", text.len()),
        Line::Compact => "Nothing to compact.".to_string(),
    };
    let result = json!({ "kind": "success", "text": text });
    let done = json!({ "commandId": command_id, "kind": "success", "text": text });
    session.append(app, NewEvent::new("command/done", done)).await.map_err(internal)?;
    Ok(Some(json!({ "commandId": command_id, "result": result })))
}
