//! Carrier-level helpers: the client-request envelope check, payload schema errors in the
//! origin's `details.issues[]` shape, and the plain-text carrier errors.

use agent_session_wire::{server_response_text, Json, RpcError, RpcResult};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub fn text(status: StatusCode, body: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain;charset=UTF-8")], body).into_response()
}

pub fn not_found() -> Response {
    text(StatusCode::NOT_FOUND, "not found")
}

pub async fn not_found_handler() -> Response {
    not_found()
}

pub fn not_json() -> Response {
    text(StatusCode::BAD_REQUEST, "body is not JSON")
}

/// 413 in the same shape as the other carrier errors (not axum's own wording and type).
pub fn too_large() -> Response {
    text(StatusCode::PAYLOAD_TOO_LARGE, "body too large (limit 1 MiB)")
}

/// The request body, or the carrier error for one that could not be read: 413 above the
/// limit, 400 otherwise.
// The error is the handler's own response (axum returns it as is): boxing it buys nothing.
#[allow(clippy::result_large_err)]
pub fn body(
    b: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<axum::body::Bytes, Response> {
    b.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            text(StatusCode::BAD_REQUEST, "body could not be read")
        }
    })
}

/// A `server-response` envelope echoing `rpc_id`.
pub fn respond(rpc_id: &str, result: RpcResult<Value>) -> Response {
    respond_json(rpc_id, result.map(Json::from))
}

/// The same for a value kept as text (a history page: its events go out as stored).
pub fn respond_json(rpc_id: &str, result: RpcResult<Json>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], server_response_text(rpc_id, &result)).into_response()
}

/// Echoed when an envelope has no readable `rpcId`: the answer must still be a valid
/// server-response (the origin's fixed sentinel).
pub const INVALID_REQUEST_RPC_ID: &str = "invalid-request";

/// The envelope's `rpcId`, or the sentinel when it has no string one.
pub fn rpc_id_of(v: &Value) -> String {
    v.get("rpcId").and_then(Value::as_str).unwrap_or(INVALID_REQUEST_RPC_ID).to_string()
}

pub fn issue(path: Vec<Value>, message: impl Into<String>) -> Value {
    json!({ "code": "invalid_type", "path": path, "message": message.into() })
}

/// Checks `type` and `rpcId` of an inbound envelope.
pub fn check_envelope(v: &Value, kind: &str) -> Result<(), RpcError> {
    let mut issues = Vec::new();
    if v.get("type").and_then(Value::as_str) != Some(kind) {
        issues.push(issue(vec![json!("type")], format!("expected \"{kind}\"")));
    }
    if !v.get("rpcId").is_some_and(Value::is_string) {
        issues.push(issue(vec![json!("rpcId")], "expected string"));
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(RpcError::bad_request(format!("invalid {kind} message"), issues))
    }
}

/// The payload of a `client-request` envelope posted to `/api/<method>`: the envelope's
/// `type`, `rpcId` and a `method` equal to the path are checked first (a missing payload
/// reads as `null`).
pub fn request_payload(v: &Value, method: &str) -> Result<Value, RpcError> {
    check_envelope(v, "client-request")?;
    match v.get("method").and_then(Value::as_str) {
        Some(m) if m == method => Ok(v.get("payload").cloned().unwrap_or(Value::Null)),
        other => Err(RpcError::bad_request(
            format!("method {:?} does not match path {:?}", other.unwrap_or_default(), method),
            vec![],
        )),
    }
}

pub fn invalid_payload(method: &str, issues: Vec<Value>) -> RpcError {
    RpcError::bad_request(format!("invalid payload for {method}"), issues)
}

pub fn custom_issue(path: Vec<Value>, message: &str) -> Value {
    json!({ "code": "custom", "path": path, "message": message })
}

pub fn internal(e: impl std::fmt::Display) -> RpcError {
    RpcError::new(agent_session_wire::ErrorCode::Internal, e.to_string(), json!({}))
}
